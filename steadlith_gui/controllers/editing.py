"""Typing into the panes: each keystroke is O(1) here and tells the session the change
(the session keeps each side's revisions and edits; the pane reads them); the analysis
waits until the typing pauses for EDIT_PAUSE_MS. The headers and the title follow the
session's edit_state_changed, not this controller."""

from __future__ import annotations

from typing import Callable, Mapping

from PySide6.QtCore import QObject
from superqt.utils import qdebounced

from ..model.long_lines import LINE_LIMIT
from ..model.session import Session
from ..widgets.document_pane import DocumentPane

EDIT_PAUSE_MS = 300  # analysis starts this long after the last keystroke


class EditController(QObject):
    """`panes`: the document panes by side; `active_side`: the side navigation acts on
    (Undo and Redo prefer it). A refused paste is said through the session (`session.tell`)."""

    def __init__(self, panes: Mapping[str, DocumentPane], session: Session, active_side: Callable[[], str],
                 pause_ms: int = EDIT_PAUSE_MS,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.panes = panes
        self.session = session
        self.active_side = active_side
        self.show_message = session.tell
        # each keystroke restarts the pause; the analysis is asked for once it runs out
        self.pause = qdebounced(session.request_analysis, timeout=pause_ms, parent=self)
        self.pause.setObjectName("editPause")
        session.events.analysis_wanted.connect(self.cancel_pause)  # asked for already: the pause is moot
        for side, pane in panes.items():
            pane.follow_edits(session.sides[side].edits)
            pane.edited.connect(lambda pos, removed, added, s=side: self._on_edited(s, pos, removed, added))
            pane.document().modificationChanged.connect(lambda m, s=side: self.session.note_modified(s, m))
            pane.long_paste_refused.connect(lambda n, s=side: self._paste_refused(s, n))

    def cancel_pause(self) -> None:
        self.pause.cancel()

    def _on_edited(self, side: str, pos: int, removed: int, added: int) -> None:
        self.session.note_edit(side, pos, removed, added)
        self.pause()

    def _paste_refused(self, side: str, length: int) -> None:
        self.show_message(
            f"Not pasted into {side}: it would make a line of {length:,} characters. Lines over {LINE_LIMIT:,} "
            f"characters are shown in read-only display pieces; save the text to a file and open it as "
            f"{side} to inspect it. The clipboard still holds it.", "warning")

    def set_editable(self, side: str, editable: bool) -> None:
        self.panes[side].set_editable(editable)
        self.session.set_editable(side, editable)

    def active_editor(self) -> DocumentPane | None:
        """The pane Undo/Redo act on: the focused one if editable, else an editable one."""
        pane = self.panes[self.active_side()]
        if pane.editable:
            return pane
        return next((p for p in (self.panes["B"], self.panes["A"]) if p.editable), None)

    def undo(self) -> None:
        pane = self.active_editor()
        if pane is not None:
            pane.undo()

    def redo(self) -> None:
        pane = self.active_editor()
        if pane is not None:
            pane.redo()
