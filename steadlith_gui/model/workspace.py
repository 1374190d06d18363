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

import dataclasses
import json
import os
from dataclasses import dataclass, field, fields
from pathlib import Path, PurePosixPath
from typing import Any, Mapping

from steadlith_core import ChunkerParams, LoadError, ParameterError, SteadlithError, load_text
from steadlith_core.chunking.rules import params_from_mapping, rule_of
from steadlith_core.report.export import to_json_text, write_text_atomic
from steadlith_core.history.repository import GitError, read_text_at, resolve_revision
from steadlith_core.chunking.loader import MAX_DOCUMENT_BYTES

from .external_choice import ExternalChoice, ExternalChoiceError
from .history_state import Revision
from .lab_state import LabSettings, LabSettingsError
from .sweep_state import SweepSettings, SweepSettingsError

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


# -- loading -------------------------------------------------------------------------


def load_workspace(path: str | os.PathLike) -> Workspace:
    """Read and check a workspace file. Raises WorkspaceError on any problem (unreadable
    file, JSON syntax with line and column, wrong format tag, unsupported version, a
    missing or ill-typed field by its JSON path, invalid parameters by field name, a
    params_hash that disagrees with the parameters). Document files are not read here:
    see resolve_documents()."""
    origin = os.fspath(path)
    try:
        text = load_text(origin)
    except LoadError as e:
        raise WorkspaceError(origin, None, e.reason) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise WorkspaceError(origin, None, f"not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    except RecursionError:
        raise WorkspaceError(origin, None, "not valid JSON: nested too deeply") from None
    except ValueError as e:  # an integer of more than sys.get_int_max_str_digits() digits
        raise WorkspaceError(origin, None, f"holds a number too long to read ({_first_sentence(e)}); no field "
                                           "of a workspace takes more than 20 digits") from None
    folder = os.path.dirname(os.path.abspath(origin))
    return workspace_from_dict(data, folder, origin)


def workspace_from_dict(data: Any, folder: str | os.PathLike, origin: object = "<workspace>") -> Workspace:
    """Check a parsed workspace object; relative document paths are taken from `folder`."""

    def fail(where: str | None, reason: str) -> WorkspaceError:
        return WorkspaceError(origin, where, reason)

    if not isinstance(data, dict):
        raise fail(None, f"not a Steadlith workspace (the top level is {_kind(data)}, expected an object)")
    tag = data.get("format")
    if tag != FORMAT:
        raise fail("format", f"not a Steadlith workspace (format is {_short(tag)}, expected {FORMAT!r})")
    _check_strings(data, None, fail)
    version = data.get("version")
    if type(version) is not int:
        raise fail("version", f"must be an integer, not {_kind(version)}")
    if version != VERSION:
        newer = " (saved by a newer Steadlith Inspector)" if version > VERSION else ""
        raise fail("version", f"unsupported workspace version {_short(version)}{newer}; this version reads {VERSION}")

    docs_data = _get(data, "documents", dict, fail, "documents", default={})
    extra = sorted(set(docs_data) - set(SIDES))
    if extra:
        raise fail(f"documents.{_short(extra[0], quote=False)}", "unknown document side (expected 'a' or 'b')")
    base = os.path.abspath(os.fspath(folder))
    documents = {side: _document(docs_data.get(side), f"documents.{side}", side, base, fail) for side in SIDES}

    params_data = _get(data, "params", dict, fail, "params", default={})
    params = _read_params(params_data, None, "params", fail)
    by_rule_data = _get(data, "params_by_rule", dict, fail, "params_by_rule", default={})
    by_rule = {}
    for rule, values in by_rule_data.items():
        where = f"params_by_rule.{_short(rule, quote=False)}"
        if not isinstance(values, dict):
            raise fail(where, f"must be an object, not {_kind(values)}")
        by_rule[rule] = _read_params({**values, "boundary_rule": rule}, rule, where, fail)
    stated = data.get("params_hash")
    if stated is not None:
        if not isinstance(stated, str):
            raise fail("params_hash", f"must be a string, not {_kind(stated)}")
        if stated.lower() != params.params_hash:
            raise fail("params_hash", f"{_short(stated, quote=False)} disagrees with the parameters (their hash is "
                                      f"{params.params_hash}); the file was edited inconsistently")

    view = dict(_get(data, "view", dict, fail, "view", default={}))
    for key in ("syntax_colour", "sync_scroll", "edit_a", "edit_b", "legend"):
        if key in view and not isinstance(view[key], bool):
            raise fail(f"view.{key}", f"must be true or false, not {_kind(view[key])}")
    if "chunk_filter" in view:
        f = view["chunk_filter"]
        if not isinstance(f, dict):
            raise fail("view.chunk_filter", f"must be an object, not {_kind(f)}")
        for key in CHUNK_FILTER_KEYS:
            if key in f and not isinstance(f[key], str):
                raise fail(f"view.chunk_filter.{key}", f"must be a string, not {_kind(f[key])}")
    if "theme" in view and view["theme"] not in THEMES:
        raise fail("view.theme", f"must be one of {', '.join(THEMES)}, not {_short(view['theme'])}")
    return Workspace(documents, params, view, by_rule, _read_external(data, base, fail), _read_sweep(data, base, fail),
                     _read_lab(data, fail))


def _read_lab(data: dict, fail) -> LabSettings:
    raw = _get(data, "lab", dict, fail, "lab", default={})
    try:
        return LabSettings.from_dict(raw)
    except LabSettingsError as e:
        raise fail(f"lab.{e.where}" if e.where else "lab", e.reason) from None


def _read_sweep(data: dict, base: str, fail) -> SweepSettings:
    """The Sweep dock's settings. Its folder is not read on opening (only a Run reads it),
    so it needs no trust: it is never one of outside_documents."""
    raw = _get(data, "sweep", dict, fail, "sweep", default={})
    try:
        settings = SweepSettings.from_dict(raw)
    except SweepSettingsError as e:
        raise fail(f"sweep.{e.where}" if e.where else "sweep", e.reason) from None
    if settings.folder:
        settings = dataclasses.replace(settings, folder=os.path.normpath(
            os.path.join(base, os.path.expanduser(settings.folder))))
    return settings


def _read_external(data: dict, base: str, fail) -> ExternalChoice:
    raw = _get(data, "external", dict, fail, "external", default={})
    try:
        choice = ExternalChoice.from_dict(raw)
    except ExternalChoiceError as e:
        raise fail(f"external.{e.where}" if e.where else "external", e.reason) from None
    if choice.jsonl is not None:
        choice = dataclasses.replace(choice, jsonl=tuple(os.path.normpath(os.path.join(base, os.path.expanduser(p)))
                                                         for p in choice.jsonl))
    return choice


#: The string-valued parameters of every rule: checked before parsing, so that a message
#: never quotes a whole array or object given where a name belongs.
_STRING_PARAMS = ("boundary_rule", "token_counter", "snap_mode", "boundary_preference")


def _read_params(values: dict, rule: str | None, where: str, fail) -> Any:
    for key in _STRING_PARAMS:
        if key in values and not isinstance(values[key], str):
            raise fail(f"{where}.{key}", f"must be a string, not {_kind(values[key])}")
    try:
        return params_from_mapping(values)
    except ParameterError as e:
        field = "" if rule is not None and e.field == "boundary_rule" else f".{_short(e.field, quote=False)}"
        raise fail(f"{where}{field}", e.rule) from None
    except TypeError as e:  # a non-string key cannot happen in JSON; keep the message anyway
        raise fail(where, str(e)) from None


def _document(entry: Any, where: str, side: str, base: str, fail) -> DocumentRef | None:
    if entry is None:
        return None
    if not isinstance(entry, dict):
        raise fail(where, f"must be an object or null, not {_kind(entry)}")
    path = entry.get("path")
    if path is not None:
        if not isinstance(path, str):
            raise fail(f"{where}.path", f"must be a string or null, not {_kind(path)}")
        if not path.strip():
            raise fail(f"{where}.path", "is empty")
        if "\0" in path:
            raise fail(f"{where}.path", "holds a NUL character, which no file name can contain")
        path = os.path.normpath(os.path.join(base, os.path.expanduser(path)))
    text = entry.get("text")
    if text is not None and not isinstance(text, str):
        raise fail(f"{where}.text", f"must be a string, not {_kind(text)}")
    revision = _revision(entry.get("revision"), f"{where}.revision", base, fail)
    if revision is not None and path is not None:
        raise fail(where, "has both a path and a revision; a document comes from one of them")
    if path is None and text is None and revision is None:
        raise fail(where, "needs a path or a text (or a git revision)")
    default_name = os.path.basename(path) if path else (
        f"{revision.path} @ {revision.commit[:7]}" if revision is not None else f"pasted {side.upper()}")
    name = entry.get("name", default_name)
    if not isinstance(name, str):
        raise fail(f"{where}.name", f"must be a string, not {_kind(name)}")
    modified = entry.get("modified", (path is not None or revision is not None) and text is not None)
    if not isinstance(modified, bool):
        raise fail(f"{where}.modified", f"must be true or false, not {_kind(modified)}")
    return DocumentRef(path, text, name or default_name, modified, revision)


def _revision(entry: Any, where: str, base: str, fail) -> Revision | None:
    """A document's "revision": repository (relative to the workspace's folder or
    absolute), path in it, full commit id."""
    if entry is None:
        return None
    if not isinstance(entry, dict):
        raise fail(where, f"must be an object or null, not {_kind(entry)}")
    values = {}
    for key in ("repo", "path", "commit"):
        value = entry.get(key)
        if not isinstance(value, str):
            raise fail(f"{where}.{key}", f"must be a string, not {_kind(value)}")
        if not value.strip():
            raise fail(f"{where}.{key}", "is empty")
        if "\0" in value:
            raise fail(f"{where}.{key}", "holds a NUL character")
        values[key] = value
    if not (4 <= len(values["commit"]) <= 64 and all(ch in "0123456789abcdefABCDEF" for ch in values["commit"])):
        raise fail(f"{where}.commit", f"must be a commit id (hexadecimal), not {_short(values['commit'])}")
    repo = os.path.normpath(os.path.join(base, os.path.expanduser(values["repo"])))
    return Revision(repo, values["path"], values["commit"].lower())


def _check_strings(value: Any, where: str | None, fail) -> None:
    """Every string of the parsed file (keys included) within its field's bound, before
    any is used or shown. The bound of a field is chosen by its last key."""
    stack = [(value, where)]
    while stack:
        item, at = stack.pop()
        if isinstance(item, str):
            key = at.rsplit(".", 1)[-1] if at else ""
            limit = STRING_LIMITS.get(key, OTHER_STRING_LIMIT) if at and at.startswith("documents.") \
                else STRING_LIMITS["path"] if at == "sweep.folder" else OTHER_STRING_LIMIT
            if len(item) > limit:
                raise fail(at, f"too long: {len(item):,} characters, at most {limit:,}")
        elif isinstance(item, dict):
            for k, v in item.items():
                if len(k) > OTHER_STRING_LIMIT:
                    raise fail(at, f"holds a key of {len(k):,} characters, at most {OTHER_STRING_LIMIT:,}")
                stack.append((v, f"{at}.{k}" if at else k))
        elif isinstance(item, list):
            stack.extend((v, f"{at}[{n}]") for n, v in enumerate(item))


def _short(value: Any, quote: bool = True) -> str:
    """A value as a message shows it: its repr (or the text itself), cut to 40 characters."""
    shown = repr(value) if quote else str(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


def _first_sentence(e: Exception) -> str:
    return str(e).split(";")[0].split(":")[0]


def _get(data: dict, key: str, typ: type, fail, where: str, default: Any) -> Any:
    value = data.get(key)
    if value is None:
        return default
    if not isinstance(value, typ):
        raise fail(where, f"must be {'an object' if typ is dict else typ.__name__}, not {_kind(value)}")
    return value


def _kind(value: Any) -> str:
    """A JSON-flavoured name for a value's type, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return f"a number ({_short(value)})"
    if isinstance(value, str):
        return f"a string ({_short(value[:40])})"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


# -- documents -----------------------------------------------------------------------


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
        # a revision reads its repository, which can hold anything: the same question as a file
        real = os.path.realpath(doc.path if doc.path is not None else doc.revision.repo)
        try:
            inside = os.path.commonpath([base, real]) == base
        except ValueError:  # another drive on Windows
            inside = False
        if not inside:
            out.append((side, real))
    for side, path in zip(SIDES, ws.external.jsonl or ()):
        real = os.path.realpath(path)
        try:
            inside = os.path.commonpath([base, real]) == base
        except ValueError:
            inside = False
        if not inside:
            out.append((f"spans {side}", real))
    return out


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
    for side in SIDES:
        doc = ws.documents[side]
        if doc is None:
            continue
        if doc.text is not None:
            out[side] = (doc.text, doc.name, doc.path)
            continue
        if doc.revision is not None:
            out[side] = (resolve_sources(Workspace({side: doc}, ws.params))[side].text, doc.name, None)
            continue
        try:
            text = load_text(doc.path)
        except LoadError as e:
            raise WorkspaceError(e.path, f"documents.{side}.path", f"cannot open document {side.upper()}: "
                                 f"{e.reason}") from e
        out[side] = (text, doc.name, doc.path)
    return out
