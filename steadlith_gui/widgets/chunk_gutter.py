"""The gutter beside a document pane: chunk numbers by the lines where chunks start,
and, for every chunk that was not reused, a stripe in its status colour and pattern and a
status glyph by its first line (⇄ shifted, Δ edited, + new, − removed), so a status reads
without colour."""

from __future__ import annotations

from typing import Callable, Protocol

import numpy as np

from PySide6.QtCore import QRect, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QFont, QFontMetrics, QPainter, QTextDocument
from PySide6.QtWidgets import QWidget
from steadlith_core.vocabulary import REUSED, STATUSES

from ..model.documents import LoadedDocument
from ..model.layouts import STATUS_CODES, ChunkLayout, PaneView
from .chunk_painter import points_on_lines, visible_range
from .palette import STATUS_GLYPHS, Theme
from .pane_geometry import ABOVE, BELOW, VisibleBlocks
from .status_patterns import paint_pattern



class GutterHost(Protocol):
    """What the gutter reads from the pane it sits beside (a DocumentPane)."""

    side: str
    theme: Theme
    layout_info: ChunkLayout | None
    document_info: LoadedDocument | None
    soft_breaks: np.ndarray
    hovered: int | None
    selected: int | None

    def font(self) -> QFont: ...

    def fontMetrics(self) -> QFontMetrics: ...  # noqa: N802

    def document(self) -> QTextDocument: ...

    def viewport(self) -> QWidget: ...

    def view(self) -> PaneView | None: ...

    def visible_blocks(self) -> VisibleBlocks: ...

    def y_locator(self) -> Callable[[int], tuple[float, float]]: ...

    def line_height(self) -> float: ...


