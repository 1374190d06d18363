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

from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Sequence, Union

import numpy as np
import xxhash

from ..kernel import bytescan
from ..kernel import select as kernel
from ..kernel.bytescan import RawScan
from ..kernel.segment import SENTENCE_CLOSERS, SENTENCE_ENDS, ends_sentence
from ..vocabulary import BOUNDARIES, END, PARAGRAPH, SENTENCE, WORD
from .diagnostics import Diagnostics, Lmx2Diagnostics
from .normalize import NORMALIZER_VERSION, WordStream, code_points
from .params import BOUNDARY_RULE, ChunkerParams

if TYPE_CHECKING:
    from .lmx2_params import Lmx2Params

# The parameters of any boundary rule (each rule owns its type; pipeline.RULES maps them).
AnyParams = Union[ChunkerParams, "Lmx2Params"]


_PUBLIC = ("index", "start_word", "end_word", "start", "end", "kind", "snapped", "tokens", "text", "hash", "boundary")
# Where each public field sits in the tuple: the text is not stored, but decoded from
# the stream's canonical UTF-8 (slots 10-12: source, byte start, byte end) when asked.
_SLOT = {"index": 0, "start_word": 1, "end_word": 2, "start": 3, "end": 4, "kind": 5, "snapped": 6, "tokens": 7,
         "hash": 8, "boundary": 9}


class Chunk(tuple):
    """One chunk: a read-only record with the fields of `_fields`, read by name (as a
    named tuple's; iterating yields them in that order).

    `text` (the canonical text, docs/contract/normalizer.md#canonical-text) is decoded from
    the canonical UTF-8 of the
    whole stream each time it is asked for: most clients (cuts, hashes, churn) never
    ask, and a str per chunk would be a second copy of the document. Equality and
    hashing go by the other fields: the chunk hash commits to the text."""

    __slots__ = ()
    _fields = _PUBLIC

    def __new__(cls, index: int, start_word: int, end_word: int, start: int, end: int, kind: str, snapped: bool,
                tokens: int, text: str, hash: str, boundary: str) -> "Chunk":
        data = text.encode("utf-8", "surrogatepass")
        return tuple.__new__(cls, (index, start_word, end_word, start, end, kind, snapped, tokens, hash, boundary,
                                   data, 0, len(data)))

    index = property(itemgetter(0))
    start_word = property(itemgetter(1))
    end_word = property(itemgetter(2))
    start = property(itemgetter(3))
    end = property(itemgetter(4))
    kind = property(itemgetter(5))  # tttd-v1: primary | backup | hard | end; lmx2-v1: primary | fill | long-word | end
    snapped = property(itemgetter(6))  # tttd-v1 only: snapping moved the cut (always False under lmx2-v1)
    tokens = property(itemgetter(7))
    hash = property(itemgetter(8))
    # paragraph | sentence | word | end: the class of the end cut (docs/contract/lmx2-v1.md#chunks)
    boundary = property(itemgetter(9))

    @property
    def text(self) -> str:
        """The canonical text (docs/contract/normalizer.md#canonical-text), decoded from the stream's canonical UTF-8."""
        data, lo, hi = tuple.__getitem__(self, slice(10, 13))
        try:
            return str(data[lo:hi], "utf-8")
        except UnicodeDecodeError:  # lone surrogates: only possible in a str built in Python
            return str(data[lo:hi], "utf-8", "surrogatepass")

    @property
    def word_count(self) -> int:
        return self.end_word - self.start_word

    def _values(self) -> tuple:
        return tuple(getattr(self, f) for f in _PUBLIC)

    def __iter__(self):
        return iter(self._values())

    def __len__(self) -> int:
        return len(_PUBLIC)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Chunk):
            return tuple.__getitem__(self, slice(0, 10)) == tuple.__getitem__(other, slice(0, 10))
        return NotImplemented

    def __ne__(self, other: object) -> bool:
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self) -> int:
        return hash(tuple.__getitem__(self, slice(0, 10)))

    def __repr__(self) -> str:
        return "Chunk(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in _PUBLIC) + ")"

    def __reduce__(self):
        # a pickled chunk carries its own text, not the whole stream's
        return (Chunk, self._values())

    def _asdict(self) -> dict:
        return dict(zip(_PUBLIC, self._values()))

    def _replace(self, **changes) -> "Chunk":
        return Chunk(**{**self._asdict(), **changes})


