"""The documents a workspace names: which files lie outside its folder or are shown under
another name (asked about before anything is read), and the text of each side, read
from its file or its git revision, all or nothing (resolve_documents, resolve_sources).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from steadlith_core import LoadError, load_text
from steadlith_core.chunking.loader import max_document_bytes
from steadlith_core.history.places import repository_places
from steadlith_core.history.git_errors import GitError
from steadlith_core.history.repository import read_text_at, resolve_revision

from .workspace import SIDES, Workspace, WorkspaceError


def outside_documents(ws: Workspace, folder: str | os.PathLike) -> list[tuple[str, str]]:
    """`(side, real path)` of the documents whose file lies outside `folder` (the
    workspace's own), symbolic links resolved. Opening a workspace reads these files, and
    an edited one is saved back to its path: files the author of the workspace chose,
    which the person opening it should see before anything is read (a shared workspace
    naming ~/.ssh/id_rsa, or `../../etc/passwd` under a harmless display name)."""
    base = os.path.realpath(os.fspath(folder))
    out = []
    for side in SIDES:
        doc = ws.documents[side]
        if doc is None or (doc.path is None and doc.revision is None):
            continue
        # a revision reads its repository, which can hold anything: the same question as a
        # file, asked of every directory git reads (a `gitdir:` file, alternates: places.py)
        reals = [os.path.realpath(doc.path)] if doc.path is not None else repository_places(doc.revision.repo)
        # a place inside another place listed (a repository's .git and objects inside its
        # work tree) adds nothing to the question: each directory tree is named once
        reals = [r for r in reals if not any(o != r and _inside(o, r) for o in reals)]
        out += [(side, real) for real in reals if not _inside(base, real)]
    for side, path in zip(SIDES, ws.external.jsonl or ()):
        real = os.path.realpath(path)
        if not _inside(base, real):
            out.append((f"spans {side}", real))
    return out


def _inside(base: str, real: str) -> bool:
    try:
        return os.path.commonpath([base, real]) == base
    except ValueError:  # another drive on Windows
        return False


def renamed_documents(ws: Workspace) -> list[tuple[str, str, str]]:
    """`(side, name shown, real path)` of the documents shown under a name other than
    their file's: the window says which file each really is."""
    out = []
    for side in SIDES:
        doc = ws.documents[side]
        if doc is not None and doc.path is not None:
            real = os.path.realpath(doc.path)
            if doc.name != os.path.basename(real):
                out.append((side, doc.name, real))
    return out


@dataclass(frozen=True)
class ResolvedDocument:
    """A side's text as a workspace gives it, where it came from (file path), and the
    RevisionRef (steadlith_core.history.repository) when it is a file at a git commit."""

    text: str
    name: str
    path: str | None
    git_ref: Any = None


def resolve_sources(ws: Workspace) -> dict[str, ResolvedDocument]:
    """resolve_documents, with each revision's RevisionRef. A revision without embedded
    text is read from its repository; an edited one keeps its text and gets its
    RevisionRef when the repository still holds the commit (else it shows as pasted)."""
    out: dict[str, ResolvedDocument] = {}
    files = resolve_documents(Workspace({s: (d if d is None or d.revision is None else None)
                                         for s, d in ws.documents.items()}, ws.params))
    for side, (text, name, path) in files.items():
        out[side] = ResolvedDocument(text, name, path)
    for side in SIDES:
        doc = ws.documents[side]
        if doc is None or doc.revision is None:
            continue
        rev = doc.revision
        try:
            ref = resolve_revision(rev.repo, rev.path, rev.commit)
            text = doc.text if doc.text is not None else read_text_at(ref)
        except GitError as e:
            if doc.text is None:
                raise WorkspaceError(rev.repo, f"documents.{side}.revision",
                                     f"cannot open document {side.upper()}: {e}") from None
            ref = None
        out[side] = ResolvedDocument(text, doc.name, None, ref)
    return out


def resolve_documents(ws: Workspace) -> dict[str, tuple[str, str, str | None]]:
    """The text to show on each side: `{side: (text, name, origin_path)}` for the sides
    that have a document. Embedded text wins over the path; a path-only document is
    read with steadlith_core.load_text. All or nothing: when any file cannot be read,
    WorkspaceError (where = "documents.<side>.path", the message carrying load_text's
    reason and the path) is raised and nothing is returned, so the caller can keep
    what it shows. Reads files: call it off the GUI thread for large documents."""
    out: dict[str, tuple[str, str, str | None]] = {}
    room = max_document_bytes("window")  # the pair's, both sides together, as the window loads
    for side in SIDES:
        doc = ws.documents[side]
        if doc is None:
            continue
        if doc.text is not None:
            out[side] = (doc.text, doc.name, doc.path)
            room -= len(doc.text)  # at least its UTF-8 size in characters
            continue
        if doc.revision is not None:
            out[side] = (resolve_sources(Workspace({side: doc}, ws.params))[side].text, doc.name, None)
            continue
        try:
            text = load_text(doc.path, max_bytes=max(room, 0))
            room -= len(text)
        except LoadError as e:
            raise WorkspaceError(e.path, f"documents.{side}.path", f"cannot open document {side.upper()}: "
                                 f"{e.reason}") from e
        out[side] = (text, doc.name, doc.path)
    return out
