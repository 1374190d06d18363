"""chunk(): the staged, memoized pipeline from text and parameters to a Chunking.

Stages and what each depends on:
    words        text
    symbols      text
    tokens       text, token_counter
    fingerprints text, window_words, polynomial
    candidates   fingerprints + masks and remainders
    cuts         candidates + tokens + min/max + snapping
    chunks       cuts + params hash   (hashes and sizes column-wise; Chunk objects when read)
Each stage is cached per document under exactly those inputs, so moving min_tokens
re-runs only the cuts and the hashes.

The first three stages belong to the text, whatever the boundary rule; the others are
tttd-v1's. lmx2-v1 (docs/contract/lmx2-v1.md, lmx2.py) has its own:
    classes      text                                        (shared: every rule's Chunk.boundary)
    lmx2-keys    text, token_counter, key_tokens, boundary_preference
    lmx2-maxima  keys + horizon (the key maxima primary cuts are drawn from)
    lmx2-primary maxima + min_tokens (long-word and primary cuts)
    lmx2-cuts    primary + gate (from min and max)/fill_horizon (fill cuts)
    chunks       cuts + params hash
so a change of min, max or a horizon re-runs no key computation, and one of max or
fill_horizon not even the primary cuts. Under the compiled kernel (run_lmx2_lean) they are
    lmx2-prefix  text                        (the prefix sums the window hashes are made from)
    lmx2-maxima  text, token_counter, key_tokens, boundary_preference, horizon
    lmx2-cuts    those + min_tokens, gate, fill_horizon (E, S, Q in one pass, keys made in it)
so a change of min, max or fill_horizon re-runs one cut pass that does not seek the key
maxima again. A boundary rule
plugs in as one entry of `RULES`: a function of a `Document` (its shared text stages,
plus `doc.stage(name)` caches of its own) and its parameters, returning a Chunking. Comparing chunkings, and caching what a comparison
needs, happens a layer above (analysis.py): the pipeline imports nothing of it.
"""

from __future__ import annotations

import functools
import gc
import sys
import threading
from contextlib import contextmanager
from operator import itemgetter
from typing import Any, Callable, Iterator

import cachetools
import numpy as np

from ..kernel.segment import SnapPoints
from ..kernel import select as text_kernel
from ..kernel.select import candidates, check_utf8, fingerprints_and_candidates, scan as scan_text, scan_candidates
from ..kernel.select import window_candidates, window_fingerprints
from ..kernel.select import lmx2_cuts, lmx2_lean, lmx2_prefix, segment_columns
from . import tokens as token_counters
from .canonical import CanonicalText
from .chunks import AnyParams, Chunking
from .chunks import ChunkColumns
from .boundaries import classes_of, cut_boundaries
from .chunks import CutColumns
from .diagnostics import compute as compute_diagnostics
from .diagnostics import compute_lmx2 as compute_lmx2_diagnostics
from .identity import chunk_hash_prefix
from .lmx2 import CHUNKER_FAMILY as LMX2_FAMILY
from . import lmx2
from .lmx2 import Lmx2Stages, compute_fill, compute_keys, compute_primary, cut_columns, key_maxima
from .lmx2_params import LMX2_RULE, Lmx2Params
from .normalize import NORMALIZER_VERSION, stream_of
from .params import ChunkerParams
from .tokens import TokenCounter


class LRU:
    """A bounded least-recently-used cache owned by one object (a Pipeline's documents, a
    document's stages, an Analysis's diffs): instances, never module-level caches, so
    dropping a Pipeline lets its documents go. `get(key, make)` returns the cached value
    or makes and keeps it, evicting the least recently used past `size` entries.

    The entries are a `cachetools.LRUCache` (`data`); reading one through `peek` neither
    makes it nor refreshes its recency."""

    def __init__(self, size: int):
        self.size = size
        self.data: cachetools.LRUCache = cachetools.LRUCache(maxsize=size)

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        try:
            return self.data[key]
        except KeyError:
            pass
        value = make()
        if self.size > 0:  # a cache of size 0 keeps nothing: the value is only returned
            self.data[key] = value
        return value

    def peek(self, key: Any) -> Any:
        """The cached value of `key`, or None."""
        return cachetools.Cache.__getitem__(self.data, key) if key in self.data else None

    def peek_items(self) -> list[tuple[Any, Any]]:
        """Every (key, value) cached."""
        return [(key, cachetools.Cache.__getitem__(self.data, key)) for key in self.data]


