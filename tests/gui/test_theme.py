"""View → Theme: System (default) follows the desktop's colour scheme and its changes;
Light and Dark are fixed; the palette and the painted widgets switch; the kind and
status colours are the core's (steadlith_core.report.style), shared with the HTML report."""

from __future__ import annotations

from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QGuiApplication, QPalette
from PySide6.QtWidgets import QApplication
from steadlith_core.report import style

from gui_helpers import make_window
from pytestqt.exceptions import TimeoutError
from steadlith_gui.main_window import MainWindow
from steadlith_gui.widgets.palette import DARK, LIGHT, THEMES, system_theme_name


def window_colour() -> str:
    return QApplication.instance().palette().color(QPalette.ColorRole.Window).name().upper()


def test_theme_actions_switch_the_palette_and_the_widgets(qtbot, window):
    acts = window.act.theme
    assert [a.text() for a in window.act.theme_menu.actions()] == ["&System (follow the desktop)", "&Light", "&Dark"]
    assert acts["light"].isChecked() and acts["light"].actionGroup().isExclusive()
    with qtbot.waitSignal(window.theme_changed, timeout=2_000) as blocker:
        acts["dark"].trigger()
    assert blocker.args == ["dark"] and window.theme_ctl.theme is DARK and acts["dark"].isChecked()
    assert not acts["light"].isChecked() and window_colour() == DARK.window.upper()
    assert window.link_map.theme is DARK and window.pane_b.theme is DARK and window.churn.theme is DARK
    assert_painted(qtbot, window, DARK)
    acts["light"].trigger()
    assert window.theme_ctl.theme is LIGHT and window_colour() == LIGHT.window.upper()
    assert_painted(qtbot, window, LIGHT)


def assert_painted(qtbot, window, theme) -> None:
    # the application palette reaches the text area through posted events: wait for the repaint
    try:
        qtbot.waitUntil(lambda: painted_surfaces(window) == surfaces(theme), timeout=2_000)
    except TimeoutError:
        pass  # the assertion below says what differs
    assert painted_surfaces(window) == surfaces(theme)


def surfaces(theme) -> dict[str, str]:
    return {"link map": theme.window.upper(), "text": theme.base.upper(), "gutter": theme.gutter_bg.upper()}


def painted_surfaces(window) -> dict[str, str]:
    """The colours actually painted on the link map's background, a pane's text area and
    its gutter, read from the window's pixels (away from any text, line or marker)."""
    image = window.grab().toImage()
    pane = window.pane_b

    def at(widget, x: int, y: int) -> str:
        return image.pixelColor(widget.mapTo(window, QPoint(x, y))).name().upper()

    vp, gutter, link_map = pane.viewport(), pane.gutter, window.link_map
    return {"link map": at(link_map, 4, link_map.height() // 2),
            "text": at(vp, vp.width() - 4, vp.height() - 4),
            "gutter": at(gutter, 3, gutter.height() - 4)}


def test_the_two_themes_paint_different_surfaces():
    """Otherwise the switch above would prove nothing."""
    assert all(surfaces(LIGHT)[k] != surfaces(DARK)[k] for k in surfaces(LIGHT))


def test_system_follows_a_change_of_the_desktop_scheme(qtbot, window):
    window.act.theme["system"].trigger()
    assert window.session.view.theme == "system"
    hints = QGuiApplication.styleHints()
    # simulate the desktop switching (offscreen has no desktop that could): the signal Qt emits
    with qtbot.waitSignal(window.theme_changed, timeout=2_000) as blocker:
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Dark)
    assert blocker.args == ["dark"] and window.theme_ctl.theme is DARK and window_colour() == DARK.window.upper()
    with qtbot.waitSignal(window.theme_changed, timeout=2_000):
        hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert window.theme_ctl.theme is LIGHT
    # a fixed choice ignores the desktop
    window.act.theme["dark"].trigger()
    hints.colorSchemeChanged.emit(Qt.ColorScheme.Light)
    assert window.theme_ctl.theme is DARK
    window.theme_ctl.set_choice("light")


def test_scheme_to_theme_mapping():
    assert system_theme_name(Qt.ColorScheme.Dark) == "dark"
    assert system_theme_name(Qt.ColorScheme.Light) == "light"
    assert system_theme_name(Qt.ColorScheme.Unknown) == "light"  # no preference: light


def test_a_window_can_start_following_the_system(qtbot):
    w = make_window(qtbot, theme="system")
    expected = system_theme_name()
    assert w.session.view.theme == "system" and w.theme_ctl.theme.name == expected and w.act.theme["system"].isChecked()
    w.theme_ctl.set_choice("light")


def test_unknown_theme_is_refused(qtbot):
    import pytest

    with pytest.raises(ValueError):
        MainWindow(theme="neon")


def test_kind_and_status_colours_are_the_cores():
    """Every kind and status colour of both themes is the core's (steadlith_core.report.style):
    the report and the inspector speak one visual language."""
    for name, theme in THEMES.items():
        assert theme.kind == style.KIND_COLOURS[name]
        assert theme.status == style.STATUS_COLOURS[name]
