"""Analysis and loading off the GUI thread.

Work runs as `QRunnable`s on a `QThreadPool`; their signals live on a separate QObject
created in the GUI thread, so results arrive there as queued calls. Every analysis
request carries a generation number. At most one analysis runs at a time and at most
one waits: a newer request replaces the waiting one, and a result whose generation is
not the latest is dropped when it arrives. So a burst of parameter changes costs at
most two runs, and what is shown always belongs to the last request.

The analysis calls `steadlith_core` through one private `Analysis`, whose staged
caches make a parameter change re-run only the stages it touches. When both versions
exist it then compares them (`Analysis.compare`, which keeps the word diff across
parameter changes) and lays the comparison out for
the views (statuses and changed words in Qt positions, the link map's bands; the word
map is kept per pair in `WordMaps`). An edited pane arrives as an `EditedText` (its
text); the worker indexes it.

An analysis comes in two phases when that shows the panes sooner: the first has
everything the panes, link map, overview, table and diagnostics show, with the churn
panel's fixed-size baseline and other rules only where they are cached; `complete()`
then computes the rest (`AnalysisResult.pending` names it) in the same slot of the
Analyzer, and a newer request stops it between two steps.

`DocumentLoader` reads and indexes `FileSource`s, `TextSource`s and `RevisionSource`s
(a file at a git commit, read in-process with pygit2); `Jobs` runs one-off
work (exports, workspace files, reloads of files that changed on disk): a function on
the pool, then a callback in the GUI thread with its value or a one-line message. All
three share `PoolRunner`: numbered tasks and their outcome back in the GUI thread.
"""

from __future__ import annotations

import dataclasses
import os
import threading
import time
from functools import partial
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Mapping, NamedTuple

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal
from steadlith_core import Analysis, ChunkerParams, ComparisonError, LoadError, SteadlithError, load_text
from steadlith_core.errors import visible
from steadlith_core.history.repository import GitError, RevisionRef, read_text_at, resolve_revision
from steadlith_core.chunking.loader import out_of_memory_message
from steadlith_core.chunking.pipeline import gc_paused
from steadlith_core.progress import Cancelled

from ..model.documents import DocumentError, LoadedDocument, materialize, prepare_document
from ..model.external_choice import ExternalChoice
from ..model.external_runs import ExternalRuns, lay_out
from ..model.layouts import ChunkLayout, SideStatus
from ..model.links import LinkList, WordMap
from ..model.session import EditedText
from ..model.viewmodel import BASELINE, AnalysisResult

Source = LoadedDocument | EditedText | None


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
    docs = [(s.name, _utf8_size(s.text)) for s in (request.doc_a, request.doc_b) if s is not None]
    return OutOfMemory(out_of_memory_message(docs))


def _analyze(request: AnalysisRequest, pipeline: Analysis, others: RuleComparisons,
             externals: ExternalRuns, word_maps: WordMaps) -> AnalysisResult:
    t0 = time.perf_counter()
    out: list[Any] = []
    for side, source in (("A", request.doc_a), ("B", request.doc_b)):
        t = time.perf_counter()
        doc = materialize(side, source)
        if doc is None:
            out.append((None, None, None, 0.0))
            continue
        chunking = pipeline.chunk(doc.text, request.params)
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


def _utf8_size(text: str) -> int:
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


class _Signals(QObject):
    done = Signal(int, object)
    failed = Signal(int, str)


class _Task(QRunnable):
    def __init__(self, key: int, fn: Callable[[], Any], signals: _Signals):
        super().__init__()
        self.key = key
        self.fn = fn
        self.signals = signals

    def run(self) -> None:  # worker thread
        try:
            value = self.fn()
        except BaseException as e:  # noqa: BLE001 - every failure becomes a message
            self._emit(self.signals.failed, describe_error(e))
        else:
            self._emit(self.signals.done, value)

    def _emit(self, signal, value) -> None:
        try:
            signal.emit(self.key, value)
        except RuntimeError:  # the receiving window was closed meanwhile: nobody to tell
            pass


