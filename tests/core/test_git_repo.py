"""Reading files out of git history (steadlith_core.history.repository, revision_path): the text of a
file at any revision a user can name, its log with renames followed, `PATH@REV`
arguments (names holding `@` included), and one clear message per failure naming the
repository, the path and the revision."""

from __future__ import annotations

import os

import pytest

from git_history import SUBMODULE, History
from steadlith_core.bench.examples import tool_library_example
from steadlith_core.history.repository import (GitError, RevisionRef, file_log, open_repository, parent_ref, read_text_at,
                                               resolve_revision)
from steadlith_core.history.revisions import parse_revision_arg

TEXT_A, TEXT_B, _ = tool_library_example()
NOTES_1 = "# Notes\n\nFirst notes, a few sentences long. They say little.\n"
NOTES_2 = NOTES_1 + "\nA second paragraph, added later.\n"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """main: c1 adds the guide, notes, a binary and a Latin-1 file and a name with `@`;
    c2 edits the guide; c3 renames notes.md to docs/notes.md and edits it; c4 adds a
    submodule; tag v1 on c2; branch `side` forks at c3."""
    h = History(tmp_path_factory.mktemp("repo"))
    h.c1 = h.commit({"docs/guide.md": "\ufeff" + TEXT_A, "notes.md": NOTES_1, "pic.md": b"PNG\x00\x01",
                     "latin.md": "caf\xe9 cr\xe8me\n".encode("latin-1"), "v@2.md": "at two\n"},
                    "Add the guide and notes\n\nA body that is not the subject.")
    h.c2 = h.commit({"docs/guide.md": TEXT_B}, "Insert one sentence into the guide")
    h.c3 = h.commit({"notes.md": None, "docs/notes.md": NOTES_2}, "Move the notes under docs")
    h.side = h.commit({"docs/guide.md": TEXT_A}, "Revert on a side branch", branch="side", parents=[h.c3])
    h.c4 = h.commit({"vendor/lib": SUBMODULE}, "Add a submodule")
    h.tag("v1", h.c2)
    return h


def test_a_file_reads_as_it_was_at_any_revision_syntax(history):
    """A hash (full or short), a branch, a tag, `HEAD~N`: each names a commit, and the
    text is that commit's, BOM stripped as the loader does."""
    root = str(history.root)
    for rev, want in [(history.c1, TEXT_A), (history.c1[:7], TEXT_A), ("v1", TEXT_B), ("HEAD~3", TEXT_A),
                      ("side", TEXT_A), ("main", TEXT_B), ("HEAD~1", TEXT_B)]:
        ref = resolve_revision(root, "docs/guide.md", rev)
        assert read_text_at(ref) == want, rev
    ref = resolve_revision(root, "docs/guide.md", "v1")
    assert ref.commit == history.c2 and ref.short == history.c2[:7]
    assert ref.title() == f"docs/guide.md @ {history.c2[:7]} — Insert one sentence into the guide"
    assert resolve_revision(root, "notes.md", history.c1).title().endswith("— Add the guide and notes")


def test_the_repository_is_found_from_any_directory_inside_it(history):
    repo = open_repository(history.root / "docs")
    assert os.path.realpath(repo.workdir) == os.path.realpath(history.root)
    ref = resolve_revision(repo, "./docs//guide.md", "HEAD")
    assert ref.path == "docs/guide.md" and isinstance(ref, RevisionRef)
    assert os.path.realpath(ref.repo) == os.path.realpath(history.root)


def test_file_log_lists_changing_commits_newest_first_following_the_rename(history):
    log = file_log(str(history.root), "docs/notes.md")
    assert [(c.commit, c.path) for c in log] == [(history.c3, "docs/notes.md"), (history.c1, "notes.md")]
    assert log[0].parent == history.c2 and log[1].parent is None
    assert (log[0].parent_path, log[1].parent_path) == ("notes.md", None)
    before = parent_ref(str(history.root), log[0])  # what a click on the rename loads into A
    assert (before.path, before.commit, read_text_at(before)) == ("notes.md", history.c2, NOTES_1)
    assert parent_ref(str(history.root), log[1]) is None
    assert log[0].subject == "Move the notes under docs" and log[0].author == "Tess Ter"
    assert log[0].when > log[1].when
    guide = file_log(str(history.root), "docs/guide.md")
    assert [c.commit for c in guide] == [history.c2, history.c1]  # the side branch is not on main's line
    assert [c.commit for c in file_log(str(history.root), "docs/guide.md", max_commits=1)] == [history.c2]
    assert [c.commit for c in file_log(str(history.root), "docs/guide.md", rev="side")] == [
        history.side, history.c2, history.c1]


