"""Unsaved edits survive a crash: the app runs in a subprocess (offscreen), text is typed
into pane B, the process is killed with SIGKILL once the pause has passed, and the next
start offers the text back in the message bar; Restore puts it in the pane, still unsaved."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(os.name == "nt", reason="SIGKILL is POSIX")

TYPED = "TYPED BEFORE THE CRASH"

# The driver runs steadlith_gui.app.main as the command does; a timer acts as the user.
DRIVER = textwrap.dedent("""
    import sys
    from PySide6.QtCore import QTimer
    from PySide6.QtGui import QTextCursor
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    from steadlith_gui import app as gui

    mode, typed = sys.argv[1], sys.argv[2]
    qt = QApplication(["steadlith-gui"])

    def window():
        return next(w for w in qt.topLevelWidgets() if w.objectName() == "mainWindow")

    def type_into_b():
        w = window()
        if not w.panes["B"].toPlainText():
            QTimer.singleShot(100, type_into_b)  # still loading
            return
        pane = w.panes["B"]
        pane.setFocus()
        pane.moveCursor(QTextCursor.MoveOperation.End)
        QTest.keyClicks(pane, " " + typed)
        print("typed", flush=True)  # the test kills this process once the file is written

    def restore():
        w = window()
        bar = w.message_bar
        print("offer:", bar.isVisible(), bar.action_labels(), bar.text(), flush=True)
        if "Restore" not in bar.action_labels():
            qt.exit(3)
            return
        bar.trigger("Restore")
        check()

    def check(tries=[0]):
        w = window()
        tries[0] += 1
        text = w.panes["B"].toPlainText()
        if typed in text:
            print("restored:", w.session.sides["B"].modified, w.session.identity("B")[0], flush=True)
            w.confirm_discard = lambda question: True
            w.close()
            return
        if tries[0] > 200:
            qt.exit(4)
            return
        QTimer.singleShot(100, check)

    QTimer.singleShot(300, type_into_b if mode == "type" else restore)
    sys.exit(gui.main(sys.argv[3:]))
""")


def _env(tmp_path) -> dict:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_DATA_HOME=str(tmp_path / "data"),
               XDG_CONFIG_HOME=str(tmp_path / "config"), HOME=str(tmp_path / "home"))
    env.pop("STEADLITH_KERNEL", None)
    return env


def _recovery_files(tmp_path) -> list:
    return sorted((tmp_path / "data").rglob("unsaved-*.json"))


def test_text_typed_before_a_kill_is_offered_back_and_restored(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("The first version of a short document.\n", encoding="utf-8")
    b.write_text("The second version of a short document.\n", encoding="utf-8")
    env = _env(tmp_path)

    proc = subprocess.Popen([sys.executable, "-c", DRIVER, "type", TYPED, str(a), str(b)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "typed", proc.stderr.read()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:  # the pause (1 s) passes, the worker writes the file
            files = _recovery_files(tmp_path)
            if files and TYPED in files[0].read_text(encoding="utf-8"):
                break
            time.sleep(0.1)
        else:
            pytest.fail(f"no recovery file with the typed text: {_recovery_files(tmp_path)}")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    kept = json.loads(files[0].read_text(encoding="utf-8"))
    assert kept["sides"]["B"]["path"] == str(b) and list(kept["sides"]) == ["B"]

    again = subprocess.run([sys.executable, "-c", DRIVER, "restore", TYPED, str(a), str(b)], env=env,
                           capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stdout + again.stderr
    offer = next(line for line in again.stdout.splitlines() if line.startswith("offer:"))
    assert "['Restore', 'Discard']" in offer and "B: b.md" in offer
    assert "restored: True b.md" in again.stdout  # in the pane, still counted as unsaved
    assert _recovery_files(tmp_path) == []  # the second window closed cleanly: nothing left to offer
