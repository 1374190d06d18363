"""A sweep over a repository's history equals running `audit` once per parameter set."""

from __future__ import annotations

import json
import importlib
from collections import defaultdict

import pygit2
import pytest

from git_history import History
from steadlith_core.history.audit import audit
from steadlith_core.sweep import diffs as sweep_diffs
from steadlith_core.cli.main import main
from steadlith_core.chunking.pipeline import chunk
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.sweep.git import repo_sources
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, in_process, process_pool

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Edits of two documents, a rename, a document edited then deleted, one added late,
    a file the globs do not match, and a merge."""
    guide = synthetic_history(6, 5000, seed=21).versions
    notes = synthetic_history(4, 3000, seed=22).versions
    gone = synthetic_history(2, 2500, seed=23).versions
    h = History(tmp_path_factory.mktemp("swept"))
    h.commit({"docs/guide.md": guide[0], "notes.md": notes[0], "old.md": gone[0], "code.py": "x = 1\n"}, "start")
    h.commit({"docs/guide.md": guide[1], "old.md": gone[1]}, "edit guide and old")
    h.commit({"notes.md": None, "docs/notes.md": notes[1]}, "move notes")
    h.commit({"docs/guide.md": guide[2], "code.py": "x = 2\n"}, "edit guide and code")
    h.commit({"old.md": gone[2], "docs/notes.md": notes[2]}, "edit old and notes")
    h.commit({"old.md": None}, "delete old")
    side = h.commit({"docs/guide.md": guide[3]}, "side edit", branch="side",
                    parents=[h.repo.head.target.__str__()])
    h.commit({"docs/guide.md": guide[3], "docs/new.md": guide[0][:2000]}, "merge side",
             parents=[str(h.repo.head.target), side])
    h.commit({"docs/guide.md": guide[4], "docs/notes.md": notes[3]}, "edit both")
    return str(h.root)


audit_module = importlib.import_module("steadlith_core.history.audit")
compare_module = importlib.import_module("steadlith_core.comparison.churn")
pipeline_module = importlib.import_module("steadlith_core.chunking.pipeline")

GRID = ["boundary_rule=tttd-v1,lmx2-v1", "max_tokens=300,512", "min_tokens=48"]


def test_the_files_and_their_commits(repo):
    sources = repo_sources(repo)
    assert [s.path for s in sources] == ["docs/guide.md", "docs/new.md", "docs/notes.md", "old.md"]
    by_path = {s.path: s for s in sources}
    assert len(by_path["docs/guide.md"].commits) == 5  # start, two edits, the merge, the last edit
    assert len(by_path["docs/notes.md"].commits) == 4  # the rename kept its history
    assert len(by_path["old.md"].commits) == 3  # its deletion is not a cost


def test_the_sweep_equals_audit_once_per_set(repo):
    grid = build_grid(GRID)
    run = SweepRun(SweepPlan(repo_sources(repo), grid.sets)).execute(in_process)
    rows = run.rows()
    assert len(rows) == len(grid.sets) == 4
    for s, row in zip(grid.sets, rows):
        result = audit(repo, params_by_rule={s.rule: s.params})
        totals = result.totals[s.rule]
        per_commit: dict[str, int] = defaultdict(int)
        for c in result.commits:
            for f in c.files:
                if f.rule == s.rule and f.status != "deleted":
                    per_commit[c.commit] += f.tokens_to_embed
        assert row.tokens_to_embed == totals.tokens_to_embed > 0
        assert row.chunks_to_embed == totals.chunks_to_embed
        assert row.chunks == totals.chunks
        assert row.mean_chunk_tokens == pytest.approx(totals.mean_chunk_tokens)
        assert row.violations == totals.locality_violations
        assert row.phase_shift_regions == totals.phase_shift_regions
        assert row.units == len(per_commit)
        assert row.mean_tokens_per_unit == pytest.approx(sum(per_commit.values()) / len(per_commit))


def test_a_repository_sweep_diffs_each_change_once_and_builds_no_baseline(repo, count_calls):
    """The diffs are the sweep's, once per change; each set's task only chunks and compares."""
    grid = build_grid(GRID)
    statuses = [f.status for c in audit(repo, params_by_rule={"tttd-v1": None}).commits for f in c.files
                if f.rule == "tttd-v1" and f.status != "deleted"]
    compared = sum(1 for status in statuses if status in ("modified", "renamed"))
    calls = count_calls(sweep_diffs, ["word_diff"])
    chunked = count_calls(pipeline_module, ["ChunkColumns"])
    elsewhere = [count_calls(module, ["word_diff", "baseline_for"]) for module in (audit_module, compare_module)]
    run = SweepRun(SweepPlan(repo_sources(repo), grid.sets)).execute(in_process)
    assert not run.partial and len(grid.sets) == 4
    assert calls["word_diff"] == compared > 0  # not once per set
    assert all(not counter for counter in elsewhere)
    assert chunked["ChunkColumns"] == len(grid.sets) * len(statuses)  # a version's "after" is the next "before"


def _hand_cut_classes(repo: str, rule: str, params) -> tuple[int, int, int]:
    """(paragraph, sentence, interior) cuts of every new version the replay compares,
    each chunked here on its own, its classes read from the chunks themselves."""
    r = pygit2.Repository(repo)
    paragraph = sentence = interior = 0
    for c in audit(repo, params_by_rule={rule: params}).commits:
        for f in c.files:
            if f.rule != rule or f.status == "deleted":
                continue
            text = r.revparse_single(f.commit).tree[f.path].data.decode("utf-8")
            ends = [ch.boundary for ch in chunk(text, params).chunks if ch.boundary != "end"]
            paragraph += ends.count("paragraph")
            sentence += ends.count("sentence")
            interior += len(ends)
    return paragraph, sentence, interior


def test_a_repository_sweep_reports_the_cut_classes_of_every_new_version(repo):
    grid = build_grid(GRID)
    rows = SweepRun(SweepPlan(repo_sources(repo), grid.sets)).execute(in_process).rows()
    for s, row in zip(grid.sets, rows):
        paragraph, sentence, interior = _hand_cut_classes(repo, s.rule, s.params)
        assert interior > 0
        assert row.paragraph_cut_share == pytest.approx(paragraph / interior)
        assert row.sentence_cut_share == pytest.approx(sentence / interior)
    assert any(row.paragraph_cut_share for row in rows)  # lmx2-v1 cuts these documents at paragraph ends


def test_the_baseline_of_a_replay_has_no_cut_classes_and_the_rules_do(repo):
    doc = audit(repo, params_by_rule={"lmx2-v1": None}).to_dict()
    files = [f for c in doc["commits"] for f in c["files"] if f["status"] != "deleted"]
    rule = [f for f in files if f["rule"] == "lmx2-v1"]
    baseline = [f for f in files if f["rule"] != "lmx2-v1"]
    assert baseline and all(f["interior_cuts"] is None and f["paragraph_cuts"] is None for f in baseline)
    assert sum(f["interior_cuts"] for f in rule) >= sum(f["paragraph_cuts"] + f["sentence_cuts"] for f in rule) > 0


def test_the_command_on_a_repository_with_a_pool(repo, capsys):
    assert main(["sweep", repo, "--grid", GRID[0], "--grid", GRID[1], "--format", "json", "--jobs", "2"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["unit"] == "commit" and not doc["partial"] and len(doc["sets"]) == 4
    assert doc["sources"] == ["docs/guide.md", "docs/new.md", "docs/notes.md", "old.md"]
    rows = SweepRun(SweepPlan(repo_sources(repo), build_grid(GRID[:2]).sets)).execute(process_pool(1)).rows()
    assert [r["tokens_to_embed"] for r in doc["sets"]] == [r.tokens_to_embed for r in rows]


def test_not_a_repository_is_one_line(tmp_path, capsys):
    assert main(["sweep", str(tmp_path), "--grid", "min_tokens=32"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a git repository" in err
