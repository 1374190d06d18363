"""Every file the core writes survives SIGKILL at any moment: the target holds its old
or its new content, whole, and no temporary file is left beside it. One kill loop per
writer (tests/kill_loop_helpers.py): HTML reports, JSON and JSON Lines exports, a PNG
through write_bytes_atomic, sweep journals, the embedding cache."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from kill_loop_helpers import Strays, kill_loop, leftovers, needs_fork
from steadlith_core import ChunkerParams, chunk
from steadlith_core.comparison.churn import compare
from steadlith_core.report.comparison import render_report
from steadlith_core.report.export import (chunks_jsonl, comparison_json, to_json_text, write_bytes_atomic,
                                          write_text_atomic)

pytestmark = [needs_fork, pytest.mark.kernel_independent]


def _document(n: int, variant: str) -> str:
    return "\n\n".join(f"Paragraph {p} of the {variant} version, with words to chunk. " * 12 for p in range(n))


def _payloads(kind: str) -> tuple[str | bytes, str | bytes]:
    """Two different, large contents of one export kind, made as the tool makes them."""
    params = ChunkerParams(min_tokens=16, max_tokens=64)
    a, b = _document(120, "first"), _document(120, "second")
    ca, cb = chunk(a, params), chunk(b, params)
    if kind == "report.html":
        one, two = compare(ca, cb), compare(cb, ca)
        return render_report(one, "a.md", "b.md"), render_report(two, "b.md", "a.md")
    if kind == "comparison.json":
        return (to_json_text(comparison_json(compare(ca, cb), "a.md", "b.md")),
                to_json_text(comparison_json(compare(cb, ca), "b.md", "a.md")))
    if kind == "chunks.jsonl":
        return chunks_jsonl(ca), chunks_jsonl(cb)
    rng = np.random.default_rng(0)  # picture.png: bytes of any kind
    return rng.bytes(3 << 20), rng.bytes(3 << 20)


@pytest.mark.parametrize("kind", ["report.html", "comparison.json", "chunks.jsonl", "picture.png"])
def test_an_export_killed_at_any_moment_is_old_or_new_never_torn(tmp_path, kind):
    one, two = _payloads(kind)
    old = "the previous file" if isinstance(one, str) else b"the previous file"
    target = tmp_path / kind
    write = write_text_atomic if isinstance(one, str) else write_bytes_atomic
    write(target, old)
    seen = set()
    strays = Strays(tmp_path, kind)

    def write_forever():
        while True:
            write(target, one)
            write(target, two)

    def after_kill(i):
        data = target.read_bytes()
        now = data.decode("utf-8") if isinstance(one, str) else data
        assert now in (old, one, two), f"kill {i}: a torn file of {len(data)} bytes"
        seen.add(now)
        strays.check(i)

    kill_loop(write_forever, after_kill)
    assert seen - {old}, "no write finished before a kill: the loop proved nothing"
    strays.assert_rare_and_cleaned(lambda: write(target, one))


def test_a_sweep_journal_killed_at_any_moment_resumes(tmp_path):
    from steadlith_core.sweep.grid import build_grid
    from steadlith_core.sweep.journal import Journal
    from steadlith_core.sweep.plan import SweepPlan
    from steadlith_core.sweep.run import run_sweep
    from steadlith_core.sweep.tasks import batch_pairs

    pairs = [(str(n), _document(6, f"old {n}"), _document(6, f"new {n}")) for n in range(6)]
    plan = SweepPlan(batch_pairs(pairs, chars_per_task=3000), build_grid(["min_tokens=8,16,24,32"]).sets)
    path = tmp_path / "sweep.journal"
    other = SweepPlan(plan.sources, build_grid(["min_tokens=40"]).sets)
    Journal(str(path), other).close()  # a journal of another sweep: replaced whole or kept
    finished = []
    strays = Strays(tmp_path, path.name)

    def write_forever():
        while True:
            journal = Journal(str(path), plan)
            run_sweep(plan, journal=journal)
            journal.close()

    def after_kill(i):
        lines = path.read_bytes().split(b"\n")
        header = json.loads(lines[0])
        assert header["fingerprint"] in (plan.fingerprint(), other.fingerprint()), f"kill {i}: header torn"
        strays.check(i)
        if header["fingerprint"] == plan.fingerprint():
            journal = Journal(str(path), plan, resume=True)  # a torn last line is dropped, never an error
            journal.close()
            finished.append(len(journal.loaded))
            assert all(json.loads(line) for line in path.read_bytes().split(b"\n")[1:] if line)

    kill_loop(write_forever, after_kill, max_delay=0.4)
    assert finished and max(finished) > 0, "no task finished before a kill: the loop proved nothing"
    strays.assert_rare_and_cleaned(lambda: Journal(str(path), plan).close())


def test_the_embedding_cache_killed_at_any_moment_keeps_whole_puts(tmp_path):
    from steadlith_core.retrieval.embedding_cache import DATABASE, EmbeddingCache

    folder = tmp_path / "cache"
    batch = 200
    kept = []

    def write_forever():
        rng = np.random.default_rng()
        generation = int(rng.integers(1 << 30))
        with EmbeddingCache(folder, max_entries=5 * batch) as cache:
            while True:
                generation += 1
                vectors = rng.standard_normal((batch, 384)).astype(np.float32)
                vectors[:, 0] = generation  # every vector of one put says which put it belongs to
                cache.put_many("model", "chunk", [(f"{generation}-{k}", v) for k, v in enumerate(vectors)])

    def after_kill(i):
        with EmbeddingCache(folder, max_entries=5 * batch) as cache:
            assert cache.totals()[0] <= 5 * batch
        with sqlite3.connect(folder / DATABASE) as db:
            assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",), f"kill {i}: database damaged"
            rows = db.execute("SELECT key FROM vectors").fetchall()
        db.close()
        by_put: dict[str, int] = {}
        for (key,) in rows:
            by_put[key.split("-")[0]] = by_put.get(key.split("-")[0], 0) + 1
        # eviction takes the least recently used, put by put: every put is whole or gone
        assert all(n == batch for n in by_put.values()), f"kill {i}: a put half in: {sorted(by_put.values())}"
        assert set(leftovers(folder)) <= {DATABASE, f"{DATABASE}-wal", f"{DATABASE}-shm"}
        kept.append(len(rows))

    kill_loop(write_forever, after_kill, max_delay=0.4)
    assert max(kept) > 0, "no put finished before a kill: the loop proved nothing"


def test_a_sweep_killed_inside_a_journal_line_resumes_to_the_uninterrupted_output(tmp_path):
    """A kill at a random moment rarely lands inside a line (a line takes microseconds to
    write), so this one is placed there: the journal's test pause (PAUSE_MID_LINE_ENV)
    leaves each result line half written and flushed, the run is killed once the file ends
    in that torn half, and `--resume` picks up. Three rounds, each killed inside the next
    line, then a resume without the pause: the output is the uninterrupted run's, byte
    for byte."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from steadlith_core.bench.sweep import synthetic_history
    from steadlith_core.sweep.journal import PAUSE_MID_LINE_ENV

    files = []
    for n, text in enumerate(synthetic_history(5, 3_000, seed=3).versions):
        p = tmp_path / f"v{n:02d}.md"
        p.write_text(text, encoding="utf-8")
        files.append(str(p))
    journal = tmp_path / "sweep.journal"
    args = [sys.executable, "-m", "steadlith_core", "sweep", "--versions", *files, "--format", "json",
            "--grid", "min_tokens=16,32,48,64", "--jobs", "1"]
    paused = {**os.environ, PAUSE_MID_LINE_ENV: "60"}
    whole_lines = []
    for round_ in range(3):
        more = ["--save", str(journal)] if round_ == 0 else ["--resume", str(journal)]
        proc = subprocess.Popen([*args, *more], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=paused)
        try:
            deadline = time.monotonic() + 120
            while time.monotonic() < deadline:
                data = journal.read_bytes() if journal.exists() else b""
                if data.count(b"\n") == round_ + 1 and not data.endswith(b"\n"):
                    break  # the header, the lines of earlier rounds, and half of this round's line
                assert proc.poll() is None, proc.stderr.read().decode()
                time.sleep(0.02)
            else:
                pytest.fail(f"round {round_}: no half-written line in the journal within 120 s")
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=60)
        finally:
            proc.kill()
            proc.stderr.close()
        data = journal.read_bytes()
        assert not data.endswith(b"\n"), f"round {round_}: the kill did not land inside a line"
        whole_lines.append(data.count(b"\n"))
    assert whole_lines == [1, 2, 3]  # each round resumed past the torn line, and wrote one more whole one

    resumed = subprocess.run([*args, "--resume", str(journal)], capture_output=True, text=True, timeout=300)
    whole = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == whole.returncode == 0, resumed.stderr + whole.stderr
    assert resumed.stdout == whole.stdout and not json.loads(resumed.stdout)["partial"]
    lines = journal.read_bytes().split(b"\n")
    assert lines[-1] == b"" and all(json.loads(line) for line in lines[:-1])
    assert len(lines) - 2 == json.loads(whole.stdout)["tasks_total"]  # every task once: torn halves left nothing
