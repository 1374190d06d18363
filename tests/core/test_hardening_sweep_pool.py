"""A pool worker killed mid-sweep (SIGKILL: the out-of-memory killer, a user) must not
hang the sweep: the broken pool is replaced and the lost tasks run again, the rows the
same as an uninterrupted run's; a pool that keeps dying stops the sweep with one line,
and its journal resumes what is left."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time

import pytest
from sweep_kill_helpers import KillingVersions

from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.sweep.format import sweep_json
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.journal import Journal
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, WorkersLost, in_process, process_pool
from steadlith_core.sweep.tasks import VersionsSource

pytestmark = pytest.mark.kernel_independent  # checks the executor, not the chunker's output

#: Long enough for a pool start (spawn) on a loaded machine; a hang is far longer.
HANG = 240


def _plan(tmp_path, always: bool) -> SweepPlan:
    history = synthetic_history(5, 2500, seed=7)
    keys = tuple(map(str, range(len(history.versions))))
    sources = (VersionsSource("one", tuple(history.versions), keys),
               KillingVersions("two", tuple(reversed(history.versions)), keys, str(tmp_path / "killed"), always),
               VersionsSource("three", tuple(history.versions[1:]), keys[1:]))
    return SweepPlan(sources, build_grid(["min_tokens=32,64"]).sets)


def _as_json(run: SweepRun) -> str:
    return json.dumps(sweep_json(run.rows(), sources=[s.name for s in run.plan.sources], skipped=[],
                                 done=run.done, total=run.total, unit="version"))


def _execute(run: SweepRun, executor) -> BaseException | None:
    """run.execute(executor) in a thread, so a hang fails the test instead of stalling it."""
    outcome: list[BaseException | None] = []

    def target():
        try:
            run.execute(executor)
            outcome.append(None)
        except BaseException as e:  # handed to the test thread
            outcome.append(e)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(HANG)
    assert not thread.is_alive(), f"the sweep hung for {HANG} s after a worker was killed"
    return outcome[0]


def test_a_killed_worker_is_replaced_and_its_tasks_run_again(tmp_path):
    plan = _plan(tmp_path, always=False)
    said: list[str] = []
    run = SweepRun(plan)
    assert _execute(run, process_pool(2, say=said.append)) is None
    assert (tmp_path / "killed").exists()  # a worker did die
    assert len(said) == 1 and said[0].startswith("a worker process died (killed, or out of memory): ")
    assert not run.partial and _as_json(run) == _as_json(SweepRun(plan).execute(in_process))


def test_a_pool_that_keeps_dying_stops_in_one_line_and_the_journal_finishes_it(tmp_path):
    plan = _plan(tmp_path, always=True)
    path = str(tmp_path / "sweep.jsonl")
    journal = Journal(path, plan)
    run = SweepRun(plan, journal)
    said: list[str] = []
    error = _execute(run, process_pool(2, restarts=1, say=said.append))
    journal.close()
    assert isinstance(error, WorkersLost) and "\n" not in str(error)
    assert str(error) == "sweep stopped: a worker process died 2 times (killed, or out of memory)"
    assert len(said) == 1 and run.partial
    assert all(source != 1 for source, _ in run.results)  # the others' tasks are kept
    journal = Journal(path, plan, resume=True)
    resumed = SweepRun(plan, journal)
    assert resumed.done == run.done
    resumed.execute(in_process)
    journal.close()
    assert _as_json(resumed) == _as_json(SweepRun(plan).execute(in_process))


def test_the_command_says_how_to_finish_a_stopped_sweep(tmp_path, capsys, monkeypatch):
    from cli_helpers import run as run_cli

    from steadlith_core.sweep import run as sweep_run

    def dying_pool(jobs, **kwargs):
        def execute(plan, keys, on_result):
            in_process(plan, keys[:1], on_result)
            raise WorkersLost("sweep stopped: a worker process died 3 times (killed, or out of memory)")
        return execute

    monkeypatch.setattr(sweep_run, "process_pool", dying_pool)
    files = []
    for n, text in enumerate(["One version. Of words.\n", "Two versions. Of more words.\n"]):
        (tmp_path / f"v{n}.md").write_text(text, encoding="utf-8")
        files.append(str(tmp_path / f"v{n}.md"))
    journal = tmp_path / "sweep.jsonl"
    code, out, err = run_cli(capsys, "sweep", "--versions", *files, "--grid", "min_tokens=32,64", "--jobs", "2",
                             "--save", str(journal))
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == ("steadlith: error: sweep stopped: a worker process died 3 times (killed, or out "
                                    f"of memory); 1 of 2 tasks done; continue with --resume {journal}")
    code, out, err = run_cli(capsys, "sweep", "--versions", *files, "--grid", "min_tokens=32,64", "--jobs", "2")
    assert err.splitlines()[-1].endswith("; 1 of 2 tasks done; --save FILE keeps finished tasks for --resume to finish")


def _workers(pid: int) -> list[int]:
    """The pool's worker processes among `pid`'s children (not multiprocessing's resource tracker)."""
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as f:
        children = [int(c) for c in f.read().split()]
    out = []
    for child in children:
        try:
            with open(f"/proc/{child}/cmdline", "rb") as f:
                if b"spawn_main" in f.read():
                    out.append(child)
        except FileNotFoundError:
            continue
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="finds the pool's workers in /proc")
def test_the_command_survives_a_worker_killed_from_outside(tmp_path):
    """What a user or the out-of-memory killer does: SIGKILL one worker of `sweep --jobs 2`
    while its tasks run. The sweep finishes, says so once, and prints what --jobs 1 prints."""
    history = synthetic_history(30, 12_000, seed=9)
    files = []
    for n, text in enumerate(history.versions):
        (tmp_path / f"v{n:02d}.md").write_text(text, encoding="utf-8")
        files.append(str(tmp_path / f"v{n:02d}.md"))
    journal = tmp_path / "sweep.jsonl"
    args = [sys.executable, "-m", "steadlith_core", "sweep", "--versions", *files, "--format", "json",
            "--grid", "min_tokens=24,32,48,64,96,128", "--grid", "max_tokens=256,384,512,768"]
    proc = subprocess.Popen([*args, "--jobs", "2", "--save", str(journal)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + HANG
        while time.monotonic() < deadline and (not journal.exists() or journal.read_text().count("\n") < 3):
            time.sleep(0.02)
        workers = _workers(proc.pid)
        assert workers, "no pool worker found to kill"
        os.kill(workers[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=HANG)
    finally:
        proc.kill()
    assert proc.returncode == 0, err
    assert err.count("a worker process died (killed, or out of memory): ") == 1
    whole = subprocess.run([*args, "--jobs", "1"], capture_output=True, text=True, timeout=HANG)
    assert out == whole.stdout and not json.loads(out)["partial"]
