"""External splitters as rows of a repository sweep: per commit, what chunking each
version by hand with the splitter and comparing chunk texts gives, counted in the same
units (commits) as the rules' rows of the same sweep."""

from __future__ import annotations

import csv
import io
import json
from collections import defaultdict

import pygit2
import pytest

from git_history import History
from steadlith_core.history.audit import audit
from steadlith_core.cli.main import main
from steadlith_core.comparison.external import text_tokens
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.sweep.external import external_sets
from steadlith_core.sweep.git import repo_sources
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.results import nearest_rank
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, in_process, process_pool

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

SIZE = 150
LABEL = f"langchain-recursive(chunk_size={SIZE}, chunk_overlap=0)"


@pytest.fixture(scope="module")
def repo(tmp_path_factory):
    """Edits, a rename, a deletion, a file added late, a merge, and a file whose first
    version is not UTF-8 (its next version counts as added, as for the rules)."""
    guide = synthetic_history(5, 4000, seed=31).versions
    notes = synthetic_history(4, 2500, seed=32).versions
    h = History(tmp_path_factory.mktemp("swept-external"))
    h.commit({"docs/guide.md": guide[0], "notes.md": notes[0], "latin.md": "na\xefve\n".encode("latin-1")}, "start")
    h.commit({"docs/guide.md": guide[1], "latin.md": notes[0][:1500]}, "edit guide, latin now UTF-8")
    h.commit({"notes.md": None, "docs/notes.md": notes[1]}, "move notes")
    side = h.commit({"docs/guide.md": guide[2]}, "side edit", branch="side", parents=[str(h.repo.head.target)])
    h.commit({"docs/guide.md": guide[2], "docs/new.md": guide[0][:1800]}, "merge side",
             parents=[str(h.repo.head.target), side])
    h.commit({"docs/guide.md": guide[3], "docs/notes.md": notes[2], "latin.md": None}, "edit both, drop latin")
    return str(h.root)


def _splitter():
    module = pytest.importorskip("langchain_text_splitters")
    return module.RecursiveCharacterTextSplitter(chunk_size=SIZE, chunk_overlap=0, length_function=text_tokens)


def _by_hand(repo: str) -> dict[str, list[tuple[int, list[int]]]]:
    """{commit: [(tokens to embed, the new version's chunk sizes) per changed file]}, the
    versions and statuses taken from the audit, each version split here with LangChain
    and its chunks compared by their text."""
    split = _splitter().split_text
    r = pygit2.Repository(repo)
    out: dict[str, list[tuple[int, list[int]]]] = defaultdict(list)
    for c in audit(repo, params_by_rule={"tttd-v1": None}).commits:
        commit = r.revparse_single(c.commit)
        for f in c.files:
            if f.rule != "tttd-v1" or f.status == "deleted":
                continue
            new = split(commit.tree[f.path].data.decode("utf-8"))
            old = set() if f.status == "added" else set(split(commit.parents[0].tree[f.old_path].data.decode()))
            sizes = [text_tokens(t) for t in new]
            out[c.commit].append((sum(n for t, n in zip(new, sizes) if t not in old), sizes))
    return out


def _plan(repo: str) -> SweepPlan:
    rules = build_grid([]).sets
    externals, skipped = external_sets([f"langchain-recursive:chunk_size={SIZE}"], None, first_index=len(rules),
                                       token_counter="chars4/1", default_size=None)
    assert not skipped
    return SweepPlan(repo_sources(repo), rules + externals)


def test_an_external_row_of_a_repository_sweep_is_each_commit_split_by_hand(repo):
    hand = _by_hand(repo)
    rule, row = SweepRun(_plan(repo)).execute(in_process).rows()
    per_commit = sorted(sum(t for t, _ in files) for files in hand.values())
    sizes = [n for files in hand.values() for _, s in files for n in s]
    assert row.label == LABEL and row.boundary_rule == "external"
    assert row.units == len(hand) == rule.units  # the same commits as the rule's row
    assert row.tokens_to_embed == sum(per_commit) > 0
    assert row.mean_tokens_per_unit == pytest.approx(sum(per_commit) / len(per_commit))
    assert row.p95_tokens_per_unit == nearest_rank(per_commit, 0.95)
    assert row.chunks == len(sizes) and row.mean_chunk_tokens == pytest.approx(sum(sizes) / len(sizes))
    assert row.violations is None and row.paragraph_cut_share is None
    # an edit keeps most of a file's chunks: far less than splitting every version whole
    assert row.tokens_to_embed < sum(sizes) * 0.8


def test_a_pool_gives_the_same_rows(repo):
    _splitter()
    plan = _plan(repo)
    assert SweepRun(plan).execute(process_pool(2)).rows() == SweepRun(plan).execute(in_process).rows()


@pytest.mark.parametrize("fmt", ["text", "json", "csv", "html"])
def test_the_command_shows_the_external_row_of_a_repository_sweep(repo, fmt, tmp_path, capsys):
    _splitter()
    html = tmp_path / "sweep.html"
    args = ["sweep", repo, "--chunker", f"langchain-recursive:chunk_size={SIZE}", "--jobs", "1"]
    args += ["--html", str(html)] if fmt == "html" else ["--format", fmt]
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    expected = SweepRun(_plan(repo)).execute(in_process).rows()[1]
    if fmt == "json":
        doc = json.loads(out)
        assert doc["unit"] == "commit" and [s["label"] for s in doc["sets"]] == ["tttd-v1", LABEL]
        assert doc["sets"][1]["tokens_to_embed"] == expected.tokens_to_embed
    elif fmt == "csv":
        rows = list(csv.DictReader(io.StringIO(out)))
        assert rows[1]["label"] == LABEL and int(rows[1]["tokens_to_embed"]) == expected.tokens_to_embed
        assert rows[1]["violations"] == ""
    elif fmt == "html":
        page = html.read_text(encoding="utf-8")
        assert LABEL in page and f"<td>{expected.tokens_to_embed}</td>" in page
        assert page.count("<polygon") == 2  # its point and its legend entry: a triangle, no rule's shape
    else:
        line = next(line for line in out.splitlines() if LABEL in line)
        assert line.split()[LABEL.count(" ") + 1 + (line[0] == "*")] == str(expected.tokens_to_embed)
        assert "commits)" in out
