"""Revisions on the command line: `steadlith compare` and `chunk` read PATH@REV from the
repository (titles `path @ short — subject`), and `steadlith audit` prints totals, JSON,
CSV and an HTML page of what a history cost; every mistake is one line and exit 2, and
Ctrl+C prints what was replayed, marked partial."""

from __future__ import annotations

import csv
import io
import json
from contextlib import contextmanager

import pytest

from git_history import History
from steadlith_core.cli import audit as cli_audit
from steadlith_core.history.audit import audit
from steadlith_core.bench.examples import tool_library_example
from cli_helpers import run

TEXT_A, TEXT_B, _ = tool_library_example()


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    h = History(tmp_path_factory.mktemp("clirepo"))
    h.c1 = h.commit({"guide.md": TEXT_A, "other.md": "Short other file.\n"}, "First guide")
    h.c2 = h.commit({"guide.md": TEXT_B}, "Insert a sentence")
    h.c3 = h.commit({"other.md": "Short other file, edited.\n"}, "Edit the other file")
    return h


def test_compare_reads_both_revisions_from_git(history, tmp_path, capsys):
    """`compare guide.md@HEAD~2 guide.md@HEAD~1` is `compare` of the two versions saved
    to files, and its text names each side by path, short hash and subject."""
    guide = str(history.root / "guide.md")
    code, out, err = run(capsys, "compare", f"{guide}@HEAD~2", f"{guide}@HEAD~1", "--format", "json")
    assert (code, err) == (0, "")
    by_revision = json.loads(out)
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(TEXT_A, encoding="utf-8")
    b.write_text(TEXT_B, encoding="utf-8")
    code, out, _ = run(capsys, "compare", str(a), str(b), "--format", "json")
    from_files = json.loads(out)
    for doc in (by_revision, from_files):
        doc.pop("files")
    assert by_revision == from_files
    code, out, err = run(capsys, "compare", f"{guide}@{history.c1}", f"{guide}@main")
    assert code == 0
    assert f"A          guide.md @ {history.c1[:7]} — First guide:" in out
    assert f"B          guide.md @ {history.c3[:7]} — Edit the other file:" in out


def test_chunk_of_a_revision_is_the_chunking_of_that_text(history, tmp_path, capsys):
    code, by_rev, err = run(capsys, "chunk", f"{history.root / 'guide.md'}@{history.c1[:8]}", "--format", "json")
    saved = tmp_path / "guide.md"
    saved.write_text(TEXT_A, encoding="utf-8")
    _, from_file, _ = run(capsys, "chunk", str(saved), "--format", "json")
    assert (code, err) == (0, "") and json.loads(by_rev) == json.loads(from_file)


@pytest.mark.parametrize("argv, message", [
    (["chunk", "{root}/guide.md@no-such-rev"], "unknown revision 'no-such-rev'"),
    (["compare", "{root}/gone.md@HEAD", "{root}/guide.md"], "gone.md @ HEAD: no such path in that revision"),
    (["audit", "/"], "/: not a git repository"),
    (["audit", "{root}", "--revs", "v9..HEAD"], "unknown revision 'v9'"),
    (["audit", "{root}", "--max-commits", "0"], "--max-commits: must be >= 1"),
    (["audit", "{root}", "--paths", " "], "--paths: empty path pattern"),
])
def test_git_mistakes_are_one_line_and_exit_2(history, capsys, argv, message):
    code, out, err = run(capsys, *[a.format(root=history.root) for a in argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and err.startswith("steadlith: error: ")


def test_audit_prints_totals_per_rule_and_the_costliest_commits(history, capsys):
    code, out, err = run(capsys, "audit", str(history.root))
    assert (code, err) == (0, "")
    assert "3 commits replayed" in out
    header = next(line for line in out.splitlines() if line.strip().startswith("tttd-v1") and "lmx2-v1" in line)
    assert header.split() == ["tttd-v1", "lmx2-v1", "fixed-tokens/1"]
    result = audit(str(history.root))
    row = next(line for line in out.splitlines() if line.startswith("tokens to embed"))
    assert row.split()[3:] == [str(result.totals[r].tokens_to_embed) for r in result.rules]
    spikes = out.split("costliest commits by tokens to embed under tttd-v1:")[1].splitlines()[2:]
    assert [line.split()[0] for line in spikes] == [history.c1[:7], history.c2[:7], history.c3[:7]]


def test_audit_json_csv_and_html(history, tmp_path, capsys):
    root = str(history.root)
    code, out, _ = run(capsys, "audit", root, "--rules", "lmx2-v1", "--set", "max_tokens=384", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["rules"] == ["lmx2-v1", "fixed-tokens/1"]
    assert doc["params"]["lmx2-v1"]["max_tokens"] == 384
    from steadlith_core.chunking.lmx2_params import Lmx2Params
    assert doc == json.loads(json.dumps(audit(root, params_by_rule={"lmx2-v1": Lmx2Params(max_tokens=384)}).to_dict()))
    page = tmp_path / "audit.html"
    code, out, _ = run(capsys, "audit", root, "--paths", "guide.md", "--format", "csv", "--html", str(page))
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and {r["path"] for r in rows} == {"guide.md"}
    assert {(r["short"], r["rule"]) for r in rows} == {(c[:7], rule) for c in (history.c1, history.c2)
                                                      for rule in ("tttd-v1", "lmx2-v1", "fixed-tokens/1")}
    html = page.read_text(encoding="utf-8")
    assert "<script" not in html and "Insert a sentence" in html and "Content-Security-Policy" in html


def test_ctrl_c_prints_what_was_replayed_marked_partial(history, capsys, monkeypatch):
    @contextmanager
    def interrupted_after_two(description, unit, **kw):
        def progress(done, total):
            if done == 2:
                raise KeyboardInterrupt

        yield progress

    monkeypatch.setattr(cli_audit, "progress_bar", interrupted_after_two)
    code, out, err = run(capsys, "audit", str(history.root))
    assert code == 130
    assert "PARTIAL: 2 of 3 commits replayed (interrupted)" in out
    assert "interrupted: 2 of 3 commits replayed; the output above is partial" in err
    code, out, err = run(capsys, "audit", str(history.root), "--format", "json")
    assert code == 130 and json.loads(out)["partial"] is True
