"""The overview map: both documents, whole, as two thin strips coloured by chunk status,
with the visible region of each pane framed on top. Click or drag to jump.

The strips are rendered once into a cached pixmap (rebuilt only when the result, the
theme or the size changes); scrolling repaints the cached pixmap and the two frames.
A strip is scaled to its document's length in Qt positions.

Keyboard: the map takes the focus (Tab); Left/Right choose the strip (A or B, framed
while focused), Up/Down scroll that pane a few lines, Page Up/Down a page, Home/End
to the start/end (the other pane follows when scrolling is synchronized).
"""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
import numpy as np
from PySide6.QtGui import QColor, QImage, QPainter, QPen, QPixmap
from PySide6.QtWidgets import QAbstractSlider, QSizePolicy, QWidget
from steadlith_core.vocabulary import REUSED, STATUSES

from ..model.layouts import STATUS_CODES, SideStatus
from .document_pane import DocumentPane
from .palette import LIGHT, Theme, blend
from .status_patterns import paint_pattern

OVERVIEW_WIDTH = 34
STRIP = 12
GAP = 3
MARGIN = 3


class OverviewMap(QWidget):
    jump_requested = Signal(str, int)  # side, Qt position

    def __init__(self, pane_a: DocumentPane, pane_b: DocumentPane, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("overviewMap")
        self.panes = {"A": pane_a, "B": pane_b}
        self.theme = theme
        self._data: dict[str, tuple | None] = {"A": None, "B": None}  # side -> (layout, status, length)
        self._cache: QPixmap | None = None
        self.cache_builds = 0  # how often the strip image was rendered (tests, benchmarks)
        self.paint_count = 0
        self.setFixedWidth(OVERVIEW_WIDTH)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.setToolTip("Overview: A (left strip) and B (right), coloured by chunk status; "
                        "the frames are the visible parts. Click to jump.")
        self.key_side = "B"  # the strip the keyboard scrolls
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Overview map")
        self.setAccessibleDescription(
            "Both documents whole, as two strips coloured by chunk status, with the visible part of each "
            "pane framed. Left and Right choose the strip, Up, Down, Page Up, Page Down, Home and End scroll it.")
        for pane in (pane_a, pane_b):
            pane.verticalScrollBar().valueChanged.connect(self.update)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(OVERVIEW_WIDTH, 100)

    def set_result(self, side_data: dict[str, tuple | None]) -> None:
        """side -> (ChunkLayout, SideStatus | None, document length in Qt positions) or None."""
        self._data = dict(side_data)
        self._cache = None
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._cache = None
        self.update()

    def resizeEvent(self, event) -> None:  # noqa: N802
        self._cache = None
        super().resizeEvent(event)

    # -- geometry ----------------------------------------------------------------------
    def strip_rect(self, side: str) -> QRectF:
        x = MARGIN + (0 if side == "A" else STRIP + GAP)
        top = self._top()
        return QRectF(x, top, STRIP, max(1.0, self.height() - top - MARGIN))

    def _top(self) -> float:
        # level with the panes' text, below their headers
        pane = self.panes["A"]
        return float(max(MARGIN, self.mapFromGlobal(pane.viewport().mapToGlobal(pane.viewport().rect().topLeft())).y()))

    def _length(self, side: str) -> int:
        d = self._data.get(side)
        return max(1, d[2]) if d is not None else max(1, self.panes[side].document().characterCount())

    def y_of(self, side: str, position: int) -> float:
        r = self.strip_rect(side)
        return r.top() + r.height() * min(max(position / self._length(side), 0.0), 1.0)

    def position_at(self, side: str, y: float) -> int:
        r = self.strip_rect(side)
        t = min(max((y - r.top()) / r.height(), 0.0), 1.0)
        return int(round(t * self._length(side)))

    def side_at(self, x: float) -> str:
        return "A" if x < MARGIN + STRIP + GAP / 2 else "B"

    def frame_rect(self, side: str) -> QRectF | None:
        pane = self.panes[side]
        if pane.document_info is None:
            return None
        lo, hi = pane.visible_position_range()
        r = self.strip_rect(side)
        y0, y1 = self.y_of(side, lo), self.y_of(side, hi)
        return QRectF(r.left() - 1.5, y0, r.width() + 3, max(4.0, y1 - y0))

    # -- painting ------------------------------------------------------------------------
    def strip_codes(self, side: str, rows: int) -> np.ndarray | None:
        """One value per pixel row of a strip: the status code of the chunks on that row,
        the loudest one when several share it (so a one-chunk phase shift in a long
        document still shows); without a comparison, the chunk parity (0/1) as a negative
        code -1/-2; -3 where no chunk is. Vectorized (no loop over rows or chunks)."""
        d = self._data.get(side)
        if d is None or rows <= 0:
            return None
        layout, status, length = d
        if not layout.count:
            return None
        scale = rows / max(length, 1)
        top = np.floor(layout.starts * scale).astype(np.int64)
        bottom = np.maximum(top + 1, np.ceil(layout.ends * scale).astype(np.int64))
        if status is not None:
            # loudness: reused < removed < new < edited < shifted
            loud = np.array([0, 4, 3, 2, 1], dtype=np.int64)[status.codes.astype(np.int64)]
            by_loudness = np.array([0, 4, 3, 2, 1], dtype=np.int64)  # loudness -> status code (an involution)
        else:
            loud = (np.arange(layout.count) % 2).astype(np.int64)
            by_loudness = np.array([-1, -2], dtype=np.int64)
        # every row a chunk covers gets its loudness; the loudest per row wins
        top = np.minimum(top, rows - 1)
        bottom = np.minimum(bottom, rows)
        spans = bottom - top
        covered = np.repeat(top - np.concatenate(([0], np.cumsum(spans)[:-1])), spans) + np.arange(int(spans.sum()))
        acc = np.full(rows, -1, dtype=np.int64)
        np.maximum.at(acc, covered, np.repeat(loud, spans))
        out = np.full(rows, -3, dtype=np.int64)
        hit = acc >= 0
        out[hit] = by_loudness[acc[hit]]
        return out

    def strip_colors(self, side: str, rows: int, codes: np.ndarray | None = None) -> np.ndarray | None:
        """One ARGB colour per pixel row of a strip (see strip_codes; `codes`: its value, if known)."""
        codes = self.strip_codes(side, rows) if codes is None else codes
        if codes is None:
            return None
        t = self.theme
        base = QColor(t.base)
        palette = {0: blend(base, QColor(t.status[REUSED]), 0.55), -1: QColor(t.tints[0]),
                   -2: QColor(t.tints[1]), -3: base}
        palette.update({STATUS_CODES[s]: QColor(t.status[s]) for s in STATUSES[1:]})
        keys = np.array(sorted(palette), dtype=np.int64)
        argb = np.array([palette[int(k)].rgba() for k in keys], dtype=np.uint32)
        return argb[np.searchsorted(keys, codes)]

    def _paint_patterns(self, p: QPainter, codes: np.ndarray, rect: QRectF, rows: int, dpr: float) -> None:
        """Each status's pattern over its runs of rows (palette.STATUS_PATTERNS)."""
        edges = np.flatnonzero(np.diff(codes)) + 1
        for lo, hi in zip(np.concatenate(([0], edges)), np.concatenate((edges, [rows]))):
            code = int(codes[lo])
            if code > 0:
                run = QRectF(rect.x(), rect.y() + lo / dpr, rect.width(), (hi - lo) / dpr)
                paint_pattern(p, run, STATUSES[code], self.theme)

    def _build_cache(self) -> QPixmap:
        dpr = self.devicePixelRatioF()
        pm = QPixmap(int(self.width() * dpr), int(self.height() * dpr))
        pm.setDevicePixelRatio(dpr)
        t = self.theme
        pm.fill(QColor(t.window))
        p = QPainter(pm)
        base = QColor(t.base)
        for side in ("A", "B"):
            r = self.strip_rect(side)
            p.fillRect(r, base)
            rows = int(r.height() * dpr)
            codes = self.strip_codes(side, rows)
            if codes is not None:
                image = QImage(self.strip_colors(side, rows, codes).tobytes(), 1, rows, 4, QImage.Format.Format_ARGB32)
                p.drawImage(r, image)
                self._paint_patterns(p, codes, r, rows, dpr)
            p.setPen(QPen(QColor(t.mid), 1))
            p.drawRect(r.adjusted(-0.5, -0.5, 0.5, 0.5))
        p.end()
        self.cache_builds += 1
        return pm

    def paintEvent(self, event) -> None:  # noqa: N802
        if self._cache is None or self._cache.size() != self.size() * self.devicePixelRatioF():
            self._cache = self._build_cache()
        p = QPainter(self)
        p.drawPixmap(0, 0, self._cache)
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        frame = QColor(self.theme.text)
        for side in ("A", "B"):
            rect = self.frame_rect(side)
            if rect is None:
                continue
            fill = QColor(self.theme.highlight)
            fill.setAlpha(40)
            p.fillRect(rect, fill)
            p.setPen(QPen(frame, 1.5))
            p.drawRect(rect)
        if self.hasFocus():
            p.setPen(QPen(QColor(self.theme.highlight), 1.5, Qt.PenStyle.DashLine))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.drawRect(self.strip_rect(self.key_side).adjusted(-2.5, -2.5, 2.5, 2.5))
        p.end()
        self.paint_count += 1

    # -- interaction ---------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            self._drag_side = self.side_at(event.position().x())
            self._jump(event.position())

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        if event.buttons() & Qt.MouseButton.LeftButton:
            self._jump(event.position())

    def _jump(self, point: QPointF) -> None:
        side = getattr(self, "_drag_side", None) or self.side_at(point.x())
        self.jump_requested.emit(side, self.position_at(side, point.y()))

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        self._drag_side = None
        super().mouseReleaseEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        K = Qt.Key
        key = event.key()
        if key in (K.Key_Left, K.Key_Right):
            self.key_side = "A" if key == K.Key_Left else "B"
            self.update()
            event.accept()
            return
        bar = self.panes[self.key_side].verticalScrollBar()
        A = QAbstractSlider.SliderAction
        action = {K.Key_Down: A.SliderSingleStepAdd, K.Key_Up: A.SliderSingleStepSub,
                  K.Key_PageDown: A.SliderPageStepAdd, K.Key_PageUp: A.SliderPageStepSub,
                  K.Key_Home: A.SliderToMinimum, K.Key_End: A.SliderToMaximum}.get(key)
        if action is None:
            super().keyPressEvent(event)
            return
        steps = 3 if key in (K.Key_Down, K.Key_Up) else 1
        for _ in range(steps):
            bar.triggerAction(action)
        event.accept()

    def focusInEvent(self, event) -> None:  # noqa: N802
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event) -> None:  # noqa: N802
        super().focusOutEvent(event)
        self.update()


def side_data(layout, status: SideStatus | None, length: int):
    return None if layout is None else (layout, status, length)
