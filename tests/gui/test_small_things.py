"""Small things people expect: find across both panes, copy a chunk's
text or hash from its context menu, zoom kept in sync, a wrap toggle."""

from PySide6.QtCore import QPoint, QPointF, Qt, QTimer
from PySide6.QtGui import QContextMenuEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QPlainTextEdit

from gui_helpers import load_texts

TEXT = "\n".join(f"Line {i}: the chunker reads words and cuts where the content says so." for i in range(80))


def test_find_goes_through_both_panes_and_around(qtbot, window):
    text_a = TEXT.replace("Line 10:", "Line 10: zebra", 1)
    text_b = TEXT.replace("Line 60:", "Line 60: zebra", 1)
    load_texts(qtbot, window, text_a, text_b)
    window.act["find"].trigger()
    assert window.find_bar.isVisible() and window.find_bar.edit.hasFocus()
    window.find_bar.edit.setText("zebra")
    window.navigation.active_side = "B"
    window.pane_b.move_caret(0)
    found = [window.navigation.find("zebra", 1) for _ in range(3)]
    assert [side for side, _ in found] == ["B", "A", "B"]
    assert window.pane_a.textCursor().selectedText() == "zebra"
    assert window.navigation.find("giraffe", 1) is None
    assert "neither" in window.statusBar().currentMessage()
    back = window.navigation.find("zebra", -1)
    assert back is not None and back[0] == "A"


def test_a_chunks_text_and_hash_can_be_copied_from_its_context_menu(qtbot, window):
    result = load_texts(qtbot, window, TEXT, TEXT.replace("Line 5:", "Line five:"))
    pane = window.pane_b
    chunk = result.b.chunks[0]
    point = pane.viewport().mapFromParent(QPoint(0, 0)) + QPoint(60, 8)
    QTimer.singleShot(200, lambda: pane.context_menu.close())
    pane.contextMenuEvent(QContextMenuEvent(QContextMenuEvent.Reason.Mouse, point, pane.viewport().mapToGlobal(point)))
    titles = [a.text() for a in pane.context_menu.actions()]
    assert "Copy chunk 0's text" in titles and "Copy chunk 0's hash" in titles
    next(a for a in pane.context_menu.actions() if a.text() == "Copy chunk 0's hash").trigger()
    assert QApplication.clipboard().text() == chunk.hash
    next(a for a in pane.context_menu.actions() if a.text() == "Copy chunk 0's text").trigger()
    assert QApplication.clipboard().text() == result.b.text[chunk.start:chunk.end]


def test_zoom_and_wrap_apply_to_both_panes_alike(qtbot, window):
    load_texts(qtbot, window, TEXT, TEXT)
    pa, pb = window.pane_a, window.pane_b
    size = pa.font().pointSize()
    window.act["zoom_in"].trigger()
    window.act["zoom_in"].trigger()
    assert pa.font().pointSize() == pb.font().pointSize() == size + 2
    wheel = QWheelEvent(QPointF(20, 20), QPointF(pa.viewport().mapToGlobal(QPoint(20, 20))), QPoint(0, 0),
                        QPoint(0, -120), Qt.MouseButton.NoButton, Qt.KeyboardModifier.ControlModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    pa.wheelEvent(wheel)  # Ctrl+wheel on A zooms B too
    assert pa.font().pointSize() == pb.font().pointSize() == size + 1
    window.act["zoom_reset"].trigger()
    assert pa.font().pointSize() == pb.font().pointSize() == size
    assert pa.lineWrapMode() == QPlainTextEdit.LineWrapMode.WidgetWidth
    window.act["wrap"].setChecked(False)
    assert pa.lineWrapMode() == pb.lineWrapMode() == QPlainTextEdit.LineWrapMode.NoWrap


def test_code_gets_line_numbers_and_prose_does_not(qtbot, window):
    from PySide6.QtGui import QColor

    from gui_helpers import color_near

    code = "\n".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(40))
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        window.documents_ctl.load_texts(code, code.replace("x + 7", "x + 8"), "a.py", "b.py")
    gutter = window.pane_a.gutter
    width = gutter.line_number_width()
    assert width > 0
    image = gutter.grab().toImage()
    muted = QColor(window.theme_ctl.theme.muted)
    top = window.pane_a.visible_blocks()[0][1]
    h = window.pane_a.fontMetrics().height()
    assert any(color_near(image, x, top + h / 2, muted, radius=1, tolerance=40) for x in range(2, width - 4)), \
        "line 1's number is painted"
    load_texts(qtbot, window, TEXT, TEXT)
    assert window.pane_a.gutter.line_number_width() == 0
