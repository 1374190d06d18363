"""Typing into the panes: each keystroke is O(1) here and tells the session the new
revision; the analysis waits until the typing pauses for EDIT_PAUSE_MS."""

from __future__ import annotations

from PySide6.QtCore import QObject, QTimer

from ..model.session import Session

EDIT_PAUSE_MS = 300  # analysis starts this long after the last keystroke


class EditController(QObject):
    def __init__(self, window, session: Session):
        super().__init__(window)
        self.window = window
        self.session = session
        self.pause = QTimer(self)
        self.pause.setObjectName("editPause")
        self.pause.setSingleShot(True)
        self.pause.setInterval(EDIT_PAUSE_MS)
        self.pause.timeout.connect(session.request_analysis)
        for side, pane in window.panes.items():
            pane.edited.connect(lambda s=side: self._on_edited(s))
            pane.document().modificationChanged.connect(lambda m, s=side: self._on_modified(s, m))

    def cancel_pause(self) -> None:
        self.pause.stop()

    def _on_edited(self, side: str) -> None:
        pane = self.window.panes[side]
        self.session.note_edit(side, pane.revision)
        self.pause.start()
        st = self.session.sides[side]
        if st.revision == st.shown_revision + 1:  # the first edit since the shown result
            self.window.presenter.update_header(side)

    def _on_modified(self, side: str, modified: bool) -> None:
        self.session.note_modified(side, modified)
        self.window.presenter.update_header(side)
        self.window.presenter.update_title()

    def set_editable(self, side: str, editable: bool) -> None:
        self.window.panes[side].set_editable(editable)
        self.session.set_view(**{f"edit_{side.lower()}": editable})
        self.window.presenter.update_header(side)

    def active_editor(self):
        """The pane Undo/Redo act on: the focused one if editable, else an editable one."""
        panes = self.window.panes
        pane = panes[self.window.active_side]
        if pane.editable:
            return pane
        return next((p for p in (panes["B"], panes["A"]) if p.editable), None)

    def undo(self) -> None:
        pane = self.active_editor()
        if pane is not None:
            pane.undo()

    def redo(self) -> None:
        pane = self.active_editor()
        if pane is not None:
            pane.redo()
