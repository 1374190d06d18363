"""Reading documents out of git history, in-process with pygit2 (libgit2).

A blob is read from the object database, never by a `git` process per file, and goes
through the loader's checks (size, NUL byte, UTF-8, BOM): a revision is just another
place a document comes from. Every failure is a GitError whose message names the
repository, the path and the revision, one line each: not a repository, unknown
revision, path not in that revision, a directory, a submodule, a binary or non-UTF-8
blob, a blob over the size limit.

`RevisionRef` is the value the rest of the program passes around (the CLI's PATH@REV,
the window's File → Open revision, a workspace entry): repository, repo-relative path,
full commit id, and what to show.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterable, Iterator, Optional, Union

import pygit2
from pygit2.enums import DeltaStatus

from ..chunking.loader import MAX_DOCUMENT_BYTES, checked_utf8, decode_document, human_bytes, max_document_bytes
from ..chunking.loader import memory_needed, memory_per_input_byte
from ..errors import LoadError, SteadlithError
from .git_errors import CorruptObjectError, GitError, UnreadableCommitError
from .objects import CheckedLooseObjects, check_loose_objects, objects_dir

# git's file modes of tree entries (not all are in pygit2.enums.FileMode)
MODE_TREE = 0o040000
MODE_LINK = 0o120000
MODE_SUBMODULE = 0o160000  # a "gitlink": the entry is a commit of another repository

Repo = Union[str, os.PathLike, pygit2.Repository]


@dataclass(frozen=True)
class RevisionRef:
    """One file at one commit. `repo` is the working directory (or the git directory of
    a bare repository) without a trailing separator; `path` is relative to the
    repository's root with `/` separators; `commit` is the full hex id."""

    repo: str
    path: str
    commit: str
    short: str
    subject: str

    def title(self) -> str:
        """What a window title or a report shows: `path @ short — subject`."""
        return f"{self.path} @ {self.short} — {self.subject}" if self.subject else f"{self.path} @ {self.short}"

    def to_dict(self) -> dict[str, str]:
        """What a workspace stores: repository, path and full commit id."""
        return {"repo": self.repo, "path": self.path, "commit": self.commit}

    @staticmethod
    def from_dict(data: dict) -> "RevisionRef":
        """A stored reference checked against its repository again (it may have moved or
        lost the commit since): GitError when it no longer resolves."""
        try:
            repo, path, commit = data["repo"], data["path"], data["commit"]
        except (KeyError, TypeError):
            raise GitError(f"a revision needs repo, path and commit, got {data!r}"[:300]) from None
        if not all(isinstance(x, str) for x in (repo, path, commit)):
            raise GitError("a revision's repo, path and commit are strings")
        return resolve_revision(repo, path, commit)


@dataclass(frozen=True)
class CommitInfo:
    """A commit that changed a file, as file_log lists it. `path` is the file's path at
    that commit (it differs from the path asked for when the file was renamed later);
    `parent` is the first parent (None for a root commit); `when` is the commit time in
    seconds since the epoch; `parent_path` is the file's path in the first parent (the
    old name when this commit renamed it), None when this commit added it."""

    commit: str
    short: str
    subject: str
    author: str
    when: int
    parent: Optional[str]
    path: str
    parent_path: Optional[str] = None


# -- repositories and revisions ------------------------------------------------------------


def open_repository(path: Repo) -> pygit2.Repository:
    """The repository holding `path` (a file or a directory; searched upward, as git
    does). An already open Repository is returned as is. Its loose objects are read by
    a checking reader (objects.CheckedLooseObjects), so a damaged one is an error naming it."""
    if isinstance(path, pygit2.Repository):
        return path
    where = os.fspath(path)
    start = where if os.path.isdir(where) else os.path.dirname(os.path.abspath(where))
    try:
        found = pygit2.discover_repository(start or ".")
    except (pygit2.GitError, OSError, ValueError):
        found = None
    if found is None:
        raise GitError(f"{where}: not a git repository (nor inside one)", repo=where)
    try:
        repo = pygit2.Repository(found)
    except (pygit2.GitError, OSError) as e:
        raise GitError(f"{where}: cannot open the git repository: {e}", repo=where) from None
    try:
        check_loose_objects(repo, repo_name(repo))
    except (pygit2.GitError, OSError) as e:
        raise GitError(f"{where}: cannot open the git repository's objects: {e}", repo=where) from None
    return repo


