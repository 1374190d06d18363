"""The window's widget tree: the central row of panes and maps, the four docks and the
status bar label (what meld keeps in a .ui template). Only construction and placement
happen here; the parts in main_window wire the widgets to the session."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QDockWidget, QHBoxLayout, QLabel, QMainWindow, QScrollArea, QVBoxLayout, QWidget
from steadlith_core import ChunkerParams

from .model.session import SIDES
from .widgets.chunk_table import ChunkTable
from .widgets.churn import ChurnPanel
from .widgets.diagnostics import DiagnosticsView
from .widgets.document_pane import DocumentPane
from .widgets.find_bar import FindBar
from .widgets.history_view import HistoryView
from .widgets.lab_view import LabView
from .widgets.legend import Legend
from .widgets.link_map import LinkMap
from .widgets.message_bar import MessageBar
from .widgets.overview_map import OverviewMap
from .widgets.palette import Theme
from .widgets.pane_column import PaneColumn
from .widgets.params_panel import ParamsPanel
from .widgets.sweep_view import SweepView

AREA = Qt.DockWidgetArea


def build_widgets(window: QMainWindow, params: ChunkerParams | None, theme: Theme) -> None:
    """Create every widget as an attribute of `window` and place it."""
    _build_central(window, theme)
    _build_docks(window, params, theme)
    window.busy_label = QLabel("")
    window.busy_label.setObjectName("busyLabel")
    window.statusBar().addPermanentWidget(window.busy_label)


#: The size the window asks for on a screen with room for it.
PREFERRED_SIZE = (1500, 950)
#: Below this available width (or height) the side docks share one tabbed column and the
#: diagnostics start hidden, so the document panes keep most of the width: at 1366×768
#: three docks beside the panes left each pane ~30 characters.
COMPACT_BELOW = (1600, 900)
#: Room left for the window manager's frame and title bar, unknown before the window is shown.
FRAME_ALLOWANCE = (8, 32)
DOCKS = ("params_dock", "churn_dock", "table_dock", "diagnostics_dock", "history_dock", "sweep_dock",
         "lab_dock")


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
        _standard_docks(window)
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


def _standard_docks(w: QMainWindow) -> None:
    """Parameters left; churn over the chunk table right; diagnostics at the bottom."""
    w.addDockWidget(AREA.LeftDockWidgetArea, w.params_dock)
    w.addDockWidget(AREA.RightDockWidgetArea, w.churn_dock)
    w.addDockWidget(AREA.RightDockWidgetArea, w.table_dock)
    w.splitDockWidget(w.churn_dock, w.table_dock, Qt.Orientation.Vertical)
    w.addDockWidget(AREA.BottomDockWidgetArea, w.diagnostics_dock)


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


def _build_central(w: QMainWindow, theme: Theme) -> None:
    """Message bar, legend, then [pane A | link map | pane B | overview] (`panes_row`)."""
    w.message_bar = MessageBar(theme)
    w.legend = Legend(theme)
    w.pane_a = DocumentPane("A", theme)
    w.pane_b = DocumentPane("B", theme)
    w.pane_b.set_editable(True)
    w.panes = {"A": w.pane_a, "B": w.pane_b}
    w.columns = {s: PaneColumn(w.panes[s]) for s in SIDES}
    w.link_map = LinkMap(w.pane_a, w.pane_b, theme)
    w.overview = OverviewMap(w.pane_a, w.pane_b, theme)
    central = QWidget()
    central.setObjectName("central")
    v = QVBoxLayout(central)
    v.setContentsMargins(6, 4, 6, 2)
    v.setSpacing(4)
    v.addWidget(w.message_bar)
    v.addWidget(w.legend)
    w.find_bar = FindBar()
    v.addWidget(w.find_bar)
    w.panes_row = QHBoxLayout()
    w.panes_row.setSpacing(0)
    w.panes_row.addWidget(w.columns["A"], 1)
    w.panes_row.addWidget(w.link_map)
    w.panes_row.addWidget(w.columns["B"], 1)
    w.panes_row.addSpacing(4)
    w.panes_row.addWidget(w.overview)
    v.addLayout(w.panes_row, 1)
    w.setCentralWidget(central)


def add_dock(w: QMainWindow, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
    dock = QDockWidget(title, w)
    dock.setObjectName(name)
    dock.setWidget(widget)
    w.addDockWidget(area, dock)
    return dock


def _build_docks(w: QMainWindow, params: ChunkerParams | None, theme: Theme) -> None:
    """Parameters left; churn over the chunk table right; diagnostics at the bottom."""
    w.params_panel = ParamsPanel(params, theme)
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    scroll.setWidget(w.params_panel)
    scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    scroll.setMinimumWidth(w.params_panel.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)
    w.params_dock = add_dock(w, "Parameters", "paramsDock", scroll, AREA.LeftDockWidgetArea)
    w.churn = ChurnPanel(theme)
    w.churn_dock = add_dock(w, "Churn  (A → B)", "churnDock", w.churn, AREA.RightDockWidgetArea)
    w.diagnostics = DiagnosticsView(theme)
    w.diagnostics_a, w.diagnostics_b = w.diagnostics.panel_a, w.diagnostics.panel_b
    # scrolled, not squeezed: two side-by-side panels must not hold the window wide
    diag_scroll = QScrollArea()
    diag_scroll.setWidgetResizable(True)
    diag_scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    diag_scroll.setWidget(w.diagnostics)
    diag_scroll.setMinimumWidth(200)
    diag_scroll.setMinimumHeight(w.diagnostics.minimumSizeHint().height() + 2)  # whole rows, never half a number
    w.diagnostics_dock = add_dock(w, "Diagnostics  (A | B)", "diagnosticsDock", diag_scroll,
                                  AREA.BottomDockWidgetArea)
    w.lab_view = LabView(theme)
    w.lab_dock = add_dock(w, "Locality lab  (edits of A)", "labDock", w.lab_view, AREA.BottomDockWidgetArea)
    w.lab_dock.hide()  # until View → Locality lab (lab_dock.py tabs it with the diagnostics)
    w.table = ChunkTable(theme)
    w.chunk_table = w.table.view
    w.table_dock = add_dock(w, "Chunks", "chunkTableDock", w.table, AREA.RightDockWidgetArea)
    _standard_docks(w)
    w.history = HistoryView(theme)  # hidden until asked for (View menu) or a revision is opened
    w.history_dock = add_dock(w, "History  (file in A)", "historyDock", w.history, AREA.BottomDockWidgetArea)
    w.history_dock.hide()
    w.sweep_view = SweepView(theme)  # hidden until View → Sweep: the documents keep the room
    w.sweep_dock = add_dock(w, "Sweep", "sweepDock", w.sweep_view, AREA.BottomDockWidgetArea)
    w.sweep_dock.hide()
    w.setCorner(Qt.Corner.BottomLeftCorner, AREA.LeftDockWidgetArea)
    w.setDockNestingEnabled(True)
