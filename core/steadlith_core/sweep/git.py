"""A repository's history as sweep sources: one per file, the commits that changed it.

One walk over the first-parent commits the audit would replay (each commit diffed once
against its first parent, renames found the same way), so planning a sweep of 100,000
commits costs one diff per commit, not one log per file. A file renamed keeps one
history under its newest name; a deleted file's history ends at its last edit (its
deletion costs nothing to embed); a file added again later starts a new one.

The sources name the repository by the path given here: a Dask worker must see the
same repository at that path (a shared file system, or a clone at the same place).
"""

from __future__ import annotations

import os
from typing import Sequence

from pygit2.enums import DeltaStatus, DiffFind

from ..history.audit import select_commits
from ..history.pathglob import DEFAULT_PATHS
from ..history.pathglob import path_matcher
from ..history.repository import MODE_LINK, MODE_SUBMODULE, MODE_TREE, open_repository
from .tasks import RepoFileSource

_NOT_FILES = (MODE_LINK, MODE_SUBMODULE, MODE_TREE)


def repo_sources(repo: str, paths: Sequence[str] = DEFAULT_PATHS, revs: str | None = None,
                 max_commits: int | None = None) -> tuple[RepoFileSource, ...]:
    """The file histories of `repo` to sweep: files matching `paths` changed by the
    commits `audit` replays for `revs` / `max_commits`, sorted by path."""
    r = open_repository(repo)
    where = os.path.abspath(r.workdir or r.path)
    matches = path_matcher(paths)
    live: dict[str, list[str]] = {}
    ended: list[tuple[str, list[str]]] = []
    for commit in select_commits(r, revs, max_commits):
        cid = str(commit.id)
        diff = r.diff(commit.parents[0].tree, commit.tree) if commit.parents else commit.tree.diff_to_tree(swap=True)
        statuses = {d.status for d in diff.deltas}
        if DeltaStatus.ADDED in statuses and DeltaStatus.DELETED in statuses:
            diff.find_similar(DiffFind.FIND_RENAMES)
        for delta in diff.deltas:
            old, new = delta.old_file.path, delta.new_file.path
            if not (matches(old) or matches(new)):
                continue
            if delta.status == DeltaStatus.DELETED:
                if live.get(old):
                    ended.append((old, live.pop(old)))
                continue
            if delta.new_file.mode in _NOT_FILES:
                continue
            if delta.status == DeltaStatus.RENAMED:
                history = live.pop(old, [])
            elif delta.status == DeltaStatus.ADDED:
                if live.get(new):
                    ended.append((new, live.pop(new)))
                history = []
            else:
                history = live.pop(new, [])
            live[new] = history + [cid]
    files = ended + list(live.items())
    return tuple(RepoFileSource(where, path, tuple(commits)) for path, commits in sorted(files) if commits)