class PoolRunner(QObject):
    """What the three runners share: a thread pool, numbered tasks, and their outcome
    delivered in the GUI thread to `_on_done(key, value)` or `_on_failed(key, message)`."""

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None):
        super().__init__(parent)
        self._pool = pool or QThreadPool.globalInstance()
        self._key = 0
        self._tasks: dict[int, _Task] = {}
        self._signals = _Signals(self)
        self._signals.done.connect(self._done)
        self._signals.failed.connect(self._failed)

    def _run(self, fn: Callable[[], Any], key: int | None = None) -> int:
        if key is None:
            self._key += 1
            key = self._key
        task = _Task(key, fn, self._signals)
        self._tasks[key] = task
        self._pool.start(task)
        return key

    @property
    def pending(self) -> int:
        return len(self._tasks)

    def _done(self, key: int, value) -> None:
        self._tasks.pop(key, None)
        self._on_done(key, value)

    def _failed(self, key: int, message: str) -> None:
        self._tasks.pop(key, None)
        self._on_failed(key, message)

    def _on_done(self, key: int, value) -> None:
        raise NotImplementedError

    def _on_failed(self, key: int, message: str) -> None:
        raise NotImplementedError


class Analyzer(PoolRunner):
    """Runs analyses in the background; emits only results of the latest request."""

    result_ready = Signal(object)  # AnalysisResult of the latest generation
    failed = Signal(str)  # the latest request failed (e.g. a token counter error)
    dropped = Signal(int)  # a stale result (its generation) was dropped
    busy_changed = Signal(bool)

    def __init__(
        self,
        parent: QObject | None = None,
        analyze_fn: Callable[[AnalysisRequest, Analysis], AnalysisResult] = analyze,
        pool: QThreadPool | None = None,
    ):
        super().__init__(parent, pool)
        self._pipeline = Analysis(max_documents=6, pause_gc=True)  # the app owns its process
        # each window keeps its own splitters' chunkings: they go when it closes
        self._external_runs = ExternalRuns() if analyze_fn is analyze else None
        self._other_rules = RuleComparisons()
        self._analyze = partial(analyze, others=self._other_rules, externals=self._external_runs,
                                word_maps=WordMaps(), defer=True) if analyze_fn is analyze else analyze_fn
        self._external_jobs = 0  # second phases running: external chunkers after the rules' result
        self._cancel = threading.Event()  # set: the completion running now is stale, stop it
        self._completion: tuple[AnalysisRequest, AnalysisResult] | None = None  # waiting to start
        self._completion_timer = QTimer(self, singleShot=True, interval=COMPLETION_DELAY_MS)
        self._completion_timer.timeout.connect(self._start_completion)
        # a zero timer fires once the events posted meanwhile ran: the first phase's paint
        self._painted = QTimer(self, singleShot=True, interval=0)
        self._painted.timeout.connect(self._completion_timer.start)
        self._completing = False  # a completion task is running
        self._running: AnalysisRequest | None = None
        self._pending: AnalysisRequest | None = None
        self._jobs = Jobs(self, pool)
        self.dropped_count = 0

    @property
    def generation(self) -> int:
        """Generation of the latest request."""
        return self._key

    @property
    def busy(self) -> bool:
        return self._running is not None or self._external_jobs > 0

    def _two_phases(self, request: AnalysisRequest) -> bool:
        """A splitter can take seconds where the rules take milliseconds: unless the panes
        show an external chunking (they need it at once), the rules' result comes first
        and the external columns follow in a second run on the pool."""
        return self._external_runs is not None and bool(request.external.chunkers) and not request.external.shown

    def submit(self, doc_a: Source, doc_b: Source, params: ChunkerParams, others: Mapping[str, Any] = {},
               external: ExternalChoice = ExternalChoice()) -> int:
        """Analyse A and B with `params` (the shown rule), and compare them under `others`
        and the `external` chunkers too."""
        self._key += 1
        request = AnalysisRequest(self._key, doc_a, doc_b, params, dict(others), external)
        if self._running is None:
            self._start(request)
        else:
            self._pending = request  # replaces an older waiting request: it would be stale
            self._cancel.set()  # a completion of the running one would be stale too
            if self._completion is not None:  # not started yet: nothing to wait for
                self._completion = None
                self._painted.stop()
                self._completion_timer.stop()
                self._finish(self._running.generation, counted=False)
        return request.generation

    def _start(self, request: AnalysisRequest) -> None:
        was_busy = self._running is not None
        self._running = request
        pipeline, fn = self._pipeline, self._analyze
        first = request._replace(external=ExternalChoice()) if self._two_phases(request) else request
        self._run(lambda: fn(first, pipeline), request.generation)
        if not was_busy:
            self.busy_changed.emit(True)

    def _finish(self, generation: int, counted: bool = True) -> bool:
        """Bookkeeping when a run ends; True if its result is the latest. `counted`: a
        stale end is a dropped result (a stopped completion is not: its first phase was shown)."""
        self._running = None
        self._completing = False
        latest = generation == self._key
        if not latest and counted:
            self.dropped_count += 1
            self.dropped.emit(generation)
        pending, self._pending = self._pending, None
        if pending is not None:
            self._start(pending)
        else:
            self.busy_changed.emit(False)
        return latest

    def _on_done(self, generation: int, result: AnalysisResult) -> None:
        request = self._running
        if result.pending and generation == self._key and request is not None and not self._completing:
            self.result_ready.emit(result)  # the panes' part first; the churn panel's rest follows
            if self._pending is None:
                self._completion = (request, result)
                self._painted.start()
            else:  # asked for while the first phase was shown: the rest would be stale
                self._finish(generation, counted=False)
            return
        if self._finish(generation):
            second = request is not None and self._two_phases(request)
            if second:  # busy until the columns come: whoever waits for an idle analyzer waits for them
                self._external_jobs += 1
            self.result_ready.emit(result)
            if second:
                self._add_externals(request, result)

    def _start_completion(self) -> None:
        """Compute what the shown result left pending, in the slot of its request: a newer
        request waits for it, and stops it between two of its steps."""
        if self._completion is None:
            return
        (request, result), self._completion = self._completion, None
        cancel = self._cancel = threading.Event()
        pipeline, others = self._pipeline, self._other_rules
        self._completing = True
        self._run(lambda: complete(request, result, pipeline, others, cancel), request.generation)

    def _add_externals(self, request: AnalysisRequest, result: AnalysisResult) -> None:
        runs = self._external_runs
        self.busy_changed.emit(True)

        def ended() -> None:
            self._external_jobs -= 1
            if not self.busy:
                self.busy_changed.emit(False)

        def done(full: AnalysisResult) -> None:
            ended()
            if full.generation == self._key:  # nothing newer was asked for meanwhile
                self.result_ready.emit(full)

        def failed(message: str) -> None:
            ended()
            if request.generation == self._key:
                self.failed.emit(message)

        self._jobs.start(lambda: with_externals(request, result, runs), done, failed)

    def _on_failed(self, generation: int, message: str) -> None:
        if self._finish(generation, counted=not self._completing):
            self.failed.emit(message)


