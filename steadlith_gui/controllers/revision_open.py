"""File → Open revisions…: pick a file in a git repository, then two of its commits.

The file's log is read on the thread pool (a long history must not freeze the window),
and so are the two blobs (the document loader). Every failure — not a repository, a file
git does not track, a binary blob — is one line in the message bar."""

from __future__ import annotations

import os
from typing import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QFileDialog, QWidget

from ..model.history_state import HistoryTarget, Revision, locate, read_history
from ..widgets.revision_dialog import RevisionDialog
from ..workers.worker import Jobs
from .documents import DocumentController
from .settings import AppSettings


class RevisionOpener(QObject):
    listed = Signal(object)  # the RevisionDialog, just before it is asked (tests answer it)
    failed = Signal(str)

    def __init__(self, jobs: Jobs, settings: AppSettings, documents: DocumentController,
                 show_message: Callable[[str, str], None], dialogs: QWidget):
        """`dialogs`: the parent of the file dialog and the revision dialog (the window)."""
        super().__init__(dialogs)
        self.jobs, self.settings, self.documents = jobs, settings, documents
        self.show_message, self.dialogs = show_message, dialogs
        # shows the dialog and says whether the user chose; tests replace it
        self.ask = lambda dialog: dialog.exec() == RevisionDialog.DialogCode.Accepted
        self._seq = 0

    def open(self, path: str | None = None) -> int | None:
        """Ask for the file (unless given), list its commits off the GUI thread, then ask for A and B."""
        if path is None:
            start = self.settings.folder("open") or os.getcwd()
            path, _ = QFileDialog.getOpenFileName(self.dialogs, "Open revisions of a file in a git repository", start,
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
                self.show_message(f"Open revisions: {message}", "error")
                self.failed.emit(message)

        return self.jobs.start(read, done, failed)

    def _choose(self, target: HistoryTarget, commits: list) -> None:
        dialog = RevisionDialog(target.repo, target.path, commits, self.dialogs)
        self.listed.emit(dialog)
        try:
            if not self.ask(dialog):
                return
            a, b = dialog.choice()
        finally:
            dialog.deleteLater()
        self.documents.load_revision_pair(Revision(target.repo, a.path, a.commit),
                                          Revision(target.repo, b.path, b.commit))
