"""The Sweep dock's widget: the grid, Run / Cancel with progress, and a scatter of the
sets (tokens re-embedded against mean chunk size; colour and shape by rule; the Pareto
front ringed and joined). "External" picks other libraries' splitters as more rows
(the churn panel's list; a missing library is marked, with its pip command): their
points are triangles in a colour per splitter. Hovering a point shows its parameters;
clicking asks for them to be applied, or for an external one, offers to show that
splitter in the panes. It renders what it is given and decides nothing.
"""

from __future__ import annotations

from typing import Sequence

import pyqtgraph as pg
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QColor
from PySide6.QtWidgets import (QComboBox, QFileDialog, QHBoxLayout, QLabel, QLineEdit, QMenu, QPlainTextEdit,
                               QProgressBar, QPushButton, QSizePolicy, QToolButton, QVBoxLayout, QWidget)
from steadlith_core.comparison.external import SPLITTERS, install_hint, installed_splitters
from steadlith_core.sweep.results import SetRow

from ..model.sweep_state import FOLDER, SOURCE_TITLES
from .churn_cells import SPLITTER_TITLES
from .palette import Theme

#: Marker per rule: shape as well as colour, so the rules stay apart without colour.
#: Every external splitter is a triangle (no rule's shape); colour tells them apart.
RULE_SYMBOLS = {"tttd-v1": "o", "lmx2-v1": "s"}
EXTERNAL_SYMBOL = "t1"  # pointing up, like the HTML page's


def symbol_of(series: str) -> str:
    return RULE_SYMBOLS.get(series, EXTERNAL_SYMBOL)


