"""A chunk-size histogram painted with QPainter from the core's Diagnostics bins."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QPainter, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from ..palette import LIGHT, Theme


class Histogram(QWidget):
    """Bars for diagnostics.histogram_counts over histogram_edges; the last bin holds
    the chunks over max_tokens and is drawn in the hard-cut colour."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.theme = theme
        self.edges: tuple[int, ...] = ()
        self.counts: tuple[int, ...] = ()
        self.y_max = 0
        self.setMinimumSize(150, 100)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.setAccessibleName("Chunk size histogram")
        self._describe()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(320, 140)

    def set_data(self, edges, counts, y_max: int | None = None) -> None:
        self.edges = tuple(edges)
        self.counts = tuple(counts)
        self.y_max = max(y_max or 0, max(self.counts, default=0))
        self._describe()
        self.update()

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

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def _plot_rect(self) -> QRectF:
        fm = self.fontMetrics()
        left = fm.horizontalAdvance(str(max(self.y_max, 10))) + 8
        return QRectF(left, 6, self.width() - left - 6, self.height() - fm.height() - 14)

    def _bar_rect(self, i: int, plot: QRectF) -> QRectF:
        n = len(self.counts)
        gap = 2.0
        slot = plot.width() / max(n, 1)
        x = plot.left() + i * slot + (slot * 0.25 if i == n - 1 else 0)  # over-max bin set apart
        w = slot - gap - (slot * 0.25 if i == n - 1 else 0)
        h = plot.height() * (self.counts[i] / self.y_max) if self.y_max else 0
        return QRectF(x, plot.bottom() - h, max(w, 1.0), h)

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        theme = self.theme
        axis = QColor(theme.mid)
        muted = QColor(theme.muted)
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() - 1))
        p.setFont(font)
        fm = p.fontMetrics()
        plot = self._plot_rect()
        if not self.counts:
            p.setPen(muted)
            p.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "no chunks")
            p.end()
            return
        # grid line at the top and the baseline
        p.setPen(QPen(axis, 1, Qt.PenStyle.DotLine))
        p.drawLine(plot.topLeft(), plot.topRight())
        p.setPen(QPen(axis, 1))
        p.drawLine(plot.bottomLeft(), plot.bottomRight())
        p.drawLine(plot.bottomLeft(), plot.topLeft())
        bar = QColor(theme.bar)
        over = QColor(theme.kind["hard"])
        n = len(self.counts)
        for i in range(n):
            if not self.counts[i]:
                continue
            p.fillRect(self._bar_rect(i, plot), over if i == n - 1 else bar)
        # labels: y max, and tokens under the bins
        p.setPen(muted)
        p.drawText(
            QRectF(0, plot.top() - fm.height() / 2, plot.left() - 4, fm.height()),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            str(self.y_max),
        )
        p.drawText(
            QRectF(0, plot.bottom() - fm.height() / 2, plot.left() - 4, fm.height()),
            Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
            "0",
        )
        y_text = plot.bottom() + 3
        slot = plot.width() / n
        mid = n // 2
        x_mid = plot.left() + mid * slot
        x_max = plot.left() + (n - 1) * slot
        labels = [
            (QRectF(plot.left(), y_text, 60, fm.height()), Qt.AlignmentFlag.AlignLeft, "0"),
            (QRectF(x_mid - 40, y_text, 80, fm.height()), Qt.AlignmentFlag.AlignHCenter, str(self.edges[mid])),
            (QRectF(x_max - 80, y_text, 80, fm.height()), Qt.AlignmentFlag.AlignRight, f"{self.edges[n - 1]} max"),
        ]
        for rect, align, text in labels:
            p.drawText(rect, align, text)
        over_rect = self._bar_rect(n - 1, plot)
        p.setPen(over)
        p.drawText(
            QRectF(over_rect.center().x() - 20, y_text, 40, fm.height()), Qt.AlignmentFlag.AlignHCenter, ">"
        )
        p.end()

    def bin_at(self, x: float) -> int | None:
        if not self.counts:
            return None
        plot = self._plot_rect()
        if not plot.left() <= x <= plot.right():
            return None
        return min(len(self.counts) - 1, int((x - plot.left()) / (plot.width() / len(self.counts))))

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        i = self.bin_at(event.position().x())
        if i is None:
            QToolTip.hideText()
            return
        n = len(self.counts)
        if i == n - 1:
            what = f"over max_tokens ({self.edges[n - 1]}): {self.counts[i]} chunks"
        else:
            what = f"{self.edges[i] + 1 if i else 1}–{self.edges[i + 1]} tokens: {self.counts[i]} chunks"
        QToolTip.showText(event.globalPosition().toPoint(), what, self)