class DocumentCache:
    """The documents a Pipeline keeps, found by their text without hashing it.

    A dict keyed by the text would hash all of it for every new document (a str caches
    its hash, but a new object has none yet: a whole pass over the text before any
    chunking). Here a lookup compares the text with the few cached ones: by identity,
    then, only when the lengths agree, by equality (a memcmp that stops at the first
    difference). The most recently used `size` documents are kept."""

    def __init__(self, size: int):
        self.size = size
        self._entries: list[tuple[str | bytes, Any]] = []  # least recently used first

    def _index(self, text: str | bytes) -> int:
        entries = self._entries
        for i in range(len(entries) - 1, -1, -1):
            cached = entries[i][0]
            if cached is text or (len(cached) == len(text) and type(cached) is type(text) and cached == text):
                return i
        return -1

    def find(self, text: str | bytes) -> Any:
        """The cached value for `text`, or None (not counted as a use)."""
        i = self._index(text)
        return self._entries[i][1] if i >= 0 else None

    def get(self, text: str | bytes, make: Callable[[], Any]) -> Any:
        entries = self._entries
        i = self._index(text)
        if i >= 0:
            if i != len(entries) - 1:
                entries.append(entries.pop(i))
            return entries[-1][1]
        value = make()
        entries.append((text, value))
        if len(entries) > self.size:
            del entries[: len(entries) - self.size]
        return value

    def clear(self) -> None:
        self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


# From this length on (in characters) a str document is chunked lean (Document): its
# per-word caches would cost more memory (12 bytes a word, about 1.9 times the text of
# Markdown) than re-making them costs time (a mask change re-rolls the window: about
# 2 ms a MB with the compiled kernel). The inspector's interactive sizes stay below it.
LEAN_STR_CHARS = 32 * 2**20


