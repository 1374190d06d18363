"""The sweep on a Dask cluster (a LocalCluster of two worker processes inside the test
run): the same bytes as the process pool, and no result lost when a worker is killed."""

import json
import os
import signal

import pytest

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

distributed = pytest.importorskip("distributed")

from steadlith_core.bench.sweep import synthetic_history  # noqa: E402
from steadlith_core.sweep.dask import dask_executor  # noqa: E402
from steadlith_core.sweep.format import sweep_json  # noqa: E402
from steadlith_core.sweep.grid import build_grid  # noqa: E402
from steadlith_core.sweep.plan import SweepPlan  # noqa: E402
from steadlith_core.sweep.run import SweepRun, process_pool  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as c:
        c.cluster_for_test = cluster
        yield c


@pytest.fixture(scope="module")
def plan():
    # tasks of a few tenths of a second: long enough to be running when a worker dies
    sources = (synthetic_history(40, 12_000, seed=11), synthetic_history(40, 12_000, seed=12))
    return SweepPlan(sources, build_grid(["boundary_rule=tttd-v1,lmx2-v1", "max_tokens=384,512"]).sets)


def as_json(run: SweepRun) -> str:
    return json.dumps(sweep_json(run.rows(), sources=[s.name for s in run.plan.sources], skipped=[],
                                 done=run.done, total=run.total, unit="commit"))


@pytest.fixture(scope="module")
def pool_result(plan):
    return as_json(SweepRun(plan).execute(process_pool(2)))


def test_a_local_cluster_gives_the_pools_bytes(client, plan, pool_result):
    run = SweepRun(plan).execute(dask_executor(client))
    assert not run.partial
    assert as_json(run) == pool_result


def test_dask_workers_rebuild_a_tokenizer_counter_from_its_spec(client):
    """token_counter=hf:PATH travels as the string; each worker process loads the file."""
    pytest.importorskip("tokenizers")
    from token_vectors import FIXTURE

    from steadlith_core.chunking.params import ChunkerParams
    from steadlith_core.sweep.run import in_process

    spec = f"hf:{FIXTURE}"
    sources = (synthetic_history(6, 4_000, seed=21),)
    plan = SweepPlan(sources, build_grid([f"token_counter=chars4/1,{spec}"]).sets)
    run = SweepRun(plan).execute(dask_executor(client))
    assert not run.partial
    assert as_json(run) == as_json(SweepRun(plan).execute(in_process))
    assert ChunkerParams(token_counter=spec).params_hash in {r.params_hash for r in run.rows()}


def test_a_worker_killed_mid_run_loses_no_result(client, plan, pool_result):
    cluster = client.cluster_for_test
    killed = []

    def kill_a_busy_worker(done, total):
        if done == 1 and not killed:
            busy = {address: keys for address, keys in client.processing().items() if keys}
            nanny = next(n for n in cluster.workers.values() if n.worker_address in busy)
            killed.append((nanny.pid, busy[nanny.worker_address]))
            os.kill(nanny.pid, signal.SIGKILL)

    run = SweepRun(plan).execute(dask_executor(client), kill_a_busy_worker)
    assert killed and killed[0][1], "no task was running on the killed worker"
    assert not run.partial
    assert as_json(run) == pool_result


def test_a_task_the_scheduler_cancels_is_submitted_again(client, plan, pool_result):
    """A worker's death can make the scheduler forget tasks (their source's last replica
    went with it) and cancel them instead of running them again: the executor submits
    such a task anew, so the sweep still ends whole. Cancelled here on purpose, with the
    scattered source, as that loss does."""
    cancelled = []

    def cancel_a_pending_task(done, total):
        if done == 1 and not cancelled:
            waiting = [key for key, state in client.futures.items()
                       if str(key).startswith("steadlith-sweep-") and "-diffs-" not in str(key)
                       and state.status == "pending"]
            assert waiting, "no task left to cancel"
            cancelled.append(waiting[-1])
            client.cancel([distributed.Future(waiting[-1], client)])

    run = SweepRun(plan).execute(dask_executor(client), cancel_a_pending_task)
    assert cancelled
    assert not run.partial
    assert as_json(run) == pool_result
