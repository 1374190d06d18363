"""The chunker's result types and the word arrays they are built from: a leaf module.

`Chunk` and `Chunking` are what every rule returns and every client reads (the
comparison, the baseline, exports, the inspector); `CanonicalText`, `utf8_words`,
`compute_symbols`, `boundary_classes`/`cut_boundaries` and `build_chunks` are the
rule-independent steps that turn a word stream and a list of cuts into hashed chunks. Keeping them apart from pipeline.py lets
the baseline and a second boundary rule build chunks without importing the staged
pipeline, and keeps the imports of the core pointing one way (pyproject.toml,
[tool.importlinter]).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence, Union

import numpy as np
import xxhash

from . import kernel
from .bytescan import RawScan
from .diagnostics import Diagnostics, Lmx2Diagnostics
from .normalize import NORMALIZER_VERSION, WordStream, code_points
from .params import BOUNDARY_RULE, ChunkerParams
from .segment import SENTENCE_CLOSERS, SENTENCE_ENDS, ends_sentence
from .vocabulary import END, PARAGRAPH, SENTENCE, WORD

if TYPE_CHECKING:
    from .lmx2_params import Lmx2Params

# The parameters of any boundary rule (each rule owns its type; pipeline.RULES maps them).
AnyParams = Union[ChunkerParams, "Lmx2Params"]


class Chunk(NamedTuple):
    index: int
    start_word: int
    end_word: int
    start: int  # code point where the first word starts
    end: int  # code point where the last word ends
    kind: str  # tttd-v1: primary | backup | hard | end; lmx2-v1: primary | fill | long-word | end
    snapped: bool  # tttd-v1 only: snapping moved the cut (always False under lmx2-v1)
    tokens: int
    text: str  # canonical text (SPEC §1.5)
    hash: str
    boundary: str  # paragraph | sentence | word | end: the class of the end cut (SPEC-lmx2 §4)

    @property
    def word_count(self) -> int:
        return self.end_word - self.start_word


@dataclass(frozen=True, eq=False)
class Chunking:
    """The immutable result of chunking one text with one parameter set, of either
    boundary rule: `params` is a ChunkerParams (tttd-v1) or an Lmx2Params (lmx2-v1),
    and `boundary_rule` names the rule. `diagnostics` is a Diagnostics or an
    Lmx2Diagnostics accordingly; `fingerprints` are tttd-v1's Rabin fingerprints (None
    under lmx2-v1), `stages` lmx2-v1's keys and cuts (lmx2.Lmx2Stages; None under tttd-v1)."""

    text: str
    words: WordStream
    params: AnyParams
    params_hash: str
    chunks: tuple[Chunk, ...]
    diagnostics: Diagnostics | Lmx2Diagnostics
    word_tokens: np.ndarray  # tokens of each word
    cum_tokens: np.ndarray  # cum_tokens[i] = tokens of words [0, i)
    fingerprints: np.ndarray | None
    canonical: "CanonicalText"  # the stream's canonical UTF-8, for slicing chunk texts
    normalizer_version: str = NORMALIZER_VERSION
    boundary_rule: str = BOUNDARY_RULE
    stages: Any = None

    @property
    def word_count(self) -> int:
        return len(self.words)

    @cached_property
    def _chunk_start_words(self) -> list[int]:
        return [c.start_word for c in self.chunks]

    @cached_property
    def _chunk_start_offsets(self) -> list[int]:
        return [c.start for c in self.chunks]

    def chunk_at_word(self, k: int) -> int:
        """Index of the chunk holding word k."""
        return bisect_right(self._chunk_start_words, k) - 1

    def chunk_at_offset(self, offset: int) -> int | None:
        """Index of the chunk whose span [start, end) holds code point `offset`, if any."""
        i = bisect_right(self._chunk_start_offsets, offset) - 1
        if i >= 0 and offset < self.chunks[i].end:
            return i
        return None


def utf8_words(words: WordStream) -> list[bytes]:
    """Every word's UTF-8, one bytes object each: for callers that hash words themselves.
    The pipeline never needs it (the text kernel reads the document's bytes directly)."""
    try:
        return list(map(str.encode, words.texts))
    except UnicodeEncodeError:  # lone surrogates: only possible in a str built in Python
        return [w.encode("utf-8", "surrogatepass") for w in words.texts]


