"""Display breaks without Qt: where they go, and that positions map through them both
ways (steadlith_gui.model.long_lines, steadlith_gui.model.offsets)."""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from steadlith_gui.model.long_lines import display_breaks, with_breaks, without_breaks
from steadlith_gui.model.offsets import OffsetMap

# small limits so that short texts exercise every branch
LINE, RUN = 12, 5
ALPHABET = st.sampled_from(["a", "b", " ", "\t", "\n", "\r", "\r\n", "\u2029", "\u3000", "🚀", "é"])
texts = st.lists(ALPHABET, max_size=80).map("".join)


def qt_document(shown: str) -> str:
    """What a QTextDocument holds for setPlainText(shown): one separator per line end."""
    return shown.replace("\r\n", "\u2029").replace("\r", "\u2029").replace("\n", "\u2029")


def utf16(text: str) -> list[str]:
    """One entry per Qt position."""
    out = []
    for ch in text:
        out.extend([ch, ""] if ord(ch) > 0xFFFF else [ch])
    return out


@settings(max_examples=300, deadline=None)
@given(texts)
@example("a" * 40)
@example("ab " * 20)
@example("\r\n".join(["x" * 30] * 3))
def test_breaks_bound_every_displayed_line_and_map_both_ways(text):
    breaks = display_breaks(text, LINE, RUN)
    shown = with_breaks(text, breaks)
    assert without_breaks(shown, breaks) == text
    # no displayed line is longer than the limit, and no break makes an empty line
    for line in qt_document(shown).split("\u2029"):
        assert len(line) <= LINE
    assert all(0 < b < len(text) for b in breaks)
    assert all(text[b - 1] not in "\r\n\u2029" and text[b] not in "\r\n\u2029" for b in breaks)
    # every code point is found at its display position, and maps back to itself
    offsets = OffsetMap(text, breaks)
    doc = utf16(qt_document(shown))
    assert offsets.display_length == len(doc)
    for i, ch in enumerate(text):
        pos = int(offsets.to_display(i))
        if ch == "\r" and text[i + 1:i + 2] == "\n":
            continue  # a CR of CRLF takes no position
        assert doc[pos] == (ch if ch not in "\r\n" else "\u2029")
        assert int(offsets.to_source(pos)) == i


def test_ordinary_text_gets_no_breaks():
    text = ("A line of ordinary length. " * 100 + "\n") * 50
    assert display_breaks(text).size == 0


def test_a_long_line_breaks_after_whitespace_and_a_run_every_run_limit():
    prose = "word " * 2000
    breaks = display_breaks(prose)
    assert breaks.size and all(prose[b - 1] == " " for b in breaks)
    word = "x" * 10_000
    # every RUN_LIMIT while what is left is longer than a line
    assert np.array_equal(display_breaks(word), [2048, 4096, 6144])