def repo_name(repo: pygit2.Repository) -> str:
    """The repository as RevisionRef.repo holds it: its working directory, else its git dir."""
    return (repo.workdir or repo.path).rstrip("/\\") or "/"


def resolve_commit(repo: Repo, rev: str) -> pygit2.Commit:
    """The commit `rev` names (any rev-parse syntax: hash, branch, tag, `HEAD~3`);
    an annotated tag is followed to its commit."""
    r = open_repository(repo)
    if not isinstance(rev, str) or not rev.strip():
        raise GitError(f"{repo_name(r)}: empty revision: name a commit, branch or tag", repo=repo_name(r))
    try:
        obj = r.revparse_single(rev)
        return obj.peel(pygit2.Commit)
    except CorruptObjectError:
        raise
    except (KeyError, ValueError):  # NotFoundError, InvalidSpecError: the revision names nothing
        raise GitError(f"{repo_name(r)}: unknown revision {rev!r}", repo=repo_name(r), revision=rev) from None
    except pygit2.GitError as e:  # anything else is the object database failing (a damaged pack)
        raise damaged(r, rev, e) from None


def damaged(repo: pygit2.Repository, rev: str, error: BaseException) -> CorruptObjectError:
    """The error for a revision libgit2 could not read (not an unknown one): it names the
    first commit on the revision's first-parent line that cannot be read, when one can be
    found (libgit2's messages about a damaged pack do not say which object)."""
    name = repo_name(repo)
    bad = _first_unreadable_commit(repo, rev)
    what = f"object {bad} is corrupt" if bad else "the object database is corrupt"
    return CorruptObjectError(f"{name}: cannot read {rev!r}: {what} ({error}); git fsck lists the damage",
                              repo=name, obj=bad)


def _first_unreadable_commit(repo: pygit2.Repository, rev: str, limit: int = 100_000) -> Optional[str]:
    """The first commit from `rev`'s starting reference (HEAD, a branch, a tag, a hash)
    back along first parents whose object cannot be read, read one by one from the
    object database; None when none is found."""
    base = rev
    for mark in "~^@:":
        base = base.split(mark, 1)[0]
    oid: Optional[pygit2.Oid] = None
    try:
        oid = repo.lookup_reference_dwim(base or "HEAD").resolve().target
    except (KeyError, ValueError, pygit2.GitError):
        try:
            oid = pygit2.Oid(hex=base) if len(base) == 40 else None
        except ValueError:
            oid = None
    for _ in range(limit):
        if oid is None:
            return None
        try:
            kind, data = repo.odb.read(oid)[:2]
        except KeyError:
            return None
        except (pygit2.GitError, SteadlithError):
            return str(oid)
        if kind != pygit2.enums.ObjectType.COMMIT:
            return None
        header = bytes(data).split(b"\n\n", 1)[0]
        parents = [line[7:].decode("ascii", "replace") for line in header.split(b"\n") if line.startswith(b"parent ")]
        oid = pygit2.Oid(hex=parents[0]) if parents else None
    return None


def normalize_repo_path(path: str) -> str:
    """A repo-relative path as git stores it: `/` separators, no `./`, no leading `/`."""
    parts = [p for p in path.replace("\\", "/").split("/") if p not in ("", ".")]
    return "/".join(parts)


def subject_of(commit: pygit2.Commit) -> str:
    """The first line of a commit message (what `git log --oneline` shows)."""
    message = commit.message or ""
    return message.strip().splitlines()[0].strip() if message.strip() else ""


def resolve_revision(repo: Repo, path: str, rev: str = "HEAD") -> RevisionRef:
    """`path` (relative to the repository's root) at revision `rev`, checked to be a
    file there. GitError when the revision is unknown or the path is not a file in it."""
    r = open_repository(repo)
    commit = resolve_commit(r, rev)
    path = normalize_repo_path(path)
    _entry(r, commit, path, rev)
    return ref_of(r, commit, path)


def ref_of(repo: pygit2.Repository, commit: pygit2.Commit, path: str) -> RevisionRef:
    return RevisionRef(repo_name(repo), path, str(commit.id), commit.short_id, subject_of(commit))


