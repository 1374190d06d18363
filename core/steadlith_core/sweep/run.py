"""Running a sweep: the plan (sources × sets), a journal that keeps every finished task on
disk, and the local executors (this process, or a process pool).

Tasks run set by set (all sources of set 0, then set 1, …), so a sweep stopped halfway
has whole rows for the sets it finished. Each result goes to the journal as it arrives:
a stopped or killed sweep loses at most the tasks that were running, and `resume`
(`--resume FILE`) runs only the rest. Executors hand results back in whatever order
tasks finish; the rows are merged from integers (sweep.results), so the output does
not depend on that order.

A pool worker receives the sources once, when it starts. The sources' word diffs, which
no parameter changes, are computed first, once, in slices spread over the workers
(sweep.diffs); each task is then two indices, a parameter set and its source's diffs
(packed opcodes: about 70 KB for a thousand commits). Workers ignore Ctrl+C: the
terminal sends it to the whole process group, and only the calling process decides what
stopping means. A worker killed mid-run (a signal, the out-of-memory killer) breaks the
pool: it is replaced and the unfinished tasks run again, a bounded number of times.
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
from .plan import SweepPlan, TaskKey
from .results import SetRow, merge_rows
from .tasks import Source, TaskResult, diff_slices, needs_diffs, run_task, source_diffs

#: executor(plan, pending task keys, on_result): runs the tasks, calls on_result(result)
#: in the calling thread as each finishes; whatever on_result raises stops it.
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
        total = self.total
        report(progress, self.done, total)

        def on_result(result: TaskResult) -> None:
            self.add(result)
            report(progress, self.done, total)

        pending = self.pending()
        if pending:
            executor(self.plan, pending, on_result)
        return self


def in_process(plan: SweepPlan, keys: Sequence[TaskKey], on_result: Callable[[TaskResult], None]) -> None:
    diffs: dict[int, SourceDiffs] = {}  # each source's diffs, computed with its first task
    for source, set_index in keys:
        params = plan.params_of(set_index)
        shipped = None
        if needs_diffs(params):
            if source not in diffs:
                diffs[source] = source_diffs(plan.sources[source])
            shipped = (diffs[source],)
        on_result(run_task(plan.sources[source], source, params, set_index, diffs=shipped))


def diffed_sources(plan: SweepPlan, keys: Sequence[TaskKey]) -> list[int]:
    """The sources some of `keys` compare through word diffs."""
    return sorted({source for source, s in keys if needs_diffs(plan.params_of(s))})


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


def _pool_task(job: tuple[int, AnyParams, int, tuple[SourceDiffs, ...] | None]) -> TaskResult:
    source, params, set_index, diffs = job
    return run_task(_worker_sources[source], source, params, set_index, diffs=diffs)


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
                _task_wave(pool, plan, left, diffs, on_result)
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
               on_result: Callable[[TaskResult], None]) -> None:
    """Every task of `left` on the pool, each result handed on as it arrives and taken
    out of `left`, so after a break `left` is what remains."""
    futures = {pool.submit(_pool_task, (source, plan.params_of(s), s,
                                        diffs.get(source) if needs_diffs(plan.params_of(s)) else None)): (source, s)
               for source, s in left}
    done: set[TaskKey] = set()

    def hand_on(future: Future) -> None:
        on_result(future.result())
        done.add(futures[future])

    try:
        for future in as_completed(futures):
            hand_on(future)
    except BrokenProcessPool:
        for future, key in futures.items():  # results that arrived before the break count
            if key not in done and future.done() and not future.cancelled() and future.exception() is None:
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