class Document:
    """Cached stages of one text. The text-only stages are computed once, eagerly;
    token counts once per counter; a rule's own stages in its named `stage` caches.

    A document given as bytes is the lean path of one-shot runs (`steadlith chunk`):
    once tttd-v1 has its candidates, or lmx2-v1 its window hashes, its symbols (8 bytes a
    word, the largest array of a scan) are let go (under the compiled kernel lmx2-v1
    writes its prefix sums over them, run_lmx2_lean), and scanned again only if another
    window, polynomial, mask or key window needs them; its per-word tokens are never kept
    (the running total gives them), nor lmx2-v1's keys, nor tttd-v1's fingerprints.
    Under the compiled kernel its canonical text is never copied whole
    (canonical.DocumentCanonical), and its running total is int32 (_counted).
    A str document, what the inspector re-chunks, keeps them all while it is shorter
    than LEAN_STR_CHARS; a longer one is `lean` too, and under the compiled kernel is
    chunked as its UTF-8 is (lean_utf8: the str's own bytes when it is ASCII), the
    caller's str to every reader of its text (elsewhere, or without `str_utf8`, its word
    stream keeps its symbols and its canonical text is written whole).
    `word_symbols` (a Pipeline of a comparison: the word diff compares words through
    their symbols) keeps a lean document's symbols on its word stream, once, instead of
    letting them go.

    Bytes are checked as UTF-8 here (UnicodeDecodeError). `first`, the tttd-v1
    parameters a lean document is made for, lets the compiled scan check the bytes and
    roll their window as it reads them (select.scan_candidates): one pass, whose
    candidates (and chars4/1 running total) are cached as run_tttd caches them, and no
    symbol is ever stored (so not where the word stream keeps them, `word_symbols`)."""

    def __init__(self, text: str | bytes, word_symbols: bool = False, str_utf8: bool = True,
                 first: ChunkerParams | None = None):
        self.document = text  # a str, or UTF-8 bytes (checked by the scan, or check_utf8)
        self.lean = isinstance(text, bytes) or len(text) >= LEAN_STR_CHARS
        # the UTF-8 a lean document is scanned from, None for a str scanned as itself: a
        # long str only under the compiled kernel, whose scan of UTF-8 writes no canonical
        # copy (the numpy scan encodes a str itself, and keeps nothing of the encoding)
        self._utf8 = (text if isinstance(text, bytes) else
                      lean_utf8(text) if self.lean and str_utf8 and text_kernel.KERNEL == "c" else None)
        # one pass of the text kernel, nothing per word in Python; sentence ends are
        # tested when first asked for (CanonicalText), for the numpy scan
        # a lean document's canonical text is made chunk by chunk from its UTF-8
        # (canonical.DocumentCanonical) where the compiled kernel runs: not a second copy
        utf8 = self._utf8
        fused = None
        if first is not None and utf8 is not None and not word_symbols:
            masks = (first.primary_mask, first.primary_remainder, first.backup_mask, first.backup_remainder)
            counter = token_counters.get_counter(first.token_counter)
            fused = scan_candidates(utf8, first.window_words, first.polynomial, masks,
                                    chars4=token_counters.is_builtin_chars4(counter))
        if fused is None:
            if isinstance(text, bytes):
                check_utf8(text)
            raw = scan_text(text if utf8 is None else utf8, sentence_ends=False, lean=utf8 is not None)
        else:
            raw = fused[0]
        self.words = stream_of(text, raw, word_symbols or utf8 is None)
        self._symbols: np.ndarray | None = raw.symbols
        self.canonical = CanonicalText.of_scan(raw, utf8)
        self._snap_points: SnapPoints | None = None
        self._tokens = LRU(4)
        self._token_dtypes: dict[TokenCounter, np.dtype] = {}
        self._stages: dict[str, LRU] = {}
        if fused is not None:  # the stages run_tttd would make first, cached as they cache them
            self.stage("candidates").get((first.window_words, first.polynomial) + masks, lambda: fused[1:3])
            if fused[3] is not None:  # what _counted(counter, narrow=True) keeps: the int32 total
                self._tokens.get(counter, lambda: (None, fused[3]))
                self._token_dtypes[counter] = np.dtype(np.int32)

    @property
    def text(self) -> str:
        """The document as a str (decoded on first use when it was given as bytes)."""
        return self.words.source

    @property
    def utf8(self) -> bytes | memoryview | None:
        """The UTF-8 a lean document is scanned from (the bytes given, or a long str's,
        lean_utf8), None for a str scanned as itself: what a rule that keeps less for a
        bytes document can test instead of the document's type."""
        return self._utf8

    @property
    def symbols(self) -> np.ndarray:
        """s_k of every word (docs/contract/tttd-v1.md#symbols), scanned again if they were let go."""
        if self._symbols is None:
            utf8 = self._utf8
            self._symbols = scan_text(self.document if utf8 is None else utf8, sentence_ends=False,
                                      lean=utf8 is not None).symbols
        return self._symbols

    def take_symbols(self) -> np.ndarray:
        """The symbols, let go by the document (a bytes document's, see the class): the
        caller may then hold the only reference to them."""
        symbols = self.symbols
        self._symbols = None
        return symbols

    def spare_symbols(self) -> None:
        """Let the symbols go if this is a lean document whose word stream does not
        carry them (see the class)."""
        if self._utf8 is not None and self.words.symbols is None:
            self._symbols = None

    def stage(self, name: str, size: int = 8) -> LRU:
        """The cache of one rule stage, keyed by exactly the inputs of that stage."""
        cache = self._stages.get(name)
        if cache is None:
            cache = self._stages[name] = LRU(size)
        return cache

    def tokens(self, counter: TokenCounter) -> tuple[np.ndarray, np.ndarray]:
        """(tokens of each word, cumulative tokens) under `counter`."""

        tok, cum = self._counted(counter)
        return (tok if tok is not None else per_word(cum, self._token_dtypes[counter])), cum

    def _counted(self, counter: TokenCounter, narrow: bool = False) -> tuple[np.ndarray | None, np.ndarray]:
        """(tokens of each word, or None for a lean document, which keeps only the
        cumulative tokens: the per-word ones are their differences), cumulative tokens.

        `narrow` (either rule on a bytes document under the compiled kernel, whose cut
        passes read the running total as it is and by differences): when the total is
        first counted, it may be int32 where it surely fits (the compiled chars4/1
        decides), half the largest array such a run keeps. lmx2-v1's numpy stages add
        token distances to it and ask for int64 (wide_cum)."""

        def count():
            counted = counter.count_and_total(self.words, keep_counts=not self.lean,
                                              narrow=narrow and self._utf8 is not None)
            self._token_dtypes[counter] = counted.dtype
            return counted.counts, counted.total

        # keyed by the counter itself, not its id: an id re-registered with another
        # function must not be answered from the cache
        return self._tokens.get(counter, count)

    def tokens_cum(self, counter: TokenCounter, narrow: bool = False) -> np.ndarray:
        """tokens(counter)[1] alone (see _counted for `narrow`)."""
        return self._counted(counter, narrow)[1]

    def wide_cum(self, counter: TokenCounter) -> np.ndarray:
        """tokens_cum(counter) as int64: a narrow total counted for tttd-v1 is widened
        for the run (not kept)."""
        cum = self._counted(counter)[1]
        return _frozen(cum.astype(np.int64)) if cum.dtype != np.int64 else cum

    def word_tokens(self, counter: TokenCounter) -> "np.ndarray | LazyTokens":
        """tokens(counter)[0], or for a lean document what makes it when asked."""
        tok, cum = self._counted(counter)
        return tok if tok is not None else LazyTokens(cum, self._token_dtypes[counter])

    @property
    def classes(self) -> np.ndarray:
        """The boundary class of every cut (boundaries.boundary_classes): text only, computed
        once a rule first needs them all (lmx2-v1's keys)."""
        return self.stage("classes", 1).get(None, lambda: _frozen(classes_of(self.words.para, self.canonical.sentence_ends)))

    @property
    def snap_points(self) -> SnapPoints:
        """Text-only, but computed only once snapping is first asked for."""
        if self._snap_points is None:
            self._snap_points = SnapPoints.of_flags(self.words.para, self.canonical.sentence_ends)
        return self._snap_points