@pytest.mark.parametrize("call, expected", [
    (lambda root, h: resolve_revision("/", "x.md"), "/: not a git repository"),
    (lambda root, h: resolve_revision(root, "docs/guide.md", "no-such-branch"), "unknown revision 'no-such-branch'"),
    (lambda root, h: resolve_revision(root, "docs/guide.md", "HEAD~40"), "unknown revision 'HEAD~40'"),
    (lambda root, h: resolve_revision(root, "docs/notes.md", "HEAD~3"),
     "docs/notes.md @ HEAD~3: no such path in that revision"),
    (lambda root, h: read_text_at(resolve_revision(root, "pic.md", "HEAD")),
     "pic.md @ %s: binary file (NUL byte at byte offset 3), not a text document"),
    (lambda root, h: read_text_at(resolve_revision(root, "latin.md", "HEAD")),
     "latin.md @ %s: not valid UTF-8: byte 0xe9 at byte offset 3"),
    (lambda root, h: resolve_revision(root, "vendor/lib", "HEAD"),
     "vendor/lib @ HEAD: is a submodule (a commit of another repository), not a file"),
    (lambda root, h: resolve_revision(root, "docs", "HEAD"), "docs @ HEAD: is a directory, not a file"),
], ids=["not-a-repository", "unknown-branch", "past-the-root", "path-not-there", "binary", "not-utf8",
        "submodule", "directory"])
def test_each_failure_is_one_message_naming_repository_path_and_revision(history, call, expected):
    root = str(history.root)
    with pytest.raises(GitError) as err:
        call(root, history)
    message = str(err.value)
    if "%s" in expected:
        expected = expected % history.c4[:7]  # a ref names its commit by the short hash
    assert expected in message
    assert "\n" not in message
    if "not a git repository" not in expected:
        assert message.startswith(os.path.realpath(root).rstrip("/")) or message.startswith(root.rstrip("/"))


# -- PATH@REV ------------------------------------------------------------------------------


def test_path_at_rev_splits_at_the_last_at_sign_inside_a_repository(history, monkeypatch):
    monkeypatch.chdir(history.root / "docs")
    ref = parse_revision_arg("guide.md@HEAD~2")  # relative to the current directory
    assert (ref.path, ref.commit) == ("docs/guide.md", history.c2)
    ref = parse_revision_arg(str(history.root / "v@2.md") + "@v1")  # an `@` in the name stays in the path
    assert (ref.path, ref.commit) == ("v@2.md", history.c2)
    assert read_text_at(ref) == "at two\n"
    ref = parse_revision_arg(str(history.root / "notes.md") + f"@{history.c1[:10]}")  # gone from the worktree
    assert read_text_at(ref) == NOTES_1


def test_an_existing_file_named_exactly_wins_and_plain_paths_are_not_revisions(history, tmp_path):
    odd = tmp_path / "report@HEAD"
    odd.write_text("a file, not a revision\n", encoding="utf-8")
    assert parse_revision_arg(str(odd)) is None
    inside = history.root / "docs" / "draft@HEAD"
    inside.write_text("also a file\n", encoding="utf-8")
    try:
        assert parse_revision_arg(str(inside)) is None
    finally:
        inside.unlink()
    assert parse_revision_arg(str(tmp_path / "missing.md")) is None  # no @: a file, which then is missing
    assert parse_revision_arg(str(tmp_path / "missing.md@HEAD")) is None  # no repository there
    assert parse_revision_arg(str(history.root / "docs" / "guide.md@")) is None  # nothing after the @


def test_path_at_an_unknown_revision_is_an_error_not_a_missing_file(history):
    arg = str(history.root / "docs" / "guide.md") + "@nope"
    with pytest.raises(GitError, match=r"guide\.md@nope: .*unknown revision 'nope'"):
        parse_revision_arg(arg)
    with pytest.raises(GitError, match="no such path in that revision"):
        parse_revision_arg(str(history.root / "docs" / "nothing.md") + "@HEAD")


def test_a_stored_revision_reopens_and_a_stale_one_says_why(history, tmp_path):
    """What a workspace keeps (repository, path, commit) reopens the same text; a
    reference whose commit is gone, or a malformed one, is a GitError, not a traceback."""
    ref = resolve_revision(str(history.root), "docs/guide.md", "v1")
    again = RevisionRef.from_dict(ref.to_dict())
    assert again == ref and read_text_at(again) == TEXT_B
    with pytest.raises(GitError, match="unknown revision '0{40}'"):
        RevisionRef.from_dict({**ref.to_dict(), "commit": "0" * 40})
    with pytest.raises(GitError, match="needs repo, path and commit"):
        RevisionRef.from_dict({"repo": ref.repo})
    with pytest.raises(GitError, match="not a git repository"):
        RevisionRef.from_dict({**ref.to_dict(), "repo": str(tmp_path)})


def test_a_linked_worktree_reads_its_own_head_from_the_shared_objects(tmp_path, capsys):
    """`git worktree add`: the worktree's git dir (.git/worktrees/NAME) holds its HEAD, the
    main git dir the objects; reading a revision or replaying history there must find them."""
    from cli_helpers import run

    h = History(tmp_path / "repo")
    first = h.commit({"docs/guide.md": TEXT_A}, "Add the guide")
    h.commit({"docs/guide.md": TEXT_B}, "Insert one sentence", branch="side", parents=[first])
    worktree = tmp_path / "side-tree"
    h.repo.add_worktree("side-tree", str(worktree), h.repo.branches["side"])
    assert (worktree / ".git").is_file()  # a pointer, not a git dir
    for rev, want in [("HEAD", TEXT_B), ("HEAD~1", TEXT_A), ("main", TEXT_A)]:
        assert read_text_at(resolve_revision(str(worktree), "docs/guide.md", rev)) == want, rev
    code, out, err = run(capsys, "audit", str(worktree), "--rules", "lmx2-v1")
    assert code == 0 and err == "" and "2 commits replayed" in out
