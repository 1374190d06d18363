"""File → Recent files: a menu over the settings' list (meld's recent.py). An entry is a
workspace or a pair of documents, each a file or a file at a git commit."""

from __future__ import annotations

import os

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu, QWidget

from ..widgets.names import plain_tooltip
from .settings import AppSettings, entry_label, entry_paths, side_description


def shown_side(side_state):
    """What Recent files keeps of a side (session.SideState): the file it shows, the
    file at a commit when it shows a git revision, or None."""
    if side_state.doc is None:
        return None
    if side_state.path is not None:
        return side_state.path
    ref = getattr(side_state.doc.root, "git_ref", None)
    return ref.to_dict() if ref is not None else None


class RecentFilesMenu(QMenu):
    """Lists the remembered pairs and workspaces, newest first, with mnemonics 1–10.
    An entry whose file is gone is dropped when chosen, and `missing` says which."""

    open_requested = Signal(dict)  # an entry whose files all exist
    missing = Signal(str)  # a message: the entry was removed

    def __init__(self, settings: AppSettings, parent: QWidget | None = None):
        super().__init__("Recent &files", parent)
        self.settings = settings
        self.setObjectName("recentMenu")
        self.setToolTipsVisible(True)
        self.rebuild()

    def entries(self) -> list[dict]:
        return self.settings.recent()

    def add(self, entry: dict) -> None:
        self.settings.add_recent(entry)
        self.rebuild()

    def remember(self, sides) -> None:
        """Put the documents shown (session.sides) first, when there is a file or a revision among them."""
        a, b = shown_side(sides["A"]), shown_side(sides["B"])
        if a or b:
            self.add({"a": a, "b": b})

    def forget(self, entry: dict) -> None:
        self.settings.remove_recent(entry)
        self.rebuild()

    def clear_entries(self) -> None:
        self.settings.clear_recent()
        self.rebuild()

    def choose(self, entry: dict) -> None:
        gone = [p for p in entry_paths(entry) if not os.path.isfile(p)]
        if gone:
            self.forget(entry)
            self.missing.emit(f"{' and '.join(gone)} no longer exist{'s' if len(gone) == 1 else ''}: "
                              "removed from the recent files.")
            return
        self.open_requested.emit(entry)

    def rebuild(self) -> None:
        self.clear()
        entries = self.settings.recent()
        for n, entry in enumerate(entries, 1):
            mnemonic = f"&{n}" if n < 10 else "1&0"
            # "&" in a file name is text, not a second mnemonic: Qt shows "&&" as one "&"
            act = QAction(f"{mnemonic}  {entry_label(entry).replace('&', '&&')}", self)
            where = "\n".join(f"{k.upper() if k in 'ab' else 'workspace'}: {side_description(v)}"
                              for k, v in entry.items() if v)
            act.setToolTip(plain_tooltip(where))
            act.setStatusTip(where.replace("\n", "   "))
            act.triggered.connect(lambda _c=False, e=entry: self.choose(e))
            self.addAction(act)
        self.addSeparator()
        clear = QAction("&Clear the list", self)
        clear.triggered.connect(self.clear_entries)
        clear.setEnabled(bool(entries))
        self.addAction(clear)
        self.menuAction().setEnabled(bool(entries))