def lean_utf8(text: str) -> bytes | memoryview | None:
    """The UTF-8 a lean str document is scanned from (None when it has none: a lone
    surrogate, only possible in a str built in Python, keeps the str scan). An ASCII str
    is its own UTF-8: under the compiled kernel, a read-only view of the str's own bytes
    (the interpreter's UTF-8 of an ASCII str is its data, no copy), which keeps the str
    alive; otherwise the encoded copy, a quarter of a str of four bytes a character."""
    if text.isascii() and text_kernel.KERNEL == "c":
        import ctypes

        size = ctypes.c_ssize_t()
        data = _as_utf8()(text, ctypes.byref(size))
        if data:
            view = (ctypes.c_char * size.value).from_address(data)
            view.owner = text  # the bytes are the str's: they live while it does
            return memoryview(view).cast("B").toreadonly()
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return None


@functools.lru_cache(maxsize=1)
def _as_utf8():
    """PyUnicode_AsUTF8AndSize of the C API (imported when a long ASCII str is first chunked)."""
    import ctypes

    f = ctypes.pythonapi.PyUnicode_AsUTF8AndSize
    f.restype, f.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.POINTER(ctypes.c_ssize_t)]
    return f


class Pipeline:
    """A chunker with its stage caches. `chunk()` uses a shared default instance.

    Thread-safe: one lock serializes runs, so two threads never race on a cache.

    `pause_gc=True` pauses Python's cyclic garbage collector during each run. A run
    allocates many small acyclic objects while a large document's word list is alive,
    and each full collection would walk it all, a cost that grows with the document.
    The collector is
    process-wide, so this is for callers that own their process: the inspector's
    analysis worker, the `steadlith` command, the benchmark. A library embedded in
    someone else's program leaves it off.

    `word_symbols=True` (a comparison's pipeline) keeps each lean document's word
    symbols on its word stream for the word diff (Document). `str_utf8=False` (the lab,
    which reads a document's whole canonical text and symbols) scans a long str as
    itself instead of from its UTF-8.
    """

    def __init__(self, max_documents: int = 4, *, pause_gc: bool = False, word_symbols: bool = False,
                 str_utf8: bool = True):
        self._docs = DocumentCache(max_documents)
        self._lock = threading.Lock()
        self.pause_gc = pause_gc
        self.word_symbols = word_symbols
        self.str_utf8 = str_utf8

    def clear(self) -> None:
        """Forget the cached documents, and give the memory the kernel kept for the next
        chunking back to the system (select.release_pool): arrays still held elsewhere
        keep theirs."""
        with self._lock:
            self._docs.clear()
        text_kernel.release_pool()

    def document(self, text: str | bytes) -> Document:
        """The cached text stages of `text` (made and kept as chunk() would): for a caller
        that reads the words, symbols, canonical text or classes of a document it also
        chunks here (the lab), so the text is scanned and held once."""
        if isinstance(text, (bytearray, memoryview)):
            text = bytes(text)
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"a document is a str or UTF-8 bytes, not {type(text).__name__}")
        with self._lock, gc_paused(self.pause_gc):
            return self._docs.get(text, lambda: Document(text, self.word_symbols, self.str_utf8))

    def chunk(self, text: str | bytes, params: AnyParams | None = None) -> Chunking:
        """Chunk `text` under the rule of `params` (ChunkerParams: tttd-v1, Lmx2Params:
        lmx2-v1; the tttd-v1 defaults when None).

        `text` may also be the document's UTF-8 bytes (exactly the text they decode to:
        a BOM is a character, as in a str; loader.load_utf8 strips it). They are checked
        (UnicodeDecodeError otherwise) and scanned as they are: the result is the same,
        but the document is never held as a str, which costs four bytes a character
        when the text has a single emoji. `Chunking.text` decodes them when asked."""
        if isinstance(text, (bytearray, memoryview)):
            text = bytes(text)  # a key of the document cache must not change
        if not isinstance(text, (str, bytes)):
            raise TypeError(f"chunk() takes a str or UTF-8 bytes, not {type(text).__name__}")
        params = params if params is not None else ChunkerParams()
        run = RULES.get(type(params))
        if run is None:
            known = " or ".join(t.__name__ for t in RULES)
            raise TypeError(f"params must be {known}, not {type(params).__name__}")
        with self._lock, gc_paused(self.pause_gc):
            doc: Document = self._docs.get(text, lambda: Document(
                text, self.word_symbols, self.str_utf8, params if isinstance(params, ChunkerParams) else None))
            return run(doc, params)


