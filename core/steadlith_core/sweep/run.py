"""Running a sweep: the plan (sources × sets), a journal that keeps every finished task on
disk, and the local executors (this process, or a process pool).

Executors run batches (SweepPlan.batches): a repository file's sets together, its
history walked once for all of them (in this process: once per sweep; on a pool or a
cluster: once per batch, as many as it takes to give every worker one), any other
task alone, set by set (all sources of set 0, then set 1, …). Each result goes to the
journal as it arrives (a batch's results together, when it ends): a stopped or killed
sweep loses at most the batches that were running, and `resume` (`--resume FILE`)
runs only the rest. Executors hand results back in whatever order batches finish; the
rows are merged from integers (sweep.results), so the output does not depend on that
order. In this process a batch reports progress per version it replays (the count of
finished tasks again), so a `Cancelled` raised from the callback stops it within a
version.

A pool worker receives the sources once, when it starts. The word diffs of the sources
held in memory, which no parameter changes, are computed first, once, in slices spread
over the workers (sweep.diffs); a repository file's batch diffs each change as it reads
it. A task is then indices: a source, its parameter sets, and the diffs (packed
opcodes: about 70 KB for a thousand versions). Workers ignore Ctrl+C: the terminal
sends it to the whole process group, and only the calling process decides what stopping
means. A worker killed mid-run (a signal, the out-of-memory killer) breaks the pool: it
is replaced and the unfinished batches run again, a bounded number of times.
"""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Sequence

from ..chunking.chunks import AnyParams
from ..errors import SteadlithError
from ..kernel import threads as numpy_threads
from ..progress import Progress, report
from .diffs import SourceDiffs
from .journal import Journal
from .plan import Batch, SweepPlan, TaskKey
from .results import SetRow, merge_rows
from .tasks import RepoFileSource, Source, TaskResult, diff_slices, needs_diffs, run_batch, source_diffs

#: executor(plan, pending task keys, on_result): runs the tasks, calls on_result(result)
#: in the calling thread as each finishes; whatever on_result raises stops it. An
#: on_result with a `tick()` method (SweepRun's) is also ticked while a batch runs in
#: the calling thread; a tick may raise too.
Executor = Callable[["SweepPlan", Sequence[TaskKey], Callable[[TaskResult], None]], None]

__all__ = ["Executor", "SweepRun", "WorkersLost", "in_process", "process_pool",
           "run_sweep"]


class SweepRun:
    """The results of one sweep so far: what is done (also from a resumed journal),
    what is left, and the rows, complete or partial."""

    def __init__(self, plan: SweepPlan, journal: Journal | None = None):
        self.plan = plan
        self.journal = journal
        self.results: dict[TaskKey, TaskResult] = dict(journal.loaded) if journal is not None else {}

    @property
    def total(self) -> int:
        return len(self.plan.sets) * len(self.plan.sources)

    @property
    def done(self) -> int:
        return len(self.results)

    @property
    def partial(self) -> bool:
        return self.done < self.total

    def pending(self) -> list[TaskKey]:
        return [k for k in self.plan.task_keys() if k not in self.results]

    def add(self, result: TaskResult) -> None:
        self.results[result.key] = result
        if self.journal is not None:
            self.journal.record(result)

    def rows(self) -> tuple[SetRow, ...]:
        return merge_rows(self.plan.sets, self.results.values(), len(self.plan.sources))

    def execute(self, executor: Executor, progress: Progress | None = None) -> "SweepRun":
        """Run what is pending; `progress(done, total)` counts tasks and may raise
        `Cancelled` (or the caller Ctrl+C): what finished before stays in the run."""
        pending = self.pending()
        report(progress, self.done, self.total)
        if pending:
            executor(self.plan, pending, _Receiver(self, progress))
        return self


class _Receiver:
    """A run's on_result: each result added, the progress told; `tick()` tells it again
    (in-process batches call it per version, so a Cancelled from it stops them)."""

    def __init__(self, run: SweepRun, progress: Progress | None):
        self.run, self.progress = run, progress

    def __call__(self, result: TaskResult) -> None:
        self.run.add(result)
        self.tick()

    def tick(self) -> None:
        report(self.progress, self.run.done, self.run.total)


def in_process(plan: SweepPlan, keys: Sequence[TaskKey], on_result: Callable[[TaskResult], None]) -> None:
    tick = getattr(on_result, "tick", None)
    ticks = (lambda done, total: tick()) if tick is not None else None
    diffs: dict[int, SourceDiffs] = {}  # each source's diffs, computed with its first task
    for batch in plan.batches(keys):
        shipped = None
        if batch.source in diffed_sources(plan, batch.keys()):
            if batch.source not in diffs:
                diffs[batch.source] = source_diffs(plan.sources[batch.source])
            shipped = (diffs[batch.source],)
        for result in run_batch(plan.sources[batch.source], batch.source, _sets(plan, batch), ticks, shipped):
            on_result(result)


def _sets(plan: SweepPlan, batch: Batch) -> list[tuple[int, AnyParams]]:
    return [(s, plan.params_of(s)) for s in batch.sets]


def diffed_sources(plan: SweepPlan, keys: Sequence[TaskKey]) -> list[int]:
    """The sources some of `keys` compare through word diffs made before their tasks: a
    repository file's batch diffs the versions it reads itself."""
    return sorted({source for source, s in keys
                   if needs_diffs(plan.params_of(s)) and not isinstance(plan.sources[source], RepoFileSource)})


#: Diff slices a worker: enough that the wave ends with the workers together (the
#: last slice waits on no other), few enough that each ships a batch of diffs.
SLICES_PER_WORKER = 8

_worker_sources: tuple[Source, ...] = ()


