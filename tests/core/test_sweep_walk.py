"""A repository sweep walks each file's history once for all its sets: the same bytes as
each set replayed on its own (its own walk, the diffs made apart), in this process, on
a pool (where a file's sets are dealt over the workers) and on a Dask cluster; the
same bytes as before the sets shared the walk (golden JSON: the project's own
generated prose, replayed by the sweep as it was); a worker killed in a batch is
replaced and the batch runs again; a Cancelled stops a batch within a version."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from git_history import History
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.progress import Cancelled
from steadlith_core.sweep.external import external_sets
from steadlith_core.sweep.format import sweep_json
from steadlith_core.sweep.git import repo_sources
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.plan import Batch, SweepPlan
from steadlith_core.sweep.results import merge_rows
from steadlith_core.sweep.run import SweepRun, in_process, process_pool
from steadlith_core.sweep.tasks import RepoFileSource, needs_diffs, run_task, source_diffs

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker (golden JSON: both kernels agree)

GOLDEN = Path(__file__).parent / "data" / "sweep_walk_golden.json"
GRID = ["boundary_rule=tttd-v1,lmx2-v1", "max_tokens=300,512"]
tasks_module = importlib.import_module("steadlith_core.sweep.tasks")
pipeline_module = importlib.import_module("steadlith_core.chunking.pipeline")


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Edits of two documents, a rename, a deletion, one added late, a merge."""
    guide = synthetic_history(7, 5000, seed=41).versions
    notes = synthetic_history(4, 3000, seed=42).versions
    h = History(tmp_path_factory.mktemp("walked"))
    h.commit({"docs/guide.md": guide[0], "notes.md": notes[0], "old.md": notes[0][:1200]}, "start")
    h.commit({"docs/guide.md": guide[1], "old.md": notes[1][:1500]}, "edit guide and old")
    h.commit({"notes.md": None, "docs/notes.md": notes[1]}, "move notes")
    h.commit({"docs/guide.md": guide[2], "old.md": None}, "edit guide, drop old")
    side = h.commit({"docs/guide.md": guide[3]}, "side edit", branch="side", parents=[str(h.repo.head.target)])
    h.commit({"docs/guide.md": guide[3], "docs/new.md": guide[0][:2000]}, "merge side",
             parents=[str(h.repo.head.target), side])
    for n in range(4, 8):
        h.commit({"docs/guide.md": guide[n], "docs/notes.md": notes[min(n - 2, 4)]}, f"edit {n}")
    return str(h.root)


@pytest.fixture(scope="module")
def plan(repo):
    grid = build_grid(GRID)
    externals, _ = external_sets(["fixed-tokens:chunk_size=200"], [], first_index=len(grid.sets),
                                 token_counter="chars4/1", default_size=512)
    return SweepPlan(repo_sources(repo), grid.sets + externals)


def as_json(plan: SweepPlan, rows, done: int) -> str:
    return json.dumps(sweep_json(rows, sources=[s.name for s in plan.sources], skipped=[], done=done,
                                 total=len(plan.sources) * len(plan.sets), unit="commit"), sort_keys=True)


def run_json(run: SweepRun) -> str:
    return as_json(run.plan, run.rows(), run.done)


def set_by_set(plan: SweepPlan) -> str:
    """Every (file, set) replayed on its own: its own walk of the history, the word diffs
    made apart by source_diffs (a walk of their own) and handed in."""
    results = []
    for i, source in enumerate(plan.sources):
        for s in plan.sets:
            diffs = (source_diffs(source),) if needs_diffs(s.params) else None
            results.append(run_task(source, i, s.params, s.index, diffs=diffs))
    return as_json(plan, merge_rows(plan.sets, results, len(plan.sources)), len(results))


@pytest.fixture(scope="module")
def reference(plan):
    return set_by_set(plan)


