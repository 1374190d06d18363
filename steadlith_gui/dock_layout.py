"""Where the docks go: the window's size and dock placement for the screen it opens on
(one tabbed column on a compact screen), keeping it on that screen as docks open
(ScreenFit), and View → Focus on documents. The widgets themselves are built in
MainWindow.__init__."""

from __future__ import annotations

from PySide6.QtCore import QObject, QRect, QSize, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QMainWindow, QTabBar

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
#: Bottom docks side by side narrower than this tab together: a chart or a table of
#: commits squeezed to a third of a laptop screen loses its axis titles and columns.
BOTTOM_MIN_WIDTH = 420


def size_docks(window: QMainWindow) -> None:
    """Place and size the window for the screen it opens on."""
    screen = window.screen()
    fit_to_screen(window, screen.availableGeometry() if screen is not None else QRect(0, 0, *PREFERRED_SIZE))


def is_compact(available: QRect) -> bool:
    return available.width() < COMPACT_BELOW[0] or available.height() < COMPACT_BELOW[1]


def fit_to_screen(window: QMainWindow, available: QRect, framed: bool = True) -> None:
    """Open within `available` (a screen's available geometry): the preferred size where
    it fits, else the whole area; on a compact screen the docks go into one tabbed
    column at the right (Churn in front) and the diagnostics are hidden (View menu).
    `framed=False`: no window frame to allow for (a screenshot is all window)."""
    width = min(PREFERRED_SIZE[0], available.width() - FRAME_ALLOWANCE[0])
    height = min(PREFERRED_SIZE[1], available.height() - FRAME_ALLOWANCE[1])
    compact = is_compact(available)
    window.compact_layout = compact
    window.available_geometry = QRect(available)
    window.framed = framed
    if not compact:
        standard_docks(window)
        window.diagnostics_dock.show()
    else:
        for name in ("params_dock", "churn_dock", "table_dock"):
            window.addDockWidget(AREA.RightDockWidgetArea, getattr(window, name))
        window.tabifyDockWidget(window.churn_dock, window.params_dock)
        window.tabifyDockWidget(window.churn_dock, window.table_dock)
        window.churn_dock.raise_()
        window.diagnostics_dock.hide()
    window.resize(width, height)
    window.move(available.x() + (available.width() - FRAME_ALLOWANCE[0] - width) // 2,
                available.y() + (available.height() - FRAME_ALLOWANCE[1] - height) // 2)
    side = max(window.churn_dock.minimumSizeHint().width(), min(360, int(width / 3.5)))
    if compact:
        window.resizeDocks([window.churn_dock], [side], Qt.Orientation.Horizontal)
    else:
        window.resizeDocks([window.params_dock, window.churn_dock], [330, 350], Qt.Orientation.Horizontal)
        window.resizeDocks([window.diagnostics_dock], [250], Qt.Orientation.Vertical)
        window.resizeDocks([window.churn_dock, window.table_dock], [470, 380], Qt.Orientation.Vertical)


def room_on_screen(window: QMainWindow) -> QSize:
    """The largest window the screen it opens on holds (its frame allowed for)."""
    available = getattr(window, "available_geometry", None)
    if available is None:
        screen = window.screen()
        available = screen.availableGeometry() if screen is not None else QRect(0, 0, *PREFERRED_SIZE)
    fw, fh = FRAME_ALLOWANCE if getattr(window, "framed", True) else (0, 0)
    return QSize(available.width() - fw, available.height() - fh)


def _docked(window: QMainWindow, names) -> list[QDockWidget]:
    """The docks open in the window (a tab behind another counts: it is open, not visible)."""
    return [d for d in (getattr(window, n) for n in names) if d.toggleViewAction().isChecked() and not d.isFloating()]


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

    def __init__(self, window: QMainWindow):
        super().__init__(window)
        self.window = window
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.fit)
        self._last: QDockWidget | None = None  # the dock opened last: in front after tabbing
        self._arranging = False
        for name in DOCKS:
            dock = getattr(window, name)
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
        w = self.window
        w.layout().invalidate()
        hint, room = w.minimumSizeHint(), room_on_screen(w)
        return hint.width() > room.width() or hint.height() > room.height()

    def _narrow(self) -> bool:
        w = self.window
        if not w.isVisible():
            return False
        pane = w.panes["B"]
        return pane.viewport().width() < READABLE_CHARS * pane.fontMetrics().horizontalAdvance("x")

    def _cramped(self) -> bool:
        w = self.window
        shown = [d for d in _docked(w, BOTTOM_DOCKS) if d.isVisible()]
        return len(shown) > 1 and min(d.width() for d in shown) < BOTTOM_MIN_WIDTH

    def fit(self) -> None:
        w = self.window
        if getattr(w, "document_focus", None) is not None and w.document_focus.active:
            return  # the docks are hidden on purpose
        self._arranging = True
        try:
            moved = self._cramped() and _tab_together(w, _docked(w, BOTTOM_DOCKS))
            if self._over() or self._narrow():
                self._give_way()
                moved = True
        finally:
            self._arranging = False
        if moved:
            self._after_moves()
        self._back_on_screen()

    def _back_on_screen(self) -> None:
        """A dock that opened grew the window past the screen's edge before the docks gave
        way: the window shrinks (and moves) back inside the screen's available area."""
        w = self.window
        available = getattr(w, "available_geometry", None)
        if available is None:
            screen = w.screen()
            if screen is None:
                return
            available = screen.availableGeometry()
        frame = w.frameGeometry() if getattr(w, "framed", True) else w.geometry()
        if w.isMaximized() or w.isFullScreen() or available.contains(frame):
            return
        extra_w, extra_h = frame.width() - w.width(), frame.height() - w.height()
        width = min(w.width(), available.width() - extra_w)
        height = min(w.height(), available.height() - extra_h)
        w.resize(width, height)
        x = min(max(frame.x(), available.x()), available.right() + 1 - width - extra_w)
        y = min(max(frame.y(), available.y()), available.bottom() + 1 - height - extra_h)
        w.move(x, y)

    def _give_way(self) -> None:
        w = self.window
        if _tab_together(w, _docked(w, BOTTOM_DOCKS)) and not (self._over() or self._narrow()):
            return
        side = _docked(w, SIDE_DOCKS)
        if side and (len(side) > 1 or w.dockWidgetArea(side[0]) != AREA.RightDockWidgetArea):
            for dock in side:
                w.addDockWidget(AREA.RightDockWidgetArea, dock)
            _tab_together(w, side)
            side[0].raise_()
            if not (self._over() or self._narrow()):
                return
        bottom = _docked(w, BOTTOM_DOCKS)
        if self._over() or self._narrow():
            if bottom:  # the side column joins the bottom tabs: the panes get the whole width
                for dock in side:
                    w.addDockWidget(AREA.BottomDockWidgetArea, dock)
                _tab_together(w, bottom + side)
            elif side:
                return
        if self._over() and bottom and side:  # still too tall: one tab group at the right
            everything = side + bottom
            for dock in everything:
                w.addDockWidget(AREA.RightDockWidgetArea, dock)
            _tab_together(w, everything)

    def _after_moves(self) -> None:
        """Docks were tabbed: the one opened last in front, whole tab titles (scrolled when
        they do not fit), and the bottom tabs as high as their content reads at, 40 % of
        the window at most, so the documents keep most of the height."""
        w = self.window
        if self._last is not None and self._last.toggleViewAction().isChecked():
            self._last.raise_()
        for bar in w.findChildren(QTabBar):
            if bar.parent() is w:
                bar.setElideMode(Qt.TextElideMode.ElideNone)
                bar.setUsesScrollButtons(True)
        bottom = [d for d in _docked(w, BOTTOM_DOCKS + SIDE_DOCKS) if w.dockWidgetArea(d) == AREA.BottomDockWidgetArea]
        if bottom:
            wanted = max(d.widget().sizeHint().height() + 24 for d in bottom if d.widget() is not None)
            least = max(d.minimumSizeHint().height() for d in bottom)
            height = max(least, min(wanted, int(w.height() * 0.4)))
            w.resizeDocks(bottom, [height] * len(bottom), Qt.Orientation.Vertical)