def _entry(repo: pygit2.Repository, commit: pygit2.Commit, path: str, rev: str | None = None) -> pygit2.Object:
    """The tree entry of a file at a commit, or a GitError saying why it is not one."""
    where = f"{path or '(repository root)'} @ {rev or commit.short_id}"
    name = repo_name(repo)
    if not path:
        raise GitError(f"{name}: {where}: name a file in the repository", repo=name, path=path, revision=rev)
    try:
        entry = commit.tree[path]
    except CorruptObjectError:
        raise
    except pygit2.GitError as e:  # a damaged pack holding the tree (NotFoundError is a KeyError: caught below)
        if isinstance(e, KeyError):
            raise GitError(f"{name}: {where}: no such path in that revision", repo=name, path=path,
                           revision=rev or str(commit.id)) from None
        raise CorruptObjectError(f"{name}: {where}: the tree of commit {commit.id} cannot be read, it is corrupt "
                                 f"({e}); git fsck lists the damage", repo=name, obj=str(commit.tree_id)) from None
    except KeyError:
        raise GitError(f"{name}: {where}: no such path in that revision", repo=name, path=path,
                       revision=rev or str(commit.id)) from None
    if entry.filemode == MODE_SUBMODULE:
        raise GitError(f"{name}: {where}: is a submodule (a commit of another repository), not a file", repo=name,
                       path=path, revision=rev)
    if entry.filemode == MODE_TREE:
        raise GitError(f"{name}: {where}: is a directory, not a file", repo=name, path=path, revision=rev)
    if entry.filemode == MODE_LINK:
        raise GitError(f"{name}: {where}: is a symbolic link, not a file", repo=name, path=path, revision=rev)
    return entry


# -- reading blobs ---------------------------------------------------------------------------


def decode_blob(blob: pygit2.Blob, origin: str, utf8: bool = False, command: str | None = None,
                rules: Iterable[str] = ()) -> str | bytes:
    """A blob's text under the loader's rules; LoadError (origin named) otherwise.
    `utf8`: its checked UTF-8 bytes instead (loader.checked_utf8), never a str.
    `command` (with the `rules` it runs) holds the blob to that command's own figure
    (loader.max_document_bytes: for audit, per byte of a change's two versions) instead
    of the costliest command's (MAX_DOCUMENT_BYTES), what a caller that names none gets."""
    limit = MAX_DOCUMENT_BYTES if command is None else max_document_bytes(command, rules)
    if blob.size > limit:
        per_byte = None if command is None else memory_per_input_byte(command, rules)
        raise LoadError(origin, f"too large: over {human_bytes(limit)}, the limit (chunking it would "
                                f"need over {human_bytes(memory_needed(limit, per_byte))} of memory)")
    return (checked_utf8 if utf8 else decode_document)(blob.data, origin)


def read_text_at(ref: RevisionRef, repo: pygit2.Repository | None = None, utf8: bool = False) -> str | bytes:
    """The text of `ref` (loader rules: UTF-8, one BOM stripped, size limit). GitError
    naming repository, path and revision for a missing path, a directory, a submodule,
    a binary or non-UTF-8 blob. `repo` saves re-opening when the caller has it open.
    `utf8`: the checked UTF-8 bytes (decode_blob), for a command that chunks them."""
    r = repo if repo is not None else open_repository(ref.repo)
    try:
        commit = r[ref.commit].peel(pygit2.Commit)
    except CorruptObjectError:
        raise
    except (KeyError, ValueError):
        raise GitError(f"{ref.repo}: unknown revision {ref.commit!r}", repo=ref.repo, revision=ref.commit) from None
    except pygit2.GitError as e:
        raise damaged(r, ref.commit, e) from None
    entry = _entry(r, commit, ref.path, ref.short)
    try:
        return decode_blob(r[entry.id], f"{ref.path} @ {ref.short}", utf8)
    except CorruptObjectError:
        raise
    except pygit2.GitError as e:
        raise CorruptObjectError(f"{ref.repo}: {ref.path} @ {ref.short}: object {entry.id} cannot be read, it is "
                                 f"corrupt ({e}); git fsck lists the damage", repo=ref.repo, obj=str(entry.id)) from None
    except LoadError as e:
        raise GitError(f"{ref.repo}: {e}", repo=ref.repo, path=ref.path, revision=ref.commit) from None


def blob_size(ref: RevisionRef, repo: pygit2.Repository | None = None) -> Optional[int]:
    """The size in bytes of `ref`'s blob, None when it cannot be read."""
    try:
        r = repo if repo is not None else open_repository(ref.repo)
        entry = _entry(r, r[ref.commit].peel(pygit2.Commit), ref.path, ref.short)
        if hasattr(r.odb, "read_header"):
            return int(r.odb.read_header(entry.id)[1])  # the header alone: the blob is not read
        # pygit2 before 1.15 has no Odb.read_header; a loose blob's header is read here,
        # a packed one's size is left unknown rather than read whole.
        loose = CheckedLooseObjects(objects_dir(r), repo_name(r))
        return loose.header(str(entry.id))[1]
    except (KeyError, ValueError, pygit2.GitError, SteadlithError):
        return None


