"""The sweep: figures equal to comparing by hand, the same bytes whatever runs the tasks
and in whatever order, a stopped sweep resumed to the same result, the command's
output formats and its Ctrl+C."""

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest

from cli_helpers import interruptible
from steadlith_core.comparison.analysis import Analysis
from steadlith_core.cli.main import main
from steadlith_core.chunking.diagnostics import p90_nearest_rank
from steadlith_core.errors import SteadlithError
from steadlith_core.progress import Cancelled
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.sweep.format import sweep_html, sweep_json
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.results import SetRow, mark_front, nearest_rank
from steadlith_core.sweep.journal import Journal
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, in_process, process_pool
from steadlith_core.sweep.tasks import batch_pairs

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

GRID = ["boundary_rule=tttd-v1,lmx2-v1", "min_tokens=32,64", "max_tokens=256,512", "window_words=8"]


@pytest.fixture(scope="module")
def history():
    return synthetic_history(12, 6000, seed=3)


@pytest.fixture(scope="module")
def plan(history):
    pairs = [(str(n), a, b) for n, (a, b) in enumerate(zip(history.versions, history.versions[1:]))]
    return SweepPlan(batch_pairs(pairs, chars_per_task=40_000), build_grid(GRID).sets)


def as_json(run: SweepRun) -> str:
    return json.dumps(sweep_json(run.rows(), sources=[s.name for s in run.plan.sources], skipped=[],
                                 done=run.done, total=run.total, unit="pair"))


def test_each_row_equals_comparing_every_pair_by_hand(plan, history):
    rows = SweepRun(plan).execute(in_process).rows()
    assert len(plan.sources) > 1  # several batches, merged
    assert len(rows) == len(plan.sets) == 8
    for s, row in zip(plan.sets, rows):
        analysis = Analysis()
        per_pair, sizes, para, sent, interior, violations = [], [], 0, 0, 0, 0
        for a, b in zip(history.versions, history.versions[1:]):
            c = analysis.compare(analysis.chunk(a, s.params), analysis.chunk(b, s.params))
            per_pair.append(c.summary.tokens_to_embed)
            sizes += [ch.tokens for ch in c.b.chunks]
            d = c.b.diagnostics
            para += d.paragraph_boundaries
            sent += d.sentence_boundaries
            interior += d.paragraph_boundaries + d.sentence_boundaries + d.word_boundaries
            violations += c.summary.violations
        assert row.label == s.label and row.units == 12
        assert row.tokens_to_embed == sum(per_pair)
        assert row.mean_tokens_per_unit == pytest.approx(sum(per_pair) / 12)
        assert row.p95_tokens_per_unit == nearest_rank(sorted(per_pair), 0.95)
        assert row.chunks == len(sizes)
        assert row.mean_chunk_tokens == pytest.approx(sum(sizes) / len(sizes))
        assert row.p90_chunk_tokens == p90_nearest_rank(sizes)
        assert row.paragraph_cut_share == pytest.approx(para / interior)
        assert row.sentence_cut_share == pytest.approx(sent / interior)
        assert row.violations == violations
    assert any(r.tokens_to_embed for r in rows) and any(r.pareto for r in rows)


def test_same_bytes_whatever_order_the_tasks_finish_in_and_on_a_process_pool(plan):
    reference = as_json(SweepRun(plan).execute(in_process))

    def shuffled(p, keys, on_result):
        keys = list(keys)
        random.Random(7).shuffle(keys)
        in_process(p, keys, on_result)

    assert as_json(SweepRun(plan).execute(shuffled)) == reference
    assert as_json(SweepRun(plan).execute(process_pool(2))) == reference


def test_the_front_holds_the_sets_no_other_set_beats_on_both_counts():
    def row(i, tokens, mean):
        return SetRow(i, f"s{i}", "tttd-v1", "h", 1, 1, 1, tokens, 0.0, 0, 0, 1, mean, 0, 0.0, 0.0, 0, 0)

    rows = mark_front([row(0, 100, 50.0), row(1, 120, 80.0), row(2, 130, 70.0), row(3, 100, 40.0),
                       row(4, 90, 30.0)])
    assert [r.set for r in rows if r.pareto] == [0, 1, 4]
    incomplete = SetRow(5, "s5", "tttd-v1", "h", 0, 1, 1, 1, 0.0, 0, 0, 1, 999.0, 0, 0.0, 0.0, 0, 0)
    assert [r.set for r in mark_front([row(0, 100, 50.0), incomplete]) if r.pareto] == [0]


def test_a_stopped_sweep_resumes_from_its_journal_to_the_same_result(plan, tmp_path):
    path = str(tmp_path / "sweep.jsonl")
    reference = as_json(SweepRun(plan).execute(in_process))

    def stop_after_three(done, total):
        if done == 3:
            raise Cancelled()

    journal = Journal(path, plan)
    with pytest.raises(Cancelled):
        SweepRun(plan, journal).execute(in_process, stop_after_three)
    journal.close()
    with open(path, "a", encoding="utf-8") as f:
        f.write('{"source": 0, "set": 7, "units": [[')  # a line cut short by a kill
    ran = []

    def counting(p, keys, on_result):
        ran.extend(keys)
        in_process(p, keys, on_result)

    journal = Journal(path, plan, resume=True)
    resumed = SweepRun(plan, journal)
    assert resumed.done == 3 and resumed.partial
    resumed.execute(counting)
    journal.close()
    assert len(ran) == resumed.total - 3
    assert as_json(resumed) == reference
    with open(path, encoding="utf-8") as f:
        assert len(f.read().splitlines()) == 1 + resumed.total  # the cut line was dropped, not kept


