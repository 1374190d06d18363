"""The locality lab dock: no plots before there is something to chart, and a worst edit
opens in the panes coloured like the document it came from."""

import pyqtgraph as pg
from PySide6.QtCore import Qt

from steadlith_gui.model.demo import demo_paths
from steadlith_gui.model.highlight import lexer_for
from gui_helpers import load_texts
from test_lab_dock import open_lab, run_and_wait


def test_the_lab_opens_without_plots_and_charts_its_first_result(qtbot, window):
    view = window.lab_view
    open_lab(window)
    qtbot.waitUntil(lambda: view.no_charts.isVisible())
    assert "after a run" in view.no_charts.text().lower()
    assert view.findChildren(pg.PlotWidget) == []  # no axes laid out and painted to show nothing

    text = demo_paths("prose")[0].read_text(encoding="utf-8")
    load_texts(qtbot, window, text, text)
    run_and_wait(qtbot, window, edits=20)
    assert set(view.charts) == {"tokens", "reach"}
    assert all(chart.isVisible() and chart.data is not None for chart in view.charts.values())
    assert not view.no_charts.isVisible()


def test_a_result_that_comes_before_the_dock_is_shown_is_charted(qtbot, window):
    text = demo_paths("prose")[0].read_text(encoding="utf-8")
    load_texts(qtbot, window, text, text)
    run_and_wait(qtbot, window, edits=20)
    charts = window.lab_view.charts
    assert set(charts) == {"tokens", "reach"} and all(chart.data is not None for chart in charts.values())


def test_a_worst_edit_opens_b_with_the_syntax_colour_of_a(qtbot, window):
    text = demo_paths("prose")[0].read_text(encoding="utf-8")
    load_texts(qtbot, window, text, text, name_a="guide.md", name_b="guide.md")
    open_lab(window)
    run_and_wait(qtbot, window, edits=20)
    view = window.lab_view
    view.tables.setCurrentWidget(view.worst)
    rect = view.worst.visualItemRect(view.worst.item(0, 3))
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000,
                          check_params_cb=lambda r: r.doc_b is not None and " worst #1" in r.doc_b.name):
        qtbot.mouseClick(view.worst.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    doc_a, doc_b = window.session.documents()
    assert doc_a.syntax is not None and doc_a.syntax.lexer_name == "Markdown"
    assert doc_b.syntax is not None and doc_b.syntax.lexer_name == "Markdown"
    assert "Markdown\xa0syntax\xa0colour" in window.columns["B"].header.toolTip()  # plain_tooltip keeps it on one line


def test_an_edited_revision_keeps_the_colour_of_its_file():
    assert lexer_for("edited copy of docs/guide.md @ a6e7281").name == "Markdown"
    assert lexer_for("tiny_index.py @ a6e7281 — fix a + b").name == "Python"
    assert lexer_for("notes.txt + tttd-v1 worst #1: insert 3 words") is None  # plain text stays plain
