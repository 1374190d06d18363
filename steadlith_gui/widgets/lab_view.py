"""The locality lab dock: run controls, the overlaid distributions of every rule, the
summary table side by side, and the worst edits (a click opens one in the panes).

Renders a LabState (lab_state.py); what the user does leaves as signals for the
controller (lab_dock.py)."""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QCoreApplication, QEvent, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen
from PySide6.QtWidgets import (QAbstractItemView, QFormLayout, QHBoxLayout, QHeaderView, QLabel, QProgressBar,
                               QPushButton, QScrollArea, QSpinBox, QSplitter, QTableWidget, QTableWidgetItem, QTabWidget,
                               QVBoxLayout, QWidget)

from ..model.job_state import CANCELLED, DONE, FAILED, RUNNING
from ..model.lab_state import (MAX_EDITS, MAX_SEED, METRICS, Distribution, LabSettings, LabState, bin_label, bin_of,
                               distribution, position, rule_style, summary_table, tokens_at, worst_edits)
from .palette import LIGHT, Theme
from .themed_plot import ThemedPlot

PEN_STYLES = {"solid": Qt.PenStyle.SolidLine, "dash": Qt.PenStyle.DashLine, "dot": Qt.PenStyle.DotLine}
CHART_SIZE = QSize(220, 140)  # each chart's size hint


def rule_colour(theme: Theme, rule: str) -> str:
    return theme.kind[rule_style(rule)[0]]


def short_count(n: int) -> str:
    return f"{n // 1000}k" if n >= 10_000 and n % 1000 == 0 else f"{n:,}"


class TokenAxis(pg.AxisItem):
    """An axis over log10(tokens + 1) labelled in tokens: 0, 1, 10, 100, 1,000 … with
    2 and 5 between them as minor ticks."""

    def tickValues(self, minVal, maxVal, size):  # noqa: N802 - pyqtgraph's name
        hi = tokens_at(maxVal)
        major, minor = [0], []
        n = 1
        while n <= max(hi, 1) * 10:
            major.append(n)
            minor += [2 * n, 5 * n]
            n *= 10

        def inside(counts: list[int]) -> list[float]:
            return [float(position(v)) for v in counts if minVal <= position(v) <= maxVal]

        return [(1.0, inside(major)), (0.3, inside(minor))]

    def tickStrings(self, values, scale, spacing):  # noqa: N802
        return [short_count(int(round(tokens_at(v)))) for v in values]