class _WholeHeightLayout(QVBoxLayout):
    """The view's layout, telling its scroll area (main_window) the view has no height
    for width: the wrapped labels would otherwise make the area size the view by their
    preferred heights (the chart's 480 px), not by its minimum, and a short dock would
    scroll the chart out of sight instead of giving it the room there is."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return False


class SweepView(QWidget):
    run_requested = Signal()
    cancel_requested = Signal()
    point_clicked = Signal(int)  # the set's index
    show_external_requested = Signal(int)  # the external row's set index, offered after a click

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("sweepView")
        self._theme = theme
        self._tips: dict[int, str] = {}
        v = _WholeHeightLayout(self)
        v.setContentsMargins(6, 4, 6, 4)
        top = QHBoxLayout()
        hint = QLabel("Grid, one entry a line (NAME=V1,V2,…); each field goes to the rules that have it, "
                      "chunk_size=… to the external splitters:")
        hint.setWordWrap(True)
        top.addWidget(hint, 1)
        self.external_button = QToolButton()
        self.external_button.setObjectName("sweepExternal")
        self.external_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.external_button.setToolTip("Other libraries' splitters as more rows of the sweep, measured by chunk "
                                        "hash (as the churn panel's columns); sized by chunk_size=… in the grid, "
                                        "else at the first set's max_tokens")
        self.external_button.setMenu(self._external_menu())
        top.addWidget(self.external_button, 0, Qt.AlignmentFlag.AlignTop)
        v.addLayout(top)
        self.grid_edit = QPlainTextEdit()
        self.grid_edit.setObjectName("sweepGrid")
        self.grid_edit.setFixedHeight(self.fontMetrics().lineSpacing() * 4 + 10)
        v.addWidget(self.grid_edit)
        row = QHBoxLayout()
        row.addWidget(QLabel("Over"))
        self.source_box = QComboBox()
        self.source_box.setObjectName("sweepSource")
        for key, title in SOURCE_TITLES.items():
            self.source_box.addItem(title, key)
        row.addWidget(self.source_box)
        self.folder_edit = QLineEdit()
        self.folder_edit.setObjectName("sweepFolder")
        self.folder_edit.setPlaceholderText("folder")
        self.folder_button = QPushButton("Choose…")
        self.folder_button.clicked.connect(self._choose_folder)
        row.addWidget(self.folder_edit, 2)
        row.addWidget(self.folder_button)
        self.source_box.currentIndexChanged.connect(self._show_folder)
        self._show_folder()
        self.run_button = QPushButton("Run sweep")
        self.run_button.clicked.connect(self.run_requested.emit)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.cancel_button.setEnabled(False)
        self.progress = QProgressBar()
        self.progress.setFormat("%v / %m sets")
        self.progress.setVisible(False)
        row.addWidget(self.run_button)
        row.addWidget(self.cancel_button)
        row.addWidget(self.progress, 3)
        row.addStretch(1)  # while the bar is hidden, the controls keep their own width
        v.addLayout(row)
        self.status = QLabel("")
        self.status.setObjectName("sweepStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # skipped entries quote what was typed
        self.show_external_button = QPushButton()
        self.show_external_button.setObjectName("sweepShowExternal")
        self.show_external_button.clicked.connect(self._show_external)
        self.show_external_button.setVisible(False)
        self._offered: int | None = None
        status_row = QHBoxLayout()
        status_row.addWidget(self.status, 1)
        status_row.addWidget(self.show_external_button, 0, Qt.AlignmentFlag.AlignTop)
        v.addLayout(status_row)
        self.plot = pg.PlotWidget(background=theme.base)
        self.plot.setObjectName("sweepPlot")
        for axis in ("bottom", "left"):
            self.plot.getAxis(axis).setPen(pg.mkPen(theme.mid))
            self.plot.getAxis(axis).setTextPen(pg.mkPen(theme.text))
        self.plot.setMinimumHeight(180)
        self.plot.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.plot.setLabel("bottom", "mean chunk size (tokens)")
        self.plot.setLabel("left", "tokens re-embedded")
        self.plot.showGrid(x=True, y=True, alpha=0.2)
        self.legend = self.plot.addLegend(offset=(-8, -8), labelTextColor=theme.text)  # bottom right: large chunks for few tokens, rarely reached
        self.front_line = pg.PlotDataItem(pen=pg.mkPen(theme.text, width=1.5, style=Qt.PenStyle.DashLine),
                                          name="Pareto front")
        self.plot.addItem(self.front_line)
        self.scatter = pg.ScatterPlotItem(hoverable=True, tip=self._tip, hoverSize=14)
        self.scatter.sigClicked.connect(self._clicked)
        self.plot.addItem(self.scatter)
        v.addWidget(self.plot, 1)
        self._legend_rules: list[str] = []

    def source(self) -> str:
        return self.source_box.currentData()

    def set_source(self, key: str) -> None:
        self.source_box.setCurrentIndex(max(0, self.source_box.findData(key)))

    def folder(self) -> str:
        return self.folder_edit.text().strip()

    def set_folder(self, path: str) -> None:
        self.folder_edit.setText(path)

    def _show_folder(self) -> None:
        chosen = self.source() == FOLDER
        self.folder_edit.setVisible(chosen)
        self.folder_button.setVisible(chosen)

    def _choose_folder(self) -> None:
        path = QFileDialog.getExistingDirectory(self, "Folder to sweep", self.folder())
        if path:
            self.set_folder(path)

    def _external_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.setObjectName("sweepExternalMenu")
        menu.setToolTipsVisible(True)
        self.external_actions: dict[str, QAction] = {}
        installed = set(installed_splitters())
        for key in SPLITTERS:
            present = key in installed
            act = QAction(key if present else f"{key} — not installed", menu)
            act.setCheckable(True)
            act.setEnabled(present)
            act.setToolTip(SPLITTER_TITLES.get(key, key) + ("" if present else f". {install_hint(key)}"))
            act.toggled.connect(self._show_chunkers)
            menu.addAction(act)
            self.external_actions[key] = act
        self._show_chunkers()
        return menu

    def chunkers(self) -> tuple[str, ...]:
        """The external splitters checked, in the menu's order."""
        return tuple(k for k, act in self.external_actions.items() if act.isChecked())

    def set_chunkers(self, keys: Sequence[str]) -> None:
        for key, act in self.external_actions.items():
            act.setChecked(key in keys and act.isEnabled())

    def _show_chunkers(self) -> None:
        chosen = self.chunkers()
        self.external_button.setText("External: none" if not chosen else
                                     f"External: {chosen[0]}" if len(chosen) == 1 else
                                     f"External: {len(chosen)} splitters")

    def offer_external(self, set_index: int | None, text: str = "") -> None:
        """Offer to show an external row's splitter in the panes (None: withdraw it)."""
        self._offered = set_index
        self.show_external_button.setText(text)
        self.show_external_button.setVisible(set_index is not None)

    def _show_external(self) -> None:
        if self._offered is not None:
            self.show_external_requested.emit(self._offered)

    def set_grid_text(self, text: str) -> None:
        self.grid_edit.setPlainText(text)

    def grid_text(self) -> str:
        return self.grid_edit.toPlainText()

    def set_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        self.progress.setVisible(running)
        if running:
            self.progress.setRange(0, 0)

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def show_rows(self, rows: Sequence[SetRow], front: Sequence[SetRow], tips: dict[int, str],
                  colours: dict[str, str], series: dict[int, str] | None = None) -> None:
        """`colours` per series in legend order; `series` names each set's (default its rule)."""
        self._tips = dict(tips)
        series = series if series is not None else {r.set: r.boundary_rule for r in rows}
        self.offer_external(None)
        spots = []
        for r in rows:
            # the front's points ringed in the text colour, a little larger: a second channel beside the line
            ring = (pg.mkPen(self._theme.text, width=2) if r.pareto
                    else pg.mkPen(QColor(colours[series[r.set]]).darker(130)))
            spots.append({"pos": (r.mean_chunk_tokens, float(r.tokens_to_embed)), "data": r.set,
                          "size": 15 if r.pareto else 11,
                          "symbol": symbol_of(series[r.set]), "brush": pg.mkBrush(colours[series[r.set]]),
                          "pen": ring})
        self.scatter.setData(spots)
        self.front_line.setData([r.mean_chunk_tokens for r in front], [float(r.tokens_to_embed) for r in front])
        self._show_legend(colours)
        self.plot.autoRange()

    def _show_legend(self, colours: dict[str, str]) -> None:
        rules = list(colours)
        if rules == self._legend_rules:
            return
        self.legend.clear()
        # external splitters add entries: two columns keep the legend off more of the points
        self.legend.setColumnCount(2 if len(rules) > 3 else 1)
        self.legend.addItem(self.front_line, "Pareto front (ringed)")
        for rule in rules:
            sample = pg.ScatterPlotItem(symbol=symbol_of(rule), brush=pg.mkBrush(colours[rule]), size=10)
            self.legend.addItem(sample, rule)
        self._legend_rules = rules

    def _tip(self, x: float, y: float, data: object) -> str:
        return self._tips.get(int(data), "") if data is not None else ""  # type: ignore[arg-type]

    def _clicked(self, _item, points, _event) -> None:
        if len(points):
            self.point_clicked.emit(int(points[0].data()))

    def scene_pos_of(self, set_index: int):
        """Where a set's point is drawn, in the plot widget's coordinates (for tests and
        screenshots: the point a user would hover or click)."""
        for spot in self.scatter.points():
            if spot.data() == set_index:
                scene = self.plot.plotItem.vb.mapViewToScene(spot.pos())
                return self.plot.mapFromScene(scene)
        return None