@dataclass(frozen=True, eq=False)
class Chunking:
    """The immutable result of chunking one text with one parameter set, of either
    boundary rule: `params` is a ChunkerParams (tttd-v1) or an Lmx2Params (lmx2-v1),
    and `boundary_rule` names the rule. `diagnostics` is a Diagnostics or an
    Lmx2Diagnostics accordingly; `fingerprints` are tttd-v1's Rabin fingerprints (None
    under lmx2-v1), `stages` lmx2-v1's keys and cuts (lmx2.Lmx2Stages; None under tttd-v1).

    `chunks` is made from `columns` when first read: a re-chunk that only feeds the
    diagnostics, a count or a benchmark makes no object per chunk."""

    document: str | bytes  # as given to the pipeline: a str, or its UTF-8 bytes (`text` is the str)
    words: WordStream
    params: AnyParams
    params_hash: str
    # every chunk's fields column-wise: the Chunk objects (`chunks`) are made from them
    # when first read
    columns: "ChunkColumns"
    diagnostics: Diagnostics | Lmx2Diagnostics
    # tokens of each word (`word_tokens`), or what makes them when first read: a document
    # given as bytes keeps only the running total
    word_tokens_of: np.ndarray | Callable[[], np.ndarray]
    # cum_tokens[i] = tokens of words [0, i): int64, or int32 for a document given as
    # bytes and chunked by tttd-v1 with the compiled chars4/1 (its largest array, and a
    # total that cannot reach 2^30); read it through int() or widen it before adding to it
    cum_tokens: np.ndarray
    # tttd-v1's fingerprints, made when first read (`fingerprints`): the cuts need only
    # the candidates, and 8 bytes a word is much of a large document's memory
    fingerprints_of: Callable[[], np.ndarray] | None
    canonical: "CanonicalText"  # the stream's canonical UTF-8, for slicing chunk texts
    normalizer_version: str = NORMALIZER_VERSION
    boundary_rule: str = BOUNDARY_RULE
    stages: Any = None

    @property
    def text(self) -> str:
        """The chunked text as a str, decoded on first use when it was given as bytes."""
        return self.document if isinstance(self.document, str) else self.words.source

    @cached_property
    def word_tokens(self) -> np.ndarray:
        """Tokens of each word."""
        t = self.word_tokens_of
        return t if isinstance(t, np.ndarray) else t()

    @cached_property
    def fingerprints(self) -> np.ndarray | None:
        """F_k of every word (docs/contract/tttd-v1.md#fingerprint) under tttd-v1; None under lmx2-v1."""
        return None if self.fingerprints_of is None else self.fingerprints_of()

    @property
    def word_count(self) -> int:
        return len(self.words)

    @cached_property
    def chunks(self) -> tuple[Chunk, ...]:
        """Every chunk, in order."""
        return self.columns.chunks()

    def iter_chunks(self) -> Iterator[Chunk]:
        """The chunks in order: those of `chunks` once it was read, else each made as it
        is reached and not kept, so a writer that streams them never holds them all."""
        made = self.__dict__.get("chunks")
        return iter(made) if made is not None else self.columns.iter_chunks()

    def chunk_at_word(self, k: int) -> int:
        """Index of the chunk holding word k."""
        return int(np.searchsorted(self.columns.start_words, k, "right")) - 1

    def chunk_at_offset(self, offset: int) -> int | None:
        """Index of the chunk whose span [start, end) holds code point `offset`, if any."""
        i = int(np.searchsorted(self.columns.starts, offset, "right")) - 1
        if i >= 0 and offset < self.columns.ends[i]:
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