def run_tttd(doc: Document, p: ChunkerParams) -> Chunking:
    """tttd-v1 (docs/contract/tttd-v1.md) over a document's cached stages."""
    words = doc.words
    counter = token_counters.get_counter(p.token_counter)
    fingerprints = LazyFingerprints(doc, p.window_words, p.polynomial)

    def candidate_positions() -> tuple[np.ndarray, np.ndarray]:
        # A str document is what the inspector re-chunks: its fingerprints are kept, so a
        # mask change is one pass of mask tests. A lean one stores none: one pass rolls
        # the window and tests the masks, unless they were asked for.
        fp = doc.stage("fingerprints", 4).peek((p.window_words, p.polynomial))
        if fp is None and not doc.lean:
            # the pass that keeps the fingerprints also tests this first set of masks
            fp, *found = fingerprints_and_candidates(doc.symbols, p.window_words, p.polynomial, *masks)
            doc.stage("fingerprints", 4).get((p.window_words, p.polynomial), lambda: _frozen(fp))
            return tuple(map(_frozen, found))
        if fp is not None:
            return tuple(map(_frozen, candidates(fp, *masks)))
        return tuple(map(_frozen, window_candidates(doc.symbols, p.window_words, p.polynomial, *masks)))

    masks = (p.primary_mask, p.primary_remainder, p.backup_mask, p.backup_remainder)
    primary, backup = doc.stage("candidates").get((p.window_words, p.polynomial) + masks, candidate_positions)
    doc.spare_symbols()  # before the token arrays exist: the peak of a large document is lower
    cum = doc.tokens_cum(counter, narrow=True)
    tok = doc.word_tokens(counter)
    snap = p.effective_snap_window
    starts, ends, kinds, snapped = doc.stage("cuts").get(
        (counter, p.window_words, p.polynomial) + masks + (p.min_tokens, p.max_tokens, snap),
        lambda: segment_columns(cum, primary, backup, p.min_tokens, p.max_tokens, snap,
                                doc.snap_points if snap else None),
    )
    phash = p.params_hash
    cuts = CutColumns(starts, ends, kinds, snapped, cut_boundaries(doc.canonical, ends))
    columns = ChunkColumns(words, doc.canonical, cuts, cum, chunk_hash_prefix(phash))
    diagnostics = compute_diagnostics(
        columns.tokens,
        columns.kinds,
        () if snapped is None else snapped,
        len(words),
        p.max_tokens,
        NORMALIZER_VERSION,
        phash,
        p.snapping,
        columns.boundaries,
    )
    return Chunking(doc.document, words, p, phash, columns, diagnostics, tok, cum, fingerprints, doc.canonical)


