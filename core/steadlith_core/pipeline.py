"""chunk(): the staged, memoized pipeline from text and parameters to a Chunking.

Stages and what each depends on (ARCHITECTURE.md):
    words        text
    symbols      text
    tokens       text, token_counter
    fingerprints text, window_words, polynomial
    candidates   fingerprints + masks and remainders
    cuts         candidates + tokens + min/max + snapping
    chunks       cuts + params hash
Each stage is cached per document under exactly those inputs, so moving min_tokens
re-runs only the cuts and the hashes.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from bisect import bisect_right
from collections import OrderedDict
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence

import numpy as np
import xxhash

from . import tokens as token_counters
from .diagnostics import Diagnostics, compute as compute_diagnostics
from .identity import chunk_hash_prefix
from .normalize import NORMALIZER_VERSION, WordStream, normalize
from .params import BOUNDARY_RULE, ChunkerParams
from .rabin import window_fingerprints
from .segment import Cut, SnapPoints, segment

if TYPE_CHECKING:
    from .compare import Comparison


class Chunk(NamedTuple):
    index: int
    start_word: int
    end_word: int
    start: int  # code point where the first word starts
    end: int  # code point where the last word ends
    kind: str  # primary | backup | hard | end
    snapped: bool
    tokens: int
    text: str  # canonical text (SPEC §1.5)
    hash: str

    @property
    def word_count(self) -> int:
        return self.end_word - self.start_word


@dataclass(frozen=True, eq=False)
class Chunking:
    """The immutable result of chunking one text with one parameter set."""

    text: str
    words: WordStream
    params: ChunkerParams
    params_hash: str
    chunks: tuple[Chunk, ...]
    diagnostics: Diagnostics
    word_tokens: np.ndarray  # tokens of each word
    cum_tokens: np.ndarray  # cum_tokens[i] = tokens of words [0, i)
    fingerprints: np.ndarray
    canonical: "CanonicalText"  # the stream's canonical UTF-8, for slicing chunk texts
    normalizer_version: str = NORMALIZER_VERSION
    boundary_rule: str = BOUNDARY_RULE

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


class _LRU:
    def __init__(self, size: int):
        self.size = size
        self.data: OrderedDict[Any, Any] = OrderedDict()

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        if key in self.data:
            self.data.move_to_end(key)
            return self.data[key]
        value = make()
        self.data[key] = value
        while len(self.data) > self.size:
            self.data.popitem(last=False)
        return value


class _Document:
    """Cached stages of one text. The text-only stages are computed once, eagerly."""

    def __init__(self, text: str):
        self.text = text
        self.words = normalize(text)
        encoded = utf8_words(self.words)
        self.symbols = compute_symbols(self.words, encoded)
        self.canonical = CanonicalText(self.words, encoded)
        del encoded  # the largest transient of a run; the rest lives in arrays
        self._snap_points: SnapPoints | None = None
        self.tokens = _LRU(4)
        self.fingerprints = _LRU(4)
        self.candidates = _LRU(8)
        self.cuts = _LRU(8)


    @property
    def snap_points(self) -> SnapPoints:
        """Text-only, but computed only once snapping is first asked for."""
        if self._snap_points is None:
            self._snap_points = SnapPoints.of(self.words.para, self.words.texts)
        return self._snap_points


def utf8_words(words: WordStream) -> list[bytes]:
    try:
        return list(map(str.encode, words.texts))
    except UnicodeEncodeError:  # lone surrogates: only possible in a str built in Python
        return [w.encode("utf-8", "surrogatepass") for w in words.texts]


def compute_symbols(words: WordStream, encoded: list[bytes] | None = None) -> np.ndarray:
    """s_k = xxh3_64(utf8(word), seed = 1 if para else 0) for every word (SPEC §3)."""
    encoded = utf8_words(words) if encoded is None else encoded
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
        self.data = b"\n\n".join(b" ".join(encoded[lo:hi]) for lo, hi in spans)
        sep = np.where(words.para, 2, 1).astype(np.int64)
        if n:
            sep[0] = 0
        byte_lengths = np.fromiter(map(len, encoded), dtype=np.int64, count=n)
        self.byte_ends = np.cumsum(byte_lengths + sep)
        self.byte_starts = self.byte_ends - byte_lengths


class Pipeline:
    """A chunker with its stage caches. `chunk()` uses a shared default instance.

    Thread-safe: one lock serializes runs, so two threads never race on a cache.
    """

    def __init__(self, max_documents: int = 4):
        self._docs = _LRU(max_documents)
        self._diffs = _LRU(2)
        self._baselines = _LRU(4)
        self._lock = threading.Lock()

    def clear(self) -> None:
        with self._lock:
            self._docs.data.clear()
            self._diffs.data.clear()
            self._baselines.data.clear()

    def compare(self, a: Chunking, b: Chunking, *, baseline: bool = True) -> "Comparison":
        """compare(a, b) with the stages that do not depend on the parameters cached:
        the word diff (keyed by both texts) and the fixed-size baseline (keyed by text,
        window and counter). A parameter change then re-runs only the chunk analysis."""
        from .baseline import baseline_for
        from .compare import check_comparable, compare
        from .diff import word_diff

        check_comparable(a, b)
        with self._lock, _gc_paused():
            ops = self._diffs.get((a.text, b.text), lambda: word_diff(a.words, b.words))
            fixed = None
            if baseline:
                fixed = tuple(
                    self._baselines.get(
                        (x.text, x.params.max_tokens, x.params.token_counter), lambda x=x: baseline_for(x)
                    )
                    for x in (a, b)
                )
        return compare(a, b, baseline=baseline, ops=ops, fixed=fixed)

    def chunk(self, text: str, params: ChunkerParams | None = None) -> Chunking:
        if not isinstance(text, str):
            raise TypeError(f"chunk() takes a str, not {type(text).__name__}")
        params = params if params is not None else ChunkerParams()
        if not isinstance(params, ChunkerParams):
            raise TypeError(f"params must be ChunkerParams, not {type(params).__name__}")
        with self._lock, _gc_paused():
            doc: _Document = self._docs.get(text, lambda: _Document(text))
            return _run(doc, params)


def _run(doc: _Document, p: ChunkerParams) -> Chunking:
    words = doc.words
    counter = token_counters.get_counter(p.token_counter)

    def make_tokens():
        tok = counter.count(words)
        cum = np.zeros(len(words) + 1, dtype=np.int64)
        np.cumsum(tok, out=cum[1:])
        cum.flags.writeable = False
        return tok, cum

    # keyed by the counter itself, not its id: an id re-registered with another
    # function must not be answered from the cache
    tok, cum = doc.tokens.get(counter, make_tokens)
    fp = doc.fingerprints.get(
        (p.window_words, p.polynomial),
        lambda: _frozen(window_fingerprints(doc.symbols, p.window_words, p.polynomial)),
    )
    masks = (p.primary_mask, p.primary_remainder, p.backup_mask, p.backup_remainder)
    primary, backup = doc.candidates.get(
        (p.window_words, p.polynomial) + masks,
        lambda: (
            np.flatnonzero((fp & np.uint64(p.primary_mask)) == np.uint64(p.primary_remainder)).tolist(),
            np.flatnonzero((fp & np.uint64(p.backup_mask)) == np.uint64(p.backup_remainder)).tolist(),
        ),
    )
    snap = p.effective_snap_window
    cuts: list[Cut] = doc.cuts.get(
        (counter, p.window_words, p.polynomial) + masks + (p.min_tokens, p.max_tokens, snap),
        lambda: segment(cum, primary, backup, p.min_tokens, p.max_tokens, snap, doc.snap_points if snap else None),
    )
    phash = p.params_hash
    chunks = build_chunks(words, doc.canonical, cuts, cum, chunk_hash_prefix(phash))
    diagnostics = compute_diagnostics(
        [c.tokens for c in chunks],
        [c.kind for c in chunks],
        [c.snapped for c in chunks],
        len(words),
        p.max_tokens,
        NORMALIZER_VERSION,
        phash,
        p.snapping,
    )
    return Chunking(doc.text, words, p, phash, chunks, diagnostics, tok, cum, fp, doc.canonical)


def build_chunks(
    words: WordStream, canon: CanonicalText, cuts: Sequence[tuple[int, int, str, bool]], cum: np.ndarray, prefix: bytes
) -> tuple[Chunk, ...]:
    """Chunks for cuts (start word, end word, kind, snapped): offsets, tokens, canonical
    text sliced from `canon`, and the SPEC §7 hash under `prefix` (chunk_hash_prefix)."""
    if not cuts:
        return ()
    first = np.fromiter((c[0] for c in cuts), dtype=np.int64, count=len(cuts))
    last = np.fromiter((c[1] for c in cuts), dtype=np.int64, count=len(cuts)) - 1
    columns = zip(
        cuts,
        words.starts[first].tolist(),
        words.ends[last].tolist(),
        (cum[last + 1] - cum[first]).tolist(),
        canon.byte_starts[first].tolist(),
        canon.byte_ends[last].tolist(),
    )
    data = canon.data
    h = xxhash.xxh3_128_hexdigest
    new = tuple.__new__  # Chunk(...) through its Python-level __new__ costs a microsecond a chunk
    out = []
    for i, ((s, e, kind, snapped), start, end, tokens, bs, be) in enumerate(columns):
        piece = data[bs:be]
        # enc(canonical text) of SPEC §7: 8-byte length, then the UTF-8 bytes
        digest = h(prefix + (be - bs).to_bytes(8, "big") + piece)
        text = piece.decode("utf-8", "surrogatepass")
        out.append(new(Chunk, (i, s, e, start, end, kind, snapped, tokens, text, digest)))
    return tuple(out)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


@contextmanager
def _gc_paused():
    """Pause the cyclic GC: a run allocates many small acyclic objects while the word
    list of a large document is alive, and each generation-2 pass would walk it all."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


DEFAULT_PIPELINE = Pipeline()


def chunk(text: str, params: ChunkerParams | None = None) -> Chunking:
    """Chunk `text` with `params` (the defaults when None).

    Parameters were validated when the ChunkerParams was built; a token counter that
    returns a non-positive count raises TokenCountError.
    """
    return DEFAULT_PIPELINE.chunk(text, params)
