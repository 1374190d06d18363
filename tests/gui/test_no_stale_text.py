"""Nothing on screen states what was true before: the first-look line's chunk counts after
a parameter change, the chunk table's "N of M", a workspace's name in the title once
other documents replaced its own, a History row the panes no longer show."""

from PySide6.QtCore import Qt
from steadlith_core import ChunkerParams
from steadlith_core.history.repository import resolve_revision

from git_helpers import REWRITE
from gui_helpers import load_files, load_texts, set_params
from test_churn import load_example


def test_the_first_look_line_counts_the_chunks_of_the_result_shown(qtbot, window):
    load_example(qtbot, window, "prose")
    bar = window.message_bar
    s = window.session.comparison.summary
    assert f"B reuses {s.reused_chunks} of {s.chunks_b} chunks" in bar.text()
    result = set_params(qtbot, window, ChunkerParams(min_tokens=32, max_tokens=128))
    s = result.comparison.summary
    assert bar.isVisible()
    assert f"B reuses {s.reused_chunks} of {s.chunks_b} chunks" in bar.text()


def test_the_table_counts_the_rows_it_has(qtbot, window):
    text = "\n\n".join(f"Paragraph {k}: " + "a few words of prose here and there " * 6 for k in range(40))
    load_texts(qtbot, window, text, text.replace("Paragraph 20:", "Paragraph twenty:"))
    table = window.table
    # A's rows only: rows of B come and go at the end of the model, all filtered out
    table.version_combo.setCurrentIndex(table.version_combo.findData("A"))
    for params in (ChunkerParams(min_tokens=32, max_tokens=96), ChunkerParams(min_tokens=64, max_tokens=512),
                   ChunkerParams(min_tokens=40, max_tokens=200)):
        result = set_params(qtbot, window, params)
        total = len(result.a.chunks) + len(result.b.chunks)
        assert table.model.rowCount() == total
        assert table.count_label.text() == f"{len(result.a.chunks):,} of {total:,}"
    for cut in (3, 2, 3):  # B shorter, then longer: only rows of B come and go
        result = load_texts(qtbot, window, None, text[: len(text) * cut // 4])
        total = len(result.a.chunks) + len(result.b.chunks)
        assert table.count_label.text() == f"{len(result.a.chunks):,} of {total:,}"


def test_a_workspace_leaves_the_title_when_other_documents_replace_its_own(qtbot, window, tmp_path):
    for name in ("a", "b", "c", "d"):
        (tmp_path / f"{name}.txt").write_text(f"Text {name}. " * 50, encoding="utf-8")
    load_files(qtbot, window, str(tmp_path / "a.txt"), str(tmp_path / "b.txt"))
    with qtbot.waitSignal(window.workspace_saved, timeout=20_000):
        window.workspaces.save(str(tmp_path / "review.steadlith"))
    assert "review.steadlith" in window.windowTitle()
    load_files(qtbot, window, str(tmp_path / "c.txt"), str(tmp_path / "d.txt"))
    assert "review.steadlith" not in window.windowTitle()
    assert window.session.workspace_path is None
    assert "c.txt" in window.windowTitle()


def test_no_history_row_stays_highlighted_that_the_panes_do_not_show(qtbot, window, history):
    root, repo, ids, texts = history
    a = resolve_revision(str(root), "doc.md", "HEAD~1")
    b = resolve_revision(str(root), "doc.md", "HEAD")
    with qtbot.waitSignal(window.history_ctl.costs_ready, timeout=60_000):
        window.documents_ctl.load_files(a, b)
    table = window.history.table
    state = window.history.state

    assert table.selectionModel().selectedRows(), "the commit shown is highlighted"
    # A at another version: the panes show no commit's change
    older = resolve_revision(str(root), "doc.md", ids[1])
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.doc_a.root.git_ref.commit == ids[1]):
        window.documents_ctl.load_files(older, None)
    assert not table.selectionModel().selectedRows()
    # a click shows the commit's own pair again, and an edit of B leaves it
    rect = window.history.row_rect(state.row_of(ids[REWRITE]), "Subject")
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.doc_b.root.git_ref.commit == ids[REWRITE]):
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert table.selectionModel().selectedRows()
    window.pane_b.setFocus()
    qtbot.keyClicks(window.pane_b, "x")
    qtbot.waitUntil(lambda: not table.selectionModel().selectedRows())