_MARK_CODE_POINTS = np.array(sorted({ord(ch) for ch in SENTENCE_CLOSERS + "".join(SENTENCE_ENDS)}), dtype=np.uint32)
CLASS_NAMES = (WORD, SENTENCE, PARAGRAPH)  # indexed by the class r (docs/contract/lmx2-v1.md#classes)


def classes_of(para: np.ndarray, sentence_ends: np.ndarray) -> np.ndarray:
    """The class r(c) (docs/contract/lmx2-v1.md#classes) of every cut c in 0..n (uint8), as boundary_classes, from
    the per-word flags the text scan gives: 2 where word c starts a paragraph, else 1
    where word c-1 ends a sentence, else 0."""
    n = para.size
    r = np.zeros(n + 1, dtype=np.uint8)
    r[1:] = sentence_ends  # 0 or 1; whole-array passes: a boolean-mask store is ~5x slower
    np.maximum(r[:n], np.multiply(para, 2, dtype=np.uint8), out=r[:n])
    r[n] = 0
    return r


def boundary_classes(text: str, words: WordStream) -> np.ndarray:
    """The class r(c) (docs/contract/lmx2-v1.md#classes) with the preference on, of every cut c in 0..n (uint8):
    2 where word c starts a paragraph, else 1 where word c-1 ends a sentence (closers
    stripped, docs/contract/tttd-v1.md#snapping), else 0. Entries 0 and n are meaningless (edges have no class).
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
    """The boundary of a chunk ending at cut `e` (docs/contract/lmx2-v1.md#chunks), from the words alone:
    the same class boundary_classes gives, for one cut (a rule that has no class array,
    like tttd-v1, pays per chunk rather than per word)."""
    if e >= len(words):
        return END
    if words.para[e]:
        return PARAGRAPH
    return SENTENCE if ends_sentence(words[e - 1].text) else WORD  # one word, not WordStream.texts


def cut_boundaries(canon: CanonicalText, ends: np.ndarray) -> list[str]:
    """cut_boundary of every cut in `ends` at once, from the scan's per-word flags."""
    return list(map(BOUNDARIES.__getitem__, cut_boundary_codes(canon, ends).tolist()))


def cut_boundary_codes(canon: CanonicalText, ends: np.ndarray) -> np.ndarray:
    """cut_boundaries as indices into vocabulary.BOUNDARIES (uint8)."""
    para = canon._para
    n = para.size
    ends = np.asarray(ends, dtype=np.int64)
    inner = np.minimum(ends, n - 1)
    sentence = canon.sentence_ends_at(np.maximum(ends - 1, 0)) if n else np.zeros(ends.size, dtype=bool)
    code = np.where(para[inner], 0, np.where(sentence, 1, 2)).astype(np.uint8)
    code[ends >= n] = 3
    return code


class CutColumns(NamedTuple):
    """The cuts of one chunking column-wise, as a rule's stages produce them: the first
    and the end word of each chunk (int64 arrays), and its kind, snapped flag (None:
    never) and boundary, one name per chunk."""

    starts: np.ndarray
    ends: np.ndarray
    kinds: Sequence[str]
    snapped: Sequence[bool] | None
    boundaries: Sequence[str]

    @classmethod
    def of_rows(cls, cuts: Sequence[tuple[int, int, str, bool, str]]) -> "CutColumns":
        count = len(cuts)
        return cls(np.fromiter((c[0] for c in cuts), dtype=np.int64, count=count),
                   np.fromiter((c[1] for c in cuts), dtype=np.int64, count=count),
                   [c[2] for c in cuts], [c[3] for c in cuts], [c[4] for c in cuts])


class ChunkColumns:
    """Every field of every chunk of one chunking, column-wise: word ranges, code-point
    offsets and tokens as int64 arrays, kinds and boundaries as lists of names, hashes
    as hex strings, computed from the cuts (CutColumns, or rows of start word, end word,
    kind, snapped, boundary) with the chunk hash (docs/contract/identity.md#chunk-hash)
    under `prefix` (chunk_hash_prefix) of the canonical text sliced from `canon`. The boundary is reported, never hashed.

    This is what a Chunking keeps until its Chunk objects are asked for (`chunks`): a
    10 MB document has ~10,000 chunks, and a re-chunk that feeds only the diagnostics,
    a count or a sweep need not make an object for each."""

    def __init__(self, words: WordStream, canon: CanonicalText,
                 cuts: "CutColumns | Sequence[tuple[int, int, str, bool, str]]", cum: np.ndarray, prefix: bytes):
        if not isinstance(cuts, CutColumns):
            cuts = CutColumns.of_rows(cuts)
        self.start_words = np.asarray(cuts.starts, dtype=np.int64)
        self.end_words = np.asarray(cuts.ends, dtype=np.int64)
        self.kinds, self.snapped, self.boundaries = cuts.kinds, cuts.snapped, cuts.boundaries
        lean = isinstance(canon, DocumentCanonical)
        # what a chunk's text is sliced from: the canonical text, or for a lean document
        # the document itself, whose slices canonicalise (DocumentCanonical)
        self.data = canon if lean else canon.data
        first, last = self.start_words, self.end_words - 1
        if first.size:
            if lean:
                self.byte_starts, self.byte_ends = canon.byte_ranges(words, first, last)
            else:
                self.byte_starts, self.byte_ends = canon.starts_of(first), canon.byte_ends[last].astype(np.int64)
            self.starts = words.starts[first].astype(np.int64)
            self.ends = words.ends[last].astype(np.int64)
            self.tokens = (cum[self.end_words] - cum[first]).astype(np.int64)
        else:
            self.byte_starts = self.byte_ends = self.starts = self.ends = self.tokens = first
        if not first.size:
            hashes = []
        elif lean:
            hashes = kernel.canonical_hashes(canon.document, self.byte_starts, self.byte_ends, prefix)
        else:
            hashes = kernel.chunk_hashes(self.data, self.byte_starts, self.byte_ends, prefix)
        if hashes is None:
            h, data = xxhash.xxh3_128_hexdigest, self.data
            # enc(canonical text) (docs/contract/identity.md#enc): 8-byte length, then the UTF-8 bytes
            hashes = [h(prefix + (be - bs).to_bytes(8, "big") + data[bs:be])
                      for bs, be in zip(self.byte_starts.tolist(), self.byte_ends.tolist())]
        self.hashes: list[str] = hashes

    def __len__(self) -> int:
        return self.start_words.size

    def chunks(self) -> tuple[Chunk, ...]:
        """A Chunk for each chunk, each decoding its text from `data` only when asked."""
        return tuple(self.iter_chunks())

    def iter_chunks(self) -> Iterator[Chunk]:
        """The Chunk objects of `chunks`, made one at a time."""
        count = len(self)
        if count == 0:
            return iter(())
        rows = zip(
            range(count), self.start_words.tolist(), self.end_words.tolist(), self.starts.tolist(),
            self.ends.tolist(), self.kinds, repeat(False) if self.snapped is None else self.snapped,
            self.tokens.tolist(), self.hashes, self.boundaries, repeat(self.data), self.byte_starts.tolist(),
            self.byte_ends.tolist(),
        )
        # tuple.__new__ skips Chunk's Python-level __new__, which would encode a given text
        return map(tuple.__new__, repeat(Chunk), rows)


def build_chunks(
    words: WordStream, canon: CanonicalText, cuts: "CutColumns | Sequence[tuple[int, int, str, bool, str]]",
    cum: np.ndarray, prefix: bytes,
) -> tuple[Chunk, ...]:
    """The Chunk objects of ChunkColumns(words, canon, cuts, cum, prefix), made at once."""
    return ChunkColumns(words, canon, cuts, cum, prefix).chunks()
