"""Reading a `.steadlith` workspace file back (its format is described in `workspace`):
everything is checked before a Workspace is returned, and every problem is a
WorkspaceError naming the file, where in it (a JSON path such as `documents.b.path`) and
what is wrong, so the window can refuse a bad file and keep the workspace that is open.
Every string is bounded (STRING_LIMITS) before it is used or shown.
"""

from __future__ import annotations

import dataclasses
import json
import os
from typing import Any

from steadlith_core import LoadError, ParameterError, load_text
from steadlith_core.chunking.rules import params_from_mapping

from .external_choice import ExternalChoice, ExternalChoiceError
from .history_state import Revision
from .lab_state import LabSettings, LabSettingsError
from .sweep_state import SweepSettings, SweepSettingsError
from .workspace import (
    CHUNK_FILTER_KEYS,
    FORMAT,
    OTHER_STRING_LIMIT,
    SIDES,
    STRING_LIMITS,
    THEMES,
    VERSION,
    DocumentRef,
    Workspace,
    WorkspaceError,
)


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