def _start_worker(sources: tuple[Source, ...]) -> None:
    global _worker_sources
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    numpy_threads.use(1)  # the pool already has a process per core
    _worker_sources = sources


def _pool_diffs(job: tuple[int, int, int]) -> tuple[int, SourceDiffs]:
    source, lo, hi = job
    return source, source_diffs(_worker_sources[source], lo, hi)


def _pool_task(job: tuple[int, list[tuple[int, AnyParams]], tuple[SourceDiffs, ...] | None]) -> tuple[TaskResult, ...]:
    source, sets, diffs = job
    return run_batch(_worker_sources[source], source, sets, diffs=diffs)


#: Times a broken pool (a worker killed by a signal or the out-of-memory killer) is
#: replaced within one run; each time, the tasks not yet finished run again on the new
#: pool. A pool that keeps breaking stops the sweep instead of looping.
POOL_RESTARTS = 2


class WorkersLost(SteadlithError):
    """The pool's workers kept dying: the sweep stopped; its journal can resume it."""


def process_pool(jobs: int, *, restarts: int = POOL_RESTARTS, say: Callable[[str], None] | None = None) -> Executor:
    """An executor running tasks on `jobs` processes (started fresh: a forked copy of a
    process with threads, such as the window, can deadlock). The sources' word diffs
    come first, in slices over every worker; each task then receives its source's.

    A worker that dies (SIGKILL, out of memory) breaks the pool (concurrent.futures
    notices it, where multiprocessing.Pool would wait for the lost task for ever): the
    pool is replaced and what was not finished runs again, up to `restarts` times, each
    said through `say`; then WorkersLost."""
    if jobs < 1:
        raise SteadlithError(f"--jobs must be >= 1, got {jobs}")

    def execute(plan: SweepPlan, keys: Sequence[TaskKey], on_result: Callable[[TaskResult], None]) -> None:
        if jobs == 1:
            return in_process(plan, keys, on_result)
        workers = min(jobs, len(keys))
        parts = workers * SLICES_PER_WORKER
        pieces: dict[tuple[int, int], SourceDiffs] = {}  # (source, first unit): a finished diff slice
        left = list(keys)
        for attempt in range(restarts + 1):
            pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                       initializer=_start_worker, initargs=(plan.sources,))
            try:
                diffs = _diff_wave(pool, plan, left, parts, pieces)
                _task_wave(pool, plan, left, diffs, on_result, workers)
                return
            except BrokenProcessPool:
                if attempt == restarts:
                    raise WorkersLost(f"sweep stopped: a worker process died {restarts + 1} times (killed, or out of "
                                      "memory)") from None
                if say is not None:
                    tasks = f"{len(left)} task{'' if len(left) == 1 else 's'}"
                    say(f"a worker process died (killed, or out of memory): {tasks} run again on a new pool")
            finally:
                _stop(pool)

    return execute


def _diff_wave(pool: ProcessPoolExecutor, plan: SweepPlan, keys: Sequence[TaskKey], parts: int,
               pieces: dict[tuple[int, int], SourceDiffs]) -> dict[int, tuple[SourceDiffs]]:
    """Each diffed source's word diffs, its slices spread over the pool; slices already
    in `pieces` (from a pool that broke later) are not diffed again."""
    slices = {source: diff_slices(plan.sources[source], parts) for source in diffed_sources(plan, keys)}
    todo = {pool.submit(_pool_diffs, (source, lo, hi)): (source, lo)
            for source, cuts in slices.items() for lo, hi in cuts if (source, lo) not in pieces}
    try:
        for future in as_completed(todo):
            pieces[todo[future]] = future.result()[1]
    except BrokenProcessPool:
        for future, at in todo.items():  # keep what finished before the break
            if future.done() and not future.cancelled() and future.exception() is None:
                pieces[at] = future.result()[1]
        raise
    return {source: (SourceDiffs.join([pieces[(source, lo)] for lo, _ in cuts]),) for source, cuts in slices.items()}


def _task_wave(pool: ProcessPoolExecutor, plan: SweepPlan, left: list[TaskKey], diffs: dict[int, tuple[SourceDiffs]],
               on_result: Callable[[TaskResult], None], workers: int) -> None:
    """Every task of `left` on the pool, in batches, each result handed on as it arrives
    and taken out of `left`, so after a break `left` is what remains."""
    futures = {}
    for batch in plan.batches(left, workers):
        sets = _sets(plan, batch)
        shipped = diffs.get(batch.source) if any(needs_diffs(p) for _, p in sets) else None
        futures[pool.submit(_pool_task, (batch.source, sets, shipped))] = batch
    done: set[TaskKey] = set()
    handed: set[Future] = set()

    def hand_on(future: Future) -> None:
        handed.add(future)
        for result in future.result():
            on_result(result)
            done.add(result.key)

    try:
        for future in as_completed(futures):
            hand_on(future)
    except BrokenProcessPool:
        for future in futures:  # results that arrived before the break count
            if future not in handed and future.done() and not future.cancelled() and future.exception() is None:
                hand_on(future)
        raise
    finally:
        left[:] = [k for k in left if k not in done]


def _stop(pool: ProcessPoolExecutor) -> None:
    """No worker outlives the run, stopped or done: queued tasks are dropped and the
    workers ended (a task running for minutes is not waited for)."""
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14
    if terminate is not None:
        terminate()
    else:
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
    pool.shutdown(wait=True, cancel_futures=True)


def run_sweep(plan: SweepPlan, executor: Executor | None = None, *, progress: Progress | None = None,
              journal: Journal | None = None) -> SweepRun:
    """Every task of `plan` (those not already in `journal`), merged."""
    return SweepRun(plan, journal).execute(executor or in_process, progress)
