"""Very long lines: a paragraph without line breaks or a single
huge word is shown with display breaks (steadlith_gui.model.long_lines) that never reach the
text: chunks, offsets, find, copy and the saved file are those of the text as loaded,
and the GUI thread keeps beating while such a document loads and repaints."""

import time

import numpy as np
import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication
from steadlith_core import ChunkerParams, chunk
from steadlith_core.bench.examples import generate_prose

from gui_helpers import load_texts
from steadlith_gui.model.documents import prepare_document
from steadlith_gui.model.layouts import ChunkLayout
from steadlith_gui.widgets.document_pane import DocumentPane

PARAMS = ChunkerParams()


def one_line(chars: int) -> str:
    return generate_prose(chars, seed=3).replace("\r\n", " ").replace("\n", " ")


class Heartbeat:
    """A 50 ms QTimer whose ticks are recorded: the most CPU time the GUI thread spent
    between two ticks is the longest it worked without returning to its event loop.
    CPU time of this thread, not wall time: on a busy machine the thread also waits for
    a core between ticks, which a user of a quiet machine would not see and a wall clock
    would count as a stall."""

    def __init__(self):
        self.ticks = [time.thread_time()]
        self.timer = QTimer()
        self.timer.setInterval(50)
        self.timer.timeout.connect(lambda: self.ticks.append(time.thread_time()))
        self.timer.start()

    def beat(self, qtbot) -> None:
        """Let the event loop turn until the timer has ticked again (a stall in the step
        before shows as the gap to this tick)."""
        n = len(self.ticks)
        qtbot.waitUntil(lambda: len(self.ticks) > n, timeout=10_000)

    def max_gap_ms(self) -> float:
        self.timer.stop()
        return float(np.max(np.diff(self.ticks))) * 1000


@pytest.mark.parametrize("text", [one_line(400_000), "x" * 150_000 + " end"],
                         ids=["one-line paragraph", "one huge word"])
