"""Running a sweep's tasks on a Dask cluster (`steadlith sweep --scheduler ADDRESS`).

The only core module that imports dask.distributed (the `steadlith-core[dask]` extra),
and only when called; an import-linter contract keeps it so.

The same batches as the process pool (SweepPlan.batches: a repository file's sets
together, its history walked once per batch, as many batches as it takes to give each
worker one), the same pure function (sweep.tasks.run_batch). Sources go to every
worker once (`scatter(broadcast=True)`): a history's versions or a batch of pairs are
then referenced by each of the sets' tasks instead of travelling with each. The word
diffs of a source held in memory are tasks too (slices of its units, spread over the
workers), and each of its set tasks takes their futures as arguments: Dask moves the
packed diffs to the workers that need them, once each; a repository file's batch
diffs the changes it reads. A worker lost mid-run loses no
result: the scheduler runs the tasks it held again elsewhere (diff slices included, as
their dependants need them); a task it cancelled instead is submitted again with its
inputs sent anew; and a result is taken only from a finished task. Task
keys name the plan and the (source, sets or slice), so two sweeps on one cluster never
share a key by accident.
"""

from __future__ import annotations

import hashlib
import threading
from concurrent.futures import CancelledError
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from ..errors import SteadlithError, pip_extra, visible
from ..kernel import threads as numpy_threads
from .plan import Batch, SweepPlan, TaskKey
from .run import SLICES_PER_WORKER, Executor, WorkersLost, diffed_sources
from .tasks import TaskResult, diff_slices, needs_diffs, run_batch, source_diffs

#: Retries of a task that raised (a worker that died is not a raise: Dask reschedules its
#: tasks by itself, up to `distributed.scheduler.allowed-failures` deaths per task).
RETRIES = 2
#: Times a task is submitted again after the scheduler cancelled it. A killed worker can
#: take a scattered source's last replica with it, and the scheduler then forgets the
#: tasks that depended on it ("cancelled: already forgotten") instead of running them
#: again; such a task is resubmitted with its inputs sent anew.
RESUBMITS = 3
#: Seconds to connect to a scheduler and hear its handshake: a scheduler on a network
#: answers in well under a second; the rest is room for a loaded machine.
CONNECT_TIMEOUT = 10.0


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise SteadlithError(f"--scheduler needs dask.distributed: {pip_extra('dask')}") from None
    return distributed


