"""Regressions around Save as…, Swap and loads in flight: a side's identity (the file
it is saved to) travels with its text, typing during a load is never lost silently,
Save as… writes atomically on the thread pool, and a swap never drops a pending load."""

from __future__ import annotations

import threading

from PySide6.QtGui import QTextCursor

from compare_helpers import SMALL, small_pair
from gui_helpers import load_files, load_texts, type_into

TIMEOUT = 10_000


def insert_text(pane, position: int, text: str) -> None:
    """An edit made at once, without running the event loop (so a queued load result
    cannot arrive in between, as it could between two keystrokes)."""
    cursor = QTextCursor(pane.document())
    cursor.setPosition(position)
    cursor.insertText(text)


def loaded_files(qtbot, window, tmp_path):
    a, b = small_pair(900, seed=7)
    pa, pb = tmp_path / "a.txt", tmp_path / "b.txt"
    pa.write_text(a, encoding="utf-8")
    pb.write_text(b, encoding="utf-8")
    window.session.set_params(SMALL, show=True)
    load_files(qtbot, window, pa, pb)
    return pa, pb, a, b


def test_swap_after_save_as_keeps_the_saved_file_with_its_text(qtbot, window, tmp_path):
    pa, pb, a, b = loaded_files(qtbot, window, tmp_path)
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        type_into(qtbot, window.pane_b, 0, "Edited first. ")
    edited = window.pane_b.toPlainText()
    pc = tmp_path / "c.txt"
    with qtbot.waitSignal(window.saved, timeout=TIMEOUT):
        window.exports.save_as("B", pc)
    assert not window.pane_b.modified
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        window.documents_ctl.swap()
    assert window.pane_a.toPlainText() == edited
    assert window.session.sides["A"].path == str(pc) and window.session.identity("A") == ("c.txt", str(pc))
    ref = window.workspaces.document_ref("A")
    assert ref.path == str(pc) and ref.name == "c.txt"
    assert window.exports.shown_names() == ("c.txt", "a.txt")
    assert window.session.sides["B"].path == str(pa)
    assert sorted(window.watcher.files()) == sorted([str(pa), str(pc)])  # b.txt no longer shown
    assert "c.txt" in window.windowTitle()


def test_typing_during_a_load_is_asked_about_and_kept_on_no(qtbot, window):
    load_texts(qtbot, window, "First version of A.", "First version of B.")
    asked = []
    window.confirm_discard = lambda question: asked.append(question) or False
    window.documents_ctl.load_texts("Second version of A.", "Second version of B.")
    insert_text(window.pane_b, 0, "Typed meanwhile. ")  # before the batch arrives
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT,
                          check_params_cb=lambda r: r.doc_a is not None and r.doc_a.text.startswith("Second")):
        pass
    assert len(asked) == 1 and "B" in asked[0] and "Discard" in asked[0]
    assert window.pane_b.toPlainText() == "Typed meanwhile. First version of B." and window.pane_b.modified
    assert window.pane_a.toPlainText() == "Second version of A."
    assert "edits are kept" in window.message_bar.text()


def test_typing_during_a_load_is_discarded_on_yes(qtbot, window):
    load_texts(qtbot, window, "First version of A.", "First version of B.")
    asked = []
    window.confirm_discard = lambda question: asked.append(question) or True
    window.documents_ctl.load_texts("Second version of A.", "Second version of B.")
    insert_text(window.pane_b, 0, "Typed meanwhile. ")
    with qtbot.waitSignal(window.documents_changed, timeout=TIMEOUT):
        pass
    assert len(asked) == 1
    assert window.pane_b.toPlainText() == "Second version of B." and not window.pane_b.modified


def test_typing_during_a_swap_keeps_the_edits_on_no(qtbot, window):
    load_texts(qtbot, window, "Text of A here.", "Text of B here.")
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        type_into(qtbot, window.pane_b, 0, "Edit. ")
    window.confirm_discard = lambda question: False
    window.documents_ctl.swap()  # edited: the texts are loaded on the other side, on the thread pool
    insert_text(window.pane_b, 0, "More. ")
    with qtbot.waitSignal(window.loader.loaded, timeout=TIMEOUT):
        pass
    assert window.pane_b.toPlainText() == "More. Edit. Text of B here." and window.pane_b.modified
    assert window.pane_a.toPlainText() == "Text of A here."  # not half swapped
    assert "edits are kept" in window.message_bar.text()


def test_save_as_writes_atomically_on_the_thread_pool(qtbot, window, tmp_path, monkeypatch):
    import steadlith_gui.controllers.file_output as mw

    pa, pb, a, b = loaded_files(qtbot, window, tmp_path)
    threads = []
    real = mw.write_text_atomic
    monkeypatch.setattr(mw, "write_text_atomic",
                        lambda path, text: threads.append(threading.current_thread()) or real(path, text))
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        type_into(qtbot, window.pane_b, 0, "Saved edit. ")
    pc = tmp_path / "c.txt"
    with qtbot.waitSignal(window.saved, timeout=TIMEOUT) as blocker:
        window.exports.save_as("B", pc)
    assert blocker.args == ["B", str(pc)]
    assert threads and threads[0] is not threading.main_thread()
    assert pc.read_text(encoding="utf-8") == window.pane_b.toPlainText()
    assert not window.pane_b.modified and window.session.sides["B"].saved_as == ("c.txt", str(pc))


def test_save_as_failure_is_shown_and_keeps_the_pane_modified(qtbot, window, tmp_path):
    pa, pb, a, b = loaded_files(qtbot, window, tmp_path)
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        type_into(qtbot, window.pane_b, 0, "Unsaved edit. ")
    target = tmp_path / "folder"
    target.mkdir()
    with qtbot.waitSignal(window.save_failed, timeout=TIMEOUT) as blocker:
        window.exports.save_as("B", target)
    assert blocker.args[0] == "B"
    assert "Cannot save B" in window.message_bar.text() and str(target) in window.message_bar.text()
    assert window.pane_b.modified and window.session.sides["B"].saved_as is None


def test_swap_while_a_load_is_pending_is_refused(qtbot, window):
    load_texts(qtbot, window, "Text of A here.", "Text of B here.")
    window.documents_ctl.load_texts(None, "New B text.")
    window.documents_ctl.swap()
    assert "wait for the load to finish" in window.message_bar.text()
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        pass
    assert window.pane_b.toPlainText() == "New B text." and window.pane_a.toPlainText() == "Text of A here."


def test_swap_with_an_empty_side_uses_a_private_sequence_number(qtbot, window):
    load_texts(qtbot, window, None, "Only B here.")
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        type_into(qtbot, window.pane_b, 0, "Edit. ")
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        window.documents_ctl.swap()
    assert window.pane_a.toPlainText() == "Edit. Only B here." and window.session.documents()[1] is None
    # B is empty now: its sequence number must not be one the loader hands out
    assert window.session.sides["B"].seq < 0
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        window.documents_ctl.load_texts(None, "B again.")
    assert window.pane_b.toPlainText() == "B again."
