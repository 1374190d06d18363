"""Batch chunking for indexing pipelines: many files, one process pool, JSON Lines out.

`expand_inputs` turns what a user typed into documents: files, directories (every file
below, hidden ones left out; an unreadable directory is an error, a link leading out of
the directory is skipped unless asked for), quoted globs (`'docs/**/*.md'`; a directory
the glob must enter but cannot read is an error too), `PATH@REV`, and
`REPO@REV:GLOB` (the blobs of a commit whose path below REPO matches GLOB, read from the
object database). `chunk_batch` chunks them on a pool of `jobs` worker processes, each
taking groups of documents (a process per file would pay the interpreter's start-up
per file), and yields one `Outcome` per document in input order: its JSON Lines, or the
one-line reason it failed. A failed document never stops the others.
"""

from __future__ import annotations

import json
import os
import signal
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Iterator, Optional, Sequence

import pygit2

from ..chunking.chunks import AnyParams, Chunking
from ..chunking.loader import load_text
from ..chunking.pipeline import Pipeline
from ..errors import LoadError, SteadlithError
from ..kernel import threads as numpy_threads
from ..progress import Progress, report
from ..report.export import chunk_record
from .fileglob import glob_files, has_magic
from .pathglob import path_matcher
from .git_errors import CorruptObjectError, GitError
from .repository import MODE_TREE, decode_blob, open_repository, repo_name, resolve_commit
from .revisions import parse_revision_arg, repo_relative


@dataclass(frozen=True)
class Document:
    """One document of a batch: a file on disk (`repo` None), or a blob of a commit.
    `path` is what the JSON Lines carry (the path as given or found on disk; for a
    revision, the path relative to the repository's root)."""

    path: str
    repo: Optional[str] = None
    commit: Optional[str] = None
    blob: Optional[str] = None

    @property
    def name(self) -> str:
        return f"{self.path} @ {self.commit[:7]}" if self.commit else self.path


@dataclass(frozen=True)
class Outcome:
    """A document chunked (`jsonl` holds its chunk lines, `chunks`/`tokens`/`words` its
    counts) or not (`error` says why, in one line)."""

    document: Document
    jsonl: str = ""
    error: Optional[str] = None
    chunks: int = 0
    tokens: int = 0
    words: int = 0


# -- what the arguments name ---------------------------------------------------------------


def _splits(arg: str) -> Iterator[tuple[str, str]]:
    i = len(arg)
    while (i := arg.rfind("@", 0, i)) > 0:
        if not arg.startswith("@{", i):
            yield arg[:i], arg[i + 1:]


def parse_tree_glob(arg: str) -> Optional[tuple[pygit2.Repository, str, pygit2.Commit, str]]:
    """`REPO@REV:GLOB` as (repository, REPO's path below its root, commit, glob), or None.
    REPO is a directory inside a repository; GLOB is matched below it."""
    if os.path.exists(arg):
        return None
    for left, rest in _splits(arg):
        rev, colon, pattern = rest.partition(":")
        if not colon or not rev or not os.path.isdir(left):
            continue
        try:
            repo = open_repository(left)
        except GitError:
            continue
        below = repo_relative(repo, left)
        if below is None and os.path.realpath(left) != os.path.realpath(repo.workdir or ""):
            continue
        commit = resolve_commit(repo, rev)
        return repo, ("" if below in (None, ".") else below), commit, pattern or "**"
    return None


def _blobs_below(repo: pygit2.Repository, tree: pygit2.Tree, prefix: str) -> Iterator[tuple[str, str]]:
    """(path, blob id) of every regular file below `tree`, depth first, in tree order."""
    for entry in tree:
        path = f"{prefix}{entry.name}"
        if entry.filemode == MODE_TREE:
            yield from _blobs_below(repo, repo[entry.id], path + "/")
        elif entry.type_str == "blob" and entry.filemode in (0o100644, 0o100755):
            yield path, str(entry.id)


def _tree_documents(repo: pygit2.Repository, below: str, commit: pygit2.Commit, pattern: str) -> list[Document]:
    tree = commit.tree
    if below:
        try:
            tree = repo[commit.tree[below].id]
        except KeyError:
            raise GitError(f"{repo_name(repo)}: {below} @ {commit.short_id}: no such directory in that revision",
                           repo=repo_name(repo), path=below, revision=str(commit.id)) from None
    matches = path_matcher([pattern])
    prefix = f"{below}/" if below else ""
    return [Document(prefix + rel, repo_name(repo), str(commit.id), blob)
            for rel, blob in _blobs_below(repo, tree, "") if matches(rel)]