def standard_docks(w: QMainWindow) -> None:
    """Parameters left; churn over the chunk table right; diagnostics at the bottom."""
    w.addDockWidget(AREA.LeftDockWidgetArea, w.params_dock)
    w.addDockWidget(AREA.RightDockWidgetArea, w.churn_dock)
    w.addDockWidget(AREA.RightDockWidgetArea, w.table_dock)
    w.splitDockWidget(w.churn_dock, w.table_dock, Qt.Orientation.Vertical)
    w.addDockWidget(AREA.BottomDockWidgetArea, w.diagnostics_dock)


#: The height a bottom dock opened from the View menu asks for, in pixels (a third of the
#: window at most): a table shorter than this shows a row or two.
BOTTOM_DOCK_HEIGHT = 240


def tab_with_diagnostics(window: QMainWindow, dock, shown: bool, height: int = BOTTOM_DOCK_HEIGHT) -> None:
    """A bottom dock opened from the View menu goes in front of the diagnostics as a tab,
    not beside them: two wide docks side by side would leave each too narrow. It asks for
    `height` (a third of the window at most)."""
    w = window
    if shown and not dock.isFloating() and w.diagnostics_dock.isVisible() \
            and not w.diagnostics_dock.isFloating() and not w.tabifiedDockWidgets(dock) \
            and w.dockWidgetArea(dock) == w.dockWidgetArea(w.diagnostics_dock):
        w.tabifyDockWidget(w.diagnostics_dock, dock)
    if shown:
        dock.raise_()
        if not dock.isFloating() and dock.height() < height:
            w.resizeDocks([dock], [min(height, w.height() // 3)], Qt.Orientation.Vertical)


def follow_openings(window: QMainWindow, lab_height: int) -> None:
    """The bottom docks opened from the View menu: Retrieval and the Locality lab go in
    front of the diagnostics (the lab `lab_height` high), Sweep grows to its content."""
    w = window
    w.retrieval_dock.toggleViewAction().triggered.connect(
        lambda shown: tab_with_diagnostics(w, w.retrieval_dock, shown))
    w.lab_dock.toggleViewAction().triggered.connect(
        lambda shown: tab_with_diagnostics(w, w.lab_dock, shown, lab_height))
    w.sweep_dock.visibilityChanged.connect(lambda visible: grow_when_opened(
        w, w.sweep_dock, visible, w.sweep_view.sizeHint().height() + 24))


def open_before_diagnostics(window: QMainWindow, dock, height: int) -> None:
    """Open `dock` in front of the diagnostics when they share the bottom (side by side,
    neither has room for its columns), `height` high, a third of the window at most."""
    w = window
    if w.diagnostics_dock.isVisible() and w.dockWidgetArea(w.diagnostics_dock) == w.dockWidgetArea(dock):
        w.tabifyDockWidget(w.diagnostics_dock, dock)
    dock.show()
    dock.raise_()
    w.resizeDocks([dock], [min(height, w.height() // 3)], Qt.Orientation.Vertical)


def grow_when_opened(window: QMainWindow, dock, visible: bool, wanted: int) -> None:
    """A dock that scrolls when short (the window must fit its screen) asks, when opened,
    for the height its content reads at, half the window at most."""
    if visible and not dock.isFloating() and dock.height() < wanted:
        window.resizeDocks([dock], [min(wanted, window.height() // 2)], Qt.Orientation.Vertical)


class DocumentFocus:
    """View → Focus on documents: every dock hides, and the same key brings back the
    ones that were shown."""

    def __init__(self, window: QMainWindow):
        self.window = window
        self.hidden: list[str] = []

    @property
    def active(self) -> bool:
        return bool(self.hidden)

    def toggle(self) -> None:
        w = self.window
        if self.hidden:
            for name in self.hidden:
                getattr(w, name).show()
            self.hidden = []
        else:
            self.hidden = [name for name in DOCKS if getattr(w, name).isVisible()]
            for name in self.hidden:
                getattr(w, name).hide()
        w.statusBar().showMessage("Focus on documents: docks hidden (same key brings them back)"
                                  if self.hidden else "Docks shown again", 4000)
