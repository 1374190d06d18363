"""Live editing: typing into B re-analyses after a pause (not per key), the caret and
scroll position stay, undo restores, edits are marked, protected and can be saved."""

from PySide6.QtGui import QTextCursor
from PySide6.QtWidgets import QFileDialog
from steadlith_core import chunk, compare
from steadlith_core.bench.examples import generate_prose

from compare_helpers import SMALL, small_pair
from gui_helpers import load_files, load_texts, type_into


def word_start_in(result, side: str, index: int) -> int:
    """Qt position of the middle word of chunk `index` (plain ASCII texts here)."""
    chunking = result.a if side == "A" else result.b
    c = chunking.chunks[index]
    return int(chunking.words.starts[(c.start_word + c.end_word) // 2])


def test_typing_into_b_updates_statuses_after_the_pause_and_undo_restores(qtbot, window):
    window.session.set_params(SMALL, show=True)
    a = generate_prose(1500, seed=8)
    before = load_texts(qtbot, window, a, a)
    assert set(before.comparison.status_b) == {"reused"}
    pane = window.pane_b
    assert pane.editable and not window.pane_a.editable  # B editable by default, A on request
    k = len(before.b.chunks) // 2
    at = word_start_in(before, "B", k)
    generation = window.analyzer.generation
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        type_into(qtbot, pane, at, "zebra ")
        # every key restarted the pause: nothing was submitted yet
        assert window.analyzer.generation == generation
        assert pane.has_pending_edits
        caret, scroll = pane.textCursor().position(), pane.verticalScrollBar().value()
    result = blocker.args[0]
    assert window.analyzer.generation == generation + 1  # one analysis for the whole word
    assert result.b.text == a[:at] + "zebra " + a[at:]
    expected = compare(chunk(a, SMALL), chunk(result.b.text, SMALL))
    assert result.comparison.status_b == expected.status_b
    holder = result.b.chunk_at_offset(at)
    assert result.comparison.status_b[holder] == "edited"
    # re-decorated in place: the text, caret and scroll position are the user's
    assert pane.toPlainText() == result.b.text
    assert pane.textCursor().position() == caret and pane.verticalScrollBar().value() == scroll
    assert not pane.has_pending_edits and pane.status_of(holder) == "edited"
    assert pane.modified and window.isWindowModified() and "•" in window.columns["B"].header.text()

    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        while pane.document().isUndoAvailable():
            window.act["undo"].trigger()
    restored = blocker.args[0]
    assert pane.toPlainText() == a and not pane.modified and not window.isWindowModified()
    assert restored.b.text == a and set(restored.comparison.status_b) == {"reused"}


def test_decorations_follow_the_text_while_the_analysis_is_pending(qtbot, window):
    window.session.set_params(SMALL, show=True)
    a, b = small_pair()
    result = load_texts(qtbot, window, a, b)
    pane = window.pane_b
    ends_before = pane.view().ends.copy()
    type_into(qtbot, pane, 0, "Hey ")
    # before the pause: every cut moved by the 4 typed characters, without an analysis
    assert pane.has_pending_edits
    assert list(pane.view().ends) == [e + 4 for e in ends_before]
    assert window.session.result is result
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        pass
    assert not pane.has_pending_edits


def test_a_result_older_than_the_shown_one_never_reaches_the_pane(qtbot, window):
    """The session keeps each side's revision and the pane reads it: the result for the
    text as typed is shown with nothing left to shift; one made before the last edit,
    arriving late, changes nothing on screen."""
    window.session.set_params(SMALL, show=True)
    a, b = small_pair()
    load_texts(qtbot, window, a, b)
    pane, side = window.pane_b, window.session.sides["B"]
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as first:
        type_into(qtbot, pane, 0, "Hey ")
    stale = first.args[0]
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as second:
        type_into(qtbot, pane, 0, "You ")
        assert pane.has_pending_edits and side.revision == side.shown_revision + 4
    current = second.args[0]
    assert current.b.text == pane.toPlainText() and side.revision == side.shown_revision == current.doc_b.revision
    assert not pane.has_pending_edits and pane.chunking is current.b
    ends = list(pane.view().ends)
    assert window.session.accept_result(stale) == {"A": True, "B": False}
    assert pane.chunking is current.b and not pane.has_pending_edits and list(pane.view().ends) == ends
    assert window.session.sides["B"].chunking is current.b


def test_no_whole_text_work_per_keystroke(qtbot, window):
    """The editor's text is read once per pause, not once per key."""
    big = generate_prose(300_000, seed=9)
    load_texts(qtbot, window, big, big)
    pane = window.pane_b
    reads = []
    original = pane.current_text
    pane.current_text = lambda: reads.append(1) or original()
    pane.scroll_position_to_y(len(big) // 2, 100)
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        type_into(qtbot, pane, pane.position_at_y(120), "steadlith ")
        assert reads == []
    assert len(reads) == 1 and "steadlith " in blocker.args[0].b.text


def test_editing_a_on_request(qtbot, window):
    window.session.set_params(SMALL, show=True)
    a, b = small_pair()
    load_texts(qtbot, window, a, b)
    pane = window.pane_a
    qtbot.keyClicks(pane, "nope")
    assert pane.toPlainText() == a  # read-only by default
    window.act["edit_a"].setChecked(True)
    assert pane.editable and not pane.isReadOnly()
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        type_into(qtbot, pane, 0, "Well. ")
    assert blocker.args[0].a.text == "Well. " + a


def test_modified_documents_ask_before_reload_and_save_writes_the_edits(qtbot, window, tmp_path, monkeypatch):
    a_path, b_path = tmp_path / "a.txt", tmp_path / "b.txt"
    text_a, text_b = small_pair()
    a_path.write_text(text_a, encoding="utf-8")
    b_path.write_text(text_b, encoding="utf-8")
    window.session.set_params(SMALL, show=True)
    load_files(qtbot, window, a_path, b_path)
    pane = window.pane_b
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        type_into(qtbot, pane, 0, "Edited. ")
    assert pane.modified and window.windowTitle().endswith("[*]") and window.isWindowModified()

    questions = []
    window.confirm_discard = lambda q: questions.append(q) or False  # the user says Cancel
    window.documents_ctl.reload()
    assert len(questions) == 1 and "B" in questions[0] and "unsaved" in questions[0]
    assert window.loader.pending == 0 and pane.toPlainText().startswith("Edited. ")
    window.documents_ctl.load_texts("other", "texts")  # loading over the edits asks too
    assert len(questions) == 2 and pane.toPlainText().startswith("Edited. ")
    window.close()  # and closing
    assert len(questions) == 3 and window.isVisible()

    # Save B as… (the dialog answers with a path) writes exactly the edited text
    out = tmp_path / "b-edited.txt"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *args, **kw: (str(out), ""))
    with qtbot.waitSignal(window.saved, timeout=10_000):  # written on the thread pool
        window.act["save_b"].trigger()
    assert out.read_text(encoding="utf-8") == "Edited. " + text_b
    assert not pane.modified and not window.isWindowModified()
    assert "b-edited.txt" in window.columns["B"].header.text()

    # saved: reload reads the saved file, without asking
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        window.documents_ctl.reload()
    assert len(questions) == 3
    assert blocker.args[0].b.text == "Edited. " + text_b

    # edited again, the user agrees to discard: the file's text comes back
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        type_into(qtbot, pane, 0, "Again. ")
    window.confirm_discard = lambda q: questions.append(q) or True
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        window.documents_ctl.reload()
    assert len(questions) == 4 and not pane.modified
    assert pane.toPlainText() == "Edited. " + text_b


def test_edits_normalize_line_ends(qtbot, window):
    text = "First line.\r\nSecond line, still A.\r\n\r\nA paragraph.\r\n"
    load_texts(qtbot, window, text, text)
    pane = window.pane_b
    cursor = pane.textCursor()
    cursor.movePosition(QTextCursor.MoveOperation.End)
    pane.setTextCursor(cursor)
    pane.setFocus()
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        qtbot.keyClicks(pane, "More.")
    assert blocker.args[0].b.text == text.replace("\r\n", "\n") + "More."


def test_swap_keeps_the_edits(qtbot, window):
    window.session.set_params(SMALL, show=True)
    a, b = small_pair()
    load_texts(qtbot, window, a, b)
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        type_into(qtbot, window.pane_b, 0, "New start. ")
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        window.documents_ctl.swap()
    result = blocker.args[0]
    assert result.a.text == "New start. " + b and result.b.text == a
    assert window.pane_a.modified and not window.pane_b.modified
    assert result.comparison is not None and window.session.comparison is result.comparison
