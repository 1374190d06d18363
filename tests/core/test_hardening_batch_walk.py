"""`steadlith chunk DIR` loses nothing silently: a directory it cannot read is named on
stderr and the exit status is 1 (the batch is incomplete), and a symbolic link leading
out of the directory is skipped, and said, unless --follow-links.

These tests run as root here, which ignores permission bits: the unreadable directory
is made real by making os.scandir raise PermissionError for it, in-process (the walk
lists directories with os.scandir); a chmod 000 variant runs when not root."""

from __future__ import annotations

import json
import os

import pytest

from cli_helpers import run


@pytest.fixture
def tree(tmp_path):
    root = tmp_path / "docs"
    (root / "a" / "deep").mkdir(parents=True)
    (root / "locked").mkdir()
    (root / "a" / "one.md").write_text("Hello there. A sentence.\n", encoding="utf-8")
    (root / "a" / "deep" / "d.md").write_text("Deep down.\n", encoding="utf-8")
    (root / "locked" / "x.md").write_text("Behind a lock.\n", encoding="utf-8")
    (root / "z.md").write_text("Last one.\n", encoding="utf-8")
    secret = tmp_path / "outside.txt"
    secret.write_text("root:x:0:0:secret\n", encoding="utf-8")
    return root, secret


def deny(monkeypatch, *denied):
    real = os.scandir
    denied = {os.fspath(d) for d in denied}

    def scandir(path="."):
        if os.fspath(path) in denied:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def paths_of(out: str) -> set[str]:
    return {json.loads(line)["path"] for line in out.splitlines()}


@pytest.mark.parametrize("which", ["inside", "root"])
def test_unreadable_directory_is_named_and_fails_the_batch(capsys, monkeypatch, tree, which):
    root, _ = tree
    locked = root / "locked" if which == "inside" else root
    deny(monkeypatch, locked)
    code, out, err = run(capsys, "chunk", str(root), "--format", "jsonl", "--jobs", "1")
    assert code == 1
    assert f"steadlith: error: {locked}: cannot read this directory: Permission denied" in err
    if which == "inside":  # the rest of the tree is still chunked
        assert paths_of(out) == {str(root / "a" / "one.md"), str(root / "a" / "deep" / "d.md"), str(root / "z.md")}
    else:
        assert out == ""


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a directory whatever its permission bits")
def test_unreadable_directory_by_permission_bits(capsys, tree):
    root, _ = tree
    (root / "locked").chmod(0)
    try:
        code, _, err = run(capsys, "chunk", str(root), "--format", "jsonl", "--jobs", "1")
    finally:
        (root / "locked").chmod(0o755)
    assert code == 1 and "cannot read this directory" in err


def test_link_leading_outside_is_skipped_and_said(capsys, tree):
    root, secret = tree
    (root / "a" / "pw.md").symlink_to(secret)
    code, out, err = run(capsys, "chunk", str(root), "--format", "jsonl", "--jobs", "1")
    assert code == 0
    assert "secret" not in out and str(root / "a" / "pw.md") not in paths_of(out)
    assert f"steadlith: {root / 'a' / 'pw.md'}: skipped: a symbolic link leading outside {root}" in err
    assert "--follow-links" in err
    code, out, err = run(capsys, "chunk", str(root), "--format", "jsonl", "--jobs", "1", "--follow-links")
    assert code == 0 and str(root / "a" / "pw.md") in paths_of(out) and err == ""


def test_links_inside_are_followed_and_loops_walked_once(capsys, tree):
    root, _ = tree
    (root / "a" / "deep" / "again.md").symlink_to(root / "a" / "one.md")
    (root / "a" / "deep" / "up").symlink_to(root)  # a loop back to the top
    code, out, err = run(capsys, "chunk", str(root), "--format", "jsonl", "--jobs", "1")
    assert code == 0 and err == ""
    lines = [json.loads(line)["path"] for line in out.splitlines()]
    assert str(root / "a" / "deep" / "again.md") in lines
    assert len(lines) == len(set(lines))  # no file twice through the loop


# -- quoted globs: the tool expands them, and names every directory it could not read --------------------------


@pytest.mark.parametrize("which", ["inside", "root"])
def test_a_quoted_glob_names_each_unreadable_directory(capsys, monkeypatch, tree, which):
    root, _ = tree
    locked = root / "locked" if which == "inside" else root
    deny(monkeypatch, locked)
    code, out, err = run(capsys, "chunk", f"{root}/**/*.md", "--format", "jsonl", "--jobs", "1")
    assert code == 1, err
    assert f"steadlith: error: {locked}: cannot read this directory: Permission denied" in err
    if which == "inside":
        assert paths_of(out) == {str(root / "a" / "one.md"), str(root / "a" / "deep" / "d.md"), str(root / "z.md")}
        assert "1 of 4 documents failed, 3 chunked" in err
    else:
        assert out == ""


def test_a_quoted_glob_reads_only_the_directories_it_must_enter(capsys, monkeypatch, tree):
    """`docs/*.md` never lists docs/locked: it cannot match there, so it is no loss."""
    root, _ = tree
    deny(monkeypatch, root / "locked")
    code, out, err = run(capsys, "chunk", f"{root}/*.md", "--format", "jsonl", "--jobs", "1")
    assert code == 0 and err == ""
    assert paths_of(out) == {str(root / "z.md")}
    code, out, err = run(capsys, "chunk", f"{root}/*/*.md", "--format", "jsonl", "--jobs", "1")
    assert code == 1 and f"{root / 'locked'}: cannot read this directory" in err  # this one it must enter


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a directory whatever its permission bits")
def test_a_quoted_glob_with_an_unreadable_directory_by_permission_bits(capsys, tree):
    root, _ = tree
    (root / "locked").chmod(0)
    try:
        code, out, err = run(capsys, "chunk", f"{root}/**/*.md", "--format", "jsonl", "--jobs", "1")
    finally:
        (root / "locked").chmod(0o755)
    assert code == 1 and f"{root / 'locked'}: cannot read this directory" in err
    assert str(root / "z.md") in paths_of(out)


@pytest.mark.parametrize("pattern", ["docs/**/*.md", "docs/*.md", "docs/**", "**/*.md", "docs/*/*.md",
                                     "docs/*/deep/*", "docs/.*/*.md", "docs/b/.*", "*/a/one.md", "docs/[ab]/*.md",
                                     "./docs/**/deep/?.md", "nothing/**/*.md"])
def test_a_quoted_glob_matches_what_glob_matches(tmp_path, monkeypatch, pattern):
    """The shell's rules, as the standard library's glob has them (hidden names only for a
    component starting with a dot, `**` for any number of directories)."""
    import glob

    from steadlith_core.history.fileglob import glob_files

    monkeypatch.chdir(tmp_path)
    for name in ("docs/x.md", "docs/a/one.md", "docs/a/deep/d.md", "docs/a/deep/e.MD", "docs/.hid/h.md",
                 "docs/b/.dot.md", "docs/b/t.txt"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x\n", encoding="utf-8")
    expected = sorted({p for p in glob.glob(pattern, recursive=True) if os.path.isfile(p)})
    assert sorted(set(glob_files(pattern))) == expected
