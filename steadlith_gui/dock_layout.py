"""Where the docks go: the window's size and dock placement for the screen it opens on
(one tabbed column on a compact screen), and View → Focus on documents. The widgets
themselves are built in MainWindow.__init__."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QMainWindow

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


def size_docks(window: QMainWindow) -> None:
    """Place and size the window for the screen it opens on."""
    screen = window.screen()
    fit_to_screen(window, screen.availableGeometry() if screen is not None else QRect(0, 0, *PREFERRED_SIZE))


def is_compact(available: QRect) -> bool:
    return available.width() < COMPACT_BELOW[0] or available.height() < COMPACT_BELOW[1]


def fit_to_screen(window: QMainWindow, available: QRect) -> None:
    """Open within `available` (a screen's available geometry): the preferred size where
    it fits, else the whole area; on a compact screen the docks go into one tabbed
    column at the right (Churn in front) and the diagnostics are hidden (View menu)."""
    width = min(PREFERRED_SIZE[0], available.width() - FRAME_ALLOWANCE[0])
    height = min(PREFERRED_SIZE[1], available.height() - FRAME_ALLOWANCE[1])
    compact = is_compact(available)
    window.compact_layout = compact
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


def tab_with_diagnostics(window: QMainWindow, dock, shown: bool) -> None:
    """A bottom dock opened from the View menu goes in front of the diagnostics as a tab,
    not beside them: two wide docks side by side would leave each too narrow."""
    w = window
    if shown and not dock.isFloating() and w.diagnostics_dock.isVisible() \
            and not w.diagnostics_dock.isFloating() and not w.tabifiedDockWidgets(dock) \
            and w.dockWidgetArea(dock) == w.dockWidgetArea(w.diagnostics_dock):
        w.tabifyDockWidget(w.diagnostics_dock, dock)
    if shown:
        dock.raise_()
        if not dock.isFloating() and dock.height() < BOTTOM_DOCK_HEIGHT:
            w.resizeDocks([dock], [min(BOTTOM_DOCK_HEIGHT, w.height() // 3)], Qt.Orientation.Vertical)


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
