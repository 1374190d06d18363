"""The chunker's result types and how they are built from a word stream and its cuts.

`Chunk` and `Chunking` are what every rule returns and every client reads (the
comparison, the baseline, exports, the inspector); `CutColumns`, `ChunkColumns` and
`build_chunks` are the rule-independent step that turns a list of cuts into hashed
chunks, slicing each chunk's text from the canonical text (canonical.py). Keeping them
apart from pipeline.py lets the baseline and a second boundary rule build chunks without
importing the staged pipeline, and keeps the imports of the core pointing one way
(pyproject.toml, [tool.importlinter]).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from itertools import repeat
from operator import itemgetter
from typing import TYPE_CHECKING, Any, Callable, Iterator, NamedTuple, Sequence, Union

import numpy as np
import xxhash

from ..kernel import select as kernel
from .canonical import CanonicalText, DocumentCanonical
from .diagnostics import Diagnostics, Lmx2Diagnostics
from .normalize import NORMALIZER_VERSION, WordStream
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
    # the Diagnostics (Lmx2Diagnostics under lmx2-v1), or what makes them when first read
    # (`diagnostics`): a caller that only wants the chunks does not pay for the counts
    diagnostics_of: "Diagnostics | Lmx2Diagnostics | Callable[[], Diagnostics | Lmx2Diagnostics]"
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
    canonical: CanonicalText  # the stream's canonical UTF-8, for slicing chunk texts
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
    def diagnostics(self) -> Diagnostics | Lmx2Diagnostics:
        """Counts and sizes of the chunking (docs/contract/index.md#diagnostics), made on first read."""
        d = self.diagnostics_of
        return d if isinstance(d, (Diagnostics, Lmx2Diagnostics)) else d()

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