def test_a_journal_of_another_sweep_is_refused(plan, tmp_path):
    path = str(tmp_path / "sweep.jsonl")
    Journal(path, plan).close()
    other = SweepPlan(plan.sources, build_grid(["min_tokens=40"]).sets)
    with pytest.raises(SteadlithError, match="another sweep"):
        Journal(path, other, resume=True)


def test_the_html_page_has_the_table_and_a_scatter_and_no_script(plan):
    run = SweepRun(plan).execute(in_process)
    page = sweep_html(run.rows(), sources=["<b>x</b>"], skipped=["a <script>"], done=run.done, total=run.total,
                      unit="pair")
    assert "<svg" in page and page.count("<title>") == 1 + len(plan.sets)
    assert "<script" not in page and "&lt;script&gt;" in page and "&lt;b&gt;x&lt;/b&gt;" in page
    assert page.count("<tr") == 1 + len(plan.sets)


@pytest.fixture
def version_files(tmp_path, history):
    paths = []
    for n, text in enumerate(history.versions[:6]):
        p = tmp_path / f"v{n}.md"
        p.write_text(text, encoding="utf-8")
        paths.append(str(p))
    return paths


def test_the_command_reports_each_skipped_entry_once_and_runs_the_rest(version_files, capsys):
    code = main(["sweep", "--versions", *version_files, "--grid", "min_tokens=32,zz", "--grid", "horizon=9",
                 "--format", "json", "--jobs", "1"])
    out, err = capsys.readouterr()
    assert code == 0
    doc = json.loads(out)
    assert [s["label"] for s in doc["sets"]] == ["tttd-v1 min_tokens=32"] and not doc["partial"]
    assert err.count("skipped") == 2 and err.count("'zz'") == 1 and err.count("horizon") == 1


def test_the_command_with_nothing_runnable_is_one_line_per_problem_and_exit_2(version_files, capsys):
    code = main(["sweep", "--versions", *version_files, "--grid", "min_tokens=zz"])
    err = capsys.readouterr().err
    assert code == 2
    assert err.count("\n") == 2 and "'zz'" in err and "no parameter set left" in err


def test_csv_has_a_row_per_set_with_the_front_marked(version_files, capsys):
    assert main(["sweep", "--versions", *version_files, "--grid", "max_tokens=256,512", "--format", "csv",
                 "--jobs", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("set,label,") and lines[0].endswith(",pareto") and len(lines) == 3
    assert {line.rsplit(",", 1)[1] for line in lines[1:]} <= {"yes", "no"}


def test_the_summary_counts_each_pair_given_as_its_own_document(version_files, capsys):
    # two small pairs fit one task; the summary counts the documents, not the tasks
    a, b, c, d = version_files[:4]
    assert main(["sweep", "--pair", a, b, "--pair", c, d, "--grid", "max_tokens=256", "--jobs", "1"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("sweep of 1 parameter set over 2 pairs; ")
    assert main(["sweep", "--pair", a, b, "--grid", "max_tokens=256", "--format", "json", "--jobs", "1"]) == 0
    assert json.loads(capsys.readouterr().out)["sources"] == [f"{a} -> {b}"]


def test_ctrl_c_prints_partial_results_and_resume_finishes_the_same_sweep(tmp_path):
    history = synthetic_history(60, 20_000, seed=5)
    files = []
    for n, text in enumerate(history.versions):
        p = tmp_path / f"v{n:03d}.md"
        p.write_text(text, encoding="utf-8")
        files.append(str(p))
    journal = tmp_path / "sweep.jsonl"
    args = [sys.executable, "-m", "steadlith_core", "sweep", "--versions", *files, "--format", "json",
            "--grid", "min_tokens=32,48,64,96", "--grid", "max_tokens=384,512,768"]
    proc = subprocess.Popen([*args, "--jobs", "1", "--save", str(journal)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not journal.exists() or journal.read_text().count("\n") < 3):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    partial = json.loads(out)
    assert partial["partial"] and 2 <= partial["tasks_done"] < partial["tasks_total"] == 12
    assert "interrupted" in err and "--resume" in err and "Traceback" not in err

    resumed = subprocess.run([*args, "--resume", str(journal), "--jobs", "2"], capture_output=True, text=True,
                             timeout=300)
    whole = subprocess.run([*args, "--jobs", "1"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == whole.returncode == 0, resumed.stderr + whole.stderr
    assert resumed.stdout == whole.stdout and not json.loads(whole.stdout)["partial"]


def test_the_core_imports_no_dask_unless_a_cluster_is_asked_for():
    code = ("import sys, steadlith_core, steadlith_core.cli.main, steadlith_core.sweep.run; "
            "print(any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env={**os.environ},
                         timeout=60)
    assert out.stdout.strip() == "False", out.stderr