@dataclass(frozen=True)
class FileSource:
    """A document to read from a file; `label`: the name to show instead of the file's
    (`steadlith-gui --label`)."""

    path: str
    label: str | None = None


@dataclass(frozen=True)
class TextSource:
    """A document given as text (pasted, an example, an edited text moved by a swap);
    `path` is the file it stands for, if any."""

    text: str
    name: str
    path: str | None = None


@dataclass(frozen=True)
class RevisionSource:
    """A document read from git: the file `path` (relative to the repository's root) of
    the repository `repo` at `rev` (any revision git accepts; workspaces give the full
    commit). Shown as `path @ short — subject` unless `label` says otherwise. Its pane is
    not a file: nothing watches it on disk, and Reload leaves it as it is."""

    repo: str
    path: str
    rev: str
    label: str | None = None

    @classmethod
    def of(cls, ref: RevisionRef | Any, label: str | None = None) -> "RevisionSource":
        """From anything with `repo`, `path` and `commit` (a RevisionRef, a history row's)."""
        return cls(ref.repo, ref.path, ref.commit, label)


def load_revision(side: str, source: RevisionSource) -> LoadedDocument:
    """Read and index a file at a revision (thread pool). GitError names the repository,
    the path and the revision when any of them is missing or the blob is not text."""
    ref = resolve_revision(source.repo, source.path, source.rev)
    doc = prepare_document(side, read_text_at(ref), name=ref.path)  # the path picks the syntax colour
    return dataclasses.replace(doc, name=source.label or ref.title(), git_ref=ref)


