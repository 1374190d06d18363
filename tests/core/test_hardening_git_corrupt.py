"""A damaged repository is one error line naming the repository, the object and
"corrupt", quickly: never a command that spins for ever (libgit2 inflating a truncated
loose object never returns) nor an "unknown revision" that sends the user looking for
the wrong problem. Each case runs the command as a real process with a timeout, so a
regression fails instead of hanging the suite."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from git_history import History

CLI = [sys.executable, "-m", "steadlith_core.cli.main"]
TIMEOUT = 20


def run(cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *argv], cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


def build(root: Path, commits: int = 15) -> tuple[History, list[str]]:
    h = History(root)
    text = ""
    ids = []
    for i in range(commits):
        text += f"Paragraph {i} has a few words. It ends here.\n\n"
        ids.append(h.commit({"doc.md": text, f"notes/n{i}.md": f"note {i}\n"}, f"commit {i}"))
    return h, ids  # oldest first


def loose(root: Path, oid: str) -> Path:
    return root / ".git" / "objects" / oid[:2] / oid[2:]


def damage(path: Path, how: str) -> None:
    path.chmod(0o644)
    data = bytearray(path.read_bytes())
    if how == "truncate":
        data = data[:10]
    else:  # flip bytes in the middle
        for i in range(len(data) // 3, len(data) * 2 // 3):
            data[i] ^= 0x5A
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("how", ["truncate", "flip"])
def test_damaged_commit_several_steps_back(tmp_path, how):
    """HEAD works; HEAD~12 reaches the damaged commit: one line naming it, at once."""
    _, ids = build(tmp_path)
    bad = ids[-13]
    damage(loose(tmp_path, bad), how)
    ok = run(tmp_path, "chunk", "doc.md@HEAD")
    assert ok.returncode == 0, ok.stderr
    for argv in (["chunk", "doc.md@HEAD~12"], ["compare", "doc.md@HEAD~13", "doc.md"]):
        r = run(tmp_path, *argv)
        assert r.returncode == 2
        line = one_line(r.stderr)
        assert str(tmp_path) in line and bad in line and "corrupt" in line, line


def test_audit_names_the_unreadable_commit_and_stops_or_skips_it(tmp_path):
    _, ids = build(tmp_path)
    bad = ids[-13]
    damage(loose(tmp_path, bad), "truncate")
    r = run(tmp_path, "audit", ".", "--format", "json")
    assert r.returncode == 2 and r.stdout == ""
    line = one_line(r.stderr)
    assert bad in line and "corrupt" in line and "--skip-unreadable" in line, line
    r = run(tmp_path, "audit", ".", "--format", "json", "--skip-unreadable")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    unreadable = [u["commit"] for u in doc["unreadable_commits"]]
    assert bad in unreadable
    assert ids[-1] in [c["commit"] for c in doc["commits"]]
    text = run(tmp_path, "audit", ".", "--skip-unreadable")
    assert "unreadable  2 commits left out (--skip-unreadable)" in text.stdout


def test_sweep_stops_at_the_unreadable_commit(tmp_path):
    """sweep walks history with audit's select_commits: the same named error."""
    _, ids = build(tmp_path, 6)
    bad = ids[-4]
    damage(loose(tmp_path, bad), "truncate")
    r = run(tmp_path, "sweep", ".")
    assert r.returncode == 2, r.stderr
    line = one_line(r.stderr)
    assert bad in line and "corrupt" in line, line


def test_damaged_tree(tmp_path):
    h, ids = build(tmp_path)
    tree = str(h.repo[ids[-4]].peel(pygit2.Commit).tree_id)
    damage(loose(tmp_path, tree), "truncate")
    r = run(tmp_path, "chunk", "doc.md@HEAD~3")
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert tree in line and "corrupt" in line, line
    r = run(tmp_path, "audit", ".")
    line = one_line(r.stderr)
    assert r.returncode == 2 and tree in line and "cannot be read" in line and ids[-4][:7] in line, line
    r = run(tmp_path, "audit", ".", "--format", "json", "--skip-unreadable")
    assert r.returncode == 0, r.stderr
    assert ids[-4] in [u["commit"] for u in json.loads(r.stdout)["unreadable_commits"]]


