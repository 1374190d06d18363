"""The window fits common screens: it opens inside the available
geometry, is never held wider than ~1000 px, gives the documents most of the width, and
nothing the user reads (panes, verdict, churn numbers, chunk table tab, status bar) is
cut off at 1366×768 or 1024×768. One key hides every dock and brings them back."""

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QAbstractScrollArea, QTabBar

from gui_helpers import load_texts
from steadlith_core.bench.examples import phase_shift_counterexample
from steadlith_gui.dock_layout import DOCKS, READABLE_CHARS, READING_LINES
from steadlith_gui.main_window import MainWindow
from steadlith_gui.controllers.settings import AppSettings

TASKBAR = 28
AREA = Qt.DockWidgetArea


def rect_in_window(window, widget) -> QRect:
    return QRect(widget.mapTo(window, QPoint(0, 0)), widget.size())


def open_on_screen(qtbot, width, height):
    window = MainWindow(settings=AppSettings.memory())
    window.confirm_discard = lambda question: True
    qtbot.addWidget(window)
    available = QRect(0, 0, width, height - TASKBAR)
    window.dock_layout.fit_to_screen(available)
    window.show()
    qtbot.waitExposed(window)
    text_a, text_b, params = phase_shift_counterexample()
    window.session.set_params(params, show=True)
    load_texts(qtbot, window, text_a, text_b)
    return window, available


@pytest.mark.parametrize("width, height, min_chars", [(1366, 768, 40), (1024, 768, 26)])
def test_nothing_the_user_needs_is_clipped_on_a_laptop_screen(qtbot, width, height, min_chars):
    window, available = open_on_screen(qtbot, width, height)
    assert available.contains(window.frameGeometry()), "the window opens inside the screen"
    assert window.minimumSizeHint().width() <= 1000
    inside = window.rect()
    must_show = {"pane A": window.pane_a, "pane B": window.pane_b, "link map": window.link_map,
                 "overview": window.overview, "churn": window.churn, "verdict": window.churn.verdict,
                 "status bar": window.statusBar(), "legend": window.legend}
    for what, widget in must_show.items():
        assert widget.isVisible(), what
        assert inside.contains(rect_in_window(window, widget)), f"{what} is cut off"
    verdict = window.churn.verdict
    assert verdict.height() >= verdict.heightForWidth(verdict.width()), "the verdict's text is cut off"
    labels = window.churn.values
    # a number may wrap, never run off the edge (wrapped rows get their height once laid out)
    qtbot.waitUntil(lambda: all(lb.height() >= lb.heightForWidth(lb.width()) for lb in labels.values()))
    for key, label in labels.items():
        assert inside.contains(rect_in_window(window, label)), f"churn number {key} is cut off"
    # the documents get most of the width; each pane holds a readable line
    panes = window.pane_a.width() + window.pane_b.width()
    assert panes >= 0.45 * window.width()
    chars = window.pane_a.viewport().width() / window.pane_a.fontMetrics().horizontalAdvance("x")
    assert chars >= min_chars  # at 1024 px the side column costs; Ctrl+Shift+D gives the panes all
    # the chunk table and the parameters are one click away: tabs beside the churn
    tabs = {bar.tabText(i) for bar in window.findChildren(QTabBar) if bar.isVisible() for i in range(bar.count())}
    assert {"Parameters", "Chunks"} <= {t.split("  ")[0] for t in tabs}
    for bar in window.findChildren(QTabBar):
        if bar.isVisible():
            assert inside.contains(rect_in_window(window, bar)), "the dock tabs are cut off"


def test_a_large_screen_keeps_the_docks_beside_the_panes(qtbot):
    window, available = open_on_screen(qtbot, 1920, 1080)
    assert window.minimumSizeHint().width() <= 1000, "the user can still make it narrow"
    assert (window.width(), window.height()) == (1500, 950)
    assert available.contains(window.frameGeometry())
    for dock in (window.params_dock, window.churn_dock, window.table_dock, window.diagnostics_dock):
        assert dock.isVisible() and not window.tabifiedDockWidgets(dock)


def test_one_key_focuses_on_the_documents_and_brings_the_docks_back(qtbot):
    window, _ = open_on_screen(qtbot, 1366, 768)
    before = window.pane_a.width()
    shown = [d for d in (window.params_dock, window.churn_dock, window.table_dock, window.diagnostics_dock)
             if d.isVisible()]
    assert window.act["focus_documents"].shortcut().toString() == "Ctrl+Shift+D"
    window.act["focus_documents"].trigger()
    qtbot.waitUntil(lambda: not any(d.isVisible() for d in shown))
    qtbot.waitUntil(lambda: window.pane_a.width() > before * 1.3)
    window.act["focus_documents"].trigger()
    qtbot.waitUntil(lambda: all(d.isVisible() for d in shown))


def open_every_dock(qtbot, window):
    for name in DOCKS:
        dock = getattr(window, name)
        if not dock.toggleViewAction().isChecked():
            dock.toggleViewAction().trigger()
    qtbot.waitUntil(lambda: all(getattr(window, n).toggleViewAction().isChecked() for n in DOCKS))
    qtbot.wait(50)  # the fit runs once the layout took the docks in
    window.screen_fit.fit()


