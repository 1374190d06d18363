"""Where the docks go: the window's size and dock placement for the screen it opens on
(one tabbed column on a compact screen), keeping it on that screen as docks open
(ScreenFit), and View → Focus on documents. The widgets themselves are built in
MainWindow.__init__; the layout gets the QMainWindow as the host of the docks, the docks
and the screen, never the MainWindow's other parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QObject, QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QStatusBar, QTabBar, QWidget

AREA = Qt.DockWidgetArea


#: The size the window asks for on a screen with room for it.
PREFERRED_SIZE = (1500, 950)
#: Below this available width (or height) the side docks share one tabbed column and the
#: diagnostics start hidden, so the document panes keep most of the width: at 1366×768
#: three docks beside the panes left each pane ~30 characters.
COMPACT_BELOW = (1600, 900)
#: Room left for the window manager's frame and title bar, unknown before the window is shown.
FRAME_ALLOWANCE = (8, 32)
DOCKS = ("params_dock", "churn_dock", "table_dock", "diagnostics_dock", "history_dock", "sweep_dock",
         "lab_dock", "retrieval_dock")


BOTTOM_DOCKS = ("diagnostics_dock", "history_dock", "lab_dock", "sweep_dock", "retrieval_dock")
SIDE_DOCKS = ("churn_dock", "params_dock", "table_dock")
#: A pane narrower than this many characters of its font is not readable: the side
#: docks give way (one tabbed column, then tabs at the bottom) before the panes shrink past it.
READABLE_CHARS = 30
#: The bottom tabs stop growing where a pane would keep fewer lines of its font than this.
READING_LINES = 20
#: Bottom docks side by side narrower than this tab together: a chart or a table of
#: commits squeezed to a third of a laptop screen loses its axis titles and columns.
BOTTOM_MIN_WIDTH = 420


#: The height a bottom dock opened from the View menu asks for, in pixels (a third of the
#: window at most): a table shorter than this shows a row or two.
BOTTOM_DOCK_HEIGHT = 240


@dataclass(frozen=True)
class Docks:
    """The window's docks, by the names in DOCKS."""

    params_dock: QDockWidget
    churn_dock: QDockWidget
    table_dock: QDockWidget
    diagnostics_dock: QDockWidget
    history_dock: QDockWidget
    sweep_dock: QDockWidget
    lab_dock: QDockWidget
    retrieval_dock: QDockWidget

    def named(self, names) -> list[QDockWidget]:
        return [getattr(self, name) for name in names]


def is_compact(available: QRect) -> bool:
    return available.width() < COMPACT_BELOW[0] or available.height() < COMPACT_BELOW[1]


