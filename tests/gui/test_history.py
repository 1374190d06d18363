"""The History dock: the commits of the file in A, newest first, with what each cost to
re-embed per rule; a click loads the commit's parent and the commit into A and B."""

import threading

import pytest
from git_helpers import REWRITE
from gui_helpers import color_near
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from steadlith_core.history.repository import resolve_revision

from steadlith_gui.docks import history_dock
from steadlith_gui.model.history_state import COST_COLUMNS
from steadlith_gui.widgets.history_view import COLUMNS


def open_with_history(qtbot, window, root, rev_a, rev_b):
    """Load two revisions of doc.md and wait until the dock shows the costs."""
    a = resolve_revision(str(root), "doc.md", rev_a)
    b = resolve_revision(str(root), "doc.md", rev_b)
    with qtbot.waitSignal(window.history_ctl.costs_ready, timeout=60_000):
        window.documents_ctl.load_files(a, b)


def click_row(qtbot, window, row):
    view = window.history
    rect = view.row_rect(row, "Subject")
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.b is not None and r.doc_b.root.git_ref is not None
                          and r.doc_b.root.git_ref.commit == view.state.commits[row].commit):
        qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_opening_a_revision_shows_the_files_commits_newest_first_with_costs(qtbot, window, history):
    root, repo, ids, _texts = history
    open_with_history(qtbot, window, root, "HEAD~1", "HEAD")
    assert window.history_dock.isVisible()
    model = window.history.model
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == [repo[c].short_id for c in reversed(ids)]
    state = window.history.state
    for column in COST_COLUMNS:
        assert all(state.tokens(r, column) is not None for r in range(len(ids)))
    # the rewrite of the first half is the spike under both rules, the small edits are not
    rewrite = state.row_of(ids[REWRITE])
    small_edits = [n for n in range(1, len(ids)) if n != REWRITE]
    for rule in ("tttd-v1", "lmx2-v1"):
        assert state.tokens(rewrite, rule) > 3 * max(state.tokens(state.row_of(ids[n]), rule) for n in small_edits)
    assert rewrite in state.spike_rows()
    assert not any(state.row_of(ids[n]) in state.spike_rows() for n in small_edits)
    assert state.row_of(ids[-1]) == window.history.table.currentIndex().row()  # B's commit is selected


def test_the_spike_is_drawn_long_and_loud(qtbot, window, history):
    view, image, ids = grab_history(qtbot, window, history)
    loud, quiet = QColor(window.theme_ctl.theme.status["shifted"]), QColor(window.theme_ctl.theme.bar)
    spike = view.state.row_of(ids[REWRITE])
    small = view.state.row_of(ids[-1])
    cell = view.row_rect(spike, "tttd-v1")
    # the spike's bar reaches past the middle of its cell, in the loud colour
    assert color_near(image, cell.left() + cell.width() * 0.6, cell.center().y(), loud, radius=2)
    small_cell = view.row_rect(small, "tttd-v1")
    assert not color_near(image, small_cell.left() + small_cell.width() * 0.6, small_cell.center().y(), quiet,
                          radius=2)
    assert not color_near(image, small_cell.left() + small_cell.width() * 0.6, small_cell.center().y(), loud,
                          radius=2)


def test_the_commit_that_added_the_file_is_hatched_and_leaves_the_scale_to_the_edits(qtbot, window, history):
    """Adding the file costs every token; were that the scale, every edit's bar would be a
    sliver. The addition is drawn hatched across its cell, and the costliest edit's bar
    spans its own."""
    view, image, ids = grab_history(qtbot, window, history)
    bar = QColor(window.theme_ctl.theme.bar)
    state = view.state
    added = state.row_of(ids[0])
    assert state.tokens(added, "tttd-v1") > max(state.tokens(r, "tttd-v1") for r in range(len(ids)) if r != added)
    costliest = max((r for r in range(len(ids)) if r != added), key=lambda r: state.tokens(r, "tttd-v1"))
    cell = view.row_rect(costliest, "tttd-v1")
    y = cell.top() + 5  # above the number's glyphs
    assert color_near(image, cell.left() + 3 + (cell.width() - 6) * 0.97, y, QColor(window.theme_ctl.theme.status["shifted"]),
                      radius=1)  # the rewrite: a spike, in the loud colour, across its cell
    cell = view.row_rect(added, "tttd-v1")
    line = [image.pixelColor(x, cell.top() + 6) for x in range(cell.left() + 4, cell.right() - 3)]
    hatch = [c.rgb() == bar.rgb() for c in line]
    assert any(hatch[-8:]) and any(hatch[:8]), "the addition's hatching spans its cell"
    assert sum(hatch) < len(hatch) * 0.6, "hatched, not a solid bar"
    tip = view.model.index(added, COLUMNS.index("tttd-v1")).data(Qt.ItemDataRole.ToolTipRole)
    assert "added the file" in tip.replace("\xa0", " ").lower()


def test_clicking_a_commit_loads_its_parent_and_it(qtbot, window, history):
    root, repo, ids, texts = history
    open_with_history(qtbot, window, root, "HEAD~1", "HEAD")
    with qtbot.assertNotEmitted(window.history_ctl.listed, wait=100):  # same file: the list and costs stay
        click_row(qtbot, window, window.history.state.row_of(ids[REWRITE]))
    doc_a, doc_b = window.session.documents()
    parent = str(repo[ids[REWRITE]].parent_ids[0])
    assert parent not in ids  # the commit before the rewrite left doc.md alone
    assert (doc_a.text, doc_b.text) == (texts[ids[REWRITE - 1]], texts[ids[REWRITE]])
    assert doc_a.root.git_ref.commit == parent and doc_b.root.git_ref.commit == ids[REWRITE]
    assert window.history.state.tokens(0, "tttd-v1") is not None
    assert window.history.table.currentIndex().row() == window.history.state.row_of(ids[REWRITE])


