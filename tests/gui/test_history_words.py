"""The History dock's words changed and tokens per changed word (t/word), beside the
tokens re-embedded: sorting by t/word puts the small edits that cost most on top."""

from PySide6.QtCore import QPoint, Qt
from steadlith_core.history.repository import resolve_revision

from steadlith_gui.widgets.history_view import COLUMNS


def open_with_history(qtbot, window, root):
    a = resolve_revision(str(root), "doc.md", "HEAD~1")
    b = resolve_revision(str(root), "doc.md", "HEAD")
    with qtbot.waitSignal(window.history_ctl.costs_ready, timeout=60_000):
        window.documents_ctl.load_files(a, b)


def column_texts(model, name):
    return [model.index(r, COLUMNS.index(name)).data() for r in range(model.rowCount())]


def test_history_shows_words_changed_and_tokens_per_word_and_sorts_by_them(qtbot, window, history):
    root, _repo, ids, _texts = history
    open_with_history(qtbot, window, root)
    view, state, model = window.history, window.history.state, window.history.model
    header = view.table.horizontalHeader()
    for name in ("Words", "t/word"):
        col = COLUMNS.index(name)
        assert not view.table.isColumnHidden(col) and model.headerData(col, Qt.Orientation.Horizontal) == name
    costs = [state.costs[c.commit]["tttd-v1"] for c in state.commits]
    assert column_texts(model, "Words") == [f"{c.words_changed:,}" for c in costs]
    assert column_texts(model, "t/word") == ["" if c.cost_per_word is None else f"{c.cost_per_word:,.1f}"
                                             for c in costs]
    # one click on the header: largest t/word first (a second: smallest first)
    per_word = COLUMNS.index("t/word")
    qtbot.mouseClick(header.viewport(), Qt.MouseButton.LeftButton,
                     pos=QPoint(header.sectionViewportPosition(per_word) + 5, 5))
    assert header.sortIndicatorOrder() == Qt.SortOrder.DescendingOrder
    assert header.sortIndicatorSection() == per_word
    shown = [state.cost_per_word(model.state_row(r)) for r in range(model.rowCount())]
    known = [p for p in shown if p is not None]
    assert len(known) >= 2 and known == sorted(known, reverse=True) and shown[:len(known)] == known
    assert max(known) > min(known)
    # a row click still loads that row's commit, wherever the sort put it
    top = model.state_row(0)
    rect = view.row_rect(top, "Subject")
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.b is not None and r.doc_b.root.git_ref is not None
                          and r.doc_b.root.git_ref.commit == state.commits[top].commit):
        qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
