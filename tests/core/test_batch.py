"""Batch chunking (`steadlith chunk` over many documents): files, directories, globs and
REPO@REV:GLOB become JSON Lines of every chunk with its path (and commit), identical to
chunking each document alone, in input order, whatever the number of worker processes;
a document that fails is one error line and the others are still chunked (exit 1)."""

from __future__ import annotations

import json

import pytest

from git_history import History
from steadlith_core import ChunkerParams, chunk, chunks_jsonl
from steadlith_core.bench.examples import generate_prose
from cli_helpers import run

DOCS = {f"docs/part{i}.md": generate_prose(1500 + 300 * i, seed=i) for i in range(5)}


@pytest.fixture
def tree(tmp_path):
    for rel, text in DOCS.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    (tmp_path / "docs" / ".hidden.md").write_text("hidden\n", encoding="utf-8")
    return tmp_path


def _expected(path: str, text: str, commit: str | None = None) -> list[dict]:
    """What `chunk FILE --format jsonl` gives for one document, with its path (and commit) added."""
    out = []
    for line in chunks_jsonl(chunk(text, ChunkerParams())).splitlines():
        record = json.loads(line)
        out.append({"path": path, **({"commit": commit} if commit else {}), **record})
    return out


def _lines(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_directory_gives_every_chunk_of_every_file_with_its_path(tree, capsys, jobs):
    code, out, err = run(capsys, "chunk", str(tree / "docs"), "--format", "jsonl", "--jobs", jobs)
    assert (code, err) == (0, "")
    want = [r for rel in sorted(DOCS) for r in _expected(str(tree / rel), DOCS[rel])]
    assert _lines(out) == want  # .hidden.md is left out, the order is the files' order


def test_several_files_and_a_glob_keep_the_order_given(tree, capsys, monkeypatch):
    monkeypatch.chdir(tree)
    code, out, err = run(capsys, "chunk", "docs/part3.md", "docs/part[01].md", "--format", "jsonl", "--jobs", "2")
    assert (code, err) == (0, "")
    assert _lines(out) == [*_expected("docs/part3.md", DOCS["docs/part3.md"]),
                           *_expected("docs/part0.md", DOCS["docs/part0.md"]),
                           *_expected("docs/part1.md", DOCS["docs/part1.md"])]


def test_files_of_a_revision_come_from_the_repository(tmp_path, capsys, monkeypatch):
    h = History(tmp_path / "repo")
    first = h.commit({**DOCS, "README.txt": "not matched\n"}, "Add the parts")
    h.commit({"docs/part0.md": "Rewritten.\n", "docs/part1.md": None}, "Rewrite part 0, drop part 1")
    monkeypatch.chdir(tmp_path / "repo")
    code, out, err = run(capsys, "chunk", f".@{first[:7]}:docs/*.md", "--format", "jsonl", "--jobs", "2")
    assert (code, err) == (0, "")
    assert _lines(out) == [r for rel in sorted(DOCS) for r in _expected(rel, DOCS[rel], first)]
    code, out, _ = run(capsys, "chunk", "docs@HEAD:*.md", "--format", "text")
    assert code == 0
    assert [line.split(":")[0] for line in out.splitlines()[:-1]] == [
        f"docs/{n} @ {str(h.repo.head.target)[:7]}" for n in ("part0.md", "part2.md", "part3.md", "part4.md")]
    assert out.splitlines()[-1].startswith("4 files chunked:")


def test_a_failing_document_is_reported_and_the_others_are_chunked(tree, capsys):
    (tree / "docs" / "blob.md").write_bytes(b"GIF89a\x00\x01")
    code, out, err = run(capsys, "chunk", str(tree / "docs"), str(tree / "missing.md"), str(tree / "none-*.md"),
                         "--format", "jsonl", "--jobs", "2")
    assert code == 1
    assert {r["path"] for r in _lines(out)} == {str(tree / rel) for rel in DOCS}
    errors = err.splitlines()
    assert any("blob.md: binary file (NUL byte at byte offset 6)" in e for e in errors)
    assert any("missing.md: no such file" in e for e in errors)
    assert any("none-*.md: no file matches this pattern" in e for e in errors)
    assert errors[-1] == "steadlith: 3 of 8 documents failed, 5 chunked"


def test_json_is_for_one_file_and_jobs_must_be_positive(tree, capsys):
    code, out, err = run(capsys, "chunk", str(tree / "docs"), "--format", "json")
    assert code == 2 and out == "" and "use jsonl" in err
    code, out, err = run(capsys, "chunk", str(tree / "docs"), "--jobs", "0")
    assert code == 2 and "--jobs must be >= 1" in err
