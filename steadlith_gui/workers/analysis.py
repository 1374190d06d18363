"""What one analysis request computes, in the worker thread and free of Qt: the chunkings
of A and B through one `Analysis` (whose staged caches re-run only the stages a
parameter change touches), their comparison laid out for the views, the other rules'
comparisons (`RuleComparisons`) and the word maps (`WordMaps`) kept per pair, and
external chunkers' columns. `analyze()` may leave the churn panel's baseline and other
rules for `complete()` (`AnalysisResult.pending` names them); `describe_error()` turns
any failure into the one-line message the window shows.
"""

from __future__ import annotations

import dataclasses
import threading
import time
import traceback
from typing import Any, Mapping, NamedTuple

from steadlith_core import Analysis, ChunkerParams, ComparisonError, SteadlithError
from steadlith_core.errors import visible
from steadlith_core.chunking.loader import memory_per_input_byte, out_of_memory_message
from steadlith_core.chunking.pipeline import gc_paused
from steadlith_core.progress import Cancelled

from ..model.documents import DocumentError, LoadedDocument, materialize
from ..model.external_choice import ExternalChoice
from ..model.external_runs import ExternalRuns, lay_out
from ..model.layouts import ChunkLayout, SideStatus
from ..model.links import LinkList, WordMap
from ..model.session import EditedText
from ..model.viewmodel import BASELINE, AnalysisResult

Source = LoadedDocument | EditedText | None  # what one side of a request is


class AnalysisRequest(NamedTuple):
    generation: int
    doc_a: Source
    doc_b: Source
    params: ChunkerParams  # the shown rule's (ChunkerParams or Lmx2Params)
    others: Mapping[str, Any] = {}  # {rule: parameters} of the other rules, compared for the churn panel
    external: ExternalChoice = ExternalChoice()  # external chunkers for the churn panel (and a pane)


#: How long the second phase waits after the first is shown and painted. It runs in
#: Python, as the GUI thread's painting does, and the two would take turns at the
#: interpreter lock, slowing the paint; a slider being dragged also makes it stale.
COMPLETION_DELAY_MS = 120


class RuleComparisons:
    """The other rules' comparisons of the last pair, kept while their parameters and both
    texts stay the same: a change of the shown rule's parameters re-runs only that rule.
    Used from the worker thread only (one analysis runs at a time)."""

    def __init__(self) -> None:
        self._last: dict[str, tuple] = {}  # rule -> (params, text_a, text_b, Comparison)

    def cached(self, rule: str, params, text_a: str, text_b: str):
        """The rule's comparison of the pair if it is kept, else None."""
        hit = self._last.get(rule)
        if hit is not None and hit[0] == params and hit[1] is text_a and hit[2] is text_b:
            return hit[3]
        return None

    def get(self, pipeline: Analysis, rule: str, params, text_a: str, text_b: str,
            cancelled: threading.Event | None = None):
        hit = self.cached(rule, params, text_a, text_b)
        if hit is not None:
            return hit
        comparison = pipeline.compare_rules(text_a, text_b, {rule: params})[rule] if cancelled is None \
            else _compare_in_steps(pipeline, rule, params, text_a, text_b, cancelled)
        self._last[rule] = (params, text_a, text_b, comparison)  # the texts are held: `is` stays meaningful
        return comparison


def _compare_in_steps(pipeline: Analysis, rule: str, params, text_a: str, text_b: str, cancelled: threading.Event):
    """compare_rules for one rule (whose parameters the session keeps per rule), stopping
    between its steps once `cancelled` is set."""
    chunkings = []
    for text in (text_a, text_b):
        _check(cancelled)
        chunkings.append(pipeline.chunk(text, params))
    _check(cancelled)
    return pipeline.compare(*chunkings)


def _check(cancelled: threading.Event | None) -> None:
    if cancelled is not None and cancelled.is_set():
        raise Cancelled("a newer analysis was asked for")


