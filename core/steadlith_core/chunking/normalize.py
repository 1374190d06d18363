"""Text -> word stream (`steadlith-norm/1`, docs/contract/normalizer.md#words).

The scan itself runs in the text kernel (kernel/select.py: compiled, or numpy on the UTF-8
bytes): word offsets and paragraph flags come back as arrays, and the words as Python
strings are made only when someone asks for them (`WordStream.texts`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterator, NamedTuple

import numpy as np

from ..kernel import select as kernel
from ..kernel.bytescan import RawScan

NORMALIZER_VERSION = "steadlith-norm/1"

# Whitespace (docs/contract/normalizer.md#whitespace): exactly the 29 code points that
# Python 3.11's str.isspace() matches.
WHITESPACE = (
    tuple(range(0x09, 0x0E))
    + tuple(range(0x1C, 0x20))
    + (0x20, 0x85, 0xA0, 0x1680)
    + tuple(range(0x2000, 0x200B))
    + (0x2028, 0x2029, 0x202F, 0x205F, 0x3000)
)


class Word(NamedTuple):
    text: str
    start: int
    end: int
    para: bool


@dataclass(frozen=True, eq=False)
class WordStream:
    """The words of a text, column-wise: three read-only arrays over the source text.

    `starts`/`ends` are code-point offsets into `source`; `para[k]` is True when word
    k starts a paragraph. `texts`, the words as strings, is made on first use.

    `document` is what was chunked: the text as a str, or its UTF-8 bytes (already
    validated, see pipeline.Pipeline.chunk). `source` is always the str; from bytes it
    is decoded on first use, so a document read as bytes is never held as a str (four
    bytes a character when it has one emoji) unless someone asks for its characters.
    `symbols`, when the stream came from the text kernel, are its per-word xxh3 symbols
    (equal for equal (text, para) words): the word diff compares words through them.
    """

    document: str | bytes
    starts: np.ndarray
    ends: np.ndarray
    para: np.ndarray
    symbols: np.ndarray | None = None

    @cached_property
    def source(self) -> str:
        d = self.document
        return d if isinstance(d, str) else str(d, "utf-8")

    @cached_property
    def texts(self) -> tuple[str, ...]:
        # whitespace is exactly str.isspace() (docs/contract/normalizer.md#whitespace)
        texts = tuple(self.source.split())
        if len(texts) != self.starts.size:  # both follow docs/contract/normalizer.md#words; a mismatch is a bug
            raise AssertionError("word split disagrees with the text kernel")
        return texts

    def __len__(self) -> int:
        return self.starts.size

    def __getitem__(self, k: int) -> Word:
        start, end = int(self.starts[k]), int(self.ends[k])
        return Word(self.source[start:end], start, end, bool(self.para[k]))

    def __iter__(self) -> Iterator[Word]:
        for k in range(len(self)):
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
        """Words [a, b) joined by "\n\n" before paragraph starts, " " otherwise
        (docs/contract/normalizer.md#canonical-text)."""
        if a >= b:
            return ""
        src = self.source
        words = [src[s:e] for s, e in zip(self.starts[a:b].tolist(), self.ends[a:b].tolist())]
        return "\n\n".join(" ".join(words[lo - a : hi - a]) for lo, hi in self.paragraph_spans(a, b))


def code_points(text: str) -> np.ndarray:
    """The text as a uint32 array of code points (lone surrogates kept as is)."""
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def has_words(text: str) -> bool:
    """True when `text` holds at least one word (docs/contract/normalizer.md#whitespace: anything but whitespace).
    A text without words chunks to nothing; clients refuse it before chunking."""
    # whitespace is exactly str.isspace() (docs/contract/normalizer.md#whitespace)
    return not (text == "" or text.isspace())


def normalize(text: str) -> WordStream:
    """Split `text` into words with code-point offsets and paragraph flags."""
    if not isinstance(text, str):
        raise TypeError(f"normalize() takes a str, not {type(text).__name__}")
    return stream_of(text, kernel.scan(text))


def stream_of(text: str | bytes, raw: RawScan, keep_symbols: bool | None = None) -> WordStream:
    """The word stream of a kernel scan of `text` (a str, or its validated UTF-8). A str's
    stream keeps the scan's symbols for the word diff; a lean document (bytes, or a long
    str) lets its symbols go once its candidates exist (document.Document), so its stream
    holds them only when `keep_symbols` (a document that will be compared). None: by the
    type of `text`."""
    keep = isinstance(text, str) if keep_symbols is None else keep_symbols
    return WordStream(text, raw.starts, raw.ends, raw.para, raw.symbols if keep else None)
