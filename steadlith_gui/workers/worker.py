"""The thread pool and its runners: work runs as `QRunnable`s on a `QThreadPool`; their
signals live on a separate QObject created in the GUI thread, so results arrive there
as queued calls. `PoolRunner` numbers the tasks and brings their outcome back.

`Analyzer` runs the analysis (analysis.py). Every request carries a generation number.
At most one analysis runs at a time and at most one waits: a newer request replaces the
waiting one, and a result whose generation is not the latest is dropped when it arrives.
So a burst of parameter changes costs at most two runs, and what is shown always
belongs to the last request. An analysis comes in two phases when that shows the panes
sooner: `complete()` computes what the first left pending in the same slot, and a newer
request stops it between two steps.

`DocumentLoader` (loading.py) reads documents; `Jobs` runs one-off work (exports,
workspace files, reloads of files that changed on disk): a function on the pool, then a
callback in the GUI thread with its value or a one-line message.
"""

from __future__ import annotations

import threading
from functools import partial
from typing import Any, Callable, Mapping

from PySide6.QtCore import QObject, QRunnable, QThreadPool, QTimer, Signal
from steadlith_core import Analysis, ChunkerParams

from ..model.external_choice import ExternalChoice
from ..model.external_runs import ExternalRuns
from ..model.viewmodel import AnalysisResult
from .analysis import (
    COMPLETION_DELAY_MS,
    AnalysisRequest,
    RuleComparisons,
    Source,
    WordMaps,
    analyze,
    complete,
    describe_error,
    with_externals,
)


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
        # The runnable lets go of its function before running it: PySide sometimes keeps the wrapper
        # of an auto-deleted QRunnable alive for good, and with it whatever the function's
        # closure holds (an analysis's documents, chunkings and comparisons: the window's
        # memory would grow with every edit). A wrapper left behind holds nothing large.
        fn, self.fn = self.fn, None
        try:
            value = fn()
        except BaseException as e:  # noqa: BLE001 - every failure becomes a message
            del fn
            self._emit(self.signals.failed, describe_error(e))
        else:
            del fn
            self._emit(self.signals.done, value)
            del value

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
