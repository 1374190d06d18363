"""Running a sweep's tasks on a Dask cluster (`steadlith sweep --scheduler ADDRESS`).

The only core module that imports dask.distributed (the `steadlith-core[dask]` extra),
and only when called; an import-linter contract keeps it so.

The same tasks as the process pool, the same pure function (sweep.tasks.run_task).
Sources go to every worker once (`scatter(broadcast=True)`): a history's versions or a
batch of pairs are then referenced by each of the sets' tasks instead of travelling
with each. A source's word diffs are tasks too (slices of its units, spread over the
workers), and each of its set tasks takes their futures as arguments: Dask moves the
packed diffs to the workers that need them, once each. A worker lost mid-run loses no
result: the scheduler runs the tasks it held again elsewhere (diff slices included, as
their dependants need them); a task it cancelled instead is submitted again with its
inputs sent anew; and a result is taken only from a finished task. Task
keys name the plan and the (source, set or slice), so two sweeps on one cluster never
share a key by accident.
"""

from __future__ import annotations

import threading
from concurrent.futures import CancelledError
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from ..errors import SteadlithError, pip_extra, visible
from ..kernel import threads as numpy_threads
from .plan import SweepPlan, TaskKey
from .run import SLICES_PER_WORKER, Executor, WorkersLost, diffed_sources
from .tasks import TaskResult, diff_slices, needs_diffs, run_task, source_diffs

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
            parts = SLICES_PER_WORKER * max(1, len(client.scheduler_info().get("workers", {})))
            diffs = {source: [client.submit(source_diffs, by_index[source], lo, hi, retries=retries, pure=False,
                                            key=f"steadlith-sweep-{tag}-diffs-{source}-{lo}")
                              for lo, hi in diff_slices(plan.sources[source], parts)]
                     for source in diffed_sources(plan, keys)}
            futures = [client.submit(run_task, by_index[source], source, plan.params_of(s), s, None,
                                     diffs[source] if needs_diffs(plan.params_of(s)) else None,
                                     key=f"steadlith-sweep-{tag}-{source}-{s}", retries=retries, pure=False)
                       for source, s in keys]
            key_of = {f.key: k for f, k in zip(futures, keys)}
            again = {k: 0 for k in keys}
            pending = distributed.as_completed(futures)
            for future in pending:
                try:
                    result = future.result()
                except CancelledError:
                    source, s = key_of[future.key]
                    again[(source, s)] += 1
                    if again[(source, s)] > RESUBMITS:
                        raise WorkersLost(f"sweep stopped: the Dask cluster kept losing the task of source {source}, "
                                          f"set {s}") from None
                    n = again[(source, s)]
                    fresh = client.scatter(plan.sources[source], hash=False)
                    slices = ([client.submit(source_diffs, fresh, lo, hi, retries=retries, pure=False,
                                             key=f"steadlith-sweep-{tag}-diffs-{source}-{lo}-again{n}")
                               for lo, hi in diff_slices(plan.sources[source], parts)]
                              if needs_diffs(plan.params_of(s)) else None)
                    retry = client.submit(run_task, fresh, source, plan.params_of(s), s, None, slices,
                                          key=f"steadlith-sweep-{tag}-{source}-{s}-again{n}", retries=retries,
                                          pure=False)
                    key_of[retry.key] = (source, s)
                    futures.append(retry)
                    pending.add(retry)
                    continue
                on_result(result)
        finally:
            pending = [f for f in futures + [d for ds in diffs.values() for d in ds] if not f.done()]
            if pending:
                client.cancel(pending)
            if own:
                client.close()

    return execute


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