def test_clicking_the_commit_that_added_the_file_empties_a(qtbot, window, history):
    root, repo, ids, texts = history
    open_with_history(qtbot, window, root, "HEAD~1", "HEAD")
    click_row(qtbot, window, window.history.state.row_of(ids[0]))
    doc_a, doc_b = window.session.documents()
    assert doc_a is None and doc_b.text == texts[ids[0]]
    assert "added doc.md" in window.message_bar.text()


def test_a_plain_file_in_the_working_tree_has_its_history(qtbot, window, history):
    root, repo, ids, texts = history
    window.history_dock.show()
    with qtbot.waitSignal(window.history_ctl.costs_ready, timeout=60_000):
        window.documents_ctl.load_files(str(root / "doc.md"), str(root / "doc.md"))
    assert len(window.history.state.commits) == len(ids)


def test_a_file_outside_any_repository_says_so(qtbot, window, tmp_path):
    window.history_dock.show()
    path = tmp_path / "plain.md"
    path.write_text("some words to chunk here\n", encoding="utf-8")
    with qtbot.waitSignal(window.history_ctl.history_failed, timeout=20_000) as blocker:
        window.documents_ctl.load_files(str(path), str(path))
    assert "not a git repository" in blocker.args[0]
    assert window.history.model.rowCount() == 0
    assert "not a git repository" in window.history.note.text()


def test_nothing_is_computed_while_the_dock_is_hidden(qtbot, window, history, monkeypatch):
    root, repo, ids, texts = history
    window.history_ctl._shown_once = True  # as if the user had closed it before
    calls = []
    monkeypatch.setattr(history_dock, "read_history", lambda *a, **k: calls.append(a) or pytest.fail("listed"))
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000):
        window.documents_ctl.load_files(resolve_revision(str(root), "doc.md", "HEAD~1"), resolve_revision(str(root), "doc.md", "HEAD"))
    assert not window.history_dock.isVisible() and calls == []


def test_cancel_stops_the_costs_and_keeps_the_commits(qtbot, window, history, monkeypatch):
    root, repo, ids, texts = history
    started = threading.Event()

    def endless(repo, path, commits, params, progress):
        while True:  # until the Cancel button makes progress() raise
            started.set()
            progress(0, len(commits))
            threading.Event().wait(0.01)

    monkeypatch.setattr(history_dock, "replay_file", endless)
    with qtbot.waitSignal(window.history_ctl.listed, timeout=30_000):
        window.documents_ctl.load_files(resolve_revision(str(root), "doc.md", "HEAD~1"), resolve_revision(str(root), "doc.md", "HEAD"))
    assert started.wait(10)
    assert window.history.cancel_button.isVisible()
    with qtbot.waitSignal(window.history_ctl.replay.cancelled, timeout=10_000):
        qtbot.mouseClick(window.history.cancel_button, Qt.MouseButton.LeftButton)
    assert window.history.model.rowCount() == len(ids)
    assert window.history.state.tokens(0, "tttd-v1") is None
    assert "cancelled" in window.history.note.text().lower()
    assert not window.history.cancel_button.isVisible()


def test_the_dock_is_in_the_view_menu(window):
    titles = [a.text() for a in window.menuBar().actions()[2].menu().actions()]
    assert "&Git history of A" in titles
    assert COLUMNS[2:5] == COST_COLUMNS


def test_after_a_parameter_change_the_costs_say_so_and_recompute_uses_the_new_ones(qtbot, window, history):
    from steadlith_core import ChunkerParams

    root, repo, ids, texts = history
    open_with_history(qtbot, window, root, "HEAD~1", "HEAD")
    state = window.history.state
    small_edit = state.row_of(ids[-1])
    before = state.tokens(small_edit, "tttd-v1")
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000):
        window.session.set_params(ChunkerParams(min_tokens=32, max_tokens=128), show=True)
    assert "computed with other parameters" in window.history.note.text()
    with qtbot.waitSignal(window.history_ctl.costs_ready, timeout=60_000):
        qtbot.mouseClick(window.history.refresh_button, Qt.MouseButton.LeftButton)
    assert "other parameters" not in window.history.note.text()
    assert not state.stale(window.session.params_by_rule)
    assert state.tokens(small_edit, "tttd-v1") < before  # smaller chunks: a small edit re-embeds less


def grab_history(qtbot, window, history):
    """The History dock over the fixture's commits with nothing selected (so no row is
    highlighted), its table's pixels, and the commit ids."""
    root, _repo, ids, _texts = history
    open_with_history(qtbot, window, root, "HEAD~1", "HEAD")
    view = window.history
    view.table.clearSelection()
    view.table.setCurrentIndex(view.model.index(-1, -1))
    qtbot.waitUntil(lambda: not view.table.selectionModel().hasSelection()
                    and not view.table.currentIndex().isValid())
    return view, view.table.viewport().grab().toImage(), ids


def test_the_progress_bar_shows_its_whole_count_in_a_narrow_dock(qtbot):
    from PySide6.QtGui import QFontMetrics
    from steadlith_gui.widgets.history_view import HistoryView
    from steadlith_gui.widgets.palette import DARK

    view = HistoryView(DARK)
    qtbot.addWidget(view)
    view.note.setText("Costs of each commit of a long file name, computed with the parameters in force")
    view.progress.setRange(0, 1062)
    view.progress.setValue(917)
    view.progress.show()
    view.resize(420, 300)
    view.show()
    qtbot.waitExposed(view)
    text = view.progress.text()
    assert text == "917 / 1062 commits"
    assert view.progress.width() >= QFontMetrics(view.progress.font()).horizontalAdvance(text)
