"""The canonical text of a word stream and the per-word arrays hashed from it.

`CanonicalText` (and `DocumentCanonical`, its lean form for a document given as bytes)
holds the canonical UTF-8 (docs/contract/normalizer.md#canonical-text) with each word's
byte offsets, so a chunk's text and hash are one slice; `utf8_words` and
`compute_symbols` are the per-word bytes and tttd-v1 symbols for callers that hash words
themselves. Every rule and the baseline build on these, so they import nothing of the
chunk types (chunks.py) or the boundary classes (boundaries.py), which build on them.
"""

from __future__ import annotations

import numpy as np
import xxhash

from ..kernel import bytescan
from ..kernel import select as kernel
from ..kernel.bytescan import RawScan
from .normalize import WordStream


def utf8_words(words: WordStream) -> list[bytes]:
    """Every word's UTF-8, one bytes object each: for callers that hash words themselves.
    The pipeline never needs it (the text kernel reads the document's bytes directly)."""
    try:
        return list(map(str.encode, words.texts))
    except UnicodeEncodeError:  # lone surrogates: only possible in a str built in Python
        return [w.encode("utf-8", "surrogatepass") for w in words.texts]


def compute_symbols(words: WordStream, encoded: list[bytes] | None = None) -> np.ndarray:
    """s_k = xxh3_64(utf8(word), seed = 1 if para else 0) for every word (docs/contract/tttd-v1.md#symbols).

    Without `encoded`, one kernel scan of the words' source text gives them all."""
    if encoded is None:
        return kernel.scan(words.source).symbols
    h = xxhash.xxh3_64_intdigest
    out = np.fromiter(map(h, encoded), dtype=np.uint64, count=len(encoded))
    for k in np.flatnonzero(words.para).tolist():
        out[k] = h(encoded[k], 1)
    out.flags.writeable = False
    return out


class CanonicalText:
    """The canonical UTF-8 text of the whole stream (docs/contract/normalizer.md#canonical-text) with each word's byte
    offsets in it, so a chunk's canonical text is one slice instead of a join.

    Only bytes are kept: a chunk's str is decoded from its slice, which costs less
    memory than holding a second copy of the document as str."""

    def __init__(self, words: WordStream, encoded: list[bytes]):
        n = len(words)
        # the canonical text (docs/contract/normalizer.md#canonical-text), as
        # WordStream.canonical_text, but joining the words' UTF-8 directly
        spans = words.paragraph_spans(0, n) if n else []
        data = b"\n\n".join(b" ".join(encoded[lo:hi]) for lo, hi in spans)
        byte_lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
        self._set(data, np.cumsum(byte_lengths + _separators(words.para)), words.para, None)

    @classmethod
    def of_scan(cls, raw: RawScan, document: bytes | None = None) -> "CanonicalText":
        """The canonical text a kernel scan wrote while it read the words; for a lean scan
        (kernel.scan(..., lean=True): none written), that of `document`, the bytes it read,
        made a chunk at a time (DocumentCanonical)."""
        if raw.canonical is None:
            if document is None:
                raise ValueError("a lean scan's canonical text needs the document it read")
            return DocumentCanonical(document, raw)
        canon = cls.__new__(cls)
        canon._set(raw.canonical, raw.canonical_ends, raw.para, raw.sentence_ends)
        return canon

    def _set(self, data: bytes, byte_ends: np.ndarray, para: np.ndarray, sentence_ends: np.ndarray | None) -> None:
        self.data = data
        self.byte_ends = byte_ends
        self._para = para
        self._sentence_ends = sentence_ends

    @property
    def sentence_ends(self) -> np.ndarray:
        """Whether each word ends a sentence (segment.ends_sentence), as the scan found;
        from the canonical bytes when this was built from words, or from a scan that left
        them out (the numpy scan: kernel.scan)."""
        if self._sentence_ends is None:
            b = np.frombuffer(self.data, dtype=np.uint8)
            self._sentence_ends = bytescan.sentence_ends(b, self.byte_starts, self.byte_ends)
        return self._sentence_ends

    def sentence_ends_at(self, words: np.ndarray) -> np.ndarray:
        """sentence_ends[words], testing only those words when the whole array was not
        made: tttd-v1 asks for its chunks' last words, a few in a thousand."""
        words = np.asarray(words, dtype=np.int64)
        if self._sentence_ends is not None:
            return self._sentence_ends[words]
        b = np.frombuffer(self.data, dtype=np.uint8)
        return bytescan.sentence_ends(b, self.starts_of(words), self.byte_ends[words].astype(np.int64))

    @property
    def byte_starts(self) -> np.ndarray:
        """Where each word starts in `data`: the previous word's end plus its separator.
        Derived on demand, so a document keeps one offset array here instead of two."""
        starts = np.zeros(self.byte_ends.size, dtype=np.int64)
        starts[1:] = self.byte_ends[:-1] + _separators(self._para)[1:]
        return starts

    def starts_of(self, words: np.ndarray) -> np.ndarray:
        """byte_starts[words], without deriving the whole array."""
        words = np.asarray(words, dtype=np.int64)
        before = self.byte_ends[np.maximum(words - 1, 0)] + np.where(self._para[words], 2, 1)
        return np.where(words > 0, before, 0)


class DocumentCanonical(CanonicalText):
    """The canonical text of a document given as UTF-8 bytes, never held whole by the
    chunking: each chunk's is made from its word-aligned range of the document when it
    is hashed (kernel.canonical_hashes) or its text is read (`self[lo:hi]`, `lo` and `hi`
    byte offsets in the document, as ChunkColumns keeps them). That spares a second copy
    of the document and an offset a word. `data` and `byte_ends`, the whole canonical
    text and each word's end in it, are made by a full scan when first read (the lab
    reads them; a one-shot chunking never does)."""

    def __init__(self, document: bytes, raw: RawScan):
        self.document = document
        self._para = raw.para
        self._sentence_ends = raw.sentence_ends
        self._whole: tuple[bytes, np.ndarray] | None = None

    def __getitem__(self, span: slice) -> bytes:
        return kernel.canonical_slice(self.document, span.start, span.stop)

    def __getstate__(self) -> dict:
        # a long ASCII str's own bytes are read through a memoryview, which does not pickle
        state = self.__dict__.copy()
        if isinstance(self.document, memoryview):
            state["document"] = bytes(self.document)
        return state

    def _made(self) -> tuple[bytes, np.ndarray]:
        if self._whole is None:
            raw = kernel.scan(self.document)
            self._whole = (raw.canonical, raw.canonical_ends)
        return self._whole

    @property
    def data(self) -> bytes:  # type: ignore[override]
        return self._made()[0]

    @property
    def byte_ends(self) -> np.ndarray:  # type: ignore[override]
        return self._made()[1]

    def byte_ranges(self, words: "WordStream", first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Where words `first` start and words `last` end in the document's bytes (int64;
        each array ascending)."""
        # one walk over the document for both: each start comes before its end, each end
        # no later than the next start
        both = np.empty(2 * first.size, dtype=np.int64)
        both[0::2] = words.starts[first]
        both[1::2] = words.ends[last]
        found = kernel.utf8_offsets(self.document, both)
        return found[0::2].copy(), found[1::2].copy()


def _separators(para: np.ndarray) -> np.ndarray:
    """Bytes of the separator before each word in the canonical text (none before word 0)."""
    sep = np.where(para, 2, 1).astype(np.int64)
    if sep.size:
        sep[0] = 0
    return sep
