"""Light, dark, or the desktop's choice, for the whole application."""

from __future__ import annotations

from typing import Mapping, Sequence

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QGuiApplication
from PySide6.QtWidgets import QApplication, QStyleFactory

from ..model.session import THEME_CHOICES, Session
from .settings import AppSettings
from ..widgets.palette import THEMES, Theme, qt_palette, system_theme_name


def apply_theme(app: QApplication, theme: Theme) -> None:
    """Fusion style with the theme's palette, for the whole application."""
    style = QStyleFactory.create("Fusion")
    if style is not None and app.style().name().lower() != "fusion":
        app.setStyle(style)
    app.setPalette(qt_palette(theme))


def resolve(choice: str, scheme=None) -> Theme:
    return THEMES[system_theme_name(scheme) if choice == "system" else choice]


class ThemeController(QObject):
    """Keeps the shown theme in step with the session's choice and, for "system", with
    the desktop (QStyleHints.colorSchemeChanged).

    It holds the session, the widgets that paint with the theme, the settings the user's
    choice is remembered in and the View → Theme actions, not the window.
    `changed(theme)` is emitted once every widget shows a new theme: the texts built
    with the theme's colours (pane headers, status line) redraw on it."""

    changed = Signal(object)  # Theme

    def __init__(self, session: Session, theme: Theme, widgets: Sequence, settings: AppSettings,
                 actions: Mapping[str, QAction], parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.theme = theme
        self.widgets = tuple(widgets)
        self.settings = settings
        self.actions = actions
        self._shown_choice = session.view.theme
        session.events.view_changed.connect(self._on_view_changed)
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_color_scheme_changed)

    def set_choice(self, choice: str, remember: bool = False) -> None:
        if choice not in THEME_CHOICES:
            raise ValueError(f"unknown theme {choice!r}; expected one of {', '.join(THEME_CHOICES)}")
        self._shown_choice = choice
        self.session.set_view(theme=choice)
        self.show(resolve(choice))
        if remember:
            self.settings.set_theme(choice)

    def _on_view_changed(self, view) -> None:
        if view.theme != self._shown_choice:
            self.set_choice(view.theme)

    def _on_color_scheme_changed(self, scheme) -> None:
        if self.session.view.theme == "system":
            self.show(resolve("system", scheme))

    def show(self, theme: Theme) -> None:
        changed = theme is not self.theme
        self.theme = theme
        app = QApplication.instance()
        if app is not None:
            apply_theme(app, theme)
        for widget in self.widgets:
            widget.set_theme(theme)
        self.actions[self.session.view.theme].setChecked(True)
        if changed:
            self.changed.emit(theme)
