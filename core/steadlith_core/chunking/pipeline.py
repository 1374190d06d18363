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
    lmx2-maxima  text, token_counter, key_tokens, boundary_preference, horizon
    lmx2-cuts    those + min_tokens, gate, fill_horizon (E, S, Q in one pass, keys made in it)
so a change of min, max or fill_horizon re-runs one cut pass that does not seek the key
maxima again. A boundary rule
plugs in as one entry of `RULES`: a function of a `Document` (its shared text stages,
plus `doc.stage(name)` caches of its own) and its parameters, returning a Chunking. Comparing chunkings, and caching what a comparison
needs, happens a layer above (analysis.py): the pipeline imports nothing of it.
"""

from __future__ import annotations

import gc
import threading
from contextlib import contextmanager
from functools import partial
from operator import itemgetter
from typing import Any, Callable, Iterator

import numpy as np

from ..kernel.select import candidates, fingerprints_and_candidates
from ..kernel.select import window_candidates, window_fingerprints
from ..kernel.select import kind_names, lmx2_cuts, lmx2_lean, release_pool, segment_codes
from . import tokens as token_counters
from .chunks import AnyParams, Chunking
from .chunks import ChunkColumns
from .boundaries import boundary_names, cut_boundary_codes
from .chunks import CutColumns
from .diagnostics import compute as compute_diagnostics
from .document import Document, DocumentCache, frozen
from .diagnostics import compute_lmx2 as compute_lmx2_diagnostics
from .identity import chunk_hash_prefix
from .lmx2 import CHUNKER_FAMILY as LMX2_FAMILY
from . import lmx2
from .lmx2 import Lmx2Stages, compute_fill, compute_keys, compute_primary, cut_columns_and_codes, key_maxima
from .lmx2_params import LMX2_RULE, Lmx2Params
from .normalize import NORMALIZER_VERSION
from .params import ChunkerParams


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
        release_pool()

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
            doc: Document = self._docs.get(text, lambda: Document(text, self.word_symbols, self.str_utf8, params))
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
            doc.stage("fingerprints", 4).get((p.window_words, p.polynomial), lambda: frozen(fp))
            return tuple(map(frozen, found))
        if fp is not None:
            return tuple(map(frozen, candidates(fp, *masks)))
        return tuple(map(frozen, window_candidates(doc.symbols, p.window_words, p.polynomial, *masks)))

    masks = (p.primary_mask, p.primary_remainder, p.backup_mask, p.backup_remainder)
    primary, backup = doc.stage("candidates").get((p.window_words, p.polynomial) + masks, candidate_positions)
    doc.spare_symbols()  # before the token arrays exist: the peak of a large document is lower
    cum = doc.tokens_cum(counter, narrow=True)
    tok = doc.word_tokens(counter)
    snap = p.effective_snap_window
    # kinds and boundaries as codes: the diagnostics count them in numpy, and the lists of
    # names are made from them in one numpy call each
    starts, ends, kind_codes, snapped = doc.stage("cuts").get(
        (counter, p.window_words, p.polynomial) + masks + (p.min_tokens, p.max_tokens, snap),
        lambda: segment_codes(cum, primary, backup, p.min_tokens, p.max_tokens, snap,
                              doc.snap_points if snap else None),
    )
    phash = p.params_hash
    boundary_codes = cut_boundary_codes(doc.canonical, ends)
    cuts = CutColumns(starts, ends, kind_names(kind_codes), snapped, boundary_names(boundary_codes))
    columns = ChunkColumns(words, doc.canonical, cuts, cum, chunk_hash_prefix(phash))
    diagnostics = partial(
        compute_diagnostics,
        columns.tokens,
        columns.kinds,
        () if snapped is None else snapped,
        len(words),
        p.max_tokens,
        NORMALIZER_VERSION,
        phash,
        p.snapping,
        columns.boundaries,
        kind_codes=kind_codes,
        boundary_codes=boundary_codes,
    )
    return Chunking(doc.document, words, p, phash, columns, diagnostics, tok, cum, fingerprints, doc.canonical)


def run_lmx2(doc: Document, p: Lmx2Params) -> Chunking:
    """lmx2-v1 (docs/contract/lmx2-v1.md) over a document's cached stages."""
    if lmx2_lean() and len(doc.words) >= 2:
        return run_lmx2_lean(doc, p)
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
    """run_lmx2 by the compiled kernel (select.lmx2_cuts): the window hashes and the keys
    are made from the symbols where they are read; no key array, no array of prefix
    sums, no mask over every cut, no per-word tokens. A lean document lets its symbols
    go once the cuts are made, and under chars4/1 its tokens are counted from the scan's
    offsets, so its running total is made only once the symbols are gone (the peak of a
    large document is lower), unless the scan that checked a small bytes document made
    it (document.SCAN_TOTAL_BYTES). The keys and classes of Chunking.stages are made when
    a caller reads them."""
    counter = token_counters.get_counter(p.token_counter)
    key_inputs = (counter, p.key_tokens, p.prefers_boundaries)
    bytes_doc = doc.utf8 is not None  # scanned from UTF-8: bytes, or a long str under the compiled kernel

    def cuts() -> lmx2.Lmx2Cuts:
        words = doc.words
        maxima = doc.stage("lmx2-maxima", 4).peek((key_inputs, p.horizon))
        if doc.lean and counter is _CHARS4 and not doc.counted(counter):
            source: tuple = (None, words.starts, words.ends)  # no running total yet
        else:
            source = (doc.tokens_cum(counter, narrow=bytes_doc), None, None)
        found, positions, kinds = lmx2_cuts(doc.symbols, words.para, doc.canonical.sentence_ends, p.prefers_boundaries,
                                            *source, p.key_tokens, lmx2.KEY_BASE, p.horizon, p.min_tokens, p.gate,
                                            p.fill_horizon, maxima)
        doc.spare_symbols()
        doc.stage("lmx2-maxima", 4).get((key_inputs, p.horizon), lambda: frozen(found))
        return lmx2.Lmx2Cuts(frozen(positions), frozen(kinds), len(words) + 1)

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
    cut_cols, kind_codes, boundary_codes = cut_columns_and_codes(cuts, doc.canonical)
    columns = ChunkColumns(words, doc.canonical, cut_cols, cum, chunk_hash_prefix(phash, LMX2_FAMILY))
    diagnostics = partial(
        compute_lmx2_diagnostics, columns.tokens, columns.kinds, columns.boundaries, len(words),
        p.min_tokens, p.max_tokens, p.gate, p.margin, NORMALIZER_VERSION, phash,
        kind_codes=kind_codes, boundary_codes=boundary_codes,
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
        return frozen(key_maxima(keys, cum, horizon, max(narrower, key=itemgetter(0))[1] if narrower else None))

    return cache.get((key_inputs, horizon), make)


class LazyFingerprints:
    """Makes (once, into the document's "fingerprints" stage) the fingerprints a
    Chunking gives when asked."""

    def __init__(self, doc: Document, window: int, polynomial: int):
        self.doc, self.window, self.polynomial = doc, window, polynomial

    def __call__(self) -> np.ndarray:
        return self.doc.stage("fingerprints", 4).get(
            (self.window, self.polynomial),
            lambda: frozen(window_fingerprints(self.doc.symbols, self.window, self.polynomial)))


_CHARS4 = token_counters.get_counter("chars4/1")

# The boundary rules, by the type of their parameters.
RULES: dict[type, Callable[[Document, Any], Chunking]] = {ChunkerParams: run_tttd, Lmx2Params: run_lmx2}


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
