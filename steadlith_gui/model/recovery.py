"""Unsaved edits kept on disk while the user types, so a crash or a kill loses at most
the last pause's keystrokes (as editors keep swap files). Qt-free: the controller
(controllers/recovery.py) decides when to save, this module what is written and read.

One file per running window, `unsaved-<pid>.json` in a folder of the platform's
application data, written atomically (write_text_atomic: old or new, never torn):

    {"format": "steadlith-unsaved-edits", "version": 1, "saved": 1733370000.5,
     "sides": {"B": {"name": "guide.md", "path": "/home/me/guide.md", "text": "…"}}}

A clean exit removes its file. A file whose process no longer runs is what a crash
left: the next start offers it back (Restore or Discard). A file that cannot be read
back (damaged, too large, another format) is never offered and stays where it is for a
person to look at.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from steadlith_core.chunking.loader import MAX_DOCUMENT_BYTES
from steadlith_core.errors import ExportError
from steadlith_core.report.export import write_text_atomic

FORMAT = "steadlith-unsaved-edits"
VERSION = 1
SIDES = ("A", "B")
_NAME = re.compile(r"unsaved-(\d+)\.json")
MAX_FILE_BYTES = 2 * 4 * MAX_DOCUMENT_BYTES + (1 << 20)  # two texts JSON-escaped at worst, and names


@dataclass(frozen=True)
class Unsaved:
    """One side's unsaved text: its name and file path (None for a pasted text) as shown."""

    name: str
    path: str | None
    text: str


@dataclass(frozen=True)
class Recovered:
    """The unsaved edits a window that did not close left behind."""

    file: Path
    saved: float  # seconds since the epoch of the last save
    sides: Mapping[str, Unsaved]

    def names(self) -> str:
        return ", ".join(f"{side}: {u.name}" for side, u in sorted(self.sides.items()))


def process_alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    if os.name == "nt":  # os.kill would end the process: keep what cannot be checked
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


class RecoveryStore:
    """This window's recovery file in `folder`, and the files of windows that ended.
    `save` may run on a worker thread: saves carry a generation, and an older one
    finishing after a newer one is dropped."""

    def __init__(self, folder: str | os.PathLike, pid: int | None = None):
        self.folder = Path(folder)
        self.pid = os.getpid() if pid is None else pid
        self._lock = threading.Lock()
        self._written = -1

    @property
    def file(self) -> Path:
        return self.folder / f"unsaved-{self.pid}.json"

    def save(self, generation: int, sides: Mapping[str, Unsaved]) -> None:
        """Keep `sides` (none: remove the file). Raises ExportError when it cannot be written."""
        with self._lock:
            if generation <= self._written:
                return
            self._written = generation
            if not sides:
                self._remove(self.file)
                return
            try:
                self.folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise ExportError(self.folder, f"cannot keep unsaved edits here: {e.strerror or e}") from None
            doc = {"format": FORMAT, "version": VERSION, "saved": time.time(),
                   "sides": {s: {"name": u.name, "path": u.path, "text": u.text} for s, u in sides.items()}}
            write_text_atomic(self.file, json.dumps(doc, ensure_ascii=False))

    def clear(self) -> None:
        """A clean exit: nothing of this window is left to recover."""
        with self._lock:
            self._written = 1 << 62  # a save still on its way finds nothing to do
            self._remove(self.file)

    def left_behind(self) -> list[Recovered]:
        """What windows that ended without closing left, newest first."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return []
        found = []
        for name in names:
            m = _NAME.fullmatch(name)
            if m is None or process_alive(int(m.group(1))):
                continue
            recovered = read_recovery(self.folder / name)
            if recovered is not None:
                found.append(recovered)
        return sorted(found, key=lambda r: r.saved, reverse=True)

    def discard(self, recovered: Recovered) -> None:
        self._remove(recovered.file)

    def adopt(self, recovered: Recovered) -> None:
        """Restored: the file becomes this window's, so a second crash before the next
        save still has the text."""
        with self._lock:
            try:
                os.replace(recovered.file, self.file)
            except OSError:
                pass

    @staticmethod
    def _remove(path: Path) -> None:
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            pass  # cleaning is a courtesy: what cannot be removed is offered again, never lost


def read_recovery(path: Path) -> Recovered | None:
    """The recovery file at `path`, or None when it is not one this version reads."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        return None
    saved, sides = doc.get("saved"), doc.get("sides")
    if not isinstance(saved, (int, float)) or not isinstance(sides, dict) or not sides:
        return None
    out = {}
    for side, entry in sides.items():
        if side not in SIDES or not isinstance(entry, dict):
            return None
        name, where, text = entry.get("name"), entry.get("path"), entry.get("text")
        if not isinstance(name, str) or not isinstance(text, str) or not (where is None or isinstance(where, str)):
            return None
        out[side] = Unsaved(name, where, text)
    return Recovered(path, float(saved), out)