def run_lmx2(doc: Document, p: Lmx2Params) -> Chunking:
    """lmx2-v1 (docs/contract/lmx2-v1.md) over a document's cached stages."""
    if lmx2_lean() and len(doc.words) >= 2:
        return run_lmx2_lean(doc, p)
    words = doc.words
    counter = token_counters.get_counter(p.token_counter)
    cum = doc.wide_cum(counter)
    classes = doc.classes
    key_inputs = (counter, p.key_tokens, p.prefers_boundaries)
    # a lean document keeps no window hashes (8 bytes a cut: only the keys are read later);
    # a bytes document keeps only them, and makes a key where it is read (8 bytes a cut
    # instead of 16, lmx2.Lmx2HashKeys)
    keys = doc.stage("lmx2-keys", 4).get(key_inputs, lambda: compute_keys(
        doc.symbols, cum, classes, p.key_tokens, p.prefers_boundaries, keep_h=not doc.lean,
        hashes_only=isinstance(doc.document, bytes)))
    doc.spare_symbols()  # the keys hold all the rule reads of them
    maxima = lmx2_maxima(doc, keys, cum, key_inputs, p.horizon)
    first_inputs = key_inputs + (p.min_tokens, p.horizon)
    # a lean document's per-word tokens exist only while this stage runs
    first = doc.stage("lmx2-primary").get(
        first_inputs, lambda: compute_primary(keys, doc.tokens(counter)[0], cum, p.min_tokens, p.horizon, maxima))
    tok = doc.word_tokens(counter)
    cuts = doc.stage("lmx2-cuts").get(
        first_inputs + (p.gate, p.fill_horizon), lambda: compute_fill(first, keys, cum, p.gate, p.fill_horizon))
    return _lmx2_chunking(doc, p, cuts, cum, tok, Lmx2Stages(classes, keys, cuts))


