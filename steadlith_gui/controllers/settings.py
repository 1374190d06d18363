"""What the inspector remembers between runs (QSettings, organization "Steadlith",
application "Steadlith Inspector"): recent files, window geometry and dock layout, the
last valid parameters, the theme choice, the folders last opened from, exported to and saved to.

`AppSettings` wraps a QSettings (the user's real settings, `AppSettings.user()`) or a
plain dict (`AppSettings.memory()`: headless runs and tests that must not touch disk),
so the window takes one injectable object and never constructs QSettings itself.

Values are validated when read: a corrupt or hand-edited entry is ignored (the
default is used), never an exception at start-up.

Precedence at start (decided in app.py): the command line wins. `--set`, `--example`,
`--demo` and `--open-workspace` decide the parameters (the last ones are not
restored); `--theme` decides the theme for this run (and is not remembered: only a
choice in View → Theme is). Headless runs (`--screenshot`, `--export-report`) neither
read nor write the settings, so their output depends on the command line alone.
"""

from __future__ import annotations

import json
import os
from typing import Any

from dataclasses import fields

from PySide6.QtCore import QByteArray, QSettings
from steadlith_core import ParameterError
from steadlith_core.chunking.rules import params_from_mapping, rule_of

ORGANIZATION = "Steadlith"
APPLICATION = "Steadlith Inspector"
MAX_RECENT = 10
THEME_CHOICES = ("system", "light", "dark")

K_RECENT = "recent/entries"
K_GEOMETRY = "window/geometry"
K_STATE = "window/state"
K_PARAMS = "params/last"  # the shown rule's parameters, with their boundary_rule
K_PARAMS_BY_RULE = "params/by_rule"  # {rule: its fields}: every rule's last valid parameters
K_THEME = "view/theme"
K_HISTORY_BASELINE = "history/show_baseline"
K_EXPORT_DIR = "paths/export_dir"
K_OPEN_DIR = "paths/open_dir"
K_SAVE_DIR = "paths/save_dir"  # where File → Save as… last wrote
FOLDER_KEYS = {"export": K_EXPORT_DIR, "open": K_OPEN_DIR, "save": K_SAVE_DIR}


MAX_RECENT_TEXT = 4096  # a remembered path, repository or commit longer than this is not one


def is_revision(side: Any) -> bool:
    """A recent entry's side is a file path (str) or a file at a git commit:
    {"repo": working tree, "path": path in the repository, "commit": full id}."""
    return isinstance(side, dict)


def _side_key(side: Any) -> Any:
    return ("revision", side["repo"], side["path"], side["commit"]) if is_revision(side) else side


def recent_key(entry: dict) -> tuple:
    """Identity of a recent entry (a workspace, or a pair of documents)."""
    if "workspace" in entry:
        return ("workspace", entry["workspace"])
    return ("documents", _side_key(entry.get("a")), _side_key(entry.get("b")))


def entry_paths(entry: dict) -> list[str]:
    """The files an entry needs on disk (a revision is checked by loading it)."""
    if "workspace" in entry:
        return [entry["workspace"]]
    return [p for p in (entry.get("a"), entry.get("b")) if p and not is_revision(p)]


def side_label(side: Any) -> str:
    """A side as the menu shows it: the file's name, or `name@commit` as the command line takes it."""
    if not side:
        return "–"
    if is_revision(side):
        return f"{os.path.basename(side['path'])}@{side['commit'][:7]}"
    return os.path.basename(side)


def side_description(side: Any) -> str:
    """A side in full, for a tooltip."""
    if is_revision(side):
        return f"{side['path']}@{side['commit'][:12]} in {side['repo']}"
    return str(side)


def entry_label(entry: dict) -> str:
    """What the Recent files menu shows for an entry."""
    if "workspace" in entry:
        return f"{os.path.basename(entry['workspace'])}  (workspace)"
    return " ↔ ".join(side_label(entry.get(k)) for k in ("a", "b"))


