"""Core offsets are code points, Qt positions are UTF-16 units (and "\\r\\n" is one
block separator): the one helper converts, and markers land on the right characters."""

from hypothesis import example, given, strategies as st
from PySide6.QtGui import QTextCursor, QTextDocument
from steadlith_core import ChunkerParams

from gui_helpers import load_texts
from steadlith_gui.model.offsets import OffsetMap, qt_units

# a deliberately small alphabet, rich in the characters that make the systems differ
ALPHABET = st.sampled_from(["a", "é", "日", "本", " ", "\n", "\r", "\u2029", "🚀", "😀", "𝔘", "\t"])


def brute_display(text: str) -> list[int]:
    out = [0]
    for u in qt_units(text).tolist():
        out.append(out[-1] + u)
    return out


@given(st.lists(ALPHABET, max_size=40).map("".join))
@example("🚀\r\n日\r\r\n😀")
def test_offset_map_against_a_simple_oracle(text):
    m = OffsetMap(text)
    disp = brute_display(text)
    assert [m.to_display(i) for i in range(len(text) + 1)] == disp
    assert m.to_display(list(range(len(text) + 1))).tolist() == disp  # vectorized
    for u in range(disp[-1] + 1):
        assert m.to_source(u) == max(i for i in range(len(text) + 1) if disp[i] <= u)


@given(st.lists(ALPHABET, max_size=30).map("".join))
def test_offset_map_matches_qt_document(qapp, text):
    """Every code point sits where Qt put it (checked against a real QTextDocument)."""
    doc = QTextDocument()
    doc.setPlainText(text)
    m = OffsetMap(text)
    assert m.display_length == doc.characterCount() - 1
    for i, ch in enumerate(text):
        if ch in "\r\n\u2029":
            continue
        cursor = QTextCursor(doc)
        pos = m.to_display(i)
        cursor.setPosition(pos)
        cursor.setPosition(pos + (2 if ord(ch) > 0xFFFF else 1), QTextCursor.MoveMode.KeepAnchor)
        assert cursor.selectedText() == ch


def doc_text(pane, start: int, end: int) -> str:
    cursor = QTextCursor(pane.document())
    cursor.setPosition(start)
    cursor.setPosition(end, QTextCursor.MoveMode.KeepAnchor)
    return cursor.selectedText()


EMOJI_CJK = (
    "Indexing 🚀 rockets and 日本語のテキスト side by side.\r\n"
    "Emoji 😀😀 count twice in UTF-16 but once in code points; 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 too.\r\n\r\n"
    "中文分词很难 because there are no spaces 在这里 at all. Then 🚀🚀🚀 again, "
    "and naïve café text follows. "
) * 12


def test_markers_land_on_the_right_characters_with_emoji_and_cjk(qtbot, window):
    params = ChunkerParams(window_words=4, min_tokens=6, max_tokens=30,
                           primary_mask=0x7, primary_remainder=0x7, backup_mask=0x3, backup_remainder=0x3)
    window.session.set_params(params, show=True)
    result = load_texts(qtbot, window, EMOJI_CJK, EMOJI_CJK)
    text, chunks = EMOJI_CJK, result.a.chunks
    assert len(chunks) > 10
    pane = window.pane_a
    layout = pane.layout_info  # the positions the pane paints its tints and markers at
    naive_differs = 0
    for c in chunks:
        start, end = int(layout.starts[c.index]), int(layout.ends[c.index])
        first, last = text[c.start], text[c.end - 1]
        # the chunk's first character is where its tint starts ...
        assert doc_text(pane, start, start + len(first.encode("utf-16-le")) // 2) == first
        # ... and the character just before the marker is the chunk's last character
        assert doc_text(pane, end - len(last.encode("utf-16-le")) // 2, end) == last
        # the marker sits where the core's cut is: the source text continues there as the document does
        if c.end < len(text) and text[c.end] not in "\r\n":
            assert doc_text(pane, end, end + 1) == text[c.end]
        # and the pane holds the chunk's original text exactly (CRLF shown as one separator)
        original = text[c.start : c.end].replace("\r\n", "\u2029").replace("\r", "\u2029").replace("\n", "\u2029")
        assert doc_text(pane, start, end) == original
        naive_differs += c.end != end
    assert naive_differs > len(chunks) // 2  # without conversion most markers would be off
