"""`steadlith sweep-bench`: one sweep timed on one process, a pool and a local Dask
cluster, side by side (the machine is shared: ratios measured together mean more than
times), and the synthetic history it replays.

The history is a generated document edited commit by commit the way documentation is:
a sentence added, a sentence removed, a few words changed, a paragraph moved; the same
seed gives the same history. The grid is 48 parameter sets over both rules.
"""

from __future__ import annotations

import os
import random
import time
from typing import Callable

from ..sweep.grid import build_grid
from ..sweep.plan import SweepPlan
from ..sweep.run import Executor, SweepRun, process_pool
from ..sweep.tasks import VersionsSource
from .examples import generate_prose

BENCH_GRID = ("boundary_rule=tttd-v1,lmx2-v1", "min_tokens=32,48,64,96", "max_tokens=384,512,768",
              "window_words=12,16", "horizon=96,128")


def synthetic_history(commits: int, chars: int = 20_000, seed: int = 1) -> VersionsSource:
    """`commits` + 1 versions of one ~`chars`-character document, each an edit of the
    one before (insert, delete or reword a sentence; move a paragraph)."""
    rng = random.Random(seed)
    paragraphs = [p.split(". ") for p in generate_prose(chars, seed).split("\n\n")]
    versions = ["\n\n".join(". ".join(p) for p in paragraphs)]
    donor = generate_prose(4000, seed + 1).replace("\n\n", " ").split(". ")
    for _ in range(commits):
        i = rng.randrange(len(paragraphs))
        para = list(paragraphs[i])
        action = rng.random()
        if action < 0.4 or len(para) < 2:
            para.insert(rng.randrange(len(para) + 1), rng.choice(donor))
        elif action < 0.65:
            del para[rng.randrange(len(para))]
        elif action < 0.9:
            k = rng.randrange(len(para))
            words = para[k].split(" ")
            words[rng.randrange(len(words))] = rng.choice(donor).split(" ")[0]
            para[k] = " ".join(words)
        else:
            j = rng.randrange(len(paragraphs))
            paragraphs.insert(j, paragraphs.pop(i))
            versions.append("\n\n".join(". ".join(p) for p in paragraphs))
            continue
        paragraphs[i] = para
        versions.append("\n\n".join(". ".join(p) for p in paragraphs))
    keys = tuple(f"{n:06d}" for n in range(len(versions)))
    return VersionsSource(f"synthetic history ({commits} commits, {chars} characters, seed {seed})",
                          tuple(versions), keys)


def bench_plan(commits: int, chars: int, files: int = 1) -> SweepPlan:
    grid = build_grid(BENCH_GRID)
    sources = tuple(synthetic_history(commits, chars, seed=1 + n) for n in range(files))
    return SweepPlan(sources, grid.sets, grid.skipped)


def _cpu() -> float:
    """CPU seconds of this process and of its children that have ended (pool workers and
    Dask worker processes count once they are joined)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _timed(plan: SweepPlan, executor: Executor) -> tuple[float, tuple]:
    start = time.perf_counter()
    rows = SweepRun(plan).execute(executor).rows()
    return time.perf_counter() - start, rows


def run_sweep_bench(commits: int, chars: int, *, dask: bool = True, files: int = 1,
                    say: Callable[[str], None] = print) -> dict:
    plan = bench_plan(commits, chars, files)
    say(f"{len(plan.sets)} sets x {files} file(s) of {commits} commits (~{chars} characters): "
        f"{len(plan.task_keys())} tasks; load average before {os.getloadavg()[0]:.2f}")
    figures: dict = {"sets": len(plan.sets), "commits": commits, "chars": chars, "files": files,
                     "load_before": os.getloadavg()}
    cpu = _cpu()
    one, rows = _timed(plan, process_pool(1))
    cpu_one, cpu = _cpu() - cpu, _cpu()
    say(f"1 process            {one:7.1f} s wall  {cpu_one:7.1f} s CPU")
    two, rows2 = _timed(plan, process_pool(2))
    cpu_two, cpu = _cpu() - cpu, _cpu()
    say(f"pool, 2 jobs         {two:7.1f} s wall  {cpu_two:7.1f} s CPU   {one / two:.2f}x faster than 1 process")
    figures.update(one=one, pool2=two, cpu_one=cpu_one, cpu_pool2=cpu_two, same_pool=rows2 == rows)
    if dask:
        from ..sweep.dask import dask_executor, local_cluster

        with local_cluster(2) as client:
            took, rows3 = _timed(plan, dask_executor(client))
        cpu_dask = _cpu() - cpu  # with the cluster's start and stop
        say(f"Dask, 2 workers      {took:7.1f} s wall  {cpu_dask:7.1f} s CPU   {took / two:.2f}x the pool's time")
        figures.update(dask2=took, cpu_dask2=cpu_dask, same_dask=rows3 == rows)
    figures["load_after"] = os.getloadavg()
    per_task = one / len(plan.task_keys())
    say(f"results identical across executors: {figures['same_pool'] and figures.get('same_dask', True)}; "
        f"{per_task:.2f} s a task, {one / (len(plan.sets) * commits * files) * 1000:.2f} ms a commit and set; "
        f"load average after {figures['load_after'][0]:.2f}")
    return figures