# -- history -----------------------------------------------------------------------------------


def first_parent_walk(repo: pygit2.Repository, head: pygit2.Commit,
                      hide: pygit2.Commit | None = None) -> Iterator[pygit2.Commit]:
    """`head` and its first parents, newest first (a merge's side branch is not entered),
    stopping before `hide` and whatever it can reach. A commit that cannot be read
    raises UnreadableCommitError naming it, after the commits newer than it (its
    ancestors are out of reach).

    Each first parent is read here, not by libgit2's revision walker: pygit2 releases
    the GIL around the walker's step, and the loose objects are read by Python code
    (objects.CheckedLooseObjects), which must hold it."""
    name = repo_name(repo)
    commit: pygit2.Commit | None = head
    while commit is not None:
        if hide is not None and (commit.id == hide.id or _reaches(repo, hide, commit)):
            return
        yield commit
        if not commit.parent_ids:
            return
        parent = commit.parent_ids[0]
        try:
            commit = repo[parent].peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError, SteadlithError) as e:
            why = f"{e}" if isinstance(e, SteadlithError) else f"object {parent} is corrupt ({e})"
            raise UnreadableCommitError(f"{name}: cannot read commit {parent}, the first parent of "
                                        f"{commit.short_id}: {why.removeprefix(name + ': ')}", repo=name,
                                        commit=str(parent)) from None


def _reaches(repo: pygit2.Repository, hide: pygit2.Commit, commit: pygit2.Commit) -> bool:
    try:
        return repo.descendant_of(hide.id, commit.id)
    except (pygit2.GitError, SteadlithError):
        return False


def path_before(repo: pygit2.Repository, commit: pygit2.Commit, path: str) -> tuple[Optional[str], bool]:
    """Where the file at `path` in `commit` was in its first parent: (old path, changed).

    (path, False) when the parent has the same blob; (old path, True) when it changed or
    was renamed there (renames found by content similarity, as `git log --follow` does);
    (None, True) when the commit added it."""
    blob_id = commit.tree[path].id
    if not commit.parents:
        return None, True
    parent = commit.parents[0]
    try:
        before = parent.tree[path]
    except KeyError:
        before = None
    if before is not None:
        return path, before.id != blob_id
    diff = repo.diff(parent.tree, commit.tree)
    diff.find_similar()
    for delta in diff.deltas:
        if delta.status == DeltaStatus.RENAMED and delta.new_file.path == path:
            return delta.old_file.path, True
    return None, True


def commit_info(commit: pygit2.Commit, path: str, parent_path: Optional[str] = None) -> CommitInfo:
    return CommitInfo(str(commit.id), commit.short_id, subject_of(commit), commit.author.name, int(commit.commit_time),
                      str(commit.parent_ids[0]) if commit.parent_ids else None, path, parent_path)


def parent_ref(repo: Repo, info: CommitInfo) -> Optional[RevisionRef]:
    """The file as it was just before `info`'s commit (its first parent, under its old
    name if the commit renamed it): the "A" of that commit's change. None when the
    commit added the file."""
    if info.parent is None or info.parent_path is None:
        return None
    return resolve_revision(repo, info.parent_path, info.parent)


def file_log(repo: Repo, path: str, max_commits: int | None = None, rev: str = "HEAD") -> list[CommitInfo]:
    """The first-parent commits up to `rev` that changed the file at `path` (relative to
    the repository's root), newest first, renames followed back to where the file was
    added. At most `max_commits` (all when None)."""
    r = open_repository(repo)
    head = resolve_commit(r, rev)
    path = normalize_repo_path(path)
    _entry(r, head, path, rev)
    out: list[CommitInfo] = []
    current: Optional[str] = path
    for commit in first_parent_walk(r, head):
        if current is None or (max_commits is not None and len(out) >= max_commits):
            break
        try:
            commit.tree[current]
        except KeyError:  # not there: a later commit added it under this name
            break
        before, changed = path_before(r, commit, current)
        if changed:
            out.append(commit_info(commit, current, before))
        current = before
    return out