class WordMaps:
    """The word map of the last pair: it depends on the word diff and the two offset maps,
    not on parameters, so a parameter change adds only its ghost cuts (worker thread)."""

    def __init__(self) -> None:
        self._last: tuple | None = None  # (ops, offsets_a, offsets_b, WordMap without ghosts)

    def get(self, comparison, offsets_a, offsets_b, layout_a: ChunkLayout, layout_b: ChunkLayout) -> WordMap:
        last = self._last
        if last is None or last[0] is not comparison.ops or last[1] is not offsets_a or last[2] is not offsets_b:
            last = self._last = (comparison.ops, offsets_a, offsets_b, WordMap.build(comparison, offsets_a, offsets_b))
        return last[3].with_ghosts(layout_a, layout_b)


_OTHER_RULES = RuleComparisons()
_EXTERNAL_RUNS = ExternalRuns()  # for callers without a window (each Analyzer has its own)
_WORD_MAPS = WordMaps()


def analyze(request: AnalysisRequest, pipeline: Analysis, others: RuleComparisons = _OTHER_RULES,
            externals: ExternalRuns = _EXTERNAL_RUNS, word_maps: WordMaps = _WORD_MAPS, *,
            defer: bool = False) -> AnalysisResult:
    """Chunk both documents with the request's parameters and compare them, then compare
    the pair under every other rule (worker thread). With `defer`, the baseline's churn
    and the other rules' comparisons that are not cached are left `pending` for
    complete(). Running out of memory is an OutOfMemory naming the documents and what
    they need."""
    try:
        # the layouts, bands and word map allocate like the chunking does: the same GC pause
        with gc_paused(pipeline.pipeline.pause_gc):
            result = _analyze(request, pipeline, others, externals, word_maps)
            return result if defer or not result.pending else _complete(request, result, pipeline, others, None)
    except MemoryError:
        raise _out_of_memory(request) from None


def complete(request: AnalysisRequest, result: AnalysisResult, pipeline: Analysis,
             others: RuleComparisons = _OTHER_RULES, cancelled: threading.Event | None = None) -> AnalysisResult:
    """The result with what `analyze(..., defer=True)` left pending (worker thread);
    raises Cancelled between two steps once `cancelled` is set."""
    try:
        with gc_paused(pipeline.pipeline.pause_gc):
            return _complete(request, result, pipeline, others, cancelled)
    except MemoryError:
        raise _out_of_memory(request) from None


def _out_of_memory(request: AnalysisRequest) -> "OutOfMemory":
    docs = [(s.name, utf8_size(s.text)) for s in (request.doc_a, request.doc_b) if s is not None]
    return OutOfMemory(out_of_memory_message(docs, memory_per_input_byte("window")))  # the window's own figure


def _analyze(request: AnalysisRequest, pipeline: Analysis, others: RuleComparisons,
             externals: ExternalRuns, word_maps: WordMaps) -> AnalysisResult:
    t0, cpu0 = time.perf_counter(), time.thread_time()
    out: list[Any] = []
    for side, source in (("A", request.doc_a), ("B", request.doc_b)):
        t = time.perf_counter()
        doc = materialize(side, source)
        if doc is None:
            out.append((None, None, None, 0.0))
            continue
        chunking = pipeline.chunk(doc.text, request.params)
        chunking.diagnostics  # made on first read: here, not in the GUI thread's views
        layout = ChunkLayout.build(chunking, doc.offsets)
        out.append((doc, chunking, layout, (time.perf_counter() - t) * 1000))
    (doc_a, a, lay_a, ms_a), (doc_b, b, lay_b, ms_b) = out
    t = time.perf_counter()
    comparison = status_a = status_b = links = error = word_map = None
    pending: list[str] = []
    if a is not None and b is not None:
        try:
            comparison = pipeline.compare(a, b, baseline=False)
        except ComparisonError as e:  # cannot happen with one parameter set, but say so if it does
            error = str(e)
        else:
            base = pipeline.cached_baseline_churn(a, b)
            if base is not None:
                comparison = dataclasses.replace(comparison, baseline=base)
            else:
                pending.append(BASELINE)
            status_a = SideStatus.build("A", comparison, doc_a.offsets)
            status_b = SideStatus.build("B", comparison, doc_b.offsets)
            links = LinkList.build(comparison.status_a, comparison.status_b, comparison.alignment)
            word_map = word_maps.get(comparison, doc_a.offsets, doc_b.offsets, lay_a, lay_b)
    rules = None
    if comparison is not None:
        rules = {a.boundary_rule: comparison}
        for rule, params in request.others.items():
            kept = others.cached(rule, params, doc_a.text, doc_b.text)
            if kept is not None:
                rules[rule] = kept
            else:
                pending.append(rule)
    ms_compare = (time.perf_counter() - t) * 1000
    result = AnalysisResult(
        a, b, comparison, request.params, request.generation, doc_a, doc_b,
        lay_a, lay_b, ms_a, ms_b, (time.perf_counter() - t0) * 1000,
        status_a, status_b, links, ms_compare, error, word_map, rules, pending=tuple(pending),
        cpu_first_ms=(time.thread_time() - cpu0) * 1000,
    )
    return with_externals(request, result, externals) if request.external.chunkers else result


