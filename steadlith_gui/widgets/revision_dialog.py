"""File → Open revisions…, second step: two revisions of one file, chosen from its log.

Two lists of the same commits, newest first (short hash, date, subject): A on the left,
B on the right. B starts at the newest commit and A at the one before it, which holds
what B's parent held: the last change of the file, as `git log -p` would show it.
Choosing another B moves A to the commit before it again (as a History click pairs a
commit with its parent); A can then be chosen freely. A pair that is not "before, after"
(A newer than B, or the same version twice) gets a warning line above the buttons."""

from __future__ import annotations

import datetime as _dt
from typing import Sequence

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QGridLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QWidget,
)
from steadlith_core.history.repository import CommitInfo

from .names import plain_tooltip, shown_name


def commit_line(c: CommitInfo) -> str:
    when = _dt.datetime.fromtimestamp(c.when, tz=_dt.timezone.utc).strftime("%Y-%m-%d")
    return f"{c.short}  {when}  {shown_name(c.subject)}"


class RevisionDialog(QDialog):
    def __init__(self, repo: str, path: str, commits: Sequence[CommitInfo], parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("revisionDialog")
        self.setWindowTitle("Open revisions")
        self.commits = list(commits)
        grid = QGridLayout(self)
        where = QLabel(f"{shown_name(path)} in {shown_name(repo)}: {len(self.commits)} commit"
                       f"{'s' if len(self.commits) != 1 else ''} changed it, newest first.")
        where.setTextFormat(Qt.TextFormat.PlainText)  # names are data
        where.setWordWrap(True)
        grid.addWidget(where, 0, 0, 1, 2)
        self.list_a = self._commit_list("revisionListA", "A: the version before")
        self.list_b = self._commit_list("revisionListB", "B: the version after")
        for col, (title, lst) in enumerate((("&A (before)", self.list_a), ("&B (after)", self.list_b))):
            label = QLabel(title)
            label.setBuddy(lst)
            grid.addWidget(label, 1, col)
            grid.addWidget(lst, 2, col)
        self.warning = QLabel("")
        self.warning.setObjectName("revisionWarning")
        self.warning.setTextFormat(Qt.TextFormat.PlainText)
        self.warning.setWordWrap(True)
        self.warning.setStyleSheet("QLabel { color: #b35c00; font-weight: bold; }")
        self.warning.hide()
        grid.addWidget(self.warning, 3, 0, 1, 2)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Open | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        grid.addWidget(self.buttons, 4, 0, 1, 2)
        self.list_b.currentRowChanged.connect(self._on_b_chosen)
        self.list_a.currentRowChanged.connect(lambda _row: self._check())
        self.list_b.setCurrentRow(0)
        self.resize(900, 420)

    def _on_b_chosen(self, row: int) -> None:
        """A follows B to the version before it: the commit after B in this newest-first
        list holds what B's parent held. The commit that added the file has none."""
        if 0 <= row:
            self.list_a.setCurrentRow(min(row + 1, len(self.commits) - 1))
        self._check()

    def _check(self) -> None:
        a, b = self.list_a.currentRow(), self.list_b.currentRow()
        text = ""
        if a < 0 or b < 0:
            text = ""
        elif a == b:
            text = ("A and B are the same version: nothing changed between them."
                    + (" B added the file; there is no version before it." if b == len(self.commits) - 1 else ""))
        elif a < b:
            text = (f"Reversed: A ({self.commits[a].short}) is newer than B ({self.commits[b].short}). "
                    "The churn will be that of undoing the change; choose the older version as A.")
        self.warning.setText(text)
        self.warning.setVisible(bool(text))

    def _commit_list(self, name: str, accessible: str) -> QListWidget:
        lst = QListWidget()
        lst.setObjectName(name)
        lst.setAccessibleName(accessible)
        for c in self.commits:
            item = QListWidgetItem(commit_line(c))
            item.setToolTip(plain_tooltip(f"{c.commit}\n{c.author}\n{c.subject}\n{c.path}"))
            lst.addItem(item)
        return lst

    def choice(self) -> tuple[CommitInfo, CommitInfo]:
        """The commits chosen for A and B."""
        return self.commits[max(self.list_a.currentRow(), 0)], self.commits[max(self.list_b.currentRow(), 0)]
