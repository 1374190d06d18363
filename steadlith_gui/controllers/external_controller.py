"""The churn panel's "Compare with…" on the Qt side of the session: what the user picks
goes to Session.set_external; the panel and the legend follow the session's choice.
JSONL spans need two files, asked for here (a file dialog per side; `choose_files`
is replaced in tests), and "one chunk_size for every splitter" asks for the size."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QInputDialog, QWidget

from ..model.external_choice import CHUNK_SIZE_RANGE, JSONL, ExternalChoice
from ..model.session import SIDES, Session
from ..widgets.churn import ChurnPanel


class ExternalController(QObject):
    """`churn`: the panel whose menu and selector it serves; `dialogs`: the parent of the
    file and size dialogs (the window)."""

    def __init__(self, churn: ChurnPanel, session: Session, dialogs: QWidget):
        super().__init__(dialogs)
        self.churn = churn
        self.dialogs = dialogs
        self.session = session
        # (A, B) span files, or None when the user cancels; tests replace these two
        self.choose_files: Callable[[], tuple[str, str] | None] = self._ask_files
        self.choose_size: Callable[[int], int | None] = self._ask_size
        churn.external_toggled.connect(self._on_toggled)
        churn.sizing_requested.connect(self._on_sizing)
        churn.external_shown.connect(self._on_shown)
        session.events.external_changed.connect(self._show_choice)
        session.events.rule_changed.connect(self._on_rule)
        self._show_choice(session.external)

    def _on_rule(self, _rule: str) -> None:
        """Asking for a rule in the panes (View → Compare rules, the parameters panel)
        takes them back from an external chunking."""
        if self.session.external.shown is not None:
            self.session.set_external(dataclasses.replace(self.session.external, shown=None))

    def _on_toggled(self, key: str, on: bool) -> None:
        choice = self.session.external
        if on and key == JSONL:
            files = self.choose_files()
            if files is None:  # cancelled: the menu's check goes back to the session's state
                self._show_choice(choice)
                return
            self.session.set_external(choice.toggled(key, True, files))
            return
        self.session.set_external(choice.toggled(key, on))

    def _on_sizing(self, sizing: str) -> None:
        choice = self.session.external
        size = choice.chunk_size
        if sizing == "own":
            size = self.choose_size(size)
            if size is None:
                self._show_choice(choice)
                return
        self.session.set_external(dataclasses.replace(choice, sizing=sizing, chunk_size=size))

    def _on_shown(self, key: str | None) -> None:
        self.session.set_external(dataclasses.replace(self.session.external, shown=key))

    def _show_choice(self, choice: ExternalChoice) -> None:
        self.churn.set_external_choice(choice)

    def _ask_files(self) -> tuple[str, str] | None:
        paths = []
        start = ""
        for side in SIDES:
            path, _ = QFileDialog.getOpenFileName(self.dialogs, f"Spans of {side} (JSONL)", start,
                                                  "JSONL spans (*.jsonl *.json *.txt);;All files (*)")
            if not path:
                return None
            paths.append(path)
            start = str(Path(path).parent)
        return paths[0], paths[1]

    def _ask_size(self, current: int) -> int | None:
        lo, hi = CHUNK_SIZE_RANGE
        size, ok = QInputDialog.getInt(self.dialogs, "Chunk size of the splitters",
                                       "chunk_size for every splitter, in tokens of the rule's counter:",
                                       current, lo, hi)
        return size if ok else None
