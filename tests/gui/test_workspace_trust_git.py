"""A repository inside a workspace's folder can still read from outside it: its `.git`
may be a file pointing elsewhere (`gitdir:`), and its object store may borrow from
another (`objects/info/alternates`). Both count as outside for the trust question, so a
headless run needs --trust-workspace for them as for an outside file."""

from __future__ import annotations

import os
import subprocess
import sys

import pygit2
import pytest

from steadlith_core.history.places import repository_places
from steadlith_gui.model.history_state import Revision
from steadlith_gui.model.workspace import DocumentRef, Workspace, save_workspace
from steadlith_gui.model.workspace_documents import outside_documents

SECRET = "secret notes kept outside the workspace folder\n"


def _repo(path, text: str) -> tuple[pygit2.Repository, str]:
    repo = pygit2.init_repository(str(path))
    blob = repo.create_blob(text.encode())
    tree = repo.TreeBuilder()
    tree.insert("notes.md", blob, pygit2.GIT_FILEMODE_BLOB)
    who = pygit2.Signature("T", "t@example.org", 1_700_000_000, 0)
    commit = repo.create_commit("refs/heads/main", who, who, "notes", tree.write(), [])
    repo.set_head("refs/heads/main")
    return repo, str(commit)


@pytest.fixture
def layout(tmp_path):
    """review/ is the workspace's folder; elsewhere/ holds a repository outside it."""
    review, elsewhere = tmp_path / "review", tmp_path / "elsewhere"
    review.mkdir()
    _, commit = _repo(elsewhere, SECRET)
    return review, elsewhere, commit


def _workspace(review, repo_dir, commit) -> Workspace:
    return Workspace({"a": DocumentRef(None, None, "notes", revision=Revision(str(repo_dir), "notes.md", commit)),
                      "b": None})


def test_a_gitdir_file_pointing_outside_is_outside(layout):
    review, elsewhere, commit = layout
    inside = review / "repo"
    inside.mkdir()
    (inside / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n", encoding="utf-8")
    outside = outside_documents(_workspace(review, inside, commit), review)
    assert ("a", os.path.realpath(elsewhere / ".git")) in outside


def test_alternates_pointing_outside_are_outside(layout):
    review, elsewhere, commit = layout
    inside = review / "repo"
    _repo(inside, "an honest file of the folder\n")
    (inside / ".git" / "objects" / "info").mkdir(parents=True, exist_ok=True)
    # relative, as `git clone --shared` writes it, and through a second store
    middle = review / "middle.git"
    pygit2.init_repository(str(middle), bare=True)
    (middle / "objects" / "info").mkdir(parents=True, exist_ok=True)
    (middle / "objects" / "info" / "alternates").write_text(f"{elsewhere / '.git' / 'objects'}\n", encoding="utf-8")
    (inside / ".git" / "objects" / "info" / "alternates").write_text(
        "# borrowed\n" + os.path.relpath(middle / "objects", inside / ".git" / "objects") + "\n", encoding="utf-8")
    assert repository_places(inside)[-1] == os.path.realpath(elsewhere / ".git" / "objects")
    assert outside_documents(_workspace(review, inside, commit), review) == [
        ("a", os.path.realpath(elsewhere / ".git" / "objects"))]


def test_a_repository_wholly_inside_needs_no_trust(layout):
    review, _, _ = layout
    _, commit = _repo(review / "repo", "an honest file of the folder\n")
    assert outside_documents(_workspace(review, review / "repo", commit), review) == []


def test_a_folder_that_is_no_repository_is_judged_by_the_one_holding_it(layout):
    """Opening searches upward, so a plain folder inside a repository outside reads that one."""
    review, elsewhere, commit = layout
    (elsewhere / "review").mkdir()
    ws = _workspace(elsewhere / "review", elsewhere / "review", commit)
    assert ("a", os.path.realpath(elsewhere / ".git")) in outside_documents(ws, elsewhere / "review")


def test_headless_needs_the_flag_for_a_gitdir_pointing_outside(layout, tmp_path):
    review, elsewhere, commit = layout
    inside = review / "repo"
    inside.mkdir()
    (inside / ".git").write_text(f"gitdir: {elsewhere / '.git'}\n", encoding="utf-8")
    ws = review / "review.steadlith"
    (review / "v1.md").write_text("A document of the folder.\n", encoding="utf-8")
    save_workspace(Workspace({**_workspace(review, inside, commit).documents,
                              "b": DocumentRef.from_file(review / "v1.md")}), ws)
    out = tmp_path / "report.html"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    gui = [sys.executable, "-m", "steadlith_gui", "--open-workspace", str(ws), "--export-report", str(out)]
    r = subprocess.run(gui, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and not out.exists(), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert os.path.realpath(elsewhere / ".git") in r.stderr and "--trust-workspace" in r.stderr
    r = subprocess.run([*gui, "--trust-workspace"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "secret notes" in out.read_text(encoding="utf-8")
