"""A sweep journal is believed only when it is of this sweep and every line is a result
this sweep could have produced: forged counts, a set that is a string, unknown commits,
deep nesting or a file with no end are refused with one line naming the line, and an
honest journal still resumes to exactly the uninterrupted result."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.errors import SteadlithError
from steadlith_core.progress import Cancelled
from steadlith_core.sweep.external import external_sets
from steadlith_core.sweep.format import sweep_json
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.journal import MAX_COUNT, JournalError
from steadlith_core.sweep.journal import Journal
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, in_process
from steadlith_core.sweep.tasks import RepoFileSource, VersionsSource, batch_pairs

pytestmark = pytest.mark.kernel_independent  # checks the journal, not the chunker's output


@pytest.fixture(scope="module")
def history():
    return synthetic_history(6, 3000, seed=11)


@pytest.fixture(scope="module")
def plan(history):
    pairs = [(str(n), a, b) for n, (a, b) in enumerate(zip(history.versions, history.versions[1:]))]
    rules = build_grid(["min_tokens=32,64"]).sets
    externals, _ = external_sets(["fixed-tokens"], "64", first_index=len(rules), token_counter="chars4/1",
                                 default_size=None)
    return SweepPlan(batch_pairs(pairs, chars_per_task=9000), rules + externals)


@pytest.fixture(scope="module")
def finished(plan):
    return SweepRun(plan).execute(in_process)


def _as_json(run: SweepRun) -> str:
    return json.dumps(sweep_json(run.rows(), sources=[s.name for s in run.plan.sources], skipped=[],
                                 done=run.done, total=run.total, unit="pair"))


def _journal(tmp_path, plan, lines) -> str:
    """A journal with this plan's own header and `lines` after it."""
    path = str(tmp_path / "sweep.jsonl")
    Journal(path, plan).close()
    with open(path, "a", encoding="utf-8") as f:
        for line in lines:
            f.write((line if isinstance(line, str) else json.dumps(line)) + "\n")
    return path


def _refused(path, plan) -> str:
    with pytest.raises(JournalError) as e:
        Journal(path, plan, resume=True)
    message = str(e.value)
    assert "\n" not in message and message.startswith(path)
    return message


def test_an_honest_journal_resumes_to_exactly_the_uninterrupted_result(plan, finished, tmp_path):
    path = str(tmp_path / "sweep.jsonl")

    def stop_after_four(done, total):
        if done == 4:
            raise Cancelled()

    journal = Journal(path, plan)
    with pytest.raises(Cancelled):
        SweepRun(plan, journal).execute(in_process, stop_after_four)
    journal.close()
    journal = Journal(path, plan, resume=True)
    resumed = SweepRun(plan, journal)
    assert resumed.done == 4
    resumed.execute(in_process)
    journal.close()
    assert _as_json(resumed) == _as_json(finished)
    again = Journal(path, plan, resume=True)  # the whole journal reads back as it was written
    again.close()
    assert again.loaded == finished.results


def _forged(finished, change):
    doc = finished.results[(0, 0)].to_dict()
    change(doc)
    return doc


@pytest.mark.parametrize("change,problem", [
    (lambda d: d["units"][0].__setitem__(1, -5), "a unit's tokens must be an integer in [0, 1,000,000,000,000], "
                                                 "got -5"),
    (lambda d: d["units"][0].__setitem__(1, 10**13), "a unit's tokens must be an integer in [0, "
                                                     "1,000,000,000,000], got 10000000000000"),
    (lambda d: d["units"][0].__setitem__(1, 10**30), "not JSON (an integer of 31 digits, more than any count)"),
    (lambda d: d.__setitem__("chunks_to_embed", "7"), "chunks_to_embed must be an integer in [0, "
                                                      "1,000,000,000,000], got '7'"),
    (lambda d: d.__setitem__("set", "0"), "set must be an integer in [0, 2], got '0'"),
    (lambda d: d.__setitem__("set", 3), "set must be an integer in [0, 2], got 3"),
    (lambda d: d.__setitem__("units", "0:40"), "units must be a list of pairs"),
    (lambda d: d["units"][0].__setitem__(0, "99"), "the units are not those of source 0 (2 of them, in order)"),
    (lambda d: d.__setitem__("extra", 1), "unknown field 'extra'"),
    (lambda d: d.pop("violations"), "no field 'violations'"),
    (lambda d: d.__setitem__("sentence_cuts", None), "sentence_cuts must be an integer"),
    (lambda d: d.__setitem__("paragraph_cuts", d["interior_cuts"] + 1),
     "paragraph_cuts and sentence_cuts add up to more than interior_cuts"),
    (lambda d: d.__setitem__("size_counts", list(reversed(d["size_counts"]))),
     "size_counts must list each chunk size once, ascending"),
    (lambda d: d.__setitem__("units", True), "units must be a list of pairs"),
])
def test_a_forged_line_is_refused_naming_its_line(plan, finished, tmp_path, change, problem):
    honest = finished.results[(1, 0)].to_dict()
    path = _journal(tmp_path, plan, [honest, _forged(finished, change)])
    assert problem in _refused(path, plan).partition(": line 3: ")[2]


