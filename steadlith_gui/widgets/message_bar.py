"""An inline, dismissible message bar: errors never block and never reach the console only.

Messages carry names the user controls (file names, workspace values), so the text is
plain, never rich text, and controls and bidi overrides in it are shown as escapes."""

from __future__ import annotations

from typing import Callable, Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QToolButton, QWidget

from .names import visible_lines
from .palette import LIGHT, Theme

ICONS = {"error": "✖", "warning": "⚠", "info": "ℹ"}


class MessageBar(QFrame):
    shown = Signal(str, str)  # level, text

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("messageBar")
        self.setAccessibleName("Messages")
        self.theme = theme
        self.level = "info"
        self.history: list[tuple[str, str]] = []
        self.icon = QLabel()
        self.label = QLabel()
        self.label.setObjectName("messageText")
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # a name like <img src=…> shows as typed
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        close = QToolButton()
        close.setObjectName("messageClose")
        close.setText("✕")
        close.setAutoRaise(True)
        close.setToolTip("Dismiss")
        close.setAccessibleName("Dismiss message")
        close.clicked.connect(self.dismiss)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 4, 4, 4)
        lay.addWidget(self.icon)
        lay.addWidget(self.label, 1)
        self.actions = QHBoxLayout()  # the buttons of an offer (show_offer), none for a plain message
        self.actions.setContentsMargins(0, 0, 0, 0)
        self._buttons: list[QToolButton] = []
        lay.addLayout(self.actions)
        lay.addWidget(close)
        self.hide()

    def text(self) -> str:
        return self.label.text()

    def show_message(self, text: str, level: str = "error") -> None:
        self._clear_actions()  # a new message replaces an offer: its buttons go with it
        self.level = level
        self.history.append((level, text))
        self.icon.setText(ICONS.get(level, ""))
        shown = visible_lines(text, elide=True)  # a 5,000-character path stays one line
        self.label.setText(shown)
        self.setAccessibleDescription(f"{level}: {shown}")
        self._restyle()
        self.show()
        self.shown.emit(level, text)

    def show_offer(self, text: str, actions: Sequence[tuple[str, Callable[[], None]]], level: str = "info") -> None:
        """A message with a button per (label, action): a click hides the bar, then acts."""
        self.show_message(text, level)
        for label, action in actions:
            button = QToolButton()
            button.setObjectName(f"messageAction_{label}")
            button.setText(label)
            button.setAccessibleName(label)
            button.clicked.connect(lambda _checked=False, act=action: (self.dismiss(), act()))
            self.actions.addWidget(button)
            self._buttons.append(button)

    def action_labels(self) -> list[str]:
        return [b.text() for b in self._buttons]

    def trigger(self, label: str) -> None:
        """Click the offer's button `label` (the keyboard and the tests use it)."""
        next(b for b in self._buttons if b.text() == label).click()

    def _clear_actions(self) -> None:
        for button in self._buttons:
            self.actions.removeWidget(button)
            button.deleteLater()
        self._buttons = []

    def dismiss(self) -> None:
        self.hide()

    def withdraw(self, text: str, level: str = "info") -> None:
        """Dismiss the bar if it still shows exactly this message (a note that stopped
        describing what is shown), and leave any later message alone."""
        if self.isVisible() and self.level == level and self.text() == text:
            self.dismiss()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._restyle()

    def _restyle(self) -> None:
        t = self.theme
        bg = {"error": t.error_bg, "warning": t.warning_bg}.get(self.level, t.info_bg)
        fg = t.error_fg if self.level == "error" else t.text
        self.setStyleSheet(
            f"QFrame#messageBar {{ background: {bg}; border: 1px solid {t.mid}; border-radius: 4px; }}"
            f" QFrame#messageBar QLabel {{ color: {fg}; }}"
        )
