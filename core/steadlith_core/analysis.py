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
from typing import Iterable, Mapping

from .baseline import FixedChunking, baseline_for
from .chunks import AnyParams, Chunking
from .compare import Comparison, check_comparable, compare
from .diff import DiffOp, word_diff
from .errors import ParameterError
from .pipeline import Pipeline, LRU, gc_paused
from .rules import rule_of


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

    def chunk(self, text: str, params: AnyParams | None = None) -> Chunking:
        return self.pipeline.chunk(text, params)

    def compare_rules(self, text_a: str, text_b: str,
                      params: Mapping[str, AnyParams] | Iterable[AnyParams]) -> dict[str, Comparison]:
        """compare_rules() over this Analysis's caches (the word diff is computed once
        for all rules, each document normalized once)."""
        return compare_rules(text_a, text_b, params, analysis=self)

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


def compare_rules(text_a: str, text_b: str, params: Mapping[str, AnyParams] | Iterable[AnyParams], *,
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
    return {rule: analysis.compare(analysis.chunk(text_a, p), analysis.chunk(text_b, p), baseline=baseline)
            for rule, p in items}
