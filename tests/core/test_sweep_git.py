"""A sweep over a repository's history equals running `audit` once per parameter set."""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from git_history import History
from steadlith_core.audit import audit
from steadlith_core.cli import main
from steadlith_core.sweep_bench import synthetic_history
from steadlith_core.sweep_git import repo_sources
from steadlith_core.sweep_grid import build_grid
from steadlith_core.sweep_run import SweepPlan, SweepRun, in_process, process_pool


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
        assert row.paragraph_cut_share is None  # not reported by the replay: shown as unknown, not 0


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