class ChunkGutter(QWidget):
    """Chunk numbers beside the lines where chunks start, and a status stripe."""

    STRIPE = 7  # width of the status stripe at the gutter's right edge (wide enough for its pattern)
    GLYPH = 12  # room for the status glyph left of the stripe

    def __init__(self, pane: GutterHost):
        super().__init__(pane)
        self.pane = pane
        self.setObjectName(f"gutter{pane.side}")
        self.setAccessibleName(f"Chunk numbers of {pane.side}")
        self.setAccessibleDescription("The number of each chunk beside the line where it starts, and a stripe "
                                      "in the colour of its status")
        self.digits = 2  # of the widest chunk number since the document was loaded

    def preferred_width(self) -> int:
        """Room for the widest chunk number shown since the document was loaded (at least
        two digits) and the stripe. It never shrinks for a new result: a narrower gutter
        re-wraps the whole document (about 20 ms per pane at 10 MB) and moves the text
        under the reader's eyes. When it must widen, it makes room for four times as many
        chunks, so the next parameter changes (a smaller min_tokens or max_tokens, a
        wider mask) do not widen it again at each power of ten."""
        layout = self.pane.layout_info
        n = layout.count if layout is not None else 0
        if len(str(max(n - 1, 0))) > self.digits:
            self.digits = len(str(4 * n - 1))
        digits = self.digits = max(self.digits, 2)
        return (self.line_number_width() + self.pane.fontMetrics().horizontalAdvance("9" * (digits + 1)) + 10
                + self.STRIPE + self.GLYPH)

    def line_number_width(self) -> int:
        """Room for line numbers: code only (a document with syntax spans), where a reviewer
        cites lines; prose has chunk numbers only."""
        doc = self.pane.document_info
        if doc is None or doc.syntax is None:
            return 0
        lines = self.pane.document().blockCount()
        return self.pane.fontMetrics().horizontalAdvance("9" * max(3, len(str(lines)))) + 8

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.preferred_width(), 0)

    def paintEvent(self, event) -> None:  # noqa: N802
        pane = self.pane
        theme = pane.theme
        p = QPainter(self)
        p.fillRect(event.rect(), QColor(theme.gutter_bg))
        p.setPen(QColor(theme.mid))
        x_edge = self.width() - 1
        p.drawLine(x_edge, event.rect().top(), x_edge, event.rect().bottom())
        view = pane.view()
        visible = pane.visible_blocks() if view is not None else []
        if visible:
            if view.codes is not None:
                self._paint_status_stripe(p, visible, view)
            self._paint_numbers(p, visible, view)
        lines_width = self.line_number_width()
        if lines_width:
            self._paint_line_numbers(p, pane.visible_blocks(), lines_width)
        if pane.soft_breaks.size:
            self._paint_display_breaks(p, pane.visible_blocks(), lines_width)
        p.end()

    def _paint_display_breaks(self, p: QPainter, visible, x: int) -> None:
        """"↪" beside each line that continues a long line after a display break: the
        break is not in the text (long_lines), and a reader must not take it for one."""
        pane = self.pane
        p.setPen(QColor(pane.theme.muted))
        p.setFont(pane.font())
        h = pane.fontMetrics().height()
        for block, top in visible:
            if self.line_number(block) is None:
                p.drawText(QRect(x + 1, int(top), h, h), Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                           "↪")

    def line_number(self, block) -> int | None:
        """The number (1-based) of the text line a block starts, or None for a block that
        goes on after a display break (long_lines): those are not lines of the text."""
        breaks = self.pane.soft_breaks
        before = int(np.searchsorted(breaks, block.position() - 1))  # display breaks before the block
        if before < breaks.size and breaks[before] == block.position() - 1:
            return None
        return block.blockNumber() + 1 - before

    def _paint_line_numbers(self, p: QPainter, visible, width: int) -> None:
        """Each text line's number (1-based), muted, at the gutter's left edge."""
        pane = self.pane
        color = QColor(pane.theme.muted)
        p.setPen(color)
        p.setFont(pane.font())
        h = pane.fontMetrics().height()
        for block, top in visible:
            number = self.line_number(block)
            if number is not None:
                p.drawText(QRect(2, int(top), width - 8, h), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                           str(number))
        p.setPen(QColor(pane.theme.mid))
        p.drawLine(width - 3, 0, width - 3, self.height())

    def _paint_numbers(self, p: QPainter, visible, view: PaneView) -> None:
        """One label per line: the first chunk starting on it, with "+" if more do;
        bold for the hovered or selected chunk."""
        pane = self.pane
        fg = QColor(pane.theme.gutter_fg)
        strong = QColor(pane.theme.text)
        font = QFont(pane.font())
        bold = QFont(font)
        bold.setBold(True)
        fm_h = pane.fontMetrics().height()
        seen: dict[tuple[float, int], tuple[object, list[int]]] = {}  # (block top, line) -> line, chunks
        for i, top, _rel, line in points_on_lines(visible, view.starts):
            seen.setdefault((top, line.lineNumber()), (line, []))[1].append(i)
        for (top, _), (line, idx) in seen.items():
            label = str(idx[0]) if len(idx) == 1 else f"{idx[0]}+"
            strong_label = pane.hovered in idx or pane.selected in idx
            p.setFont(bold if strong_label else font)
            p.setPen(strong if strong_label else fg)
            y = int(top + line.y())
            p.drawText(
                QRect(0, y, self.width() - 6 - self.STRIPE - self.GLYPH, max(int(line.height()), fm_h)),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                label,
            )

    def _paint_status_stripe(self, p: QPainter, visible, view: PaneView) -> None:
        """A bar at the right edge beside every non-reused chunk, in its status colour."""
        pane = self.pane
        locate = pane.y_locator()
        height = pane.viewport().height()
        x = self.width() - 1 - self.STRIPE
        for i in view.visible(*visible_range(visible)):
            code = int(view.codes[i])
            if code == STATUS_CODES[REUSED]:
                continue
            y0 = locate(int(view.starts[i]))[0]
            y1 = locate(int(view.ends[i]))[1]
            if y0 == BELOW or y1 == ABOVE:
                continue  # on a visible block, but not on its visible lines
            y0 = 0.0 if y0 == ABOVE else y0
            y1 = float(height) if y1 == BELOW else y1
            status = STATUSES[code]
            rect = QRectF(x, y0 + 1, self.STRIPE, max(2.0, y1 - y0 - 2))
            p.fillRect(rect, QColor(pane.theme.status[status]))
            paint_pattern(p, rect, status, pane.theme)
            glyph = STATUS_GLYPHS[status]
            if glyph and y0 >= 0:  # beside the chunk's first line, left of the stripe
                p.setPen(QColor(pane.theme.text))
                p.drawText(QRectF(x - self.GLYPH, y0, self.GLYPH, pane.line_height()),
                           int(Qt.AlignmentFlag.AlignCenter), glyph)