def _complete(request: AnalysisRequest, result: AnalysisResult, pipeline: Analysis, others: RuleComparisons,
              cancelled: threading.Event | None) -> AnalysisResult:
    t = time.perf_counter()
    comparison, error = result.comparison, result.comparison_error
    if BASELINE in result.pending:
        _check(cancelled)
        base = pipeline.baseline_churn(comparison.a, comparison.b, lambda done, total: _check(cancelled))
        comparison = dataclasses.replace(comparison, baseline=base)
    rules = {comparison.a.boundary_rule: comparison}
    for rule, params in request.others.items():
        if rule not in result.pending:
            rules[rule] = result.rules[rule]
            continue
        try:
            rules[rule] = others.get(pipeline, rule, params, result.doc_a.text, result.doc_b.text, cancelled)
        except ComparisonError as e:
            error = f"{rule}: {e}"
    ms = (time.perf_counter() - t) * 1000
    return result._replace(comparison=comparison, rules=rules, comparison_error=error, pending=(),
                           ms_total=result.ms_total + ms, ms_compare=result.ms_compare + ms)


def with_externals(request: AnalysisRequest, result: AnalysisResult, externals: ExternalRuns) -> AnalysisResult:
    """The result with the chosen external chunkers' columns and, when the panes show one
    of them, its spans, statuses and links in place of the rule's (worker thread)."""
    a, doc_a, doc_b = result.a, result.doc_a, result.doc_b
    if a is None or result.b is None:
        return result
    target = sum(c.tokens for c in a.chunks) / len(a.chunks) if a.chunks else 1.0
    columns = tuple(lay_out(col, doc_a.offsets, doc_b.offsets) for col in externals.columns(
        request.external, doc_a.text, doc_b.text, target, request.params.token_counter, a.boundary_rule))
    result = result._replace(externals=columns)
    shown = next((col for col in columns if col.key == request.external.shown and col.panes is not None), None)
    if shown is not None:  # the panes show the external chunking; the churn panel keeps every rule
        p, word_map = shown.panes, result.word_map
        if word_map is not None:  # ghost ticks: where the other version's external chunker cuts
            word_map = dataclasses.replace(word_map, ghosts_a=word_map.ghost_cuts("A", p.layout_a.ends, p.layout_b.ends),
                                           ghosts_b=word_map.ghost_cuts("B", p.layout_b.ends, p.layout_a.ends))
        result = result._replace(a=shown.a, b=shown.b, layout_a=p.layout_a, layout_b=p.layout_b, status_a=p.status_a,
                                 status_b=p.status_b, links=p.links, word_map=word_map)
    return result


class OutOfMemory(SteadlithError):
    """Memory ran out while working on a document; the message names it and what it needs."""


def utf8_size(text: str) -> int:
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8", "surrogatepass"))
    except MemoryError:  # asked just after memory ran out: code points are near enough
        return len(text)


def describe_error(e: BaseException) -> str:
    """A one-line message for the user: core and document errors as they are,
    anything else named as unexpected (the traceback goes to stderr)."""
    if isinstance(e, (SteadlithError, DocumentError)):
        return visible(str(e))  # one line, whatever the names in it hold
    if isinstance(e, MemoryError):  # where no document is known (the comparison, a job)
        return "out of memory: close other programs or compare smaller documents"
    traceback.print_exception(e)
    return f"Unexpected error: {type(e).__name__}: {e}"