def dask_executor(scheduler: Any, *, retries: int = RETRIES, timeout: float = CONNECT_TIMEOUT) -> Executor:
    """An executor running tasks through `scheduler`: an address (`tcp://host:8786`), a
    LocalCluster, or a connected Client (left open: it belongs to the caller). Connecting
    to an address takes at most `timeout` seconds."""

    def execute(plan: SweepPlan, keys: Sequence[TaskKey], on_result: Callable[[TaskResult], None]) -> None:
        distributed = _distributed()
        own = not isinstance(scheduler, distributed.Client)
        client = _connect(distributed, scheduler, timeout) if own else scheduler
        futures: list = []
        diffs: dict[int, list] = {}
        try:
            used = sorted({source for source, _ in keys})
            shipped = client.scatter([plan.sources[i] for i in used], broadcast=True, hash=False)
            by_index = dict(zip(used, shipped))
            tag = plan.fingerprint()[:16]
            workers = max(1, len(client.scheduler_info().get("workers", {})))
            parts = SLICES_PER_WORKER * workers

            def diff_tasks(source: int, where: Any, again: str = "") -> list:
                return [client.submit(source_diffs, where, lo, hi, retries=retries, pure=False,
                                      key=f"steadlith-sweep-{tag}-diffs-{source}-{lo}{again}")
                        for lo, hi in diff_slices(plan.sources[source], parts)]

            def submit(batch: Batch, where: Any, slices: list | None, again: str = "") -> Any:
                sets = [(s, plan.params_of(s)) for s in batch.sets]
                return client.submit(run_batch, where, batch.source, sets, None,
                                     slices if any(needs_diffs(p) for _, p in sets) else None,
                                     key=f"steadlith-sweep-{tag}-{_batch_name(batch)}{again}", retries=retries,
                                     pure=False)

            diffs = {source: diff_tasks(source, by_index[source]) for source in diffed_sources(plan, keys)}
            batches = plan.batches(keys, workers)
            futures = [submit(b, by_index[b.source], diffs.get(b.source)) for b in batches]
            batch_of = {f.key: b for f, b in zip(futures, batches)}
            again = {b: 0 for b in batches}
            pending = distributed.as_completed(futures)
            for future in pending:
                try:
                    results = future.result()
                except CancelledError:
                    batch = batch_of[future.key]
                    again[batch] += 1
                    if again[batch] > RESUBMITS:
                        raise WorkersLost(f"sweep stopped: the Dask cluster kept losing the task of source "
                                          f"{batch.source}, set{'s' if len(batch.sets) > 1 else ''} "
                                          f"{', '.join(map(str, batch.sets))}") from None
                    n = again[batch]
                    fresh = client.scatter(plan.sources[batch.source], hash=False)
                    slices = diff_tasks(batch.source, fresh, f"-again{n}") if batch.source in diffs else None
                    retry = submit(batch, fresh, slices, f"-again{n}")
                    batch_of[retry.key] = batch
                    futures.append(retry)
                    pending.add(retry)
                    continue
                for result in results:
                    on_result(result)
        finally:
            pending = [f for f in futures + [d for ds in diffs.values() for d in ds] if not f.done()]
            if pending:
                client.cancel(pending)
            if own:
                client.close()

    return execute


def _batch_name(batch: Batch) -> str:
    """A batch's part of its task key: its source and sets (a short digest of a long list)."""
    sets = "-".join(map(str, batch.sets))
    if len(sets) > 40:
        sets = "h" + hashlib.sha256(sets.encode()).hexdigest()[:16]
    return f"{batch.source}-{sets}"


@contextmanager
def local_cluster(workers: int) -> Iterator[Any]:
    """A Client on a cluster of `workers` single-thread worker processes on this machine,
    closed on leaving (what the bench measures the overhead of Dask with)."""
    distributed = _distributed()
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  env={numpy_threads.ENV_VAR: "1"},  # a process per core already
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        yield client


def _connect(distributed: Any, scheduler: Any, timeout: float) -> Any:
    """A Client on `scheduler` within `timeout` seconds, or one line saying why not.

    Client's own timeout covers opening the connection, not Dask's handshake after it: a
    server that accepts but never answers (any TCP service; an HTTP server waits for a
    request) would hold it for ever. So the connection is made on a daemon thread
    waited for no longer than the timeout (a thread still stuck is left to the process's
    exit); any failure of the library is worded as one line."""
    outcome: dict[str, Any] = {}

    def connect() -> None:
        try:
            outcome["client"] = distributed.Client(scheduler, timeout=f"{timeout}s")
        except Exception as e:  # the library's many ways of failing, worded below
            outcome["error"] = e

    thread = threading.Thread(target=connect, name="steadlith-dask-connect", daemon=True)
    thread.start()
    thread.join(timeout + 1)
    where = f"cannot reach the Dask scheduler at {visible(str(scheduler))}"
    if thread.is_alive():
        raise SteadlithError(f"{where}: no Dask handshake within {timeout:g} s (is a Dask scheduler listening "
                             "there?); --scheduler-timeout SECONDS waits longer") from None
    error = outcome.get("error")
    if error is not None:
        detail = " ".join(str(error).split())
        detail = detail if len(detail) <= 160 else detail[:159] + "…"
        raise SteadlithError(f"{where}: {type(error).__name__}{': ' + detail if detail else ''} (is a Dask "
                             "scheduler listening there?)") from None
    return outcome["client"]