class DistributionChart(ThemedPlot):
    """Edits per bin of one metric, one stepped curve per rule over shared bins; on the
    reach chart each rule's margin is a vertical line in the rule's colour."""

    def __init__(self, metric: str, theme: Theme = LIGHT, parent: QWidget | None = None):
        # not `self.metric`: that is QPaintDevice.metric(), which Qt calls while painting
        self.measured = metric
        self.data: Distribution | None = None
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.margin_lines: dict[str, pg.InfiniteLine] = {}
        super().__init__(theme, parent, axisItems={"bottom": TokenAxis("bottom")})
        label = METRICS[metric][1] + ", log scale"
        self.setObjectName(f"labChart_{metric}")
        self.setAccessibleName(f"Distribution of the {label}")
        self.setLabel("bottom", label)
        self.setLabel("left", "edits")
        self.describe_at = self._describe_bin

    def sizeHint(self) -> QSize:  # noqa: N802
        return CHART_SIZE

    def set_distribution(self, data: Distribution | None) -> None:
        self.data = data
        item = self.getPlotItem()
        item.clear()
        self.curves, self.margin_lines = {}, {}
        if data is None:
            self.setAccessibleDescription("No run yet")
            return
        for k, (rule, counts) in enumerate(data.counts.items()):
            curve = pg.PlotDataItem(position(data.edges), counts, stepMode="center", fillLevel=0, name=rule)
            item.addItem(curve)
            self.curves[rule] = curve
            margin = data.margins.get(rule)
            if self.measured == "reach" and margin is not None:
                line = pg.InfiniteLine(pos=float(position(margin)), angle=90, movable=False,
                                       label=f"margin {margin:,}",
                                       labelOpts={"position": 0.9 - 0.14 * k, "anchors": [(1, 0.5), (1, 0.5)]})
                item.addItem(line)
                self.margin_lines[rule] = line
        top = max((int(c.max()) for c in data.counts.values() if c.size), default=1)
        right = float(position(data.edges[-1]))
        item.getViewBox().setLimits(xMin=-0.05, xMax=right + 0.1, yMin=0)
        self.setXRange(0, right, padding=0.02)
        self.setYRange(0, top * 1.1, padding=0)
        self.restyle()
        self.setAccessibleDescription("; ".join(
            f"{rule}: " + ", ".join(f"{bin_label(data, i)}: {int(n)}" for i, n in enumerate(c) if n)
            for rule, c in data.counts.items()))

    def restyle(self) -> None:
        theme = self.theme
        for rule, curve in self.curves.items():
            colour = pg.mkColor(rule_colour(theme, rule))
            fill = pg.mkColor(colour)
            fill.setAlpha(55)
            curve.setPen(pg.mkPen(colour, width=2, style=PEN_STYLES[rule_style(rule)[1]]))
            curve.setBrush(pg.mkBrush(fill))
        for rule, line in self.margin_lines.items():
            colour = rule_colour(theme, rule)
            line.setPen(pg.mkPen(colour, width=1.5, style=Qt.PenStyle.DashDotLine))
            line.label.setColor(colour)
            line.label.fill = pg.mkBrush(pg.mkColor(theme.window))  # legible over the bars

    def bin_at(self, x: float) -> int | None:
        """The bin under axis position x (log10(tokens + 1))."""
        return None if self.data is None else bin_of(self.data, tokens_at(x))

    def _describe_bin(self, x: float, _y: float) -> str | None:
        i = self.bin_at(x)
        if i is None:
            return None
        d = self.data
        counts = "\n".join(f"{rule}: {int(c[i]):,} edit{'s' if c[i] != 1 else ''}" for rule, c in d.counts.items())
        return f"{bin_label(d, i)} tokens\n{counts}"


class ChartsToCome(QLabel):
    """What stands where the charts will be until the first result: sized like them, so
    the dock's columns are shared out as they will be once the charts are there."""

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(CHART_SIZE.width() * len(METRICS), CHART_SIZE.height())


