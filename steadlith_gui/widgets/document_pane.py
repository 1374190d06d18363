"""A view of one document's original text with its chunks, their statuses and cuts;
editable on request.

Without a comparison, chunks are alternating background tints. With one, each chunk
is tinted by its status (reused quiet, shifted loudest, edited, new/removed), changed
words get a stronger background and an underline, and a stripe in the gutter repeats
the status. Every cut has a marker coloured and shaped by its kind; the gutter shows
chunk numbers. All of it is painted for the visible blocks only, from sorted Qt
positions (built in the worker): a new result costs one repaint, whatever the size of
the document.

Editing: a keystroke costs O(1) here plus, at the next paint, one vectorized shift of
the chunk positions (O(chunks), numpy) so the decorations follow the text until the
next analysis arrives. The pane records every change (`contentsChange`) with an
editor revision; a result made from the text at revision r is shown with the changes
after r applied to its positions. Nothing per keystroke touches the whole document.
"""

from __future__ import annotations

import html
import re
from bisect import bisect_right
from collections import Counter
from pathlib import Path
from typing import NamedTuple

import numpy as np
from PySide6.QtCore import QEvent, QPoint, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QPainterPath,
    QPen,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSizePolicy, QToolTip, QVBoxLayout, QWidget
from steadlith_core import Chunking

from ..highlight import SyntaxSpans, token_style
from ..models import STATUS_CODES, ChunkLayout, LoadedDocument, SideStatus, span_at, spans_overlapping
from ..palette import KIND_LABELS, LIGHT, STATUS_HELP, STATUSES, Theme
from .markers import paint_marker

ABOVE, BELOW = float("-inf"), float("inf")  # y of a position above / below the viewport


def document_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(10)
    return font


def shift_positions(arr: np.ndarray, edits) -> np.ndarray:
    """Qt positions after the edits (pos, removed, added), applied in order: positions
    after an edit move by its length change, positions inside a removed range move to
    its start. A change that keeps the length moves nothing."""
    for pos, removed, added in edits:
        if removed == added or arr.size == 0:
            continue
        end = pos + removed
        arr = np.where(arr >= end, arr + (added - removed), np.where(arr > pos, pos, arr))
    return arr


class PaneView(NamedTuple):
    """What the pane paints, in current Qt positions (the result's, shifted by the edits since)."""

    starts: np.ndarray
    ends: np.ndarray
    markers: tuple[str, ...]
    codes: np.ndarray | None  # status code per chunk, or None without a comparison
    changed_starts: np.ndarray
    changed_ends: np.ndarray

    @property
    def count(self) -> int:
        return len(self.markers)

    def chunk_at(self, pos: int) -> int | None:
        return span_at(self.starts, self.ends, pos)

    def visible(self, lo: int, hi: int) -> range:
        return spans_overlapping(self.starts, self.ends, lo, hi)

    def changed_visible(self, lo: int, hi: int) -> range:
        i0 = int(np.searchsorted(self.changed_ends, lo, "right"))
        i1 = int(np.searchsorted(self.changed_starts, hi, "left"))
        return range(i0, max(i0, i1))


_EMPTY = np.zeros(0, dtype=np.int64)


class PygmentsHighlighter(QSyntaxHighlighter):
    """Applies precomputed pygments token spans (Qt positions) block by block."""

    def __init__(self, pane: "DocumentPane"):
        super().__init__(None)
        self._pane = pane
        self._spans: SyntaxSpans | None = None
        self._formats: list[QTextCharFormat | None] = []

    def configure(self, spans: SyntaxSpans | None, style_name: str) -> None:
        self._spans = spans
        self._formats = []
        if spans is None:
            return
        for ttype in spans.types:
            st = token_style(style_name, ttype)
            if not (st.get("color") or st.get("bold") or st.get("italic")):
                self._formats.append(None)
                continue
            fmt = QTextCharFormat()
            if st.get("color"):
                fmt.setForeground(QColor("#" + st["color"]))
            if st.get("bold"):
                fmt.setFontWeight(QFont.Weight.Bold)
            if st.get("italic"):
                fmt.setFontItalic(True)
            self._formats.append(fmt)

    def highlightBlock(self, text: str) -> None:  # noqa: N802 - Qt override
        spans = self._spans
        if spans is None:
            return
        starts, ends = self._pane.current_syntax(spans)
        block = self.currentBlock()
        lo = block.position()
        hi = lo + block.length() - 1
        i = int(np.searchsorted(ends, lo, "right"))
        kinds, formats = spans.kinds, self._formats
        n = len(starts)
        while i < n and starts[i] < hi:
            fmt = formats[kinds[i]]
            if fmt is not None:
                s = max(int(starts[i]), lo)
                e = min(int(ends[i]), hi)
                if e > s:
                    self.setFormat(s - lo, e - s, fmt)
            i += 1