def _inside(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _directory_files(root: str, follow_links: bool = False, problems: list[SteadlithError] | None = None,
                     notices: list[str] | None = None) -> list[str]:
    """Every file below `root` (hidden ones left out), each directory's files before its
    subdirectories, in name order. Nothing is left out silently: a directory that cannot
    be read is a LoadError added to `problems`; a symbolic link leading outside `root`
    is followed only with `follow_links`, else skipped with a line in `notices` (a link
    inside it is followed; a directory reached twice, as through a link back up, is
    walked once)."""
    problems = [] if problems is None else problems
    notices = [] if notices is None else notices
    real_root = os.path.realpath(root)
    out: list[str] = []
    seen: set[str] = set()
    stack = [root]
    while stack:
        directory = stack.pop()
        real = os.path.realpath(directory)
        if real in seen:
            continue
        seen.add(real)
        try:
            with os.scandir(directory) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as e:
            problems.append(LoadError(directory, f"cannot read this directory: {e.strerror or e}; its files are "
                                                 "not in the output"))
            continue
        files, subdirs = [], []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = os.path.join(directory, entry.name)
            try:
                if entry.is_symlink() and not follow_links:
                    target = os.path.realpath(path)
                    if not _inside(target, real_root):
                        notices.append(f"{path}: skipped: a symbolic link leading outside {root} (to {target}); "
                                       "--follow-links follows it")
                        continue
                (subdirs if entry.is_dir() else files).append(path)
            except OSError as e:
                problems.append(LoadError(path, f"cannot read: {e.strerror or e}"))
        out.extend(files)
        stack.extend(reversed(subdirs))
    return out


def expand_inputs(args: Sequence[str], follow_links: bool = False,
                  notices: list[str] | None = None) -> tuple[list[Document], list[Outcome]]:
    """The documents `args` name, in order, and an Outcome with an error for each
    argument that names none (a glob matching nothing, an unknown revision…) and for
    each directory of a walked tree that cannot be read. Symbolic links leading out of
    a walked directory are skipped unless `follow_links`, each said in `notices`."""
    docs: list[Document] = []
    failed: list[Outcome] = []
    for arg in args:
        problems: list[SteadlithError] = []
        try:
            docs.extend(_expand(arg, follow_links, problems, notices))
        except SteadlithError as e:
            failed.append(Outcome(Document(arg), error=str(e)))
        failed.extend(Outcome(Document(str(getattr(p, "path", arg))), error=str(p)) for p in problems)
    return docs, failed


def _expand(arg: str, follow_links: bool = False, problems: list[SteadlithError] | None = None,
            notices: list[str] | None = None) -> list[Document]:
    if os.path.isfile(arg):
        return [Document(arg)]
    if os.path.isdir(arg):
        return [Document(p) for p in _directory_files(arg, follow_links, problems, notices)]
    tree = parse_tree_glob(arg)
    if tree is not None:
        found = _tree_documents(*tree)
        if not found:
            raise GitError(f"{arg}: no file of that revision matches", repo=repo_name(tree[0]))
        return found
    ref = parse_revision_arg(arg)
    if ref is not None:
        repo = open_repository(ref.repo)
        return [Document(ref.path, ref.repo, ref.commit, str(repo[ref.commit].peel(pygit2.Commit).tree[ref.path].id))]
    if has_magic(arg):
        found: set[str] = set()
        unreadable = False
        for match in glob_files(arg):  # a directory it cannot read is named, never skipped silently
            if isinstance(match, LoadError):
                unreadable = True
                if problems is not None:
                    problems.append(match)
            else:
                found.add(match)
        if not found and not unreadable:
            raise LoadError(arg, "no file matches this pattern")
        return [Document(p) for p in sorted(found)]
    return [Document(arg)]  # missing: reading it says so


# -- chunking ------------------------------------------------------------------------------------


def chunk_lines(result: Chunking, doc: Document) -> str:
    """The chunks as JSON Lines, each carrying its document: `path` first, then `commit`
    for a revision, then the fields of `steadlith chunk --format jsonl` (chunk record,
    canonical `text`, `params_hash`)."""
    head = {"path": doc.path}
    if doc.commit:
        head["commit"] = doc.commit
    lines = []
    for c in result.chunks:
        record = {**head, **chunk_record(c), "text": c.text, "params_hash": result.params_hash}
        lines.append(json.dumps(record, ensure_ascii=False) + "\n")
    return "".join(lines)


class _Worker:
    """A process's chunker: one pipeline, and the repositories it has opened."""

    pipeline: Optional[Pipeline] = None
    repos: dict[str, pygit2.Repository] = {}

    @classmethod
    def text(cls, doc: Document) -> str:
        if doc.repo is None:
            return load_text(doc.path)
        repo = cls.repos.get(doc.repo)
        if repo is None:
            repo = cls.repos[doc.repo] = open_repository(doc.repo)
        try:
            return decode_blob(repo[doc.blob], doc.name)
        except CorruptObjectError:
            raise
        except (KeyError, ValueError, pygit2.GitError) as e:  # a damaged pack: libgit2 does not name the object
            raise CorruptObjectError(f"{doc.repo}: {doc.name}: object {doc.blob} cannot be read, it is corrupt ({e}); "
                                     "git fsck lists the damage", repo=doc.repo, obj=doc.blob) from None
        except LoadError as e:
            raise GitError(f"{doc.repo}: {e}", repo=doc.repo, path=doc.path, revision=doc.commit) from None

    @classmethod
    def run(cls, doc: Document, params: AnyParams) -> Outcome:
        if cls.pipeline is None:
            cls.pipeline = Pipeline(2)
        try:
            result = cls.pipeline.chunk(cls.text(doc), params)
        except SteadlithError as e:
            return Outcome(doc, error=str(e))
        except MemoryError:
            return Outcome(doc, error=f"{doc.name}: out of memory chunking it")
        return Outcome(doc, chunk_lines(result, doc), None, len(result.chunks), int(result.cum_tokens[-1]),
                       result.word_count)


def _chunk_group(group: Sequence[Document], params: AnyParams) -> list[Outcome]:
    return [_Worker.run(doc, params) for doc in group]


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)


