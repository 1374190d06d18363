"""`PATH@REV` arguments: a file as it was at a revision, wherever a file is accepted.

The rule, in order:
1. An existing file named exactly ARG wins: `notes@v2.md` on disk is that file.
2. Otherwise ARG is split at the LAST `@` whose left side is a path inside a git
   repository (the repository is found from that path's directory, upward, as git
   does); the right side is the revision, in any syntax git accepts (`HEAD~3`, a
   branch, a tag, a hash). An `@` directly followed by `{` belongs to the revision
   (`guide.md@main@{2}`), so reflog syntax works too.
3. Otherwise ARG is not a revision (None): the caller reads it as a plain file, which
   then fails with the usual "no such file".

A split that finds a repository but not the revision, or not the path in it, is an
error (GitError), not a fallback to a file: the user clearly meant a revision.
"""

from __future__ import annotations

import os
from typing import Iterator, Optional

import pygit2

from .git_errors import CorruptObjectError, GitError
from .repository import RevisionRef, open_repository, repo_name, resolve_revision


def _splits(arg: str) -> Iterator[tuple[str, str]]:
    """(left, right) at each `@` not followed by `{`, last first; neither side empty."""
    i = len(arg)
    while True:
        i = arg.rfind("@", 0, i)
        if i <= 0:
            return
        right = arg[i + 1:]
        if right and not right.startswith("{"):
            yield arg[:i], right


def repo_relative(repo: pygit2.Repository, path: str) -> Optional[str]:
    """`path` (absolute or relative to the current directory; it need not exist) relative
    to the repository's working directory with `/` separators, or None when outside it."""
    if repo.workdir is None:
        return None
    root = os.path.realpath(repo.workdir)
    absolute = os.path.abspath(path)
    # the file may be gone from the working tree: resolve its directory, keep its name
    full = os.path.join(os.path.realpath(os.path.dirname(absolute)), os.path.basename(absolute))
    try:
        rel = os.path.relpath(full, root)
    except ValueError:  # another drive on Windows
        return None
    if rel == os.curdir or rel.startswith(os.pardir + os.sep) or rel == os.pardir or os.path.isabs(rel):
        return None
    return rel.replace(os.sep, "/")


def _repository_of(path: str) -> Optional[pygit2.Repository]:
    directory = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(directory):
        return None
    try:
        return open_repository(directory)
    except GitError:
        return None


def parse_revision_arg(arg: str) -> RevisionRef | None:
    """ARG as a file at a revision (see the module's rule), or None when it is not one.
    GitError when it names a repository but an unknown revision or a path not in it."""
    if not arg or os.path.isfile(arg):
        return None
    for left, rev in _splits(arg):
        if os.path.isdir(left):
            continue  # a directory at a revision is REPO@REV:GLOB, the batch form
        repo = _repository_of(left)
        if repo is None:
            continue
        path = repo_relative(repo, left)
        if path is None:
            continue
        try:
            return resolve_revision(repo, path, rev)
        except CorruptObjectError as e:  # still a corrupt-object error, with the argument named
            raise CorruptObjectError(f"{arg}: {e}", repo=repo_name(repo), obj=e.obj) from None
        except GitError as e:
            raise GitError(f"{arg}: {e}", repo=repo_name(repo), path=path, revision=rev) from None
    return None
