"""Text -> word stream (`steadlith-norm/1`, SPEC §1).

The per-character work is vectorized: the text becomes an array of code points once,
whitespace and line breaks are found with table lookups, and word offsets fall out of
the edges of the whitespace mask. Only `str.split()` and per-word UTF-8 encoding touch
words one by one, and both run in C.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, NamedTuple

import numpy as np

NORMALIZER_VERSION = "steadlith-norm/1"

# SPEC §1: exactly the 29 code points that Python 3.11's str.isspace() matches.
WHITESPACE = (
    tuple(range(0x09, 0x0E))
    + tuple(range(0x1C, 0x20))
    + (0x20, 0x85, 0xA0, 0x1680)
    + tuple(range(0x2000, 0x200B))
    + (0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
)
# One entry past the last whitespace code point stays False: np.take(mode="clip")
# sends every larger code point there.
_WS_TABLE = np.zeros(max(WHITESPACE) + 2, dtype=bool)
_WS_TABLE[list(WHITESPACE)] = True


class Word(NamedTuple):
    text: str
    start: int
    end: int
    para: bool


@dataclass(frozen=True, eq=False)
class WordStream:
    """The words of a text, column-wise: one list and three read-only arrays.

    `starts`/`ends` are code-point offsets into the source text; `para[k]` is True
    when word k starts a paragraph.
    """

    texts: tuple[str, ...]
    starts: np.ndarray
    ends: np.ndarray
    para: np.ndarray

    def __len__(self) -> int:
        return len(self.texts)

    def __getitem__(self, k: int) -> Word:
        return Word(self.texts[k], int(self.starts[k]), int(self.ends[k]), bool(self.para[k]))

    def __iter__(self) -> Iterator[Word]:
        for k in range(len(self.texts)):
            yield self[k]

    @property
    def lengths(self) -> np.ndarray:
        """Length of each word in code points."""
        return self.ends - self.starts

    def paragraph_spans(self, a: int, b: int) -> list[tuple[int, int]]:
        """Words [a, b) cut at every paragraph start after the first word, as ranges."""
        starts = (np.flatnonzero(self.para[a + 1 : b]) + (a + 1)).tolist()
        bounds = [a, *starts, b]
        return list(zip(bounds, bounds[1:]))

    def canonical_text(self, a: int, b: int) -> str:
        """SPEC §1.5: words [a, b) joined by "\n\n" before paragraph starts, " " otherwise."""
        if a >= b:
            return ""
        return "\n\n".join(" ".join(self.texts[lo:hi]) for lo, hi in self.paragraph_spans(a, b))


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


def code_points(text: str) -> np.ndarray:
    """The text as a uint32 array of code points (lone surrogates kept as is)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def has_words(text: str) -> bool:
    """True when `text` holds at least one word (SPEC §1: anything but whitespace).
    A text without words chunks to nothing; clients refuse it before chunking."""
    return not (text == "" or text.isspace())  # SPEC §1 whitespace is exactly str.isspace()


def normalize(text: str) -> WordStream:
    """Split `text` into words with code-point offsets and paragraph flags."""
    if not isinstance(text, str):
        raise TypeError(f"normalize() takes a str, not {type(text).__name__}")
    cp = code_points(text)
    n_chars = cp.size
    is_ws = np.take(_WS_TABLE, cp, mode="clip")

    # Word edges: a word starts where a non-space follows a space (or the text start).
    padded = np.empty(n_chars + 2, dtype=bool)
    padded[0] = padded[-1] = True
    padded[1:-1] = is_ws
    del is_ws
    edges = np.flatnonzero(padded[1:] != padded[:-1])
    starts = edges[0::2].astype(np.int64)
    ends = edges[1::2].astype(np.int64)

    texts = tuple(text.split())
    if len(texts) != starts.size:  # both follow str.isspace(); a mismatch is a bug here
        raise AssertionError("word split disagrees with whitespace table")

    # Line breaks: every \r, and every \n not preceded by \r (so \r\n counts once).
    is_cr = cp == 0x0D
    lf = cp == 0x0A
    lf[1:] &= ~is_cr[:-1]
    lf |= is_cr
    break_at = np.flatnonzero(lf)
    del is_cr, lf, cp
    para = np.zeros(starts.size, dtype=bool)
    if starts.size > 1 and break_at.size > 1:
        gap_breaks = np.searchsorted(break_at, starts[1:]) - np.searchsorted(break_at, ends[:-1])
        para[1:] = gap_breaks >= 2
    return WordStream(texts, _readonly(starts), _readonly(ends), _readonly(para))
