"""File → Open revisions…: pick a file in a git repository, then two of its commits.

The file's log is read on the thread pool (a long history must not freeze the window),
and so are the two blobs (the document loader). Every failure — not a repository, a file
git does not track, a binary blob — is one line in the message bar."""

from __future__ import annotations

import os

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog

from ..model.history_state import HistoryTarget, Revision, locate, read_history
from ..widgets.revision_dialog import RevisionDialog


class RevisionOpener(QObject):
    listed = Signal(object)  # the RevisionDialog, just before it is asked (tests answer it)
    failed = Signal(str)

    def __init__(self, window):
        super().__init__(window)
        self.window = window
        # shows the dialog and says whether the user chose; tests replace it
        self.ask = lambda dialog: dialog.exec() == RevisionDialog.DialogCode.Accepted
        self._seq = 0

    def open(self, path: str | None = None) -> int | None:
        """Ask for the file (unless given), list its commits off the GUI thread, then ask for A and B."""
        w = self.window
        if path is None:
            start = w.settings.folder("open") or os.getcwd()
            path, _ = QFileDialog.getOpenFileName(w, "Open revisions of a file in a git repository", start,
                                                  "All files (*)")
            if not path:
                return None
        self._seq += 1
        seq = self._seq

        def read() -> tuple[HistoryTarget, list]:
            return read_history(locate(path))

        def done(value) -> None:
            if seq == self._seq:
                self._choose(*value)

        def failed(message: str) -> None:
            if seq == self._seq:
                w.show_message(f"Open revisions: {message}", "error")
                self.failed.emit(message)

        return w.jobs.start(read, done, failed)

    def _choose(self, target: HistoryTarget, commits: list) -> None:
        dialog = RevisionDialog(target.repo, target.path, commits, self.window)
        self.listed.emit(dialog)
        try:
            if not self.ask(dialog):
                return
            a, b = dialog.choice()
        finally:
            dialog.deleteLater()
        self.window.documents_ctl.load_revision_pair(Revision(target.repo, a.path, a.commit),
                                                     Revision(target.repo, b.path, b.commit))
