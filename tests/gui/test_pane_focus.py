"""Tab never traps the keyboard in a pane: a read-only pane passes Tab on; an editable
one types a tab (documents hold them) and Ctrl+Tab moves on (Ctrl+Shift+Tab back)."""

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from gui_helpers import load_texts


def test_tab_leaves_a_read_only_pane_and_ctrl_tab_an_editable_one(qtbot, window):
    load_texts(qtbot, window, "alpha beta gamma\n" * 20, "alpha beta delta\n" * 20)
    pane_a, pane_b = window.pane_a, window.pane_b
    assert not pane_a.editable and pane_b.editable
    pane_a.setFocus()
    qtbot.waitUntil(pane_a.hasFocus)
    qtbot.keyClick(pane_a, Qt.Key.Key_Tab)
    assert not pane_a.hasFocus(), "Tab stays in a read-only pane"
    pane_b.setFocus()
    qtbot.waitUntil(pane_b.hasFocus)
    before = pane_b.toPlainText()
    qtbot.keyClick(pane_b, Qt.Key.Key_Tab)
    assert pane_b.hasFocus() and pane_b.toPlainText().count("\t") == before.count("\t") + 1  # Tab types
    qtbot.keyClick(pane_b, Qt.Key.Key_Tab, Qt.KeyboardModifier.ControlModifier)
    assert not pane_b.hasFocus(), "Ctrl+Tab does not leave an editable pane"
    assert QApplication.focusWidget() is window.overview  # the next part of the window
    pane_b.setFocus()
    qtbot.waitUntil(pane_b.hasFocus)
    qtbot.keyClick(pane_b, Qt.Key.Key_Backtab, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier)
    assert not pane_b.hasFocus() and QApplication.focusWidget() is not window.overview  # back, not on
    from steadlith_gui.widgets.shortcuts_dialog import WIDGET_KEYS
    assert "Ctrl+Tab" in [key for key, _what, _where in WIDGET_KEYS]  # Help → Keyboard shortcuts says so
