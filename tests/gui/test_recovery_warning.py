"""Unsaved edits that cannot be kept for recovery are said once, as a warning in the
message bar (the recovery part tells the session; the window shows what it is told)."""

from steadlith_gui.controllers.settings import AppSettings
from steadlith_gui.main_window import MainWindow
from steadlith_gui.model.recovery import RecoveryStore

from gui_helpers import load_texts, type_into


def test_a_recovery_file_that_cannot_be_written_is_said_once(qtbot, tmp_path):
    store = RecoveryStore(tmp_path)
    store.file.mkdir()  # a folder where the file should go: every save fails
    window = MainWindow(settings=AppSettings.memory(), recovery=store)
    window.confirm_discard = lambda question: True
    qtbot.addWidget(window)
    window.show()
    load_texts(qtbot, window, "A short text.", "B short text.")
    type_into(qtbot, window.pane_b, 0, "Hey ")
    bar = window.message_bar
    qtbot.waitUntil(lambda: bar.isVisible() and "cannot be kept for recovery" in bar.text(), timeout=10_000)
    assert bar.level == "warning"
    bar.dismiss()
    with qtbot.waitSignal(window.recovery.failed, timeout=10_000):  # the next save fails too
        type_into(qtbot, window.pane_b, 0, "You ")
    assert not bar.isVisible()