def test_gui_thread_never_stalls_on_long_lines(qtbot, text):
    """Loading, showing the chunks, scrolling to the middle and repainting a long-line
    document keeps the GUI thread's longest stall far below what a user notices as a
    freeze (the bench targets 200 ms; before display breaks these took seconds). 600 ms
    of the GUI thread's CPU time is three times the bench's target: room for a slow CI
    machine, yet a tenth of the freeze the display breaks removed."""
    doc = prepare_document("A", text)  # the worker's part: not on the GUI thread
    chunking = chunk(text, PARAMS)
    layout = ChunkLayout.build(chunking, doc.offsets)
    pane = DocumentPane("A")
    qtbot.addWidget(pane)
    pane.resize(683, 700)
    pane.show()
    qtbot.waitExposed(pane)
    beat = Heartbeat()
    beat.beat(qtbot)
    pane.set_document(doc)
    beat.beat(qtbot)
    pane.show_result(doc, chunking, layout, None)
    beat.beat(qtbot)
    pane.scroll_chunk_into_view(len(chunking.chunks) // 2, force=True)
    beat.beat(qtbot)
    pane.verticalScrollBar().setValue(pane.verticalScrollBar().maximum())
    beat.beat(qtbot)
    pane.viewport().repaint()
    beat.beat(qtbot)
    assert pane.paint_count > 0
    assert beat.max_gap_ms() < 600


def shown(qtbot, text: str, size=(683, 700)):
    doc = prepare_document("A", text)
    chunking = chunk(text, PARAMS)
    pane = DocumentPane("A")
    qtbot.addWidget(pane)
    pane.resize(*size)
    pane.set_document(doc)
    pane.show_result(doc, chunking, ChunkLayout.build(chunking, doc.offsets), None)
    pane.show()
    qtbot.waitExposed(pane)
    return pane, doc, chunking


LONG = "Intro line.\r\n" + one_line(30_000) + " 🚀 naïve " + "y" * 9_000 + " tail.\nlast line\n"


def test_display_breaks_keep_every_chunk_where_the_core_put_it(qtbot):
    """Each chunk's span in the pane holds exactly the chunk's source text, and each
    word sits where the core says, although the pane shows the long line in blocks."""
    pane, doc, chunking = shown(qtbot, LONG)
    assert pane.long_lines and pane.document().blockCount() > LONG.count("\n") + 5
    for k, c in enumerate(chunking.chunks):
        s, e = pane.chunk_span(k)
        assert pane.text_between(s, e) == LONG[c.start:c.end].replace("\r\n", "\n")
    words = chunking.words
    for w in range(0, len(words.starts), 97):
        start = int(doc.offsets.to_display(int(words.starts[w])))
        assert pane.view().chunk_at(start) == int(np.searchsorted([c.start for c in chunking.chunks],
                                                                  words.starts[w], "right")) - 1


def test_display_breaks_are_not_in_the_text_copied_or_read(qtbot):
    pane, doc, chunking = shown(qtbot, LONG)
    assert pane.current_text() == LONG.replace("\r\n", "\n")
    sep = int(pane.soft_breaks[3])  # a selection across a display break
    cursor = pane.textCursor()
    cursor.setPosition(sep - 40)
    cursor.setPosition(sep + 40, cursor.MoveMode.KeepAnchor)
    pane.setTextCursor(cursor)
    pane.copy()
    copied = QApplication.clipboard().text()
    lo = int(doc.offsets.to_source(sep - 40)) - 1  # "Intro line.\r\n": the CR takes no position
    assert copied == LONG[lo + 1:lo + 1 + 80 - 1]
    assert "\n" not in copied


def test_a_long_line_document_is_read_only_and_saved_unchanged(qtbot, window, tmp_path):
    """Keys typed beside a display break change nothing (the pane is read-only while it
    shows display breaks); saving writes the text as loaded; a short document makes
    the pane editable again."""
    load_texts(qtbot, window, "short A text here.", LONG)
    pane = window.pane_b
    assert pane.long_lines and not pane.editable
    assert "B has lines of more than 4,096 characters" in window.message_bar.text()
    sep = int(pane.soft_breaks[0])
    cursor = pane.textCursor()
    cursor.setPosition(sep + 1)
    pane.setTextCursor(cursor)
    pane.setFocus()
    for key in (Qt.Key.Key_A, Qt.Key.Key_Backspace, Qt.Key.Key_Return, Qt.Key.Key_Delete):
        qtbot.keyClick(pane, key)
    assert window.session.sides["B"].revision == 0 and not pane.modified
    with qtbot.waitSignal(window.saved, timeout=20_000):
        window.exports.save_as("B", tmp_path / "b.txt")
    assert (tmp_path / "b.txt").read_text(encoding="utf-8") == LONG.replace("\r\n", "\n")
    load_texts(qtbot, window, "short A text here.", "short B text here.")
    assert window.pane_b.editable and not window.pane_b.long_lines


def test_find_lands_on_the_word_after_a_display_break(qtbot, window):
    text = one_line(20_000)
    load_texts(qtbot, window, "nothing to see here.", text)
    pane = window.pane_b
    doc = window.session.sides["B"].doc
    sep = int(pane.soft_breaks[1])
    src = int(doc.offsets.to_source(sep + 1))  # the first character after the break
    needle = " ".join(text[src:].split(" ")[:4])
    assert text.index(needle) == src
    side, pos = window.navigation.find(needle)
    assert side == "B" and pos == sep + 1
    assert pane.textCursor().selectedText() == needle
    chunks = window.session.result.b.chunks
    expected = next(k for k, c in enumerate(chunks) if c.start <= src < c.end)
    assert pane.view().chunk_at(pos) == expected


def test_line_numbers_of_code_count_text_lines_not_display_pieces(qtbot):
    """A minified line of code is shown in pieces; the gutter's line numbers are still
    the file's: none beside a piece that goes on, the next line keeps its number."""
    code = "function a() {}\n" + "var x=1;" * 2_000 + "\nfunction b() {}\nlast();\n"
    doc = prepare_document("A", code, name="app.js")
    pane = DocumentPane("A")
    qtbot.addWidget(pane)
    pane.set_document(doc)
    assert doc.syntax is not None and pane.long_lines
    numbers = []
    block = pane.document().begin()
    while block.isValid():
        numbers.append(pane.gutter.line_number(block))
        block = block.next()
    shown = [n for n in numbers if n is not None]
    assert shown == list(range(1, code.count("\n") + 2))
    assert numbers.count(None) == len(pane.soft_breaks)
    last = pane.document().lastBlock().previous()
    assert pane.gutter.line_number(last) == 4 and last.text() == "last();"


def test_find_matches_text_that_straddles_a_display_break(qtbot, window):
    """The needle is in the text; that the display broke the line inside it must not hide it."""
    text = "An opening line.\n" + one_line(20_000) + " 🚀 closing words.\n"
    load_texts(qtbot, window, "nothing to see here.", text)
    pane = window.pane_b
    doc = window.session.sides["B"].doc
    src = int(doc.offsets.to_source(int(pane.soft_breaks[2]) + 1))
    needle = text[src - 12:src + 9].upper()  # the find is case-insensitive, as before
    assert text.lower().count(needle.lower()) == 1
    for direction in (1, -1):
        side, pos = window.navigation.find(needle, direction)
        assert side == "B" and pos == int(doc.offsets.to_display(src - 12))
        cursor = pane.textCursor()
        assert pane.text_between(cursor.selectionStart(), cursor.selectionEnd()) == text[src - 12:src + 9]
        cursor.setPosition(0 if direction < 0 else pane.document().characterCount() - 1)
        pane.setTextCursor(cursor)
    assert window.navigation.find("closing words") == ("B", int(doc.offsets.to_display(text.index("closing words"))))


def paste(qtbot, pane, text):
    QApplication.clipboard().setText(text)
    pane.setFocus()
    pane.paste()


def test_a_paste_that_would_make_an_over_long_line_is_refused_with_a_message(qtbot, window):
    load_texts(qtbot, window, "alpha beta.\n\ngamma delta.\n", "alpha beta.\n\ngamma delta.\n")
    pane = window.panes["B"]
    before = pane.current_text()
    t0 = time.thread_time()  # the GUI thread's CPU time: a busy machine does not inflate it
    paste(qtbot, pane, "x" * 200_000)  # one word: Qt's layout of it froze the window for 12 s
    assert time.thread_time() - t0 < 1.0
    assert pane.current_text() == before  # nothing half-inserted
    assert window.message_bar.level == "warning"
    assert "200,0" in window.message_bar.text() and "open it as B" in window.message_bar.text()
    assert QApplication.clipboard().text() == "x" * 200_000  # the text is not lost


def test_pasting_ordinary_text_still_works_and_the_limit_counts_the_joined_line(qtbot, window):
    from steadlith_gui.model.long_lines import LINE_LIMIT, longest_line_after_insert

    load_texts(qtbot, window, "alpha beta.\n", "alpha beta.\n")
    pane = window.panes["B"]
    paste(qtbot, pane, "one line\nand another, each short\n" * 200)
    assert "and another, each short" in pane.current_text()
    # the pasted text's first and last lines join the line the cursor is in
    assert longest_line_after_insert("ab\ncd", 10, 5) == 12
    assert longest_line_after_insert("abc", 10, 5) == 18
    assert longest_line_after_insert("a\n" + "y" * 50 + "\nb", 0, 0) == 50
    assert longest_line_after_insert("z" * LINE_LIMIT, 1, 0) > LINE_LIMIT
