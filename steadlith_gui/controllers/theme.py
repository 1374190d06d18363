"""Light, dark, or the desktop's choice, for the whole application."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication, QStyleFactory

from ..model.session import THEME_CHOICES, Session
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
    the desktop (QStyleHints.colorSchemeChanged)."""

    def __init__(self, window, session: Session):
        super().__init__(window)
        self.window = window
        self.session = session
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
            self.window.settings.set_theme(choice)

    def _on_view_changed(self, view) -> None:
        if view.theme != self._shown_choice:
            self.set_choice(view.theme)

    def _on_color_scheme_changed(self, scheme) -> None:
        if self.session.view.theme == "system":
            self.show(resolve("system", scheme))

    def show(self, theme: Theme) -> None:
        w = self.window
        changed = theme is not w.theme
        w.theme = theme
        app = QApplication.instance()
        if app is not None:
            apply_theme(app, theme)
        for widget in (w.message_bar, w.legend, w.pane_a, w.pane_b, w.params_panel, w.diagnostics,
                       w.link_map, w.overview, w.churn, w.table):
            widget.set_theme(theme)
        for side in ("A", "B"):
            w.presenter.update_header(side)
        w.presenter.update_status()
        if hasattr(w, "theme_actions"):
            w.theme_actions[self.session.view.theme].setChecked(True)
        if changed:
            w.theme_changed.emit(theme.name)
