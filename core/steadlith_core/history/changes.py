"""One file's changes along commits, as a replay compares them: for each commit that
changed the file, its text before (when there is an embeddable one) and after, renames
followed back (`file_versions`, `read_change`). The audit compares each change under
every rule; a sweep hands the texts to chunkers that are not rules (its external rows).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Callable, Iterator, Optional, Sequence

import pygit2

from ..errors import LoadError
from ..progress import Progress, report
from .audit_costs import ADDED, MODIFIED, RENAMED, Skipped
from .repository import (MODE_LINK, MODE_SUBMODULE, MODE_TREE, Repo, decode_blob, open_repository, path_before,
                         resolve_commit)


def kind_problem(mode: int) -> str | None:
    if mode == MODE_SUBMODULE:
        return "a submodule (a commit of another repository), not a file"
    if mode == MODE_LINK:
        return "a symbolic link, not a file"
    if mode == MODE_TREE:
        return "a directory"
    return None


# -- entry points --------------------------------------------------------------------------------


@dataclass(frozen=True)
class FileVersion:
    """One commit's change of one file, as a replay compares it: the text before (None
    when there is no embeddable one: the commit added the file, or its previous version
    is binary or not UTF-8) and the text after. status is added, modified or renamed;
    old_path the path in the first parent (None without an old text). The blob ids let
    a caller cache what it computes per version (the "after" of one change is the
    "before" of the next)."""

    commit: str
    short: str
    status: str
    path: str
    old_path: Optional[str]
    old_text: Optional[str]
    new_text: str
    old_blob: Optional[pygit2.Oid] = field(default=None, compare=False, repr=False)
    new_blob: Optional[pygit2.Oid] = field(default=None, compare=False, repr=False)


def file_versions(repo: Repo, path: str, commits: Sequence[str], progress: Progress | None = None, *,
                  read: Callable[[pygit2.Oid, str], str] | None = None) -> Iterator[FileVersion]:
    """The changes of the one file whose path at the newest of `commits` (oldest first;
    ids or any revision) is `path`, oldest first: one FileVersion per commit that changed
    it. Renames at those commits are followed back (give the commits as file_log lists
    them, reversed). A commit that did not change the file yields nothing; nor does one
    where it is a symbolic link, a submodule, or a binary, non-UTF-8 or over-large blob.

    The commits are resolved here (an unknown one raises now); the blobs are read as the
    iterator is consumed, `progress(done, total)` per commit, and `Cancelled` from it
    propagates. `read(blob id, origin)` gives a blob's text or raises LoadError (default:
    decode it, by the loader's rules); replay_file passes its cached reader."""
    r = open_repository(repo)
    resolved = [resolve_commit(r, c) for c in commits]
    plan: list[tuple[pygit2.Commit, str, Optional[str], bool]] = []
    current: Optional[str] = path.replace("\\", "/").strip("/")
    for commit in reversed(resolved):  # newest first, so a rename maps the path back
        if current is None:
            break
        try:
            commit.tree[current]
        except KeyError:
            continue
        before, changed = path_before(r, commit, current)
        plan.append((commit, current, before, changed))
        current = before
    plan.reverse()
    return _walk_versions(plan, read if read is not None else _RecentBlobs(r).read, progress)


class _RecentBlobs:
    """A blob reader remembering the last few texts it read (or why it could not): one
    change's "after" is the next change's "before", so each version is read and
    decoded once, not twice."""

    def __init__(self, repo: pygit2.Repository, size: int = 4):
        self.repo, self.size = repo, size
        self._texts: OrderedDict[pygit2.Oid, str | LoadError] = OrderedDict()

    def read(self, blob_id: pygit2.Oid, origin: str) -> str:
        text = self._texts.get(blob_id)
        if text is None:
            try:
                text = decode_blob(self.repo[blob_id], origin)
            except LoadError as e:
                text = e
            self._texts[blob_id] = text
            if len(self._texts) > self.size:
                self._texts.popitem(last=False)
        if isinstance(text, LoadError):
            raise text
        return text


def _walk_versions(plan, read: Callable[[pygit2.Oid, str], str], progress: Progress | None) -> Iterator[FileVersion]:
    report(progress, 0, len(plan))
    for n, (commit, new_path, old_path, changed) in enumerate(plan, 1):
        if changed:
            version = _version_at(commit, new_path, old_path, read)
            if version is not None:
                yield version
        report(progress, n, len(plan))


def _version_at(commit: pygit2.Commit, new_path: str, old_path: Optional[str],
                read: Callable[[pygit2.Oid, str], str]) -> Optional[FileVersion]:
    new_entry = commit.tree[new_path]
    if kind_problem(new_entry.filemode) is not None:
        return None
    old_id = commit.parents[0].tree[old_path].id if old_path is not None else None
    version, _ = read_change(str(commit.id), commit.short_id, new_path, new_entry.id, old_path, old_id, read)
    return version


def read_change(commit: str, short: str, new_path: str, new_id: pygit2.Oid, old_path: Optional[str],
                old_id: Optional[pygit2.Oid], read: Callable[[pygit2.Oid, str], str]
                ) -> tuple[Optional[FileVersion], tuple[Skipped, ...]]:
    """The texts of one changed file (`old_id` None: it has no version before), and
    what could not be read: None and why, when the new version is not text; when only
    the old one is not, the change counts as an addition (nothing of the old version
    was embeddable), and why is said too. The status is modified, renamed or added."""
    try:
        new_text = read(new_id, f"{new_path} @ {short}")
    except LoadError as e:
        return None, (Skipped(commit, new_path, e.reason),)
    if old_id is not None:
        try:
            old_text = read(old_id, f"{old_path} @ {short}^")
        except LoadError as e:
            return (FileVersion(commit, short, ADDED, new_path, None, None, new_text, None, new_id),
                    (Skipped(commit, old_path or new_path, f"previous version: {e.reason}; counted as added"),))
        status = RENAMED if old_path != new_path else MODIFIED
        return FileVersion(commit, short, status, new_path, old_path, old_text, new_text, old_id, new_id), ()
    return FileVersion(commit, short, ADDED, new_path, None, None, new_text, None, new_id), ()