def run_lmx2_lean(doc: Document, p: Lmx2Params) -> Chunking:
    """run_lmx2 by the compiled kernel's two passes (select.lmx2_prefix, select.lmx2_cuts):
    the window hashes and the keys are made where they are read, from prefix sums of the
    symbols; no key array, no mask over every cut, no per-word tokens. A short str
    document keeps its prefix sums (the "lmx2-prefix" stage: text only, what the
    inspector re-chunks from under any key window or counter). A lean one keeps none:
    under chars4/1 its tokens are counted from the scan's offsets, so its running total
    is made only once the sums are gone (the peak of a large document is lower), and a
    bytes document writes them over its symbols, which it lets go anyway. The keys and
    classes of Chunking.stages are made when a caller reads them."""
    counter = token_counters.get_counter(p.token_counter)
    key_inputs = (counter, p.key_tokens, p.prefers_boundaries)
    bytes_doc = doc.utf8 is not None  # scanned from UTF-8: bytes, or a long str under the compiled kernel

    def cuts() -> lmx2.Lmx2Cuts:
        words = doc.words
        maxima = doc.stage("lmx2-maxima", 4).peek((key_inputs, p.horizon))
        if doc.lean and counter is _CHARS4:
            source: tuple = (None, words.starts, words.ends)  # no running total yet
        else:
            source = (doc.tokens_cum(counter, narrow=bytes_doc), None, None)
        if bytes_doc:
            symbols = doc.take_symbols()
            # written over the symbols only when nothing else can read them
            alone = sys.getrefcount(symbols) == 2 and sys.getrefcount(symbols.base) == 2
            prefix = lmx2_prefix(symbols, lmx2.KEY_BASE, alone)
            del symbols
        elif doc.lean:
            prefix = lmx2_prefix(doc.symbols, lmx2.KEY_BASE, False)
        else:
            prefix = doc.stage("lmx2-prefix", 1).get(None, lambda: _frozen(lmx2_prefix(doc.symbols, lmx2.KEY_BASE,
                                                                                      False)))
        found, positions, kinds = lmx2_cuts(prefix, words.para, doc.canonical.sentence_ends, p.prefers_boundaries,
                                            *source, p.key_tokens, lmx2.KEY_BASE, p.horizon, p.min_tokens, p.gate,
                                            p.fill_horizon, maxima)
        doc.stage("lmx2-maxima", 4).get((key_inputs, p.horizon), lambda: _frozen(found))
        return lmx2.Lmx2Cuts(_frozen(positions), _frozen(kinds), len(words) + 1)

    made = doc.stage("lmx2-cuts").get(key_inputs + (p.min_tokens, p.horizon, p.gate, p.fill_horizon), cuts)
    cum = doc.tokens_cum(counter, narrow=bytes_doc)

    def keys() -> "lmx2.Lmx2HashKeys":
        if doc.lean:  # made again, kept by the Chunking only
            return compute_keys(doc.symbols, doc.wide_cum(counter), doc.classes, p.key_tokens, p.prefers_boundaries,
                                hashes_only=True)
        return doc.stage("lmx2-keys", 4).get(key_inputs, lambda: compute_keys(
            doc.symbols, doc.wide_cum(counter), doc.classes, p.key_tokens, p.prefers_boundaries, hashes_only=True))

    stages = Lmx2Stages(lambda: doc.classes, keys, made)
    return _lmx2_chunking(doc, p, made, cum, doc.word_tokens(counter), stages)


def _lmx2_chunking(doc: Document, p: Lmx2Params, cuts: "lmx2.Lmx2Cuts", cum: np.ndarray, tok: Any,
                   stages: Lmx2Stages) -> Chunking:
    words = doc.words
    phash = p.params_hash
    columns = ChunkColumns(words, doc.canonical, cut_columns(cuts, doc.canonical), cum,
                           chunk_hash_prefix(phash, LMX2_FAMILY))
    diagnostics = compute_lmx2_diagnostics(
        columns.tokens, columns.kinds, columns.boundaries, len(words),
        p.min_tokens, p.max_tokens, p.gate, p.margin, NORMALIZER_VERSION, phash,
    )
    return Chunking(doc.document, words, p, phash, columns, diagnostics, tok, cum, None, doc.canonical,
                    boundary_rule=LMX2_RULE, stages=stages)