def test_an_external_sets_line_claiming_cut_classes_is_refused(plan, finished, tmp_path):
    doc = finished.results[(0, 2)].to_dict()
    assert doc["interior_cuts"] is None
    doc["interior_cuts"] = 5
    assert "set 2 is an external splitter's" in _refused(_journal(tmp_path, plan, [doc]), plan)


def test_two_different_results_for_one_task_are_refused(plan, finished, tmp_path):
    doc = finished.results[(0, 0)].to_dict()
    twin = {**doc, "chunks_to_embed": doc["chunks_to_embed"] + 1}
    message = _refused(_journal(tmp_path, plan, [doc, doc, twin]), plan)
    assert ": line 4: a second, different result for source 0, set 0" in message


def test_a_deeply_nested_line_is_refused_before_parsing(plan, tmp_path):
    message = _refused(_journal(tmp_path, plan, ["[" * 100_000 + "]" * 100_000]), plan)
    assert ": line 2: nested 100000 deep (at most 3)" in message


def test_a_header_of_another_version_or_sweep_is_refused(plan, tmp_path):
    path = _journal(tmp_path, plan, [])
    with open(path, encoding="utf-8") as f:
        header = json.loads(f.readline())
    for change, problem in [({"version": "0.9.0"}, "written by steadlith-core '0.9.0'"),
                            ({"fingerprint": "0" * 64}, "this journal is of another sweep"),
                            ({"schema": "x"}, "not a sweep journal"),
                            ({"extra": 1}, "a journal header has the fields")]:
        with open(path, "w", encoding="utf-8") as f:
            f.write(json.dumps({**header, **change}) + "\n")
        assert f": line 1: {problem}" in _refused(path, plan)
    other = SweepPlan(plan.sources, build_grid(["min_tokens=40"]).sets)
    Journal(path, plan).close()
    assert "another sweep" in _refused(path, other)


def test_a_commit_not_in_the_files_history_is_refused(tmp_path):
    """A repository file's units are commit ids of its own history, in order (the journal
    is checked without opening the repository)."""
    commits = ("a" * 40, "b" * 40, "c" * 40)
    plan = SweepPlan((RepoFileSource(str(tmp_path), "doc.md", commits),), build_grid([]).sets)
    doc = {"source": 0, "set": 0, "units": [[commits[0], 10], [commits[2], 4]], "chunks_to_embed": 2,
           "size_counts": [[7, 2]], "paragraph_cuts": 0, "sentence_cuts": 0, "interior_cuts": 1,
           "violations": 0, "phase_shift_regions": 0}
    path = _journal(tmp_path, plan, [doc])
    assert Journal(path, plan, resume=True).loaded[(0, 0)].units == ((commits[0], 10), (commits[2], 4))
    for units, problem in [([["d" * 40, 1]], "unit 'dddddddddddddddddddddddddddddddddddddddd' is not a commit "
                                             "of source 0"),
                           ([[commits[2], 1], [commits[0], 1]], "the units of source 0 are not its commits in "
                                                               "order")]:
        path = _journal(tmp_path, plan, [{**doc, "units": units}])
        assert f": line 2: {problem}" in _refused(path, plan)


def test_the_line_size_is_bounded_by_the_plan(plan, tmp_path):
    path = _journal(tmp_path, plan, ['{"source": 0, "units": "' + "x" * (5 << 20) + '"}'])
    assert ": line 2: longer than" in _refused(path, plan)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_resuming_from_a_device_is_refused_not_read_for_ever(tmp_path, history, device):
    """A real process with a timeout: a journal read without bounds fails the test, not hangs it."""
    files = []
    for n, text in enumerate(history.versions[:3]):
        (tmp_path / f"v{n}.md").write_text(text, encoding="utf-8")
        files.append(str(tmp_path / f"v{n}.md"))
    r = subprocess.run([sys.executable, "-m", "steadlith_core.cli.main", "sweep", "--versions", *files,
                        "--grid", "min_tokens=32,64", "--jobs", "1", "--resume", device],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and r.stdout == "", r.stderr
    assert r.stderr.startswith(f"steadlith: error: {device}: line 1: ") and len(r.stderr.splitlines()) == 1
    assert ("longer than" if device == "/dev/zero" else "not UTF-8") in r.stderr


def test_the_bound_itself_is_a_count(tmp_path):
    plan = SweepPlan((VersionsSource("d", ("a b", "a c"), ("0", "1")),), build_grid([]).sets)
    doc = {"source": 0, "set": 0, "units": [["1", MAX_COUNT]], "chunks_to_embed": MAX_COUNT,
           "size_counts": [[1, 2]], "paragraph_cuts": 0, "sentence_cuts": 0, "interior_cuts": 0,
           "violations": 0, "phase_shift_regions": 0}
    assert Journal(_journal(tmp_path, plan, [doc]), plan, resume=True).loaded[(0, 0)].chunks_to_embed == MAX_COUNT
    with pytest.raises(SteadlithError):
        Journal(_journal(tmp_path, plan, [{**doc, "chunks_to_embed": MAX_COUNT + 1}]), plan, resume=True)
