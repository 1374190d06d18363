"""The `.steadlith` workspace file: what a reviewer needs to reopen exactly what was shown.

Pure Python (no Qt), so it is testable without a display and the window only has to
map its state to a `Workspace` and back.

The file is JSON, meant to be readable and diffable by people:

    {
      "format": "steadlith-workspace",
      "version": 1,
      "documents": {
        "a": {"path": "v1.md", "name": "v1.md", "modified": false},
        "b": {"path": "v2.md", "name": "v2.md", "modified": true, "text": "…edited text…"}
      },
      "params": {"boundary_rule": "tttd-v1" | "lmx2-v1" (tttd-v1 when absent), and that rule's
                 fields as given (snap_window_words kept even while snapping is off)},
      "params_hash": "32 hex (of "params"; written for people; checked on load)",
      "params_by_rule": {rule: its fields}: every rule's last parameters (optional; "params" wins
                        for its rule),
      "view": {"syntax_colour": true, "sync_scroll": true, "theme": "system", "edit_a": false,
               "edit_b": true, "legend": true,
               "chunk_filter": {"text": "", "version": "" | "A" | "B", "status": "" | "changed" | a status},
               …keys of newer versions are kept as they are},
      "external": {"chunkers": ["langchain-recursive", "jsonl", …], "sizing": "matched" | "own",
                   "chunk_size": 512, "jsonl": {"a": PATH, "b": PATH} | null,
                   "shown": a chunker the panes show | null}  (optional: none when absent),
      "sweep": {"grid": ["min_tokens=32,64", …], "chunkers": [splitters checked under External],
                "source": "pair" | "history" | "folder", "folder": PATH | null}
               (optional: the Sweep dock's defaults when absent; its result is not kept),
      "lab": {"edits": 500, "seed": 0}  (optional: the lab dock's defaults when absent, either key
             alone too; its result is not kept)
    }

Version 1 still: "external", "sweep" and "lab" are optional, so workspaces saved before it open unchanged, and
an older inspector opening a newer file ignores the key. Its JSONL paths are stored like
document paths and count as files the workspace reads (outside_documents).

- A document's text is written only when the file on disk does not hold it: pasted
  text (no path) or an edited file (`modified`). Otherwise the path alone is enough and
  the workspace stays small. Embedded text wins over the path on load.
- A git revision is stored as its repository, its path there and the full commit,
  `"revision": {"repo": "…", "path": "docs/guide.md", "commit": "40 hex"}` (with "path":
  null), and read from the repository again on load; an edited revision also embeds
  its text, which wins. A missing repository, commit or path is a WorkspaceError naming
  it. Files without a revision are written exactly as before, so older readers open them.
- A document path inside the workspace's folder is stored relative to it (with "/"),
  so a folder of documents plus its workspace can be moved or shared; other paths are
  stored absolute. On load every path comes back absolute.
- Loading checks everything before returning, and every problem raises WorkspaceError
  naming the file, where in it (a JSON path such as `documents.b.path`) and what is
  wrong, so the window can refuse a bad file and keep the workspace that is open.
- Every string has a bound (STRING_LIMITS), checked before it is used or shown: a
  10 MB document name would stall the window, a 10 MB theme would fill the message.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from steadlith_core import ChunkerParams, SteadlithError
from steadlith_core.chunking.rules import rule_of
from steadlith_core.report.export import to_json_text, write_text_atomic
from steadlith_core.chunking.loader import MAX_DOCUMENT_BYTES

from .external_choice import ExternalChoice
from .history_state import Revision
from .lab_state import LabSettings
from .sweep_state import SweepSettings

FORMAT = "steadlith-workspace"
VERSION = 1
SUFFIX = ".steadlith"
SIDES = ("a", "b")
THEMES = ("system", "light", "dark")
DEFAULT_VIEW: dict[str, Any] = {  # the window's own defaults (B is editable from the start)
    "syntax_colour": True,
    "sync_scroll": True,
    "theme": "system",
    "edit_a": False,
    "edit_b": True,
    "legend": True,
}
CHUNK_FILTER_KEYS = ("text", "version", "status")  # view.chunk_filter: the chunk table's filters

# The longest string each field may hold, in characters. A path is at most PATH_MAX
# (4096 on Linux) bytes; a name is what a pane header shows; an embedded text obeys the
# loader's limit (a character is at least one byte); any other string (parameter
# names and values, view options, keys and values kept from newer versions) is short.
STRING_LIMITS = {"path": 4096, "repo": 4096, "name": 1024, "text": MAX_DOCUMENT_BYTES}
OTHER_STRING_LIMIT = 1024


class WorkspaceError(SteadlithError):
    """A workspace cannot be used. `path` is the workspace file (or, from
    resolve_documents, the document file that cannot be read); `where` is a JSON path
    ("documents.b.path") or None for the file as a whole; the message names all three:
    "<path>: <where>: <reason>"."""

    def __init__(self, path: object, where: str | None, reason: str):
        self.path = str(path)
        self.where = where
        self.reason = reason
        super().__init__(f"{self.path}: {where}: {reason}" if where else f"{self.path}: {reason}")


@dataclass(frozen=True)
class DocumentRef:
    """One side of a workspace.

    path: the file it came from (absolute after loading), or None for pasted text.
    text: the text to show, or None to read it from `path`.
    name: what the pane header shows.
    modified: the text was edited after loading `path` (so it must be embedded).
    revision: the file at a git commit it was read from (path is then None); the text,
    if any, is an edited copy of it.
    """

    path: str | None
    text: str | None
    name: str
    modified: bool = False
    revision: Revision | None = None

    def __post_init__(self) -> None:
        if self.path is None and self.text is None and self.revision is None:
            raise ValueError("a document needs a path, a text or a revision")

    @property
    def embeds_text(self) -> bool:
        """Whether a saved workspace holds this document's text (pasted or edited)."""
        return self.text is not None and (self.path is None or self.modified)

    @classmethod
    def from_file(cls, path: str | os.PathLike, name: str | None = None) -> "DocumentRef":
        p = os.path.abspath(os.fspath(path))
        return cls(p, None, name or os.path.basename(p))

    @classmethod
    def at_revision(cls, revision: Revision, name: str, edited_text: str | None = None) -> "DocumentRef":
        """A file at a git commit; `edited_text`: the user's edited copy of it."""
        revision = Revision(os.path.abspath(revision.repo), revision.path, revision.commit)
        return cls(None, edited_text, name, edited_text is not None, revision)

    @classmethod
    def pasted(cls, text: str, name: str) -> "DocumentRef":
        return cls(None, text, name)

    @classmethod
    def edited(cls, path: str | os.PathLike, text: str, name: str | None = None) -> "DocumentRef":
        p = os.path.abspath(os.fspath(path))
        return cls(p, text, name or os.path.basename(p), modified=True)