class DockLayout:
    """The docks of `host` (the QMainWindow they are docked in: only its dock API and
    geometry are used) placed for the screen it opens on, and the docks opened from the
    View menu placed beside the diagnostics. It remembers the screen's available area
    it was fitted to (`available`, `framed`, `compact`)."""

    def __init__(self, host: QMainWindow, docks: Docks):
        self.host = host
        self.docks = docks
        self.available: QRect | None = None  # None: the screen the window is on
        self.framed = True
        self.compact = False

    def size_for_screen(self) -> None:
        """Place and size the window for the screen it opens on."""
        screen = self.host.screen()
        self.fit_to_screen(screen.availableGeometry() if screen is not None else QRect(0, 0, *PREFERRED_SIZE))

    def fit_to_screen(self, available: QRect, framed: bool = True) -> None:
        """Open within `available` (a screen's available geometry): the preferred size where
        it fits, else the whole area; on a compact screen the docks go into one tabbed
        column at the right (Churn in front) and the diagnostics are hidden (View menu).
        `framed=False`: no window frame to allow for (a screenshot is all window)."""
        window, d = self.host, self.docks
        width = min(PREFERRED_SIZE[0], available.width() - FRAME_ALLOWANCE[0])
        height = min(PREFERRED_SIZE[1], available.height() - FRAME_ALLOWANCE[1])
        compact = is_compact(available)
        self.compact = compact
        self.available = QRect(available)
        self.framed = framed
        # compact: the right-hand column runs the window's whole height, beside the panes and
        # the bottom tabs, so its height and theirs are not stacked (the Churn panel's rows
        # over the bottom tabs would leave the panes a dozen lines at 1366×768)
        window.setCorner(Qt.Corner.BottomRightCorner,
                         AREA.RightDockWidgetArea if compact else AREA.BottomDockWidgetArea)
        if not compact:
            self.standard()
            d.diagnostics_dock.show()
        else:
            for dock in (d.params_dock, d.churn_dock, d.table_dock):
                window.addDockWidget(AREA.RightDockWidgetArea, dock)
            window.tabifyDockWidget(d.churn_dock, d.params_dock)
            window.tabifyDockWidget(d.churn_dock, d.table_dock)
            d.churn_dock.raise_()
            d.diagnostics_dock.hide()
        window.resize(width, height)
        window.move(available.x() + (available.width() - FRAME_ALLOWANCE[0] - width) // 2,
                    available.y() + (available.height() - FRAME_ALLOWANCE[1] - height) // 2)
        side = max(d.churn_dock.minimumSizeHint().width(), min(360, int(width / 3.5)))
        if compact:
            window.resizeDocks([d.churn_dock], [side], Qt.Orientation.Horizontal)
        else:
            window.resizeDocks([d.params_dock, d.churn_dock], [330, 350], Qt.Orientation.Horizontal)
            window.resizeDocks([d.diagnostics_dock], [250], Qt.Orientation.Vertical)
            window.resizeDocks([d.churn_dock, d.table_dock], [470, 380], Qt.Orientation.Vertical)

    def room_on_screen(self) -> QSize:
        """The largest window the screen it opens on holds (its frame allowed for)."""
        available = self.available
        if available is None:
            screen = self.host.screen()
            available = screen.availableGeometry() if screen is not None else QRect(0, 0, *PREFERRED_SIZE)
        fw, fh = FRAME_ALLOWANCE if self.framed else (0, 0)
        return QSize(available.width() - fw, available.height() - fh)

    def standard(self) -> None:
        """Parameters left; churn over the chunk table right; diagnostics at the bottom."""
        d = self.docks
        standard_docks(self.host, d.params_dock, d.churn_dock, d.table_dock, d.diagnostics_dock)

    def tab_with_diagnostics(self, dock: QDockWidget, shown: bool, height: int = BOTTOM_DOCK_HEIGHT) -> None:
        """A bottom dock opened from the View menu goes in front of the diagnostics as a tab,
        not beside them: two wide docks side by side would leave each too narrow. It asks for
        `height` (a third of the window at most)."""
        w, diagnostics = self.host, self.docks.diagnostics_dock
        if shown and not dock.isFloating() and diagnostics.isVisible() \
                and not diagnostics.isFloating() and not w.tabifiedDockWidgets(dock) \
                and w.dockWidgetArea(dock) == w.dockWidgetArea(diagnostics):
            w.tabifyDockWidget(diagnostics, dock)
        if shown:
            dock.raise_()
            if not dock.isFloating() and dock.height() < height:
                w.resizeDocks([dock], [min(height, w.height() // 3)], Qt.Orientation.Vertical)

    def follow_openings(self, lab_height: int, sweep_height: Callable[[], int]) -> None:
        """The bottom docks opened from the View menu: Retrieval and the Locality lab go in
        front of the diagnostics (the lab `lab_height` high), Sweep grows to its content
        (`sweep_height()`, read when it opens)."""
        d = self.docks
        d.retrieval_dock.toggleViewAction().triggered.connect(
            lambda shown: self.tab_with_diagnostics(d.retrieval_dock, shown))
        d.lab_dock.toggleViewAction().triggered.connect(
            lambda shown: self.tab_with_diagnostics(d.lab_dock, shown, lab_height))
        d.sweep_dock.visibilityChanged.connect(lambda visible: grow_when_opened(
            self.host, d.sweep_dock, visible, sweep_height()))

    def open_before_diagnostics(self, dock: QDockWidget, height: int) -> None:
        """Open `dock` in front of the diagnostics when they share the bottom (side by side,
        neither has room for its columns), `height` high, a third of the window at most."""
        w, diagnostics = self.host, self.docks.diagnostics_dock
        if diagnostics.isVisible() and w.dockWidgetArea(diagnostics) == w.dockWidgetArea(dock):
            w.tabifyDockWidget(diagnostics, dock)
        dock.show()
        dock.raise_()
        w.resizeDocks([dock], [min(height, w.height() // 3)], Qt.Orientation.Vertical)


def _docked(docks: Docks, names) -> list[QDockWidget]:
    """The docks open in the window (a tab behind another counts: it is open, not visible)."""
    return [d for d in docks.named(names) if d.toggleViewAction().isChecked() and not d.isFloating()]


def _grouped(window: QMainWindow, docks: list[QDockWidget], area) -> bool:
    """`docks` are one tab group in `area` already: moving them there again would take each
    out of its group and back, showing and hiding them, which schedules another fit."""
    first = docks[0]
    tabbed = window.tabifiedDockWidgets(first)
    return all(window.dockWidgetArea(d) == area for d in docks) and all(d in tabbed for d in docks[1:])


def _regroup(window: QMainWindow, docks: list[QDockWidget], area) -> bool:
    """Make `docks` one tab group in `area`; True if any dock moved."""
    if not docks or _grouped(window, docks, area):
        return False
    for dock in docks:
        if window.dockWidgetArea(dock) != area:
            window.addDockWidget(area, dock)
    _tab_together(window, docks)
    return True


def _tab_together(window: QMainWindow, docks: list[QDockWidget]) -> bool:
    """Tab `docks` onto the first of them; True if any was not tabbed with it yet."""
    if len(docks) < 2:
        return False
    first, changed = docks[0], False
    for dock in docks[1:]:
        if dock not in window.tabifiedDockWidgets(first):
            window.tabifyDockWidget(first, dock)
            changed = True
    return changed


class ScreenFit(QObject):
    """Keeps the window on its screen as docks open: each dock's minimum size adds up in
    the main window's layout (four bottom docks side by side asked for 1,490 px, Sweep
    and Diagnostics stacked for 800 px of height), so when the minimum size would pass
    the screen, or a pane would be narrower than READABLE_CHARS, the docks give way in
    this order: the bottom docks tab together; the side docks become one tabbed column
    at the right; that column joins the bottom tabs; the bottom tabs join the column.
    The panes keep their room; nothing is hidden (every dock is still a tab away)."""

    def __init__(self, host: QMainWindow, docking: DockLayout, pane: QWidget, focus: DocumentFocus):
        """`host`: the QMainWindow the docks are in; `docking`: its docks and screen;
        `pane`: the document pane that must stay readable; `focus`: docks hidden on purpose."""
        super().__init__(host)
        self.host = host
        self.docking = docking
        self.pane = pane
        self.focus = focus
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.fit)
        self._last: QDockWidget | None = None  # the dock opened last: in front after tabbing
        self._arranging = False
        for dock in docking.docks.named(DOCKS):
            dock.visibilityChanged.connect(lambda visible, d=dock: visible and self._opened(d))
            dock.topLevelChanged.connect(lambda _floating: self.schedule())

    def _opened(self, dock: QDockWidget) -> None:
        if not self._arranging:
            self._last = dock
        self.schedule()

    def schedule(self) -> None:
        """Fit once the layout has taken the change in (docks show and resize in steps)."""
        self._timer.start(0)

    def _over(self) -> bool:
        w = self.host
        w.layout().invalidate()
        hint, room = w.minimumSizeHint(), self.docking.room_on_screen()
        return hint.width() > room.width() or hint.height() > room.height()

    def _narrow(self) -> bool:
        if not self.host.isVisible():
            return False
        pane = self.pane
        return pane.viewport().width() < READABLE_CHARS * pane.fontMetrics().horizontalAdvance("x")

    def _cramped(self) -> bool:
        shown = [d for d in _docked(self.docking.docks, BOTTOM_DOCKS) if d.isVisible()]
        return len(shown) > 1 and min(d.width() for d in shown) < BOTTOM_MIN_WIDTH

    def fit(self) -> None:
        w, docks = self.host, self.docking.docks
        if self.focus.active:
            return  # the docks are hidden on purpose
        self._arranging = True
        try:
            moved = self._cramped() and _tab_together(w, _docked(docks, BOTTOM_DOCKS))
            if self._over() or self._narrow():
                moved = self._give_way() or moved
        finally:
            self._arranging = False
        # the checks invalidated the layout: activated now, the window's minimum size is
        # this arrangement's at once, not after the next pass of the event loop
        w.layout().activate()
        # only after a move: raising and resizing docks that stayed where they were shows and
        # hides them, which schedules the next fit (on a screen too small for every step, forever)
        if moved:
            self._after_moves()
        self._back_on_screen()

    def _back_on_screen(self) -> None:
        """A dock that opened grew the window past the screen's edge before the docks gave
        way: the window shrinks (and moves) back inside the screen's available area."""
        w = self.host
        available = self.docking.available
        if available is None:
            screen = w.screen()
            if screen is None:
                return
            available = screen.availableGeometry()
        frame = w.frameGeometry() if self.docking.framed else w.geometry()
        if w.isMaximized() or w.isFullScreen() or available.contains(frame):
            return
        extra_w, extra_h = frame.width() - w.width(), frame.height() - w.height()
        width = min(w.width(), available.width() - extra_w)
        height = min(w.height(), available.height() - extra_h)
        w.resize(width, height)
        x = min(max(frame.x(), available.x()), available.right() + 1 - width - extra_w)
        y = min(max(frame.y(), available.y()), available.bottom() + 1 - height - extra_h)
        w.move(x, y)

    def _give_way(self) -> bool:
        """The next step the docks can still take; True if any dock moved."""
        w, docks = self.host, self.docking.docks
        moved = _tab_together(w, _docked(docks, BOTTOM_DOCKS))
        if moved and not (self._over() or self._narrow()):
            return True
        side = _docked(docks, SIDE_DOCKS)
        if side and _regroup(w, side, AREA.RightDockWidgetArea):
            side[0].raise_()
            moved = True
            if not (self._over() or self._narrow()):
                return True
        bottom = _docked(docks, BOTTOM_DOCKS)
        if bottom and side and _grouped(w, side + bottom, AREA.RightDockWidgetArea):
            return moved  # the last step is taken: the steps before it would undo it
        if self._over() or self._narrow():
            if bottom:  # the side column joins the bottom tabs: the panes get the whole width
                moved = _regroup(w, bottom + side, AREA.BottomDockWidgetArea) or moved
            elif side:
                return moved
        if self._over() and bottom and side:  # still too tall: one tab group at the right
            moved = _regroup(w, side + bottom, AREA.RightDockWidgetArea) or moved
        return moved

    def _after_moves(self) -> None:
        """Docks were tabbed: the one opened last in front, whole tab titles (scrolled when
        they do not fit), then the bottom tabs' height (once the moved docks have their
        new widths, which their wrapped labels' minimum heights depend on)."""
        w = self.host
        if self._last is not None and self._last.toggleViewAction().isChecked():
            self._last.raise_()
        for bar in w.findChildren(QTabBar):
            if bar.parent() is w:
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)
        QTimer.singleShot(0, self, self._size_bottom)

    def _size_bottom(self, again: bool = True) -> None:
        """The bottom tabs as high as their content reads at, but no higher than 40 % of
        the window nor than leaves each pane READING_LINES lines, and never below their
        minimum: the documents are what the user came to read, a dock's table scrolls.
        Resizing docks neither shows nor hides one, so it schedules no fit."""
        w = self.host
        bottom = [d for d in _docked(self.docking.docks, BOTTOM_DOCKS + SIDE_DOCKS)
                  if w.dockWidgetArea(d) == AREA.BottomDockWidgetArea]
        # the docks in front: one behind a tab still counts as visible, at its old height
        shown = [d.height() for d in bottom if d.isVisible() and not d.visibleRegion().isEmpty()]
        if not shown:
            return
        w.layout().activate()
        wanted = max(d.widget().sizeHint().height() + 24 for d in bottom if d.widget() is not None)
        least = max(d.minimumSizeHint().height() for d in bottom)
        pane = self.pane
        # the height that leaves each pane READING_LINES lines: the panes give what they
        # hold beyond those lines to the docks (or take back what they lack)
        leaving = max(shown) + pane.viewport().height() - READING_LINES * pane.fontMetrics().lineSpacing()
        height = max(least, min(wanted, int(w.height() * 0.4), leaving))
        w.resizeDocks(bottom, [height] * len(bottom), Qt.Orientation.Vertical)
        if again:  # right after the moves the docks are not yet where they went: measured again once they are
            QTimer.singleShot(0, self, lambda: self._size_bottom(again=False))


def standard_docks(w: QMainWindow, params: QDockWidget, churn: QDockWidget, table: QDockWidget,
                   diagnostics: QDockWidget) -> None:
    """Parameters left; churn over the chunk table right; diagnostics at the bottom."""
    w.addDockWidget(AREA.LeftDockWidgetArea, params)
    w.addDockWidget(AREA.RightDockWidgetArea, churn)
    w.addDockWidget(AREA.RightDockWidgetArea, table)
    w.splitDockWidget(churn, table, Qt.Orientation.Vertical)
    w.addDockWidget(AREA.BottomDockWidgetArea, diagnostics)


def grow_when_opened(window: QMainWindow, dock, visible: bool, wanted: int) -> None:
    """A dock that scrolls when short (the window must fit its screen) asks, when opened,
    for the height its content reads at, half the window at most."""
    if visible and not dock.isFloating() and dock.height() < wanted:
        window.resizeDocks([dock], [min(wanted, window.height() // 2)], Qt.Orientation.Vertical)


class DocumentFocus:
    """View → Focus on documents: every dock hides, and the same key brings back the
    ones that were shown; `status` tells which happened."""

    def __init__(self, docks: Docks, status: QStatusBar):
        self.docks = docks
        self.status = status
        self.hidden: list[str] = []

    @property
    def active(self) -> bool:
        return bool(self.hidden)

    def toggle(self) -> None:
        if self.hidden:
            for dock in self.docks.named(self.hidden):
                dock.show()
            self.hidden = []
        else:
            self.hidden = [name for name, dock in zip(DOCKS, self.docks.named(DOCKS)) if dock.isVisible()]
            for dock in self.docks.named(self.hidden):
                dock.hide()
        self.status.showMessage("Focus on documents: docks hidden (same key brings them back)"
                                if self.hidden else "Docks shown again", 4000)