def test_in_this_process_each_history_is_walked_once_for_every_set(plan, reference, count_calls):
    walks = count_calls(tasks_module, ["file_versions"])
    scans = count_calls(pipeline_module, ["Document"])
    run = SweepRun(plan).execute(in_process)
    assert run_json(run) == reference
    assert len(plan.sets) == 5 and walks["file_versions"] == len(plan.sources) == 4
    versions = sum(1 for s in plan.sources for _ in tasks_module.file_versions(s.repo, s.path, s.commits))
    assert 0 < scans["Document"] <= versions + len(plan.sources)  # each version once, not once per set


def test_the_bytes_are_those_of_the_sweep_before_the_walk_was_shared(plan, reference):
    """The golden file is the JSON the sweep printed for this plan (in this process)
    when every set walked the history on its own (tasks one per file and set)."""
    golden = GOLDEN.read_text(encoding="utf-8").strip()
    assert run_json(SweepRun(plan).execute(in_process)) == golden == reference


def test_a_pool_deals_a_files_sets_over_its_workers_and_gives_the_same_bytes(repo, plan, reference):
    one_file = SweepPlan(tuple(s for s in plan.sources if s.path == "docs/guide.md"), plan.sets)
    batches = one_file.batches(one_file.task_keys(), workers=2)
    assert sorted(s for b in batches for s in b.sets) == [0, 1, 2, 3, 4] and len(batches) == 2
    assert run_json(SweepRun(one_file).execute(process_pool(2))) == set_by_set(one_file)
    assert run_json(SweepRun(plan).execute(process_pool(2))) == reference


def test_a_worker_killed_in_a_files_batch_is_replaced_and_the_batch_runs_again(plan, reference, tmp_path):
    from sweep_kill_helpers import KillingRepoFile

    guide = next(i for i, s in enumerate(plan.sources) if s.path == "docs/guide.md")
    s = plan.sources[guide]
    killing = KillingRepoFile(s.repo, s.path, s.commits, str(tmp_path / "killed"))
    sources = plan.sources[:guide] + (killing,) + plan.sources[guide + 1:]
    said: list[str] = []
    run = SweepRun(SweepPlan(sources, plan.sets)).execute(process_pool(2, say=said.append))
    assert (tmp_path / "killed").exists() and len(said) == 1  # a worker did die, once
    assert said[0].startswith("a worker process died (killed, or out of memory): ")
    assert not run.partial and run_json(run) == reference


def test_batches_keep_one_file_together_and_run_other_sources_alone(plan):
    history = synthetic_history(3, 1500, seed=5)
    mixed = SweepPlan(plan.sources[:2] + (history,), plan.sets)
    batches = mixed.batches(mixed.task_keys(), workers=1)
    assert [b for b in batches if b.source < 2] == [Batch(s, (0, 1, 2, 3, 4)) for s in
                                                    sorted((0, 1), key=lambda s: -mixed.sources[s].units)]
    assert [b for b in batches if b.source == 2] == [Batch(2, (s,)) for s in range(5)]
    assert all(isinstance(mixed.sources[b.source], RepoFileSource) for b in batches[:2])


def test_a_cancel_stops_a_batch_within_a_version(plan):
    one_file = SweepPlan(tuple(s for s in plan.sources if s.path == "docs/guide.md"), plan.sets)
    calls = []

    def progress(done, total):
        calls.append(done)
        if len(calls) == 3:  # the start, then two versions into the batch
            raise Cancelled()

    run = SweepRun(one_file)
    with pytest.raises(Cancelled):
        run.execute(in_process, progress)
    assert run.done == 0 and calls == [0, 0, 0]


def test_on_a_dask_cluster_the_same_bytes(plan, reference):
    distributed = pytest.importorskip("distributed")
    from steadlith_core.sweep.dask import dask_executor

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) \
            as cluster, distributed.Client(cluster) as client:
        assert run_json(SweepRun(plan).execute(dask_executor(client))) == reference