def lmx2_maxima(doc: Document, keys: Any, cum: np.ndarray, key_inputs: tuple, horizon: int) -> np.ndarray:
    """lmx2.key_maxima for `horizon`, cached per document: a min_tokens change reuses
    them, and a wider horizon tests only the maxima of the widest narrower one cached
    (a wider reach can only drop maxima)."""
    cache = doc.stage("lmx2-maxima", 4)

    def make() -> np.ndarray:
        narrower = [(h, m) for (inputs, h), m in cache.peek_items() if inputs == key_inputs and h < horizon]
        return _frozen(key_maxima(keys, cum, horizon, max(narrower, key=itemgetter(0))[1] if narrower else None))

    return cache.get((key_inputs, horizon), make)


class LazyFingerprints:
    """Makes (once, into the document's "fingerprints" stage) the fingerprints a
    Chunking gives when asked."""

    def __init__(self, doc: Document, window: int, polynomial: int):
        self.doc, self.window, self.polynomial = doc, window, polynomial

    def __call__(self) -> np.ndarray:
        return self.doc.stage("fingerprints", 4).get(
            (self.window, self.polynomial),
            lambda: _frozen(window_fingerprints(self.doc.symbols, self.window, self.polynomial)))


_CHARS4 = token_counters.get_counter("chars4/1")

# The boundary rules, by the type of their parameters.
RULES: dict[type, Callable[[Document, Any], Chunking]] = {ChunkerParams: run_tttd, Lmx2Params: run_lmx2}


def per_word(cum: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The per-word tokens whose running total is `cum`, in `dtype`, with no int64
    temporary of the whole length."""
    tok = np.empty(cum.size - 1, dtype=dtype)
    np.subtract(cum[1:], cum[:-1], out=tok, casting="unsafe")  # every difference is a count that fit in dtype
    tok.flags.writeable = False
    return tok


class LazyTokens:
    """Makes a lean document's per-word tokens when a Chunking is asked for them."""

    def __init__(self, cum: np.ndarray, dtype: np.dtype):
        self.cum, self.dtype = cum, dtype

    def __call__(self) -> np.ndarray:
        return per_word(self.cum, self.dtype)


def _frozen(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


_gc_lock = threading.Lock()
_gc_pausers = 0
_gc_was_enabled = False


@contextmanager
def gc_paused(pause: bool = True) -> Iterator[None]:
    """Pause the cyclic GC for the block when `pause` (see Pipeline). The collector is
    process-wide: nested and concurrent pauses are counted, and it is re-enabled when
    the last one ends, and only if it was enabled when the first one began."""
    global _gc_pausers, _gc_was_enabled
    if not pause:
        yield
        return
    with _gc_lock:
        if _gc_pausers == 0:
            _gc_was_enabled = gc.isenabled()
            gc.disable()
        _gc_pausers += 1
    try:
        yield
    finally:
        with _gc_lock:
            _gc_pausers -= 1
            if _gc_pausers == 0 and _gc_was_enabled:
                gc.enable()


DEFAULT_PIPELINE = Pipeline()


def chunk(text: str | bytes, params: AnyParams | None = None) -> Chunking:
    """Chunk `text` (a str, or its UTF-8 bytes: Pipeline.chunk) with `params`
    (tttd-v1's defaults when None): a ChunkerParams selects tttd-v1, an Lmx2Params lmx2-v1.

    Parameters were validated when they were built; a token counter that
    returns a non-positive count raises TokenCountError.
    """
    return DEFAULT_PIPELINE.chunk(text, params)
