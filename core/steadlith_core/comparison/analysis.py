"""Analysis: chunk two versions and compare them, with every stage cached by its inputs.

A Pipeline caches the chunking stages; comparing adds stages that do not depend on
most parameters: the word diff (keyed by both texts), the fixed-size baseline chunking
(keyed by text, window and token counter) and the baseline's churn (keyed by both texts,
window, token counter and locality margin: a change of min_tokens or of the masks leaves
it as it is). They are cached here, above both the pipeline and the comparison, so that
the pipeline knows nothing of comparing. The inspector keeps
one Analysis for the life of its window: moving a slider then re-runs only the cuts,
the hashes and the chunk analysis.
"""

from __future__ import annotations

import threading
from typing import Callable, Iterable, Mapping

import numpy as np

from ..chunking.chunks import AnyParams, Chunking
from ..chunking.document import LRU, Document, DocumentCache
from ..chunking.pipeline import Pipeline, gc_paused
from ..chunking.rules import rule_of
from ..errors import ParameterError
from ..kernel.allocator import return_freed_memory
from ..kernel.select import release_pool
from ..progress import Progress, report
from .baseline import FixedChunking, baseline_for
from .churn import BaselineChurn, Comparison, baseline_churn, check_comparable, compare
from .diff import DiffOp, diff_ids, equal_ranges_hold, word_diff
from .word_ids import WordIds


class Analysis:
    """A Pipeline plus the comparison caches. Thread-safe like Pipeline.

    `pause_gc` is the Pipeline's (see there); it also covers the diff and baseline here.

    The word diff compares words through their symbols, which a document given as bytes
    (or a long str) then keeps on its word stream. `word_ids=True` (a one-shot
    comparison, which reads no symbol of a chunking afterwards) keeps instead a uint32 id
    a word (word_ids.WordIds), made when the document is first chunked here, and lets
    the symbols go as a lone chunking does.

    `prepare_diff` (what compare_rules does with word ids) goes further: it diffs the two
    documents' ids before either is chunked, from a scan of each whose arrays last only
    while its ids are made, and lets the ids go once the diff is made. The per-word
    arrays of the two chunkings are then never alive beside the ids nor the diff's own
    temporaries, which is what bounds the peak of `steadlith compare`. A chunking of the
    pair later checks the diff's equal ranges against its words (a 64-bit symbol may
    collide), as word_diff does, before the diff is used.
    """

    def __init__(self, max_documents: int = 4, *, pause_gc: bool = False, word_ids: bool = False):
        self.pipeline = Pipeline(max_documents, pause_gc=pause_gc, word_symbols=not word_ids)
        self._word_ids = WordIds() if word_ids else None
        self._ids = DocumentCache(max_documents)
        self._diffs = LRU(2)
        # prepare_diff's diffs by (text A, text B), not yet checked against the words
        self._unchecked = LRU(2)
        self._baselines = LRU(4)
        self._baseline_churns = LRU(4)
        self._lock = threading.Lock()

    def clear(self) -> None:
        self.pipeline.clear()
        with self._lock:
            self._ids.clear()
            self._diffs.data.clear()
            self._unchecked.data.clear()
            self._baselines.data.clear()
            self._baseline_churns.data.clear()

    def chunk(self, text: str | bytes, params: AnyParams | None = None) -> Chunking:
        # before the chunking lets the symbols go, unless a prepared diff needs no ids of it
        if self._word_ids is not None and not self._prepared(text):
            doc = self.pipeline.document(text)
            if doc.words.symbols is None:
                self._ids_of(doc.document, lambda: doc.symbols)
        return self.pipeline.chunk(text, params)

    def _ids_of(self, document: str | bytes, symbols: Callable[[], np.ndarray]) -> np.ndarray:
        """The word ids of `document`, made from `symbols()` the first time."""
        with self._lock, gc_paused(self.pipeline.pause_gc):
            return self._ids.get(document, lambda: self._word_ids.ids(symbols()))

    def _prepared(self, text: str | bytes) -> bool:
        """Whether a diff made already holds `text` (by identity: what it was given):
        prepare_diff's, or one checked by a first comparison (compare_rules' next rules)."""
        with self._lock:
            return any(text is x for cache in (self._unchecked, self._diffs) for key in cache.data for x in key)

    def prepare_diff(self, text_a: str | bytes, text_b: str | bytes) -> None:
        """With word ids: the word diff of the two documents, made before either is
        chunked and kept for the comparison of their chunkings (see the class); nothing
        without word ids, or when that diff is made already."""
        if self._word_ids is None:
            return
        key = (text_a, text_b)
        with self._lock, gc_paused(self.pipeline.pause_gc):
            if self._diffs.peek(key) is not None or self._unchecked.peek(key) is not None:
                return
            ids_a = self._word_ids.ids(_scanned_symbols(text_a))
            ids_b = self._word_ids.ids(_scanned_symbols(text_b))
            _release_freed()  # the scans' blocks and sorted copies: the diff's own arrays come next
            ops = diff_ids(ids_a, ids_b)
            del ids_a, ids_b  # before any chunking of the pair: the peak of a large pair
            self._unchecked.get(key, lambda: ops)
        _release_freed()  # the ids' and the diff's pages would stay beside the chunkings' arrays

    def compare_rules(self, text_a: str | bytes, text_b: str | bytes,
                      params: Mapping[str, AnyParams] | Iterable[AnyParams]) -> dict[str, Comparison]:
        """compare_rules() over this Analysis's caches (the word diff is computed once
        for all rules, each document normalized once)."""
        return compare_rules(text_a, text_b, params, analysis=self)

    def compare(self, a: Chunking, b: Chunking, *, baseline: bool = True) -> Comparison:
        """compare(a, b), with the word diff and the baseline taken from the caches."""
        check_comparable(a, b)
        base = self.baseline_churn(a, b) if baseline else None
        return compare(a, b, baseline=baseline, ops=self._ops(a, b), base=base)

    def baseline_churn(self, a: Chunking, b: Chunking, progress: Progress | None = None) -> BaselineChurn:
        """The fixed-size baseline's churn of the pair (compare.baseline_churn), cached.
        `progress` is called between its four steps (the diff, the baseline of each
        side, their comparison) and may raise Cancelled; what was done stays cached."""
        key = _baseline_churn_key(a, b)
        with self._lock:
            hit = self._baseline_churns.peek(key)
        if hit is not None:
            return hit
        report(progress, 0, 4)
        ops = self._ops(a, b)
        fixed = []
        for done, x in enumerate((a, b), start=1):
            report(progress, done, 4)
            with self._lock, gc_paused(self.pipeline.pause_gc):
                fixed.append(self._baseline(x))
        report(progress, 3, 4)
        with gc_paused(self.pipeline.pause_gc):
            churn = baseline_churn(a, b, ops, (fixed[0], fixed[1]))
        with self._lock:
            return self._baseline_churns.get(key, lambda: churn)

    def cached_baseline_churn(self, a: Chunking, b: Chunking) -> BaselineChurn | None:
        """The baseline's churn of the pair if it is cached (nothing is computed)."""
        with self._lock:
            return self._baseline_churns.peek(_baseline_churn_key(a, b))

    def _ops(self, a: Chunking, b: Chunking) -> tuple[DiffOp, ...]:
        key = (a.document, b.document)
        with self._lock, gc_paused(self.pipeline.pause_gc):
            hit = self._diffs.peek(key)
            if hit is not None:
                return hit
            prepared = self._unchecked.data.pop(key, None)
            if prepared is not None:
                # a diff is checked once, like word_diff's; the texts' diff when it fails
                ops = prepared if equal_ranges_hold(a.words, b.words, prepared) else word_diff(a.words, b.words)
                return self._diffs.get(key, lambda: ops)
        ids = None
        if self._word_ids is not None and (a.words.symbols is None or b.words.symbols is None):
            ids = tuple(self._ids_of(x.document, lambda x=x: self._symbols(x)) for x in (a, b))
        with self._lock, gc_paused(self.pipeline.pause_gc):
            return self._diffs.get(key, lambda: word_diff(a.words, b.words, ids))

    def _symbols(self, x: Chunking) -> np.ndarray:
        """The symbols of a chunking's words: its stream's, or its document's (scanned again)."""
        return x.words.symbols if x.words.symbols is not None else _scanned_symbols(x.document)

    def _baseline(self, x: Chunking) -> FixedChunking:
        key = (x.document, x.params.max_tokens, x.params.token_counter)
        return self._baselines.get(key, lambda: baseline_for(x))


