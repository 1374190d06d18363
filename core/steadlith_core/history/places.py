"""Where opening a repository reads from, found before it is opened: a trust decision
about a repository (is it inside a workspace's folder?) must look at the directories git
really reads, not at the path a file names.

A work tree's `.git` may be a file (`gitdir: /elsewhere`, as a linked worktree or a
submodule has), a linked worktree's git directory names the main one in `commondir`,
and an object store can borrow objects from others listed in `objects/info/alternates`
(relative to the object store, and those can list more). Each of these can lead
outside a folder that the repository's path lies in. Discovery searches upward, as
open_repository does, so a path that is no repository itself is judged by the one
holding it. Only small text files are read here (no object, no config), and every path
comes back resolved (symbolic links followed).
"""

from __future__ import annotations

import os

import pygit2

#: How deep alternates are followed from one object store to another (git's own limit).
MAX_ALTERNATE_DEPTH = 5
#: The most bytes of a `.git`, `commondir` or `alternates` file read: they hold paths.
_MAX_POINTER_BYTES = 64 * 1024


def _read_small(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            return f.read(_MAX_POINTER_BYTES).decode("utf-8", "surrogateescape")
    except OSError:
        return None


def common_dir(git_dir: str) -> str:
    """The git directory holding the objects and refs a linked worktree's own git
    directory shares with the main one (its `commondir` file), else `git_dir` itself."""
    pointer = _read_small(os.path.join(git_dir, "commondir"))
    if pointer and pointer.strip():
        return os.path.realpath(os.path.join(git_dir, pointer.strip()))
    return git_dir


def _alternates(objects: str) -> list[str]:
    """The object stores `objects` borrows from, as its alternates file lists them (one
    a line; `#` comments; relative to `objects`; a C-quoted path's quotes dropped)."""
    text = _read_small(os.path.join(objects, "info", "alternates"))
    out = []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if len(line) >= 2 and line[0] == line[-1] == '"':
            line = line[1:-1].encode("utf-8", "surrogateescape").decode("unicode_escape", "replace")
        out.append(os.path.realpath(os.path.join(objects, line)))
    return out


def repository_places(path: str | os.PathLike) -> list[str]:
    """The real directories opening the repository that holds `path` reads: where the
    search started (its work tree, or `path` itself), the git directory (after a
    `gitdir:` file), its common directory, and every object store reached through
    alternates. Just the real `path` when no repository holds it (opening it fails
    later, with its own message)."""
    where = os.fspath(path)
    start = where if os.path.isdir(where) else os.path.dirname(os.path.abspath(where))
    places = [os.path.realpath(where)]
    try:
        found = pygit2.discover_repository(start or ".")
    except (pygit2.GitError, OSError, ValueError):
        found = None
    if found is None:
        return places
    git_dir = os.path.realpath(found)
    places.append(git_dir)
    common = common_dir(git_dir)
    if common != git_dir:
        places.append(common)
    stores = [os.path.join(common, "objects")]
    seen: set[str] = set()
    for _ in range(MAX_ALTERNATE_DEPTH + 1):
        borrowed = []
        for store in stores:
            real = os.path.realpath(store)
            if real in seen:
                continue
            seen.add(real)
            places.append(real)
            borrowed += _alternates(real)
        stores = borrowed
    places += [os.path.realpath(s) for s in stores if os.path.realpath(s) not in seen]
    return list(dict.fromkeys(places))