class RuleLegend(QWidget):
    """Which curve is which rule: its colour and its line style (the second channel), and
    the margin's dash-dot line; one legend for both charts, outside them."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme = theme
        self.rules: list[str] = []
        self.setMinimumHeight(self.fontMetrics().height() + 6)

    def set_rules(self, rules: list[str]) -> None:
        self.rules = list(rules)
        self.setAccessibleDescription(", ".join(f"{r}: {rule_style(r)[1]} line" for r in rules))
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        fm = self.fontMetrics()
        y = self.height() / 2
        x = 4.0
        entries = [(r, rule_colour(self.theme, r), PEN_STYLES[rule_style(r)[1]]) for r in self.rules]
        if any(r != "fixed" for r in self.rules):
            entries.append(("margin", self.theme.muted, Qt.PenStyle.DashDotLine))
        for name, colour, style in entries:
            p.setPen(QPen(QColor(colour), 2, style))
            p.drawLine(QPointF(x, y), QPointF(x + 28, y))
            p.setPen(QColor(self.theme.text))
            p.drawText(QPointF(x + 34, y + fm.ascent() / 2 - 1), name)
            x += 34 + fm.horizontalAdvance(name) + 18
        p.end()


class LabView(QWidget):
    run_requested = Signal(int, int)  # edits, seed
    cancel_requested = Signal()
    edit_chosen = Signal(str, int)  # rule, rank in its worst edits

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("labView")
        self.setAccessibleName("Locality lab")
        self.theme = theme
        self._result_shown: Any = None
        self._stale = False  # the status line is on the warning colour

        self.edits = QSpinBox()
        self.edits.setObjectName("labEdits")
        self.edits.setRange(1, MAX_EDITS)
        self.edits.setValue(LabSettings().edits)
        self.edits.setGroupSeparatorShown(True)
        self.edits.setToolTip("How many random edits of the realistic mix to measure")
        self.seed = QSpinBox()
        self.seed.setObjectName("labSeed")
        self.seed.setRange(0, MAX_SEED)
        self.seed.setValue(LabSettings().seed)
        self.seed.setToolTip("The same seed draws the same edits again")
        self.run_button = QPushButton("&Run")
        self.run_button.setObjectName("labRun")
        self.run_button.setToolTip("Measure the edits of A under every rule's current parameters")
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("labCancel")
        self.progress = QProgressBar()
        self.progress.setObjectName("labProgress")
        self.progress.setTextVisible(True)
        self.progress.setFormat("%v / %m edits")
        self.status = QLabel()
        self.status.setObjectName("labStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Edits", self.edits)
        form.addRow("Seed", self.seed)
        buttons = QHBoxLayout()
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        controls = QVBoxLayout()
        controls.addLayout(form)
        controls.addLayout(buttons)
        controls.addWidget(self.progress)
        controls.addWidget(self.status, 1)
        controls_box = QWidget()
        controls_box.setLayout(controls)
        controls_box.setMaximumWidth(260)

        # built with the first result: empty plots cost every window's start ~0.1 s and
        # the dock's first appearance more (pyqtgraph lays out and paints every axis), to
        # show nothing
        self.charts: dict[str, DistributionChart] = {}
        self.summary = QTableWidget()
        self.summary.setObjectName("labSummary")
        self.summary.setAccessibleName("Lab summary per rule")
        self.summary.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.summary.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.worst = QTableWidget(0, 4)
        self.worst.setObjectName("labWorst")
        self.worst.setAccessibleName("Worst edits: activate one to open it in the panes")
        self.worst.setHorizontalHeaderLabels(["rule", "reach", "tokens", "edit"])
        self.worst.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.worst.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.worst.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.worst.verticalHeader().hide()
        self.worst.horizontalHeader().setStretchLastSection(True)
        self.worst.setToolTip("Click an edit to open A and the edited A in the panes")
        for table in (self.summary, self.worst):
            table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.tables = QTabWidget()
        self.tables.setObjectName("labTables")
        self.tables.addTab(self.summary, "Summary (tokens)")
        self.tables.addTab(self.worst, "Worst edits")
        self.legend = RuleLegend(theme)
        self.chart_row = QSplitter(Qt.Orientation.Horizontal)
        self.chart_row.setChildrenCollapsible(False)
        self.no_charts = ChartsToCome("After a run: the tokens each edit re-embeds and how far it reaches, "
                                      "per rule, as two charts here.")
        self.no_charts.setObjectName("labNoCharts")
        self.no_charts.setWordWrap(True)
        self.no_charts.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.chart_row.addWidget(self.no_charts)
        charts_box = QWidget()
        charts_lay = QVBoxLayout(charts_box)
        charts_lay.setContentsMargins(0, 0, 0, 0)
        charts_lay.setSpacing(2)
        charts_lay.addWidget(self.legend)
        charts_lay.addWidget(self.chart_row, 1)

        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.setChildrenCollapsible(False)
        self.splitter.addWidget(controls_box)
        self.splitter.addWidget(charts_box)
        self.splitter.addWidget(self.tables)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setStretchFactor(2, 2)
        # scrolled, not squeezed: the dock's columns must not hold the window wide (or,
        # tabbed with the diagnostics, tall)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(self.splitter)
        scroll.setMinimumSize(200, 120)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.addWidget(scroll)

        self.run_button.clicked.connect(lambda: self.run_requested.emit(self.edits.value(), self.seed.value()))
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.worst.cellClicked.connect(self._on_worst_clicked)
        self.worst.cellActivated.connect(self._on_worst_clicked)
        self.show_state(LabState())

    def settings(self) -> LabSettings:
        """The run controls as they read now (a workspace keeps them)."""
        return LabSettings(self.edits.value(), self.seed.value())

    def set_settings(self, settings: LabSettings) -> None:
        self.edits.setValue(settings.edits)
        self.seed.setValue(settings.seed)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        for chart in self.charts.values():
            chart.set_theme(theme)
        self.legend.set_theme(theme)
        self._style_status(self._stale)

    def _style_status(self, stale: bool) -> None:
        self._stale = stale
        self.status.setStyleSheet(
            f"background: {self.theme.warning_bg}; color: {self.theme.text}; padding: 3px" if stale else "")

    def show_state(self, state: LabState) -> None:
        running = state.phase == RUNNING
        self.run_button.setEnabled(True)
        self.run_button.setText("&Run again" if state.result is not None else "&Run")
        self.cancel_button.setEnabled(running)
        done, total = state.progress
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done if running or state.phase == DONE else 0)
        if state.phase == DONE:
            self.progress.setValue(self.progress.maximum())
        self.progress.setFormat({CANCELLED: "cancelled", FAILED: "failed"}.get(state.phase, "%v / %m edits"))
        self.status.setText(state.status)
        self._style_status(state.result is not None and state.stale is not None)
        if state.result is not self._result_shown:
            self._result_shown = state.result
            self._show_result(state.result)

    def _build_charts(self) -> None:
        self.charts = {m: DistributionChart(m, self.theme) for m in METRICS}
        self.no_charts.hide()
        for chart in self.charts.values():
            self.chart_row.addWidget(chart)

    def _show_result(self, result: Any) -> None:
        new = result is not None and not self.charts
        if new:
            self._build_charts()
        for metric, chart in self.charts.items():
            chart.set_distribution(None if result is None else distribution(result, metric))
            if new and chart.isVisible():
                # painted and laid out now: an axis takes its width from its labels when
                # first painted, and what is under the pointer must not move afterwards
                chart.repaint()
                QCoreApplication.sendPostedEvents(None, QEvent.Type.LayoutRequest)
        self.summary.clear()
        self.worst.setRowCount(0)
        self.legend.set_rules([] if result is None else list(result.rules))
        if result is None:
            self.summary.setRowCount(0)
            self.summary.setColumnCount(0)
            return
        rules, rows = summary_table(result)
        self.summary.setColumnCount(len(rules))
        self.summary.setRowCount(len(rows))
        self.summary.setHorizontalHeaderLabels(rules)
        self.summary.setVerticalHeaderLabels([row.label for row, _ in rows])
        for r, (row, cells) in enumerate(rows):
            self.summary.verticalHeaderItem(r).setToolTip(row.tip)
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.summary.setItem(r, c, item)
        worst = worst_edits(result)
        self.worst.setRowCount(len(worst))
        for r, w in enumerate(worst):
            o = w.outcome
            held = "" if o.margin_held is None else ("" if o.margin_held else "  past the margin")
            cells = [w.rule, f"{o.reach:,}", f"{o.tokens_to_embed:,}", w.description + held]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c in (1, 2):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                item.setData(Qt.ItemDataRole.UserRole, (w.rule, w.rank))
                item.setToolTip(f"{w.rule}: {w.description}\n{o.chunks_to_embed:,} chunks, {o.tokens_to_embed:,} "
                                f"tokens to re-embed, reach {o.reach:,} tokens. Click to open it in the panes.")
                self.worst.setItem(r, c, item)
        self.worst.resizeColumnsToContents()

    def _on_worst_clicked(self, row: int, _column: int) -> None:
        item = self.worst.item(row, 0)
        if item is not None:
            rule, rank = item.data(Qt.ItemDataRole.UserRole)
            self.edit_chosen.emit(rule, rank)
