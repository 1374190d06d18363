"""Ctrl+F: a find bar above the panes. Next / previous go through both panes, A then B
(the search itself is navigation's: this bar only reports what the user asked)."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QLineEdit, QToolButton, QWidget


class FindBar(QWidget):
    find_requested = Signal(str, int)  # text, direction (+1 next, -1 previous)

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("findBar")
        self.edit = QLineEdit()
        self.edit.setObjectName("findText")
        self.edit.setPlaceholderText("Find in A and B (Enter: next, Shift+Enter: previous, Esc: close)")
        self.edit.setAccessibleName("Find in both documents")
        self.edit.returnPressed.connect(lambda: self.request(1))
        self.status = QLabel("")
        self.status.setObjectName("findStatus")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(QLabel("Find:"))
        lay.addWidget(self.edit, 1)
        for text, tip, direction in (("◀", "Previous match (Shift+F3)", -1), ("▶", "Next match (F3)", 1)):
            b = QToolButton()
            b.setText(text)
            b.setToolTip(tip)
            b.setAccessibleName(tip)
            b.clicked.connect(lambda _c=False, d=direction: self.request(d))
            lay.addWidget(b)
        lay.addWidget(self.status)
        close = QToolButton()
        close.setText("✕")
        close.setToolTip("Close (Esc)")
        close.setAccessibleName("Close the find bar")
        close.clicked.connect(self.hide)
        lay.addWidget(close)
        self.hide()

    def open(self) -> None:
        self.show()
        self.edit.setFocus()
        self.edit.selectAll()

    def request(self, direction: int) -> None:
        if self.edit.text():
            self.find_requested.emit(self.edit.text(), direction)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        if event.key() == Qt.Key.Key_Escape:
            self.hide()
        elif event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and \
                event.modifiers() & Qt.KeyboardModifier.ShiftModifier:
            self.request(-1)
        else:
            super().keyPressEvent(event)