class LoadBatch(NamedTuple):
    seq: int
    documents: dict  # side -> LoadedDocument
    errors: list  # (side, message)


def _prepare(sources: dict[str, FileSource | TextSource | RevisionSource]) -> tuple[dict, list]:
    documents: dict[str, LoadedDocument] = {}
    errors: list[tuple[str, str]] = []
    for side, source in sources.items():
        try:
            if isinstance(source, FileSource):
                documents[side] = prepare_document(side, load_text(source.path), name=source.label, path=source.path)
            elif isinstance(source, RevisionSource):
                documents[side] = load_revision(side, source)
            else:
                documents[side] = prepare_document(side, source.text, name=source.name, path=source.path)
        except (LoadError, DocumentError, GitError) as e:
            errors.append((side, f"Cannot load {side}: {visible(str(e))}"))
        except MemoryError:
            if isinstance(source, RevisionSource):
                name, size = f"{source.path} @ {source.rev}", 0
            else:
                name, size = (source.path, _file_size(source.path)) if isinstance(source, FileSource) \
                    else (source.name or side, _utf8_size(source.text))
            errors.append((side, f"Cannot load {side}: {visible(out_of_memory_message([(name, size)]))}"))
        except BaseException as e:  # noqa: BLE001
            errors.append((side, f"Cannot load {side}: {describe_error(e)}"))
    return documents, errors


def _file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


class DocumentLoader(PoolRunner):
    """Reads and indexes documents in the background, one batch per request."""

    loaded = Signal(object)  # LoadBatch

    def load(self, sources: dict[str, FileSource | TextSource | RevisionSource]) -> int:
        """Read and index `sources` (side -> source). Returns the batch seq."""
        return self._run(lambda: _prepare(sources))

    def _on_done(self, seq: int, value) -> None:
        documents, errors = value
        self.loaded.emit(LoadBatch(seq, documents, errors))

    def _on_failed(self, seq: int, message: str) -> None:
        self.loaded.emit(LoadBatch(seq, {}, [("?", message)]))


class Jobs(PoolRunner):
    """One-off background work: exports, workspace files, reloads after a change on disk.

    `start(fn, on_done, on_failed)` runs `fn()` on the thread pool; one of the two
    callbacks is then called in the GUI thread, with fn's value or a one-line message
    (core errors as they are, anything else named as unexpected). Callbacks of a window
    that was closed meanwhile are never called (the signals object went with it).
    """

    finished = Signal(int)  # job key, after its callback ran

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None):
        super().__init__(parent, pool)
        self._callbacks: dict[int, tuple[Callable[[Any], None], Callable[[str], None]]] = {}

    def start(self, fn: Callable[[], Any], on_done: Callable[[Any], None],
              on_failed: Callable[[str], None]) -> int:
        key = self._run(fn)
        self._callbacks[key] = (on_done, on_failed)
        return key

    def _on_done(self, key: int, value) -> None:
        on_done, _ = self._callbacks.pop(key)
        on_done(value)
        self.finished.emit(key)

    def _on_failed(self, key: int, message: str) -> None:
        _, on_failed = self._callbacks.pop(key)
        on_failed(message)
        self.finished.emit(key)