class ChunkGutter(QWidget):
    """Chunk numbers beside the lines where chunks start, and a status stripe."""

    def __init__(self, pane: "DocumentPane"):
        super().__init__(pane)
        self.pane = pane
        self.setObjectName(f"gutter{pane.side}")
        self.setAccessibleName(f"Chunk numbers of {pane.side}")
        self.setAccessibleDescription("The number of each chunk beside the line where it starts, and a stripe "
                                      "in the colour of its status")

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.pane.gutter_width(), 0)

    def paintEvent(self, event) -> None:  # noqa: N802
        self.pane.paint_gutter(self, event)


class DocumentPane(QPlainTextEdit):
    """One document, its chunks, statuses and cuts. Displays; computes nothing about chunking."""

    files_dropped = Signal(list)  # local paths dropped onto the pane
    edited = Signal()  # the user changed the text (emitted once per change)
    chunk_clicked = Signal(int)  # a click (not a drag) on a chunk
    focused = Signal()

    STRIPE = 5  # width of the status stripe at the gutter's right edge

    def __init__(self, side: str, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.side = side
        self.setObjectName(f"pane{side}")
        self.setAccessibleName(f"Document {side}")
        self.theme = theme
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setFont(document_font())
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.setPlaceholderText(f"Document {side}: drop a file here, or File → Open {side}…")
        self.setAcceptDrops(True)
        self.viewport().setAcceptDrops(True)
        self.viewport().setMouseTracking(True)
        self.editable = False
        self.set_editable(False)

        self.document_info: LoadedDocument | None = None  # the document the shown result was made from
        self.origin: LoadedDocument | None = None  # the document as loaded
        self.chunking: Chunking | None = None
        self.layout_info: ChunkLayout | None = None  # the result's layout (positions of document_info)
        self.status_info: SideStatus | None = None
        self.hovered: int | None = None
        self.selected: int | None = None
        self.partner_selected: int | None = None  # the selected chunk's partner shown in the other pane
        self.paint_count = 0  # for benchmarks and tests: paints of the viewport so far
        self.saved_as: tuple[str, str] | None = None  # (name, path) after "Save as…"
        self.origin_clean = True  # the unmodified state is the text as loaded (not a saved edit)

        # editing: revision counter and the changes since the shown result's revision
        self.revision = 0
        self.shown_revision = 0
        self._edits: list[tuple[int, int, int, int]] = []  # (revision, pos, removed, added)
        self._loading = False
        self._formatting = False
        self._view: PaneView | None = None
        self._view_rev = -1
        self._syntax_cache: tuple[int, object, np.ndarray, np.ndarray] | None = None
        self._press_pos: QPoint | None = None

        self._syntax_enabled = True
        self._highlighter = PygmentsHighlighter(self)

        self.gutter = ChunkGutter(self)
        self.updateRequest.connect(self._on_update_request)
        self.document().contentsChange.connect(self._on_contents_change)
        self._update_gutter_width()

    # -- content ---------------------------------------------------------------------
    def set_document(self, doc: LoadedDocument, modified: bool = False) -> None:
        """Show a new text (original, not canonical). Its chunks come with the next result."""
        self._formatting = True
        self._highlighter.setDocument(None)
        self._formatting = False
        self.document_info = doc
        self.origin = doc.root
        self.chunking = None
        self.layout_info = None
        self.status_info = None
        self.hovered = self.selected = self.partner_selected = None
        self._loading = True
        try:
            self.setPlainText(doc.text)
        finally:
            self._loading = False
        self.revision = self.shown_revision = doc.revision
        self._edits = []
        self._view = None
        self.document().setModified(modified)
        self._apply_syntax()
        self._update_gutter_width()
        self.viewport().update()

    def clear_document(self) -> None:
        self.document_info = self.origin = None
        self._loading = True
        try:
            self.clear()
        finally:
            self._loading = False
        self.revision = self.shown_revision = 0
        self._edits = []
        self.document().setModified(False)
        self.show_result(None, None, None, None)

    def show_result(self, doc: LoadedDocument | None, chunking: Chunking | None, layout: ChunkLayout | None,
                    status: SideStatus | None) -> bool:
        """Show an analysis of this pane's document (as loaded, or edited at revision
        doc.revision). Returns False (and shows nothing) for another document."""
        if doc is not None:
            if self.origin is None or doc.root is not self.origin or doc.revision < self.shown_revision:
                return False
            self.document_info = doc
            self.shown_revision = doc.revision
            self._edits = [e for e in self._edits if e[0] > doc.revision]
            if doc.syntax is not None and self.syntax_active:
                self._highlighter.configure(doc.syntax, self.theme.pygments_style)
                self._syntax_cache = None
        self.chunking = chunking
        self.layout_info = layout
        self.status_info = status if layout is not None else None
        self._view = None
        n = layout.count if layout is not None else 0
        for attr in ("hovered", "selected", "partner_selected"):
            if getattr(self, attr) is not None and getattr(self, attr) >= n:
                setattr(self, attr, None)
        self._update_gutter_width()
        self.viewport().update()
        self.gutter.update()
        return True

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._apply_syntax()
        self.viewport().update()
        self.gutter.update()

    def set_editable(self, editable: bool) -> None:
        """Editable: a caret, typing, undo. Read-only: selectable with the mouse, no caret
        (it would look like a cut marker)."""
        self.editable = editable
        self.setReadOnly(not editable)
        if editable:
            self.setTextInteractionFlags(Qt.TextInteractionFlag.TextEditorInteraction)
        else:
            self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    @property
    def modified(self) -> bool:
        return self.document().isModified()

    @property
    def has_pending_edits(self) -> bool:
        """The text differs from the one the shown result was made from."""
        return self.revision != self.shown_revision

    def current_text(self) -> str:
        """The editor's text (O(document): call it when the analysis is due, not per key).
        Line ends become "\\n"; everything else is kept (a no-break space too)."""
        return self.document().toRawText().replace("\u2029", "\n")

    @property
    def syntax_active(self) -> bool:
        return self._highlighter.document() is not None

    def set_syntax_enabled(self, enabled: bool) -> None:
        self._syntax_enabled = enabled
        self._apply_syntax()

    def _apply_syntax(self) -> None:
        doc = self.document_info
        spans = doc.syntax if doc is not None else None
        self._formatting = True
        try:
            if spans is None or not self._syntax_enabled:
                self._highlighter.setDocument(None)  # also clears formats it applied
                return
            self._highlighter.configure(spans, self.theme.pygments_style)
            self._syntax_cache = None
            if self._highlighter.document() is not self.document():
                self._highlighter.setDocument(self.document())
            self._highlighter.rehighlight()
        finally:
            self._formatting = False

    # -- edits -------------------------------------------------------------------------
    def _on_contents_change(self, pos: int, removed: int, added: int) -> None:
        if self._loading or self._formatting:
            return
        if removed == added == 0:
            return
        self.revision += 1
        self._edits.append((self.revision, pos, removed, added))
        if removed != added:
            self._view = None  # positions moved: shift at the next paint
        self.edited.emit()

    def _pending(self) -> list[tuple[int, int, int]]:
        return [(p, r, a) for _, p, r, a in self._edits]

    def view(self) -> PaneView | None:
        """The chunks, statuses and changed words in current Qt positions."""
        layout = self.layout_info
        if layout is None or not layout.count:
            return None
        if self._view is not None and self._view_rev == self.revision:
            return self._view
        st = self.status_info
        edits = self._pending()
        starts, ends = layout.starts, layout.ends
        cs, ce = (st.changed_starts, st.changed_ends) if st is not None else (_EMPTY, _EMPTY)
        if edits:
            starts, ends = shift_positions(starts, edits), shift_positions(ends, edits)
            cs, ce = shift_positions(cs, edits), shift_positions(ce, edits)
        self._view = PaneView(starts, ends, layout.markers, st.codes if st is not None else None, cs, ce)
        self._view_rev = self.revision
        return self._view

    def current_syntax(self, spans: SyntaxSpans) -> tuple[np.ndarray, np.ndarray]:
        edits = self._pending()
        if not edits:
            return spans.starts, spans.ends
        c = self._syntax_cache
        if c is not None and c[0] == self.revision and c[1] is spans:
            return c[2], c[3]
        starts, ends = shift_positions(spans.starts, edits), shift_positions(spans.ends, edits)
        self._syntax_cache = (self.revision, spans, starts, ends)
        return starts, ends

    # -- statuses ------------------------------------------------------------------------
    def status_of(self, index: int) -> str | None:
        st = self.status_info
        return st.statuses[index] if st is not None and 0 <= index < len(st.statuses) else None

    def set_selected(self, index: int | None, partner: int | None = None) -> None:
        if (index, partner) != (self.selected, self.partner_selected):
            self.selected, self.partner_selected = index, partner
            self.viewport().update()
            self.gutter.update()

    # -- geometry helpers (also used by tests and the link map) --------------------------
    def cut_position(self, index: int) -> int:
        """Qt position of the cut after chunk `index` (the end of its last word)."""
        v = self.view()
        return int(v.ends[index]) if v is not None else int(self.layout_info.ends[index])

    def chunk_span(self, index: int) -> tuple[int, int]:
        v = self.view()
        return int(v.starts[index]), int(v.ends[index])

    def _space_width(self) -> float:
        return self.fontMetrics().horizontalAdvance(" ")

    def _clamp(self, position: int) -> int:
        return max(0, min(int(position), self.document().characterCount() - 1))

    def scroll_to_position(self, position: int) -> None:
        """Move the caret to `position` and centre it."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(self._clamp(position))
        self.setTextCursor(cursor)
        self.centerCursor()

    def move_caret(self, position: int) -> None:
        """Move the caret to `position` without scrolling."""
        cursor = self.textCursor()
        cursor.setPosition(self._clamp(position))
        vb = self.verticalScrollBar().value()
        self.setTextCursor(cursor)
        self.verticalScrollBar().setValue(vb)

    def line_height(self) -> float:
        return float(self.fontMetrics().lineSpacing())

    def scroll_position_to_y(self, position: int, y: float) -> None:
        """Scroll (without moving the caret) so the line holding `position` is at viewport
        y ≈ `y`. The scroll bar of a QPlainTextEdit counts lines; the blocks between
        the new top and the target are laid out first so the count is exact."""
        doc = self.document()
        position = self._clamp(position)
        block = doc.findBlock(position)
        if not block.isValid():
            return
        self.blockBoundingRect(block)  # lays the block out
        line = block.layout().lineForTextPosition(position - block.position())
        line_no = line.lineNumber() if line.isValid() else 0
        above = max(0, int(round((y - self.contentsMargins().top()) / self.line_height())))
        need, b = above - line_no, block.previous()
        while need > 0 and b.isValid():
            self.blockBoundingRect(b)
            need -= max(1, b.layout().lineCount())
            b = b.previous()
        target = block.firstLineNumber() + line_no - above
        bar = self.verticalScrollBar()
        bar.setValue(max(bar.minimum(), min(bar.maximum(), target)))

    def scroll_chunk_into_view(self, index: int, fraction: float = 0.25, force: bool = False) -> None:
        """Scroll so chunk `index` starts at `fraction` of the height (unless it is
        already wholly visible and not forced)."""
        v = self.view()
        if v is None or not 0 <= index < v.count:
            return
        start, end = int(v.starts[index]), int(v.ends[index])
        if not force:
            lo, hi = self.visible_position_range()
            if lo <= start and end <= hi:
                return
        self.scroll_position_to_y(start, self.viewport().height() * fraction)

    def position_at_y(self, y: float) -> int:
        return self.cursorForPosition(QPoint(2, int(y))).position()

    def visible_position_range(self) -> tuple[int, int]:
        vp = self.viewport()
        lo = self.cursorForPosition(QPoint(0, 0)).position()
        hi = self.cursorForPosition(QPoint(vp.width() - 1, vp.height() - 1)).position()
        return lo, hi

    def visible_chunks(self) -> range:
        v = self.view()
        if v is None:
            return range(0)
        return v.visible(*self.visible_position_range())

    def _visible_blocks(self):
        out = []
        block = self.firstVisibleBlock()
        offset = self.contentOffset()
        height = self.viewport().height()
        while block.isValid():
            geo = self.blockBoundingGeometry(block).translated(offset)
            if geo.top() > height:
                break
            if block.isVisible():
                out.append((block, geo.top()))
            block = block.next()
        return out

    def y_locator(self):
        """A function pos -> (top, bottom) of the line holding `pos` in viewport y,
        or (ABOVE, ABOVE) / (BELOW, BELOW) for positions outside the visible blocks."""
        visible = self._visible_blocks()
        if not visible:
            return lambda pos: (ABOVE, ABOVE)
        positions = [b.position() for b, _ in visible]
        last_block, _ = visible[-1]
        first_pos = positions[0]
        end_pos = last_block.position() + last_block.length() - 1
        height = self.viewport().height()

        def locate(pos: int) -> tuple[float, float]:
            if pos < first_pos:
                return ABOVE, ABOVE
            if pos > end_pos:
                return BELOW, BELOW
            k = bisect_right(positions, pos) - 1
            block, top = visible[k]
            line = block.layout().lineForTextPosition(pos - positions[k])
            if not line.isValid():
                return top, top
            y0 = top + line.y()
            y1 = y0 + line.height()
            if y0 > height:
                return BELOW, BELOW
            if y1 < 0:
                return ABOVE, ABOVE
            return y0, y1

        return locate

    # -- painting --------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802
        view = self.view()
        visible = self._visible_blocks() if view is not None else []
        if visible:
            p = QPainter(self.viewport())
            self._paint_tints(p, visible, view)
            p.end()
        super().paintEvent(event)
        if visible:
            p = QPainter(self.viewport())
            self._paint_changed_underlines(p, visible, view)
            self._paint_markers(p, visible, view)
            self._paint_selection(p, visible, view)
            p.end()
        self.paint_count += 1

    @staticmethod
    def _line_rects(visible, ox: float, spans):
        """Rectangles covering Qt position spans [(s, e, tag)] on the visible lines."""
        for block, top in visible:
            lo = block.position()
            hi = lo + block.length() - 1
            if hi <= lo:
                continue
            tl = block.layout()
            lines = None
            for s, e, tag in spans:
                rs, re = max(s, lo) - lo, min(e, hi) - lo
                if re <= rs:
                    continue
                if lines is None:
                    lines = [tl.lineAt(k) for k in range(tl.lineCount())]
                for line in lines:
                    ls = line.textStart()
                    le = ls + line.textLength()
                    a, b = max(rs, ls), min(re, le)
                    if b <= a:
                        continue
                    x1 = line.cursorToX(a)[0]
                    x2 = line.cursorToX(b)[0]
                    yield tag, QRectF(ox + x1, top + line.y(), x2 - x1, line.height())

    def _visible_range(self, visible) -> tuple[int, int]:
        first, _ = visible[0]
        last, _ = visible[-1]
        return first.position(), last.position() + last.length() - 1

    def _paint_tints(self, p: QPainter, visible, view: PaneView) -> None:
        theme = self.theme
        hover = QColor(theme.hover_tint)
        if view.codes is None:
            palette = [(QColor(theme.tints[0]), QColor(theme.tints[1]))]
        else:
            palette = [theme.status_tints(s) for s in STATUSES]
        codes = view.codes
        lo, hi = self._visible_range(visible)
        spans = []
        for i in view.visible(lo, hi):
            if i == self.hovered:
                color = hover
            else:
                pair = palette[int(codes[i])] if codes is not None else palette[0]
                color = pair[i % 2]
            spans.append((int(view.starts[i]), int(view.ends[i]), color))
        ox = self.contentOffset().x()
        for color, rect in self._line_rects(visible, ox, spans):
            p.fillRect(rect, color)
        if view.changed_starts.size:
            changed = theme.changed_word_color()
            cspans = [(int(view.changed_starts[k]), int(view.changed_ends[k]), changed)
                      for k in view.changed_visible(lo, hi)]
            for color, rect in self._line_rects(visible, ox, cspans):
                p.fillRect(rect, color)

    def _paint_changed_underlines(self, p: QPainter, visible, view: PaneView) -> None:
        if not view.changed_starts.size:
            return
        lo, hi = self._visible_range(visible)
        ks = view.changed_visible(lo, hi)
        if not ks:
            return
        color = QColor(self.theme.status["edited"]).darker(135 if not self.theme.dark else 100)
        pen = QPen(color, 2)
        p.setPen(pen)
        spans = [(int(view.changed_starts[k]), int(view.changed_ends[k]), None) for k in ks]
        for _, rect in self._line_rects(visible, self.contentOffset().x(), spans):
            y = rect.bottom() - 1.5
            p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))

    def _paint_markers(self, p: QPainter, visible, view: PaneView) -> None:
        ox = self.contentOffset().x()
        half_space = self._space_width() / 2
        outline = QColor(self.theme.base)
        colors = {k: QColor(v) for k, v in self.theme.kind.items()}
        ends, markers = view.ends, view.markers
        for block, top in visible:
            lo = block.position()
            hi = lo + block.length() - 1
            tl = block.layout()
            i0 = int(np.searchsorted(ends, lo, "left"))
            i1 = int(np.searchsorted(ends, hi, "right"))
            for i in range(i0, i1):
                rel = int(ends[i]) - lo
                line = tl.lineForTextPosition(rel)
                if not line.isValid():
                    continue
                h = line.height()
                center = QPointF(ox + line.cursorToX(rel)[0] + half_space, top + line.y() + h / 2)
                size = min(half_space * 2.1, h * 0.62)
                kind = markers[i]
                paint_marker(p, kind, center, size, colors[kind], outline, height=h - 2)

    def _paint_selection(self, p: QPainter, visible, view: PaneView) -> None:
        """A frame around the selected chunk (solid) and its partner (dashed): one outline
        around the union of its line rectangles."""
        for index, style in ((self.selected, Qt.PenStyle.SolidLine), (self.partner_selected, Qt.PenStyle.DashLine)):
            if index is None or not 0 <= index < view.count:
                continue
            s, e = int(view.starts[index]), int(view.ends[index])
            path = QPainterPath()
            for _, r in self._line_rects(visible, self.contentOffset().x(), [(s, e, None)]):
                path.addRect(r.adjusted(-1.5, -0.5, 1.5, 0.5))
            if path.isEmpty():
                continue
            p.setPen(QPen(QColor(self.theme.highlight), 2, style))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            p.drawPath(path.simplified())

    # -- gutter ----------------------------------------------------------------------
    def gutter_width(self) -> int:
        n = self.layout_info.count if self.layout_info is not None else 0
        digits = max(2, len(str(max(n - 1, 0))))
        return self.fontMetrics().horizontalAdvance("9" * (digits + 1)) + 14 + self.STRIPE

    def _update_gutter_width(self) -> None:
        w = self.gutter_width()
        if self.viewportMargins().left() != w:
            self.setViewportMargins(w, 0, 0, 0)
        self._place_gutter()

    def _place_gutter(self) -> None:
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place_gutter()

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    def paint_gutter(self, gutter: QWidget, event) -> None:
        p = QPainter(gutter)
        p.fillRect(event.rect(), QColor(self.theme.gutter_bg))
        p.setPen(QColor(self.theme.mid))
        x_edge = gutter.width() - 1
        p.drawLine(x_edge, event.rect().top(), x_edge, event.rect().bottom())
        view = self.view()
        if view is None:
            p.end()
            return
        visible = self._visible_blocks()
        if view.codes is not None and visible:
            self._paint_status_stripe(p, gutter, visible, view)
        fg = QColor(self.theme.gutter_fg)
        strong = QColor(self.theme.text)
        font = QFont(self.font())
        bold = QFont(font)
        bold.setBold(True)
        fm_h = self.fontMetrics().height()
        starts = view.starts
        for block, top in visible:
            lo = block.position()
            hi = lo + max(block.length() - 1, 0)
            i0 = int(np.searchsorted(starts, lo, "left"))
            i1 = int(np.searchsorted(starts, hi, "left" if hi > lo else "right"))
            tl = block.layout()
            seen: dict[int, list[int]] = {}
            for i in range(i0, i1):
                line = tl.lineForTextPosition(int(starts[i]) - lo)
                if line.isValid():
                    seen.setdefault(line.lineNumber(), []).append(i)
            for line_no, idx in seen.items():
                line = tl.lineAt(line_no)
                label = str(idx[0]) if len(idx) == 1 else f"{idx[0]}+"
                strong_label = self.hovered in idx or self.selected in idx
                p.setFont(bold if strong_label else font)
                p.setPen(strong if strong_label else fg)
                y = int(top + line.y())
                p.drawText(
                    QRect(0, y, gutter.width() - 6 - self.STRIPE, max(int(line.height()), fm_h)),
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                    label,
                )
        p.end()

    def _paint_status_stripe(self, p: QPainter, gutter: QWidget, visible, view: PaneView) -> None:
        """A bar at the gutter's right edge beside every non-reused chunk, in its status colour."""
        locate = self.y_locator()
        height = self.viewport().height()
        x = gutter.width() - 1 - self.STRIPE
        lo, hi = self._visible_range(visible)
        for i in view.visible(lo, hi):
            code = int(view.codes[i])
            if code == STATUS_CODES["reused"]:
                continue
            y0 = locate(int(view.starts[i]))[0]
            y1 = locate(int(view.ends[i]))[1]
            y0 = 0.0 if y0 == ABOVE else y0
            y1 = float(height) if y1 == BELOW else y1
            color = QColor(self.theme.status[STATUSES[code]])
            p.fillRect(QRectF(x, y0 + 1, self.STRIPE, max(2.0, y1 - y0 - 2)), color)

    # -- hover, click ------------------------------------------------------------------
    def chunk_at_point(self, point) -> int | None:
        v = self.view()
        if v is None:
            return None
        pos = self.cursorForPosition(point).position()
        return v.chunk_at(pos)

    def chunk_tooltip(self, index: int) -> str:
        """Rich text for the hovered chunk: index, status, kind, snapped, tokens, words, hash."""
        c = self.chunking.chunks[index]
        kind = KIND_LABELS[c.kind]
        snapped = "yes: moved to a paragraph or sentence end" if c.snapped else "no"
        color = self.theme.kind["snapped" if c.snapped else c.kind]
        rows = []
        status = self.status_of(index)
        if status is not None:
            partner = self.status_info.partner[index]
            other = "B" if self.side == "A" else "A"
            extra = f" (= {other} chunk {partner})" if partner is not None else ""
            rows.append(
                f"<tr><td>status</td><td><b style='color:{self.theme.status[status]}'>{status}</b>{extra}</td></tr>"
                f"<tr><td></td><td><i>{html.escape(STATUS_HELP[status])}</i></td></tr>")
        stale = " <i>(before your latest edits)</i>" if self.has_pending_edits else ""
        return (
            f"<b>Chunk {c.index}</b> of {len(self.chunking.chunks)}{stale}"
            f"<table cellspacing='0' cellpadding='1'>"
            + "".join(rows) +
            f"<tr><td>cut kind&nbsp;</td><td><b style='color:{color}'>{html.escape(kind)}</b></td></tr>"
            f"<tr><td>snapped</td><td>{snapped}</td></tr>"
            f"<tr><td>tokens</td><td>{c.tokens:,}</td></tr>"
            f"<tr><td>words</td><td>{c.word_count:,}</td></tr>"
            f"<tr><td>hash</td><td><code>{c.hash}</code></td></tr></table>"
        )

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        super().mouseMoveEvent(event)
        idx = self.chunk_at_point(event.position().toPoint())
        if idx != self.hovered:
            self.hovered = idx
            self.viewport().update()
            self.gutter.update()

    def mousePressEvent(self, event) -> None:  # noqa: N802
        self._press_pos = event.position().toPoint()
        super().mousePressEvent(event)

    def mouseReleaseEvent(self, event) -> None:  # noqa: N802
        super().mouseReleaseEvent(event)
        press, self._press_pos = self._press_pos, None
        point = event.position().toPoint()
        if (event.button() == Qt.MouseButton.LeftButton and press is not None
                and (point - press).manhattanLength() < 4 and not self.textCursor().hasSelection()):
            idx = self.chunk_at_point(point)
            if idx is not None:
                self.chunk_clicked.emit(idx)

    def focusInEvent(self, event) -> None:  # noqa: N802
        super().focusInEvent(event)
        self.focused.emit()

    def leaveEvent(self, event) -> None:  # noqa: N802
        super().leaveEvent(event)
        if self.hovered is not None:
            self.hovered = None
            self.viewport().update()
            self.gutter.update()

    def viewportEvent(self, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.ToolTip:
            idx = self.chunk_at_point(event.pos())
            if idx is not None and self.chunking is not None:
                QToolTip.showText(event.globalPos(), self.chunk_tooltip(idx), self.viewport())
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        if event.type() == QEvent.Type.Leave and self.hovered is not None:
            self.hovered = None
            self.viewport().update()
            self.gutter.update()
        return super().viewportEvent(event)

    # -- drag and drop -----------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dragMoveEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()
        else:
            super().dragMoveEvent(event)

    def dropEvent(self, event) -> None:  # noqa: N802
        urls = event.mimeData().urls() if event.mimeData().hasUrls() else []
        paths = [u.toLocalFile() for u in urls if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.files_dropped.emit(paths)
        else:
            super().dropEvent(event)


class PaneColumn(QWidget):
    """A pane with its header (side, file name, modified mark, chunk and status counts)."""

    def __init__(self, pane: DocumentPane, parent: QWidget | None = None):
        super().__init__(parent)
        self.pane = pane
        self.header = QLabel()
        self.header.setObjectName(f"header{pane.side}")
        self.header.setAccessibleName(f"Header of {pane.side}")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setContentsMargins(4, 2, 4, 2)
        # long names are clipped rather than widening the window
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.header.setMinimumWidth(60)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.header)
        lay.addWidget(pane, 1)
        self.update_header()

    def update_header(self, status: str = "", saved_as: tuple[str, str] | None = None) -> None:
        pane = self.pane
        doc = pane.document_info
        theme = pane.theme
        muted = theme.muted
        badge = f"<b style='font-size:12pt'>{pane.side}</b>&nbsp;&nbsp;"
        if doc is None:
            self.header.setText(badge + f"<span style='color:{muted}'>no document</span><br>&nbsp;")
            self.header.setToolTip("")
            pane.setAccessibleDescription(f"No document {pane.side} loaded")
            return
        name, path = saved_as or (doc.name, doc.path)
        first = f"<b>{html.escape(name)}</b>"
        if pane.modified:
            first += " <b>•</b>"
        if pane.editable:
            first += f" <span style='color:{muted}'>✎</span>"
        if status:
            first += f" &nbsp;<i style='color:{muted}'>{html.escape(status)}</i>"
        second = f"<span style='color:{muted}'>{doc.size_label}</span>"
        if pane.chunking is not None:
            d = pane.chunking.diagnostics
            parts = [f"{d.chunk_count:,} chunks"]
            st = pane.status_info
            if st is not None:
                counts = Counter(st.statuses)
                parts.append(f"{counts['reused']:,} reused")
                for s in STATUSES[1:]:
                    n = counts[s]
                    if n:
                        parts.append(f"<b style='color:{theme.status[s]}'>{n:,} {s}</b>")
            else:
                parts.append(f"<span style='color:{muted}'>{d.word_count:,} words · {d.total_tokens:,} tokens</span>")
            second = " · ".join(parts)
        self.header.setText(f"{badge}{first}<br>{second}")
        where = str(Path(path).resolve()) if path else name
        syntax = f", {doc.syntax.lexer_name} syntax colour" if doc.syntax is not None else ""
        edited = "\nedited (File → Save as… keeps the edits)" if pane.modified else ""
        editable = "\neditable: type to see the chunks change (Edit menu)" if pane.editable else ""
        self.header.setToolTip(f"{where}\n{doc.size_label}{syntax}{edited}{editable}")
        plain = re.sub(r"<[^>]+>", "", second).replace("&nbsp;", " ")
        pane.setAccessibleDescription(
            f"{name}{', edited' if pane.modified else ''}{', editable' if pane.editable else ''}; {plain}. "
            "Cut markers by kind sit at each chunk's end; the background tint shows its status.")
