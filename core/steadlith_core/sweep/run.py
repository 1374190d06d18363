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
stopping means.
"""

from __future__ import annotations

import hashlib
import json
import multiprocessing
import signal
from dataclasses import dataclass
from typing import Callable, Sequence

from ..chunking.chunks import AnyParams
from ..errors import ExportError, FileError, SteadlithError
from ..kernel import threads as numpy_threads
from ..progress import Progress, report
from ..report.export import write_text_atomic
from .diffs import SourceDiffs
from .grid import ParamSet
from .results import SetRow, merge_rows
from .tasks import (PairsSource, RepoFileSource, Source, TaskResult, diff_slices, needs_diffs, run_task,
                    source_diffs)

JOURNAL_SCHEMA = "steadlith-sweep-journal/1"

TaskKey = tuple[int, int]  # (source index, set index)
#: executor(plan, pending task keys, on_result): runs the tasks, calls on_result(result)
#: in the calling thread as each finishes; whatever on_result raises stops it.
Executor = Callable[["SweepPlan", Sequence[TaskKey], Callable[[TaskResult], None]], None]


@dataclass(frozen=True)
class SweepPlan:
    sources: tuple[Source, ...]
    sets: tuple[ParamSet, ...]
    skipped: tuple[str, ...] = ()

    def task_keys(self) -> list[TaskKey]:
        return [(source, s.index) for s in self.sets for source in range(len(self.sources))]

    def params_of(self, set_index: int) -> AnyParams:
        return self.sets[set_index].params

    def fingerprint(self) -> str:
        """What a journal must match to be resumed: the sources' contents and the sets."""
        h = hashlib.sha256()
        for source in self.sources:
            h.update(_source_digest(source))
        for s in self.sets:
            h.update(s.params.params_hash.encode())
        return h.hexdigest()


def _source_digest(source: Source) -> bytes:
    h = hashlib.sha256(type(source).__name__.encode())
    if isinstance(source, PairsSource):
        parts = [x for pair in source.pairs for x in pair]
    elif isinstance(source, RepoFileSource):  # commit ids name the contents
        parts = [source.repo, source.path, *source.commits]
    else:
        parts = [*source.keys, *source.versions]
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()


def _cut(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _journal_line(path: str, number: int, line: bytes) -> dict:
    """One line of a journal as a JSON object, or a SteadlithError naming the line: not
    UTF-8, not JSON, nested past the parser's depth, or not an object."""
    try:
        doc = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        reason = "nested too deeply" if isinstance(e, RecursionError) else _cut(str(e))
        raise SteadlithError(f"{path}: line {number}: damaged sweep journal (not JSON: {reason})") from None
    if not isinstance(doc, dict):
        raise SteadlithError(f"{path}: line {number}: damaged sweep journal (a {type(doc).__name__}, not an object)")
    return doc


class Journal:
    """Finished task results, one JSON line each after a header naming the plan."""

    def __init__(self, path: str, plan: SweepPlan, *, resume: bool = False):
        self.path = path
        self.loaded: dict[TaskKey, TaskResult] = {}
        fingerprint = plan.fingerprint()
        try:
            if resume:
                self.loaded = self._read(fingerprint, set(plan.task_keys()))
                self._file = open(path, "a", encoding="utf-8")
            else:
                # the header replaces a previous journal all at once: a kill while starting
                # leaves the old journal or the new header, never an empty file
                header = {"schema": JOURNAL_SCHEMA, "fingerprint": fingerprint, "sets": len(plan.sets),
                          "sources": len(plan.sources)}
                write_text_atomic(path, json.dumps(header, separators=(",", ":")) + "\n")
                self._file = open(path, "a", encoding="utf-8")
        except ExportError as e:
            raise FileError(path, f"cannot write the sweep journal: {e.reason}") from None
        except OSError as e:
            raise FileError(path, f"cannot {'resume' if resume else 'write'} the sweep journal: "
                                  f"{e.strerror or e}") from None

    def _read(self, fingerprint: str, keys: set[TaskKey]) -> dict[TaskKey, TaskResult]:
        with open(self.path, "rb") as f:
            data = f.read()
        good = data.rfind(b"\n") + 1  # a line cut short by a kill is dropped, and written again
        lines = data[:good].split(b"\n")[:-1]
        header = _journal_line(self.path, 1, lines[0]) if lines else {}
        if header.get("schema") != JOURNAL_SCHEMA:
            raise SteadlithError(f"{self.path}: not a sweep journal ({JOURNAL_SCHEMA})")
        if header.get("fingerprint") != fingerprint:
            raise SteadlithError(f"{self.path}: this journal is of another sweep (other sources or parameter "
                                 "sets); run it without --resume to start again")
        results = []
        for number, line in enumerate(lines[1:], 2):
            try:
                results.append(TaskResult.from_dict(_journal_line(self.path, number, line)))
            except (ValueError, KeyError, TypeError, OverflowError) as e:
                raise SteadlithError(f"{self.path}: line {number}: damaged sweep journal "
                                     f"({_cut(str(e) or type(e).__name__)})") from None
        if good < len(data):
            with open(self.path, "r+b") as f:
                f.truncate(good)
        return {r.key: r for r in results if r.key in keys}

    def _write(self, doc: dict) -> None:
        self._file.write(json.dumps(doc, separators=(",", ":")) + "\n")
        self._file.flush()

    def record(self, result: TaskResult) -> None:
        try:
            self._write(result.to_dict())
        except OSError as e:
            raise FileError(self.path, f"cannot write the sweep journal: {e.strerror or e}") from None

    def close(self) -> None:
        self._file.close()


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


def process_pool(jobs: int) -> Executor:
    """An executor running tasks on `jobs` processes (started fresh: a forked copy of a
    process with threads, such as the window, can deadlock). The sources' word diffs
    come first, in slices over every worker; each task then receives its source's."""
    if jobs < 1:
        raise SteadlithError(f"--jobs must be >= 1, got {jobs}")

    def execute(plan: SweepPlan, keys: Sequence[TaskKey], on_result: Callable[[TaskResult], None]) -> None:
        if jobs == 1:
            return in_process(plan, keys, on_result)
        context = multiprocessing.get_context("spawn")
        workers = min(jobs, len(keys))
        pool = context.Pool(workers, initializer=_start_worker, initargs=(plan.sources,))
        try:
            slices = [(source, lo, hi) for source in diffed_sources(plan, keys)
                      for lo, hi in diff_slices(plan.sources[source], workers * SLICES_PER_WORKER)]
            pieces: dict[int, list[SourceDiffs]] = {}
            for source, piece in pool.imap_unordered(_pool_diffs, slices, chunksize=1):
                pieces.setdefault(source, []).append(piece)
            diffs = {source: (SourceDiffs.join(p),) for source, p in pieces.items()}
            work = [(source, plan.params_of(s), s, diffs.get(source) if needs_diffs(plan.params_of(s)) else None)
                    for source, s in keys]
            for result in pool.imap_unordered(_pool_task, work, chunksize=1):
                on_result(result)
            pool.close()
        finally:
            pool.terminate()  # stopped or done: no worker outlives the sweep
            pool.join()

    return execute


def run_sweep(plan: SweepPlan, executor: Executor | None = None, *, progress: Progress | None = None,
              journal: Journal | None = None) -> SweepRun:
    """Every task of `plan` (those not already in `journal`), merged."""
    return SweepRun(plan, journal).execute(executor or in_process, progress)