@dataclass(frozen=True)
class Workspace:
    """Both documents (None for an empty side), the parameters and the view options.

    `view` starts from DEFAULT_VIEW, so `Workspace(docs, params)` is complete; keys this
    version does not know are kept, so re-saving a newer app's workspace loses nothing.
    Treat `documents` and `view` as read-only (use dataclasses.replace to change them).
    """

    documents: Mapping[str, DocumentRef | None]
    params: Any = field(default_factory=ChunkerParams)  # the shown rule's (ChunkerParams or Lmx2Params)
    view: Mapping[str, Any] = field(default_factory=dict)
    params_by_rule: Mapping[str, Any] = field(default_factory=dict)  # every rule's, `params` wins for its own
    external: ExternalChoice = field(default_factory=ExternalChoice)  # chunkers the churn panel compares with
    sweep: SweepSettings = field(default_factory=SweepSettings)  # the Sweep dock's grid, splitters and source
    lab: LabSettings = field(default_factory=LabSettings)  # the lab dock's edits and seed

    def __post_init__(self) -> None:
        docs = {side: self.documents.get(side) for side in SIDES}
        extra = set(self.documents) - set(SIDES)
        if extra:
            raise ValueError(f"unknown document sides {sorted(extra)}; expected 'a' and 'b'")
        object.__setattr__(self, "documents", docs)
        object.__setattr__(self, "view", {**DEFAULT_VIEW, **self.view})
        object.__setattr__(self, "params_by_rule", {**self.params_by_rule, rule_of(self.params): self.params})


# -- saving --------------------------------------------------------------------------


def workspace_to_dict(ws: Workspace, folder: str | os.PathLike) -> dict[str, Any]:
    """The JSON object of `ws` saved in `folder` (which relative paths are relative to)."""
    base = os.path.abspath(os.fspath(folder))
    documents: dict[str, Any] = {}
    for side in SIDES:
        doc = ws.documents[side]
        if doc is None:
            documents[side] = None
            continue
        entry: dict[str, Any] = {"path": None if doc.path is None else _stored_path(doc.path, base),
                                 "name": doc.name, "modified": doc.modified}
        if doc.revision is not None:
            entry["revision"] = {"repo": _stored_path(doc.revision.repo, base), "path": doc.revision.path,
                                 "commit": doc.revision.commit}
        if doc.embeds_text:
            entry["text"] = doc.text
        documents[side] = entry
    return {
        "format": FORMAT,
        "version": VERSION,
        "documents": documents,
        "params": _params_fields(ws.params),
        "params_hash": ws.params.params_hash,
        "params_by_rule": {rule: _params_fields(p, with_rule=False) for rule, p in ws.params_by_rule.items()},
        "view": dict(ws.view),
        "external": _external_dict(ws.external, base),
        "sweep": _sweep_dict(ws.sweep, base),
        "lab": ws.lab.to_dict(),
    }


def _sweep_dict(settings: SweepSettings, base: str) -> dict[str, Any]:
    out = settings.to_dict()
    if settings.folder:  # stored like a document's path, so a shared folder of files keeps it
        out["folder"] = _stored_path(settings.folder, base)
    return out


def _external_dict(choice: ExternalChoice, base: str) -> dict[str, Any]:
    out = choice.to_dict()
    if choice.jsonl is not None:
        out["jsonl"] = {side: _stored_path(p, base) for side, p in zip(SIDES, choice.jsonl)}
    return out


def _params_fields(params: Any, with_rule: bool = True) -> dict[str, Any]:
    values = {f.name: getattr(params, f.name) for f in fields(params)}
    return {"boundary_rule": rule_of(params), **values} if with_rule else values


def save_workspace(ws: Workspace, path: str | os.PathLike) -> None:
    """Write `ws` to `path` atomically (an interrupted save keeps the previous file).
    Raises ExportError (a SteadlithError) naming the path when it cannot be written."""
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    write_text_atomic(path, to_json_text(workspace_to_dict(ws, folder)))


def _stored_path(doc_path: str, base: str) -> str:
    p = os.path.abspath(doc_path)
    try:
        rel = os.path.relpath(p, base)
    except ValueError:  # another drive on Windows
        return p
    if rel == os.pardir or rel.startswith(os.pardir + os.sep) or os.path.isabs(rel):
        return p
    return PurePosixPath(*Path(rel).parts).as_posix()
