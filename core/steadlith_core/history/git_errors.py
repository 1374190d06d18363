"""The errors of reading git history: each names the repository, and the path, revision
or object when there are some (one line each, as the command prints them)."""

from __future__ import annotations

from ..errors import SteadlithError, visible


class GitError(SteadlithError):
    """Reading from a git repository failed: the message names the repository, and the
    path and revision when there are some."""

    def __init__(self, message: str, *, repo: str | None = None, path: str | None = None,
                 revision: str | None = None):
        self.repo, self.path, self.revision = repo, path, revision
        super().__init__(visible(message))


class CorruptObjectError(GitError):
    """An object of the repository cannot be read: its file or its pack is damaged.
    `obj` is its full id when known."""

    def __init__(self, message: str, *, repo: str | None = None, obj: str | None = None):
        self.obj = obj
        super().__init__(message, repo=repo)


class UnreadableCommitError(CorruptObjectError):
    """A history walk reached a commit it cannot read: the commits before it (its
    ancestors) are out of reach. `commit` is its full id."""

    def __init__(self, message: str, *, repo: str | None = None, commit: str | None = None):
        self.commit = commit
        super().__init__(message, repo=repo, obj=commit)