@pytest.mark.parametrize("width, height", [(1280, 720), (1366, 768)])
def test_every_dock_open_the_window_still_fits_the_screen(qtbot, width, height):
    """Four bottom docks side by side asked for 1,490 px, Sweep over Diagnostics for
    905 px of height: the docks tab together instead, and the panes stay readable."""
    window, available = open_on_screen(qtbot, width, height)
    open_every_dock(qtbot, window)
    room = window.dock_layout.room_on_screen()
    for size in (window.minimumSizeHint(), window.minimumSize()):
        assert size.width() <= room.width() and size.height() <= room.height(), (size, room)
    assert available.contains(window.frameGeometry()), "the window runs off the screen"
    for side in ("A", "B"):
        pane = window.panes[side]
        assert pane.viewport().width() >= READABLE_CHARS * pane.fontMetrics().horizontalAdvance("x")
    for name in DOCKS:  # each is open: visible, or a tab away
        dock = getattr(window, name)
        assert dock.isVisible() or window.tabifiedDockWidgets(dock), name


def test_a_narrowed_window_gives_the_panes_room_before_the_docks(qtbot):
    window, available = open_on_screen(qtbot, 1920, 1080)
    window.resize(1000, window.height())
    pane = window.pane_b
    readable = READABLE_CHARS * pane.fontMetrics().horizontalAdvance("x")
    qtbot.waitUntil(lambda: pane.viewport().width() >= readable)
    assert window.tabifiedDockWidgets(window.churn_dock), "the side docks share one tabbed column"


@pytest.mark.parametrize("width, height", [(1024, 768), (800, 600)])
def test_a_fitted_window_stops_fitting(qtbot, width, height):
    """On a screen too small for every step the docks can take, the fit leaves the docks
    where they are once they are there: docking them again shows and hides them, which
    schedules the next fit, and the window would re-lay itself out for as long as it is open."""
    window, _ = open_on_screen(qtbot, width, height)
    open_every_dock(qtbot, window)
    qtbot.wait(200)  # the fits the opening scheduled
    fits = []
    window.screen_fit._timer.timeout.connect(lambda: fits.append(1))
    qtbot.wait(300)
    assert fits == []
    for name in DOCKS:  # still open: visible, or a tab away
        dock = getattr(window, name)
        assert dock.isVisible() or window.tabifiedDockWidgets(dock), name


def fully_shown(widget) -> bool:
    """No part of `widget` is clipped by its parents (a dock, a splitter, the window)."""
    return widget.isVisible() and widget.visibleRegion().boundingRect().size() == widget.size()


def reachable(widget) -> bool:
    """Shown whole, or inside a scroll area that scrolls to it."""
    if fully_shown(widget):
        return True
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QAbstractScrollArea) and parent.verticalScrollBar().maximum() > 0:
            return True
        parent = parent.parentWidget()
    return False


@pytest.mark.parametrize("width, height", [(1024, 768), (1280, 720), (1366, 768)])
def test_every_dock_open_the_panes_keep_twenty_lines_and_the_churn_stays_reachable(qtbot, width, height):
    """The Churn panel's minimum (its rows, verdicts and regions: ~390 px) set the height
    of the bottom tabs when it shared them, leaving each pane ten lines at 1366×768. It
    stays whole in the right-hand column (1280, 1366) and scrolls in the bottom tabs (1024)."""
    window, _ = open_on_screen(qtbot, width, height)
    open_every_dock(qtbot, window)
    # a result after the docks are open: the panel's content (and so its minimum) grows with it
    text_a, text_b, _ = phase_shift_counterexample()
    load_texts(qtbot, window, text_a + "\n\nA closing line.", text_b)
    qtbot.wait(100)  # the fits the result's layout scheduled
    for side in ("A", "B"):
        pane = window.panes[side]
        lines = pane.viewport().height() // pane.fontMetrics().lineSpacing()
        assert lines >= READING_LINES, f"pane {side} shows {lines} full lines"
    window.churn_dock.raise_()
    qtbot.waitUntil(lambda: window.churn.isVisible())
    churn = window.churn
    qtbot.waitUntil(lambda: all(lb.height() >= lb.heightForWidth(lb.width()) for lb in churn.values.values()))
    needed = {"title": churn.title, "verdict": churn.verdict, "regions": churn.regions,
              **{f"churn number {key}": label for key, label in churn.values.items()}}
    for what, widget in needed.items():
        assert reachable(widget), f"{what} is cut off"
    assert churn.verdict.height() >= churn.verdict.heightForWidth(churn.verdict.width())
    # the Retrieval dock in front of the bottom tabs, at the height they keep: its help text whole
    window.retrieval_dock.raise_()
    status = window.retrieval_view.status
    qtbot.waitUntil(status.isVisible)
    qtbot.wait(50)
    assert fully_shown(status) and status.height() >= status.heightForWidth(status.width()), \
        "the Retrieval dock's text is cut off"


def test_on_a_narrow_screen_the_churn_scrolls_in_the_bottom_tabs_and_the_panes_keep_their_width(qtbot):
    """At 1024×768 the right-hand column would leave each pane ~26 characters: every dock
    tabs under the panes, the Churn panel asks for a few rows there and scrolls the rest
    (its whole minimum would leave the panes a dozen lines), and it is whole again once
    it is back in a column."""
    window, _ = open_on_screen(qtbot, 1024, 768)
    open_every_dock(qtbot, window)
    qtbot.wait(100)
    assert window.dockWidgetArea(window.churn_dock) == AREA.BottomDockWidgetArea
    pane = window.pane_a
    assert pane.viewport().width() >= 40 * pane.fontMetrics().horizontalAdvance("x")
    assert pane.viewport().height() // pane.fontMetrics().lineSpacing() >= READING_LINES
    window.churn_dock.raise_()
    qtbot.waitUntil(window.churn.isVisible)
    assert window.churn_dock.height() < window.churn.minimumSizeHint().height()
    assert reachable(window.churn.verdict) and reachable(window.churn.regions)
    window.addDockWidget(AREA.RightDockWidgetArea, window.churn_dock)
    qtbot.waitUntil(lambda: window.churn_dock.minimumSizeHint().height() >= window.churn.minimumSizeHint().height())
