"""F7/F8 land on the change, not on the chunk's first word: in a
one-word typo inside a long chunk the changed word is under the caret and centred; at the
last change the status bar says so (no wrap: see navigation.py)."""

from PySide6.QtCore import Qt
from steadlith_core import ChunkerParams
from steadlith_core.bench.examples import generate_prose

from gui_helpers import load_texts

BIG_CHUNKS = ChunkerParams(min_tokens=900, max_tokens=2400)


def typo_pair():
    text_a = generate_prose(9_000, seed=3).encode("ascii", "ignore").decode()  # Qt positions = indices
    at = text_a.index(" ", len(text_a) * 2 // 3) + 1
    end = text_a.index(" ", at)
    return text_a[:at] + "synonomous" + text_a[end:], text_a[:at] + "synonymous" + text_a[end:]


def test_f7_lands_on_the_changed_word_centred_and_says_last_change(qtbot, window):
    window.session.set_params(BIG_CHUNKS, show=True)
    text_a, text_b = typo_pair()
    result = load_texts(qtbot, window, text_a, text_b)
    edited = [j for j, s in enumerate(result.comparison.status_b) if s != "reused"]
    assert edited, "the typo changes a chunk"
    pane = window.pane_b
    pane.setFocus()
    pane.move_caret(0)
    pane.verticalScrollBar().setValue(0)
    start, end = pane.chunk_span(edited[0])
    qtbot.keyClick(pane, Qt.Key.Key_F7)
    caret = pane.textCursor().position()
    assert pane.toPlainText()[caret:caret + len("synonymous")] == "synonymous"
    assert caret - start > 1200, "the typo is far into its chunk: landing on the chunk start would miss it"
    top, bottom = pane.y_locator()(caret)
    middle = pane.viewport().height() / 2
    assert abs((top + bottom) / 2 - middle) < pane.viewport().height() * 0.15, "the change is centred"
    for _ in edited[1:]:
        qtbot.keyClick(pane, Qt.Key.Key_F7)
    window.statusBar().clearMessage()
    qtbot.keyClick(pane, Qt.Key.Key_F7)
    assert "last change" in window.statusBar().currentMessage()
    if len(edited) > 1:
        qtbot.keyClick(pane, Qt.Key.Key_F7, Qt.KeyboardModifier.ShiftModifier)
        assert window.navigation.selection == ("B", edited[-2])