def chunk_batch(docs: Sequence[Document], params: AnyParams, jobs: int | None = None,
                progress: Progress | None = None) -> Iterator[Outcome]:
    """Chunk `docs` with `params` on `jobs` processes (default: the cores this process
    may use; 1 chunks here, without a pool), yielding Outcomes in the order of `docs`.
    `progress(done, total)` counts documents."""
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise SteadlithError(f"--jobs must be >= 1, got {jobs}")
    total = len(docs)
    report(progress, 0, total)
    if jobs == 1 or total <= 1:
        for n, doc in enumerate(docs, 1):
            yield _Worker.run(doc, params)
            report(progress, n, total)
        return
    # groups large enough to amortize a task's pickling, small enough to balance the load
    size = max(1, min(256, total // (jobs * 8)))
    groups = [docs[i:i + size] for i in range(0, total, size)]
    done = 0
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(groups)), initializer=_ignore_interrupts)
    try:
        for outcomes in pool.map(_chunk_group, groups, [params] * len(groups)):
            for outcome in outcomes:
                yield outcome
            done += len(outcomes)
            report(progress, done, total)
    except BaseException:
        # Ctrl+C, a closed pipe, a cancel: drop the queued groups instead of finishing them
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _ignore_interrupts() -> None:
    """Workers leave Ctrl+C to the parent, which stops the pool: one message, not one per worker.
    Their numpy path runs on one thread: the pool already has a process per core."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    numpy_threads.use(1)


def is_batch_arg(arg: str) -> bool:
    """Whether one argument names several documents (a directory, a glob, REPO@REV:GLOB)
    rather than one file or one PATH@REV."""
    if os.path.isdir(arg):
        return True
    if os.path.exists(arg):
        return False
    if any(":" in rest and os.path.isdir(left) for left, rest in _splits(arg)):
        return True
    # a pattern matching nothing is a file name that happens to hold `[` or `*`: missing
    # (one that meets a directory it cannot read is a batch, which names that directory)
    return has_magic(arg) and next(glob_files(arg), None) is not None