def _text(x: Any) -> bool:
    return isinstance(x, str) and 0 < len(x) <= MAX_RECENT_TEXT


def _valid_side(x: Any) -> tuple[bool, Any]:
    if x is None or _text(x):
        return True, x
    if isinstance(x, dict) and all(_text(x.get(k)) for k in ("repo", "path", "commit")):
        commit = x["commit"]
        if all(c in "0123456789abcdef" for c in commit):
            return True, {"repo": x["repo"], "path": x["path"], "commit": commit}
    return False, None


def _valid_entry(e: Any) -> dict | None:
    if not isinstance(e, dict):
        return None
    if "workspace" in e:
        return {"workspace": e["workspace"]} if _text(e["workspace"]) else None
    (ok_a, a), (ok_b, b) = _valid_side(e.get("a")), _valid_side(e.get("b"))
    if not (ok_a and ok_b) or not (a or b):
        return None
    return {"a": a, "b": b}


class AppSettings:
    """Typed access to the remembered state. `store` is a QSettings or a dict."""

    def __init__(self, store: QSettings | dict | None = None):
        self.store: QSettings | dict = {} if store is None else store
        self.params_problem: str | None = None  # why the saved parameters were not used

    @classmethod
    def user(cls) -> "AppSettings":
        """The user's settings (INI format everywhere, so the file is readable)."""
        return cls(QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION))

    @classmethod
    def memory(cls) -> "AppSettings":
        """Settings that live as long as the object: nothing is read or written."""
        return cls({})

    @property
    def persistent(self) -> bool:
        return isinstance(self.store, QSettings)

    # -- raw ---------------------------------------------------------------------------
    def _get(self, key: str) -> Any:
        if isinstance(self.store, dict):
            return self.store.get(key)
        return self.store.value(key)

    def _set(self, key: str, value: Any) -> None:
        if isinstance(self.store, dict):
            self.store[key] = value
        else:
            self.store.setValue(key, value)

    def _remove(self, key: str) -> None:
        if isinstance(self.store, dict):
            self.store.pop(key, None)
        else:
            self.store.remove(key)

    def _get_str(self, key: str) -> str | None:
        v = self._get(key)
        return v if isinstance(v, str) and v else None

    def sync(self) -> None:
        if isinstance(self.store, QSettings):
            self.store.sync()

    # -- recent files ------------------------------------------------------------------
    def recent(self) -> list[dict]:
        """Most recent first: {"workspace": path} or {"a": side, "b": side}, a side being
        None, a path or a revision (is_revision)."""
        text = self._get_str(K_RECENT)
        if text is None:
            return []
        try:
            data = json.loads(text)
        except ValueError:
            return []
        if not isinstance(data, list):
            return []
        out, seen = [], set()
        for e in data:
            e = _valid_entry(e)
            if e is not None and recent_key(e) not in seen:
                seen.add(recent_key(e))
                out.append(e)
        return out[:MAX_RECENT]

    def set_recent(self, entries: list[dict]) -> None:
        self._set(K_RECENT, json.dumps(entries[:MAX_RECENT], ensure_ascii=False))

    def add_recent(self, entry: dict) -> list[dict]:
        """Put `entry` first (once). A pair also replaces the one-sided entries it
        completes (A alone, then B: one entry for the pair)."""
        entry = _valid_entry(entry)
        if entry is None:
            return self.recent()
        key = recent_key(entry)

        def superseded(e: dict) -> bool:
            if recent_key(e) == key:
                return True
            if "workspace" in entry or "workspace" in e:
                return False
            return (e.get("b") is None and e.get("a") == entry.get("a")) or (
                e.get("a") is None and e.get("b") == entry.get("b"))

        entries = [entry] + [e for e in self.recent() if not superseded(e)]
        self.set_recent(entries)
        return entries[:MAX_RECENT]

    def remove_recent(self, entry: dict) -> list[dict]:
        key = recent_key(entry)
        entries = [e for e in self.recent() if recent_key(e) != key]
        self.set_recent(entries)
        return entries

    def clear_recent(self) -> None:
        self.set_recent([])

    # -- parameters ----------------------------------------------------------------------
    def params(self):
        """The shown rule's last valid parameters, or None (none saved, or not valid)."""
        saved = self.saved_params()
        return saved[0][saved[1]] if saved is not None else None

    def saved_params(self) -> tuple[dict, str] | None:
        """({rule: parameters}, the shown rule), or None when none are saved or any saved
        value is invalid: the saved parameters are taken whole or not at all, and
        `params_problem` then says why."""
        self.params_problem = None
        text = self._get_str(K_PARAMS)
        if text is None:
            return None
        try:
            shown = params_from_mapping(_object(json.loads(text)))
            by_rule = {rule_of(shown): shown}
            others = self._get_str(K_PARAMS_BY_RULE)
            for rule, values in (_object(json.loads(others)) if others else {}).items():
                p = params_from_mapping({**_object(values), "boundary_rule": rule})
                by_rule.setdefault(rule, p)
        except (ValueError, TypeError, ParameterError, RecursionError) as e:
            self.params_problem = f"The saved parameters were not used ({e}); the defaults are in force."
            return None
        return by_rule, rule_of(shown)

    def set_params(self, params, by_rule: dict | None = None) -> None:
        """Remember the shown rule's `params` and every rule's in `by_rule`, each field as
        given (a snap window is kept while snapping is off)."""
        self._set(K_PARAMS, json.dumps(_fields(params), sort_keys=True))
        if by_rule:
            self._set(K_PARAMS_BY_RULE, json.dumps({r: _fields(p) for r, p in by_rule.items()}, sort_keys=True))

    # -- theme ---------------------------------------------------------------------------
    def theme(self) -> str | None:
        v = self._get_str(K_THEME)
        return v if v in THEME_CHOICES else None

    def set_theme(self, choice: str) -> None:
        if choice in THEME_CHOICES:
            self._set(K_THEME, choice)

    # -- History dock --------------------------------------------------------------------
    def history_baseline(self) -> bool:
        """Whether the History dock shows the fixed-size baseline (default: no, so the
        rules' bars are not flattened by it)."""
        v = self._get(K_HISTORY_BASELINE)
        return v is True or v == "true"  # QSettings' INI files give booleans back as text

    def set_history_baseline(self, shown: bool) -> None:
        self._set(K_HISTORY_BASELINE, bool(shown))

    # -- window layout -------------------------------------------------------------------
    def geometry(self) -> QByteArray | None:
        return self._bytes(K_GEOMETRY)

    def state(self) -> QByteArray | None:
        return self._bytes(K_STATE)

    def set_layout(self, geometry: QByteArray, state: QByteArray) -> None:
        self._set(K_GEOMETRY, QByteArray(geometry))
        self._set(K_STATE, QByteArray(state))

    def _bytes(self, key: str) -> QByteArray | None:
        v = self._get(key)
        if isinstance(v, (bytes, bytearray)):
            v = QByteArray(bytes(v))
        return v if isinstance(v, QByteArray) and not v.isEmpty() else None

    # -- folders -------------------------------------------------------------------------
    def folder(self, which: str) -> str | None:
        v = self._get_str(FOLDER_KEYS[which])
        return v if v and os.path.isdir(v) else None

    def set_folder(self, which: str, path: str) -> None:
        self._set(FOLDER_KEYS[which], str(path))


def _fields(params) -> dict:
    return {"boundary_rule": rule_of(params), **{f.name: getattr(params, f.name) for f in fields(params)}}


def _object(value: Any) -> dict:
    if not isinstance(value, dict):
        raise ValueError(f"expected a JSON object, not {type(value).__name__}")
    return value
