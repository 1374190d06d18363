"""Analysis: chunk two versions and compare them, with every stage cached by its inputs.

A Pipeline caches the chunking stages; comparing adds two stages that do not depend on
most parameters: the word diff (keyed by both texts) and the fixed-size baseline (keyed
by text, window and token counter). They are cached here, above both the pipeline and
the comparison, so that the pipeline knows nothing of comparing. The inspector keeps
one Analysis for the life of its window: moving a slider then re-runs only the cuts,
the hashes and the chunk analysis.
"""

from __future__ import annotations

import threading

from .baseline import FixedChunking, baseline_for
from .chunks import Chunking
from .compare import Comparison, check_comparable, compare
from .diff import DiffOp, word_diff
from .params import ChunkerParams
from .pipeline import Pipeline, LRU, gc_paused


class Analysis:
    """A Pipeline plus the comparison caches. Thread-safe like Pipeline.

    `pause_gc` is the Pipeline's (see there); it also covers the diff and baseline here.
    """

    def __init__(self, max_documents: int = 4, *, pause_gc: bool = False):
        self.pipeline = Pipeline(max_documents, pause_gc=pause_gc)
        self._diffs = LRU(2)
        self._baselines = LRU(4)
        self._lock = threading.Lock()

    def clear(self) -> None:
        self.pipeline.clear()
        with self._lock:
            self._diffs.data.clear()
            self._baselines.data.clear()

    def chunk(self, text: str, params: ChunkerParams | None = None) -> Chunking:
        return self.pipeline.chunk(text, params)

    def compare(self, a: Chunking, b: Chunking, *, baseline: bool = True) -> Comparison:
        """compare(a, b), with the word diff and the baselines taken from the caches."""
        check_comparable(a, b)
        with self._lock, gc_paused(self.pipeline.pause_gc):
            ops: tuple[DiffOp, ...] = self._diffs.get((a.text, b.text), lambda: word_diff(a.words, b.words))
            fixed: tuple[FixedChunking, FixedChunking] | None = None
            if baseline:
                fixed = (self._baseline(a), self._baseline(b))
        return compare(a, b, baseline=baseline, ops=ops, fixed=fixed)

    def _baseline(self, x: Chunking) -> FixedChunking:
        key = (x.text, x.params.max_tokens, x.params.token_counter)
        return self._baselines.get(key, lambda: baseline_for(x))
