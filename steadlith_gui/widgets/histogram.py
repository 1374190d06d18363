"""The chunk-size histogram of one document, drawn by pyqtgraph from the core's
Diagnostics bins: zoom along the token axis, hover for a bin's count, export from the
right-click menu."""

from __future__ import annotations

import pyqtgraph as pg
from PySide6.QtWidgets import QWidget

from .palette import LIGHT, Theme
from .themed_plot import ThemedPlot

#: The over-max bin stands apart from the others by this share of a bin's width, so it
#: reads as "beyond max_tokens", not as the next size.
OVER_GAP = 0.35


class Histogram(ThemedPlot):
    """Bars for diagnostics.histogram_counts over histogram_edges (edges[i]..edges[i+1]
    is bin i); the last bin holds the chunks over max_tokens (edges[n - 1] for n bins)
    and is drawn in the hard-cut colour."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        self.edges: tuple[int, ...] = ()
        self.counts: tuple[int, ...] = ()
        self.y_max = 0
        self._bars: pg.BarGraphItem | None = None
        self._over_label = pg.TextItem(anchor=(0.5, 1.0))
        self._empty_label = pg.TextItem("no chunks", anchor=(0.5, 0.5))
        super().__init__(theme, parent)
        self.setAccessibleName("Chunk size histogram")
        self.getPlotItem().setMenuEnabled(True)
        self.describe_at = self._describe_bin
        # A scene whose `changed` signal has a receiver tells its views to update through
        # it, as any widget update goes: painted with the rest of the window once the
        # layouts are settled. Without a receiver, the scene's pass over its changed items
        # sends the whole window's pending paint at once (QGraphicsView's
        # dispatchPendingUpdateRequests), before the layouts a result changed are done,
        # and what they move is painted again after them: four paints of the window per
        # parameter change on a 10 MB pair.
        self.scene().changed.connect(self._scene_changed)
        for name in ("left", "bottom"):  # no axis label is shown: no SI prefix to fit to the range
            self.getAxis(name).enableAutoSIPrefix(False)
        self.set_data((), ())

    def set_data(self, edges, counts, y_max: int | None = None) -> None:
        self.edges = tuple(edges)
        self.counts = tuple(counts)
        self.y_max = max(y_max or 0, max(self.counts, default=0))
        # the items stay and take the new numbers: removing and adding them again re-lays
        # out the plot, twice per parameter change
        item = self.getPlotItem()
        if not self.counts:
            if self._bars is not None:
                item.removeItem(self._bars)
                item.removeItem(self._over_label)
                self._bars = None
            if self._empty_label.scene() is None:
                item.addItem(self._empty_label)
            self._empty_label.setPos(0.5, 0.5)
            self._set_view(1, 1)
        else:
            if self._empty_label.scene() is not None:
                item.removeItem(self._empty_label)
            spans = [self.bar_span(i) for i in range(len(self.counts))]
            # one setOpts: each call re-draws the bars' picture
            shape = dict(x0=[a for a, _ in spans], x1=[b for _, b in spans], height=list(self.counts),
                         brushes=self._brushes(), pen=pg.mkPen(None))
            if self._bars is None:
                self._bars = pg.BarGraphItem(**shape, y0=0)
                item.addItem(self._bars)
                item.addItem(self._over_label)
            else:
                self._bars.setOpts(**shape)
            over = spans[-1]
            self._over_label.setText(f"> {self.max_tokens}")
            self._over_label.setPos((over[0] + over[1]) / 2, self.counts[-1])
            right = over[1] + self._step() * 0.2
            top = max(self.y_max, 1) * 1.15  # room for the "> max" label over a full bar
            self._set_view(right, top)
        self._color_labels()
        self._describe()
        self._settle()

    def _settle(self) -> None:
        """Make now what a paint would change first: the view's matrix for the new range
        and the labels' transforms. pyqtgraph makes them as a paint begins (the scene's
        sigPrepareForPaint); made during the paint, they mark the plot changed again, and
        it is painted a second time."""
        self.scene().prepareForPaint()

    def _scene_changed(self, _rects) -> None:
        """The receiver of the scene's `changed` signal (see __init__): the views update
        themselves from it."""

    def _set_view(self, right: float, top: float) -> None:
        if self.counts:
            self.getPlotItem().getViewBox().setLimits(xMin=0, xMax=right, yMin=0, yMax=top)
        self.setXRange(0, right, padding=0)
        self.setYRange(0, top, padding=0)

    @property
    def max_tokens(self) -> int:
        return self.edges[len(self.counts) - 1]

    def _step(self) -> float:
        return float(self.edges[1] - self.edges[0]) if len(self.edges) > 1 and self.edges[1] > self.edges[0] else 1.0

    def bar_span(self, i: int) -> tuple[float, float]:
        """Bin i's extent in tokens, as drawn (the over-max bin set apart past max_tokens)."""
        n = len(self.counts)
        if i < n - 1:
            return float(self.edges[i]), float(self.edges[i + 1])
        start = self.max_tokens + self._step() * OVER_GAP
        return start, start + self._step()

    def bin_at(self, x: float) -> int | None:
        """The bin drawn at x tokens, or None between bars or outside them."""
        for i in range(len(self.counts)):
            a, b = self.bar_span(i)
            if a <= x < b or (i == len(self.counts) - 2 and x == b):
                return i
        return None

    def _describe_bin(self, x: float, _y: float) -> str | None:
        i = self.bin_at(x)
        if i is None:
            return None
        n = len(self.counts)
        if i == n - 1:
            return f"over max_tokens ({self.max_tokens}): {self.counts[i]} chunks"
        return f"{self.edges[i] + 1 if i else 1}–{self.edges[i + 1]} tokens: {self.counts[i]} chunks"

    def _describe(self) -> None:
        """The bars in words, for screen readers."""
        if not self.counts:
            self.setAccessibleDescription("Tokens per chunk: no chunks")
            return
        n = len(self.counts)
        bins = [f"{self.edges[i] + 1 if i else 1} to {self.edges[i + 1]} tokens: {self.counts[i]}"
                for i in range(n - 1) if self.counts[i]]
        over = f"; over max_tokens ({self.edges[n - 1]}): {self.counts[n - 1]}" if self.counts[n - 1] else ""
        self.setAccessibleDescription(f"Tokens per chunk, {sum(self.counts)} chunks: " + ", ".join(bins) + over)

    def restyle(self) -> None:
        self._color_labels()
        if self._bars is not None:
            self._bars.setOpts(brushes=self._brushes(), pen=pg.mkPen(None))

    def _color_labels(self) -> None:
        self._empty_label.setColor(self.theme.muted)
        self._over_label.setColor(self.theme.kind["hard"])

    def _brushes(self) -> list:
        n, theme = len(self.counts), self.theme
        return [pg.mkBrush(theme.kind["hard"] if i == n - 1 else theme.bar) for i in range(n)]