def _release_freed() -> None:
    """Give the system the memory freed so far that the next stage would not reuse: the
    text kernel's pooled blocks (release_pool) and the C heap's free pages: a freed
    array under the allocator's mmap threshold stays in the heap, where the kernel's
    outputs never go."""
    release_pool()
    return_freed_memory()


def _scanned_symbols(text: str | bytes) -> np.ndarray:
    """The symbols of `text`'s words from a scan of its own, as the pipeline scans it
    (bytes that are not UTF-8 raise the same UnicodeDecodeError), kept alone: the scan's
    other arrays go with it, and no cached document keeps them."""
    return Document(text).take_symbols()


def _baseline_churn_key(a: Chunking, b: Chunking) -> tuple:
    p = a.params
    return (a.document, b.document, p.max_tokens, p.token_counter, p.margin, p.margin_formula)


def compare_rules(text_a: str | bytes, text_b: str | bytes, params: Mapping[str, AnyParams] | Iterable[AnyParams], *,
                  analysis: Analysis | None = None, baseline: bool = True) -> dict[str, Comparison]:
    """The same two versions compared under several boundary rules: `{rule: Comparison}`,
    in the order given. `params` is `{rule id: its parameters}` (as from
    rules.parse_rule_assignments) or just the parameter sets, one per rule. Each
    Comparison checks locality at its own rule's margin and carries the fixed-size
    baseline at its own max_tokens (the same baseline when the rules share it)."""
    if isinstance(params, Mapping):
        items = list(params.items())
        for rule, p in items:
            if rule_of(p) != rule:
                raise ParameterError("boundary_rule", f"parameters of {rule_of(p)} given for {rule}", rule)
    else:
        items = [(rule_of(p), p) for p in params]
    rules = [rule for rule, _ in items]
    if len(set(rules)) != len(rules):
        raise ParameterError("boundary_rule", f"each rule once, got {', '.join(rules)}", rules)
    analysis = analysis if analysis is not None else Analysis()
    analysis.prepare_diff(text_a, text_b)
    return {rule: analysis.compare(analysis.chunk(text_a, p), analysis.chunk(text_b, p), baseline=baseline)
            for rule, p in items}
