"""`PATH@REV` inside a linked worktree (`git worktree add`): its git directory is
.git/worktrees/NAME, which holds HEAD but no objects; they are in the main git directory
its `commondir` file names. Every command that reads a revision reads it there."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from cli_helpers import run
from git_history import History

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="makes the worktree with git itself")

OLD = "The first version of the notes. It has sentences.\n\nAnd a second paragraph here.\n"
NEW = OLD.replace("second", "revised second")


@pytest.fixture
def worktree(tmp_path, monkeypatch):
    history = History(tmp_path / "main")
    history.commit({"notes.md": OLD}, "first")
    history.commit({"notes.md": NEW}, "second")
    subprocess.run(["git", "-C", str(tmp_path / "main"), "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt")],
                   check=True, capture_output=True)
    monkeypatch.chdir(tmp_path / "wt")
    return tmp_path / "wt"


def test_lab_chunk_and_compare_read_revisions_in_a_linked_worktree(capsys, worktree):
    assert (worktree / ".git").is_file()  # a linked worktree, not a repository of its own
    code, out, err = run(capsys, "lab", "notes.md@HEAD~1", "--edits", "2", "--format", "json")
    assert code == 0, err
    assert json.loads(out)["words"] == len(OLD.split())  # the old version, read from the main git directory
    code, out, err = run(capsys, "chunk", "notes.md@HEAD", "--format", "jsonl")
    assert code == 0, err
    assert " ".join(json.loads(line)["text"] for line in out.splitlines()).split() == NEW.split()
    code, out, err = run(capsys, "compare", "notes.md@HEAD~1", "notes.md@HEAD", "--format", "json")
    assert code == 0, err