def compute_symbols(words: WordStream, encoded: list[bytes] | None = None) -> np.ndarray:
    """s_k = xxh3_64(utf8(word), seed = 1 if para else 0) for every word (SPEC §3).

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
    """The canonical UTF-8 text of the whole stream (SPEC §1.5) with each word's byte
    offsets in it, so a chunk's canonical text is one slice instead of a join.

    Only bytes are kept: a chunk's str is decoded from its slice, which costs less
    memory than holding a second copy of the document as str."""

    def __init__(self, words: WordStream, encoded: list[bytes]):
        n = len(words)
        # SPEC §1.5, as WordStream.canonical_text, but joining the words' UTF-8 directly
        spans = words.paragraph_spans(0, n) if n else []
        data = b"\n\n".join(b" ".join(encoded[lo:hi]) for lo, hi in spans)
        byte_lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
        self._set(data, np.cumsum(byte_lengths + _separators(words.para)), words.para)

    @classmethod
    def of_scan(cls, raw: RawScan) -> "CanonicalText":
        """The canonical text a kernel scan wrote while it read the words."""
        canon = cls.__new__(cls)
        canon._set(raw.canonical, raw.canonical_ends, raw.para)
        return canon

    def _set(self, data: bytes, byte_ends: np.ndarray, para: np.ndarray) -> None:
        self.data = data
        # UTF-8 of a lone surrogate starts ED A0..ED BF; it is in the data only then
        self.has_surrogates = re.search(rb"\xed[\xa0-\xbf]", data) is not None
        self.byte_ends = byte_ends
        self._para = para

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


def _separators(para: np.ndarray) -> np.ndarray:
    """Bytes of the separator before each word in the canonical text (none before word 0)."""
    sep = np.where(para, 2, 1).astype(np.int64)
    if sep.size:
        sep[0] = 0
    return sep


_MARK_CODE_POINTS = np.array(sorted({ord(ch) for ch in SENTENCE_CLOSERS + "".join(SENTENCE_ENDS)}), dtype=np.uint32)
CLASS_NAMES = (WORD, SENTENCE, PARAGRAPH)  # indexed by the class r of SPEC-lmx2 §2


def boundary_classes(text: str, words: WordStream) -> np.ndarray:
    """r(c) of SPEC-lmx2 §2 with the preference on, for every cut c in 0..n (uint8):
    2 where word c starts a paragraph, else 1 where word c-1 ends a sentence (closers
    stripped, SPEC §5), else 0. Entries 0 and n are meaningless (edges have no class).
    Text only, so it serves every rule; only words ending in a mark or a closer are
    tested in Python."""
    n = len(words)
    r = np.zeros(n + 1, dtype=np.uint8)
    if n == 0:
        return r
    last = code_points(text)[words.ends - 1]
    maybe = np.flatnonzero(np.isin(last, _MARK_CODE_POINTS)).tolist()
    src, starts, stops = words.source, words.starts, words.ends
    # one slice per candidate word: WordStream.texts would make a str of every word
    ends = [k + 1 for k in maybe if ends_sentence(src[starts[k]:stops[k]])]
    r[ends] = 1
    r[:n][words.para] = 2
    r[n] = 0
    return r


def cut_boundary(words: WordStream, e: int) -> str:
    """The boundary of a chunk ending at cut `e` (SPEC-lmx2 §4), from the words alone:
    the same class boundary_classes gives, for one cut (a rule that has no class array,
    like tttd-v1, pays per chunk rather than per word)."""
    if e >= len(words):
        return END
    if words.para[e]:
        return PARAGRAPH
    return SENTENCE if ends_sentence(words[e - 1].text) else WORD  # one word, not WordStream.texts


def build_chunks(
    words: WordStream, canon: CanonicalText, cuts: Sequence[tuple[int, int, str, bool, str]], cum: np.ndarray,
    prefix: bytes,
) -> tuple[Chunk, ...]:
    """Chunks for cuts (start word, end word, kind, snapped, boundary): offsets, tokens,
    canonical text sliced from `canon`, and the SPEC §7 hash under `prefix`
    (chunk_hash_prefix). The boundary is reported, never hashed."""
    if not cuts:
        return ()
    first = np.fromiter((c[0] for c in cuts), dtype=np.int64, count=len(cuts))
    last = np.fromiter((c[1] for c in cuts), dtype=np.int64, count=len(cuts)) - 1
    columns = zip(
        cuts,
        words.starts[first].tolist(),
        words.ends[last].tolist(),
        (cum[last + 1] - cum[first]).tolist(),
        canon.starts_of(first).tolist(),
        canon.byte_ends[last].tolist(),
    )
    data = canon.data
    surrogates = canon.has_surrogates  # strict decoding is the faster path; it fits all else
    h = xxhash.xxh3_128_hexdigest
    new = tuple.__new__  # Chunk(...) through its Python-level __new__ costs a microsecond a chunk
    out = []
    for i, ((s, e, kind, snapped, boundary), start, end, tokens, bs, be) in enumerate(columns):
        piece = data[bs:be]
        # enc(canonical text) of SPEC §7: 8-byte length, then the UTF-8 bytes
        digest = h(prefix + (be - bs).to_bytes(8, "big") + piece)
        text = piece.decode("utf-8", "surrogatepass") if surrogates else piece.decode()
        out.append(new(Chunk, (i, s, e, start, end, kind, snapped, tokens, text, digest, boundary)))
    return tuple(out)