@pytest.mark.skipif(shutil.which("git") is None, reason="repacking needs git")
def test_damaged_pack_is_corrupt_not_an_unknown_revision(tmp_path):
    _, ids = build(tmp_path)
    subprocess.run(["git", "-C", str(tmp_path), "repack", "-adq"], check=True, timeout=TIMEOUT)
    (pack,) = (tmp_path / ".git" / "objects" / "pack").glob("*.pack")
    pack.chmod(0o644)
    data = bytearray(pack.read_bytes())
    for i in range(12, len(data) - 20, 7):
        data[i] ^= 0x5A
    pack.write_bytes(bytes(data))
    r = run(tmp_path, "chunk", "doc.md@HEAD")
    assert r.returncode == 2
    line = one_line(r.stderr)
    assert "unknown revision" not in line and "corrupt" in line and str(tmp_path) in line, line
    assert ids[-1] in line, line  # HEAD's commit, found by reading the line one object at a time


def test_damaged_index_does_not_matter(tmp_path):
    """Revisions are read from the object database, never the index."""
    build(tmp_path, 3)
    (tmp_path / ".git" / "index").write_bytes(b"garbage, not an index")
    r = run(tmp_path, "chunk", "doc.md@HEAD~1")
    assert r.returncode == 0 and r.stderr == "", r.stderr


def test_objects_written_through_an_opened_repository_are_git_objects(tmp_path):
    """The checking reader also writes (libgit2 gives new objects to the first backend):
    what it writes, git and a fresh libgit2 read back."""
    from steadlith_core.history.repository import open_repository

    build(tmp_path, 2)
    oid = open_repository(tmp_path).create_blob(b"a new blob\n")
    assert pygit2.Repository(str(tmp_path))[oid].data == b"a new blob\n"
    if shutil.which("git"):
        shown = subprocess.run(["git", "-C", str(tmp_path), "cat-file", "-p", str(oid)], capture_output=True,
                               timeout=TIMEOUT)
        assert shown.stdout == b"a new blob\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="repacking needs git")
def test_batch_names_a_damaged_blob_of_a_pack_and_goes_on(tmp_path):
    """REPO@REV:GLOB whose pack holds one damaged blob: that document is one error line
    naming it and "corrupt", the others are chunked, exit 1 (the batch is incomplete)."""
    h, ids = build(tmp_path, 4)
    subprocess.run(["git", "-C", str(tmp_path), "repack", "-adq"], check=True, timeout=TIMEOUT)
    blob = str(h.repo.revparse_single("HEAD:notes/n2.md").id)
    (pack,) = (tmp_path / ".git" / "objects" / "pack").glob("*.pack")
    listing = subprocess.run(["git", "verify-pack", "-v", str(pack.with_suffix(".idx"))], capture_output=True,
                             text=True, check=True, timeout=TIMEOUT).stdout
    fields = next(line.split() for line in listing.splitlines() if line.startswith(blob))
    size_in_pack, offset = int(fields[3]), int(fields[4])
    pack.chmod(0o644)
    data = bytearray(pack.read_bytes())
    data[offset + size_in_pack - 3] ^= 0xFF  # inside its zlib stream: the checksum fails
    pack.write_bytes(bytes(data))
    r = run(tmp_path, "chunk", f"{tmp_path}@HEAD:notes/*.md", "--format", "jsonl", "--jobs", "1")
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    errors = [line for line in r.stderr.splitlines() if "error:" in line]
    assert len(errors) == 1 and blob in errors[0] and "corrupt" in errors[0], r.stderr
    assert len({json.loads(line)["path"] for line in r.stdout.splitlines()}) == 3


def test_a_revision_argument_keeps_the_corrupt_object_error(tmp_path, monkeypatch):
    """PATH@REV names the argument and stays a CorruptObjectError carrying the object,
    so a caller (the window, a batch) can tell damage from an unknown revision."""
    from steadlith_core.history.git_errors import CorruptObjectError
    from steadlith_core.history.revisions import parse_revision_arg

    _, ids = build(tmp_path, 4)
    damage(loose(tmp_path, ids[0]), "truncate")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(CorruptObjectError) as e:
        parse_revision_arg("doc.md@HEAD~3")
    assert e.value.obj == ids[0] and str(e.value).startswith("doc.md@HEAD~3: ")
