"""`steadlith lab FILE`: text and JSON figures, the HTML report, --fail-on-violation, errors
as one line, and Ctrl+C."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.bench.examples import counterexample_params, tool_library_text
from steadlith_core.lab import run_lab
from cli_helpers import interruptible, run

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run


@pytest.fixture(scope="module")
def notes(tmp_path_factory):
    path = tmp_path_factory.mktemp("lab") / "notes.md"
    path.write_text(tool_library_text(), encoding="utf-8")
    return str(path)


def small_sets():
    sets = []
    for key, value in counterexample_params().to_dict().items():
        if key != "boundary_rule":
            sets += ["--set", f"{key}={value}"]
    return sets


def test_text_shows_every_chunker_side_by_side_with_margins(capsys, notes):
    code, out, err = run(capsys, "lab", notes, "--edits", "40", "--seed", "3")
    assert code == 0 and err == ""
    assert "3,090 words; 40 edits of the realistic mix (seed 3)" in out
    header = next(line for line in out.splitlines() if "tttd-v1" in line and "lmx2-v1" in line)
    assert header.split() == ["tttd-v1", "lmx2-v1", "fixed"]
    margin = next(line for line in out.splitlines() if line.startswith("margin (tokens)"))
    assert margin.split()[-3:] == ["528", "464", "–"]
    assert "edits past the margin" in out and "worst edits by reach, lmx2-v1:" in out


def test_a_splitters_settings_are_a_labelled_line_under_the_strategy_row(capsys, notes):
    # too wide for its column, the settings get their own row in the table, not a stray line
    code, out, _ = run(capsys, "lab", notes, "--edits", "5", "--rules", "tttd-v1",
                       "--chunker", "fixed-tokens:chunk_size=100")
    assert code == 0
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("strategy"))
    assert lines[at + 1] == f"{'  settings':<24}fixed-tokens:chunk_size=100: chunk_size=100"
    assert lines[at + 2].startswith("document tokens")
    table = lines[:next(i for i, line in enumerate(lines) if line.startswith("worst edits"))]
    assert sum("chunk_size=100" in line for line in table) == 2  # the header and the settings row


def test_json_is_run_labs_result(capsys, notes):
    code, out, _ = run(capsys, "lab", notes, "--edits", "30", "--seed", "5", "--rules", "lmx2-v1,fixed",
                       "--set", "max_tokens=400", "--format", "json")
    assert code == 0
    data = json.loads(out)
    expected = run_lab(tool_library_text(), {"lmx2-v1": Lmx2Params(max_tokens=400), "fixed": None}, edits=30,
                       seed=5).to_dict()
    assert data["file"] == notes and data["edits"] == 30 and data["seed"] == 5
    assert data["rules"]["lmx2-v1"]["margin"] == Lmx2Params(max_tokens=400).margin
    assert {k: v for k, v in data.items() if k != "file"} == json.loads(json.dumps(expected))
    assert data["rules"]["fixed"]["params"]["max_tokens"] == 400  # the baseline at the rule's size


def test_fail_on_violation_fails_only_when_a_rule_passed_its_margin(capsys, notes):
    code, out, _ = run(capsys, "lab", notes, "--rules", "tttd-v1", "--edits", "60", *small_sets(),
                       "--fail-on-violation")
    assert code == 1 and "PAST THE MARGIN" in out
    code, out, _ = run(capsys, "lab", notes, "--rules", "lmx2-v1,fixed", "--preset", "lmx2-small-chunks",
                       "--edits", "60", "--hunt", "--fail-on-violation")
    assert code == 0
    assert "lmx2-v1: reach" in out and "0 of 400 trials past the margin" in out  # --hunt alone: the default budget


def test_html_report_has_the_lab_section_and_no_script(capsys, notes, tmp_path):
    report = tmp_path / "lab.html"
    code, out, _ = run(capsys, "lab", notes, "--edits", "30", "--hunt", "20", "--html", str(report))
    assert code == 0
    html = report.read_text(encoding="utf-8")
    assert '<section id="lab"' in html and html.count("<svg class=\"lab-chart\"") == 2
    assert "<script" not in html.lower() and "default-src 'none'" in html
    assert "margin tttd-v1 528" in html and "margin lmx2-v1 464" in html
    assert "Hunt: the largest reach" in html


@pytest.mark.parametrize("argv, message", [
    (["--edits", "0"], "edits must be an integer >= 1"),
    (["--rules", "tttd-v1,nope"], "unknown boundary rule 'nope'"),
    (["--set", "horizon=3", "--rules", "tttd-v1"], "horizon: not a field of tttd-v1"),
    (["--preset", "lmx2-default", "--rules", "tttd-v1,fixed"], "is a lmx2-v1 preset"),
    (["--rules", "fixed", "--set", "max_tokens=9"], "takes its size from tttd-v1"),
    (["--hunt", "-1"], "hunt_trials must be an integer >= 0"),
])
def test_bad_options_are_one_line_and_exit_2(capsys, notes, argv, message):
    code, out, err = run(capsys, "lab", notes, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err, err


def test_a_missing_or_empty_file_is_one_line(capsys, tmp_path):
    code, _, err = run(capsys, "lab", str(tmp_path / "absent.md"))
    assert code == 2 and err.count("\n") == 1
    empty = tmp_path / "empty.md"
    empty.write_text("  \n", encoding="utf-8")
    code, _, err = run(capsys, "lab", str(empty))
    assert code == 2 and "no words" in err and err.count("\n") == 1


def _cpu_seconds(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads the child's CPU time from /proc")
def test_ctrl_c_stops_the_run_with_one_line(tmp_path):
    path = tmp_path / "notes.md"
    path.write_text(tool_library_text(), encoding="utf-8")
    # SIGINT at its default in the child whatever this test run inherited (a run in the
    # background ignores it, and so would the child: the run would go on until the timeout)
    proc = subprocess.Popen([sys.executable, "-m", "steadlith_core", "lab", str(path), "--edits", "1000000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=interruptible)
    try:
        # past the imports (well under a second of CPU), inside the edits, however busy the machine
        deadline = time.monotonic() + 120
        while _cpu_seconds(proc.pid) < 2.0 and time.monotonic() < deadline:
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # no-op once it has exited; never leave a million-edit run behind
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1] == "steadlith: interrupted" and "Traceback" not in err
    assert out == ""


def test_an_external_splitter_is_measured_like_compare_chunkers_does(capsys, notes):
    """--chunker langchain-recursive: each edit's tokens to re-embed are what
    compare_chunkers reports for the original and the edited text."""
    pytest.importorskip("langchain_text_splitters")
    from steadlith_core.comparison.external import parse_chunker
    from steadlith_core.comparison.chunker_churn import compare_chunkers
    from steadlith_core.lab import Edit

    code, out, _ = run(capsys, "lab", notes, "--rules", "tttd-v1", "--chunker", "langchain-recursive",
                       "--edits", "6", "--format", "json")
    assert code == 0
    data = json.loads(out)
    row = data["rules"]["langchain-recursive"]
    assert row["params"] == {"chunker": "langchain-recursive", "chunk_size": 512, "chunk_overlap": 0,
                             "token_counter": "chars4/1"}
    assert row["margin"] is None and row["past_margin_share"] is None
    text = tool_library_text()
    splitter = parse_chunker("langchain-recursive:chunk_size=512")
    result = run_lab(text, {"langchain-recursive": splitter}, edits=6, seed=0)
    for outcome in result.outcomes["langchain-recursive"]:
        edited = outcome.edit.apply(text)
        (churn,) = compare_chunkers(text, edited, [splitter], baseline=False)
        assert outcome.tokens_to_embed == churn.tokens_to_embed, outcome.edit.describe()
        assert outcome.chunks_to_embed == churn.chunks_to_embed
    assert row["tokens_to_embed"]["max"] == max(o.tokens_to_embed for o in result.outcomes["langchain-recursive"])
    assert isinstance(result.edits[0], Edit)
    code, _, err = run(capsys, "lab", notes, "--chunker", "jsonl:a,b")
    assert code == 2 and "cannot follow its edits" in err


def test_the_lab_benchmark_runs_and_reports_both_paths(capsys):
    """A smoke run of `python -m steadlith_core.bench.lab` on a small document: rates of
    both paths for every chunker (timings are not asserted: they belong to the bench)."""
    from steadlith_core.bench.lab import main as bench_main

    assert bench_main(["--sizes", "20000", "--edits", "5", "--repeat", "1", "--scratch-edits", "2",
                       "--format", "json"]) == 0
    (row,) = json.loads(capsys.readouterr().out)
    assert row["chars"] == 20000 and set(row["rules"]) == {"tttd-v1", "lmx2-v1", "fixed"}
    assert all(v["incremental_edits_per_s"] > 0 and v["from_scratch_edits_per_s"] > 0 for v in row["rules"].values())
