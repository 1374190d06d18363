"""A read-only view of one document's original text with its chunks.

Chunks are alternating background tints, every cut has a marker coloured and shaped by
its kind, and a gutter shows chunk numbers. All of it is painted for the visible
blocks only, from the sorted Qt positions of a `ChunkLayout` (built in the worker):
a new result costs one repaint, whatever the size of the document.
"""

from __future__ import annotations

import html
from pathlib import Path

import numpy as np
from PySide6.QtCore import QEvent, QPointF, QRect, QRectF, QSize, Qt, Signal
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QPainter,
    QSyntaxHighlighter,
    QTextCharFormat,
    QTextCursor,
    QTextOption,
)
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSizePolicy, QToolTip, QVBoxLayout, QWidget
from steadlith_core import Chunking

from ..highlight import SyntaxSpans, token_style
from ..models import ChunkLayout, LoadedDocument
from ..palette import KIND_LABELS, LIGHT, Theme
from .markers import paint_marker


def document_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(10)
    return font


class PygmentsHighlighter(QSyntaxHighlighter):
    """Applies precomputed pygments token spans (Qt positions) block by block."""

    def __init__(self, parent=None):
        super().__init__(parent)
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
        block = self.currentBlock()
        lo = block.position()
        hi = lo + block.length() - 1
        i = int(np.searchsorted(spans.ends, lo, "right"))
        starts, ends, kinds, formats = spans.starts, spans.ends, spans.kinds, self._formats
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
    """Chunk numbers beside the lines where chunks start."""

    def __init__(self, pane: "DocumentPane"):
        super().__init__(pane)
        self.pane = pane
        self.setObjectName(f"gutter{pane.side}")

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.pane.gutter_width(), 0)

    def paintEvent(self, event) -> None:  # noqa: N802
        self.pane.paint_gutter(self, event)


class DocumentPane(QPlainTextEdit):
    """One document, its chunks and cuts. Displays; computes nothing about chunking."""

    files_dropped = Signal(list)  # local paths dropped onto the pane

    def __init__(self, side: str, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.side = side
        self.setObjectName(f"pane{side}")
        self.theme = theme
        self.setReadOnly(True)
        # selectable with the mouse (and copyable), but no caret: it would look like a cut marker
        self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setFont(document_font())
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        self.setPlaceholderText(f"Document {side}: drop a file here, or File → Open {side}…")
        self.setAcceptDrops(True)
        self.viewport().setAcceptDrops(True)
        self.viewport().setMouseTracking(True)

        self.document_info: LoadedDocument | None = None
        self.chunking: Chunking | None = None
        self.layout_info: ChunkLayout | None = None
        self.hovered: int | None = None
        self._syntax_enabled = True
        self._highlighter = PygmentsHighlighter(None)

        self.gutter = ChunkGutter(self)
        self.updateRequest.connect(self._on_update_request)
        self._update_gutter_width()

    # -- content ---------------------------------------------------------------------
    def set_document(self, doc: LoadedDocument) -> None:
        """Show a new text (original, not canonical). Its chunks come with the next result."""
        self._highlighter.setDocument(None)
        self.document_info = doc
        self.chunking = None
        self.layout_info = None
        self.hovered = None
        self.setPlainText(doc.text)
        self._apply_syntax()
        self._update_gutter_width()
        self.viewport().update()

    def set_chunking(self, chunking: Chunking | None, layout: ChunkLayout | None) -> None:
        self.chunking = chunking
        self.layout_info = layout
        if self.hovered is not None and (layout is None or self.hovered >= layout.count):
            self.hovered = None
        self._update_gutter_width()
        self.viewport().update()
        self.gutter.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._apply_syntax()
        self.viewport().update()
        self.gutter.update()

    @property
    def syntax_active(self) -> bool:
        return self._highlighter.document() is not None

    def set_syntax_enabled(self, enabled: bool) -> None:
        self._syntax_enabled = enabled
        self._apply_syntax()

    def _apply_syntax(self) -> None:
        doc = self.document_info
        spans = doc.syntax if doc is not None else None
        if spans is None or not self._syntax_enabled:
            self._highlighter.setDocument(None)  # also clears formats it applied
            return
        self._highlighter.configure(spans, self.theme.pygments_style)
        if self._highlighter.document() is not self.document():
            self._highlighter.setDocument(self.document())
        self._highlighter.rehighlight()

    # -- geometry helpers (also used by tests) -----------------------------------------
    def cut_position(self, index: int) -> int:
        """Qt position of the cut after chunk `index` (the end of its last word)."""
        return int(self.layout_info.ends[index])

    def marker_center(self, position: int) -> QPointF:
        """Viewport point where the marker of a cut at Qt position `position` is drawn."""
        cursor = QTextCursor(self.document())
        cursor.setPosition(position)
        rect = self.cursorRect(cursor)
        return QPointF(rect.left() + self._space_width() / 2, rect.top() + rect.height() / 2)

    def _space_width(self) -> float:
        return self.fontMetrics().horizontalAdvance(" ")

    def scroll_to_position(self, position: int) -> None:
        cursor = QTextCursor(self.document())
        cursor.setPosition(position)
        self.setTextCursor(cursor)
        self.centerCursor()

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

    # -- painting --------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802
        layout = self.layout_info
        visible = self._visible_blocks() if layout is not None and layout.count else []
        if visible:
            p = QPainter(self.viewport())
            self._paint_tints(p, visible, layout)
            p.end()
        super().paintEvent(event)
        if visible:
            p = QPainter(self.viewport())
            self._paint_markers(p, visible, layout)
            p.end()

    def _paint_tints(self, p: QPainter, visible, layout: ChunkLayout) -> None:
        tints = (QColor(self.theme.tints[0]), QColor(self.theme.tints[1]))
        hover = QColor(self.theme.hover_tint)
        ox = self.contentOffset().x()
        starts, ends = layout.starts, layout.ends
        for block, top in visible:
            lo = block.position()
            hi = lo + block.length() - 1
            if hi <= lo:
                continue
            tl = block.layout()
            lines = [tl.lineAt(k) for k in range(tl.lineCount())]
            for i in layout.visible(lo, hi):
                rs = max(int(starts[i]), lo) - lo
                re = min(int(ends[i]), hi) - lo
                if re <= rs:
                    continue
                color = hover if i == self.hovered else tints[i % 2]
                for line in lines:
                    ls = line.textStart()
                    le = ls + line.textLength()
                    a, b = max(rs, ls), min(re, le)
                    if b <= a:
                        continue
                    x1 = line.cursorToX(a)[0]
                    x2 = line.cursorToX(b)[0]
                    p.fillRect(QRectF(ox + x1, top + line.y(), x2 - x1, line.height()), color)

    def _paint_markers(self, p: QPainter, visible, layout: ChunkLayout) -> None:
        ox = self.contentOffset().x()
        half_space = self._space_width() / 2
        outline = QColor(self.theme.base)
        colors = {k: QColor(v) for k, v in self.theme.kind.items()}
        ends, markers = layout.ends, layout.markers
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

    # -- gutter ----------------------------------------------------------------------
    def gutter_width(self) -> int:
        n = self.layout_info.count if self.layout_info is not None else 0
        digits = max(2, len(str(max(n - 1, 0))))
        return self.fontMetrics().horizontalAdvance("9" * (digits + 1)) + 14

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
        layout = self.layout_info
        if layout is None or not layout.count:
            p.end()
            return
        fg = QColor(self.theme.gutter_fg)
        strong = QColor(self.theme.text)
        font = QFont(self.font())
        bold = QFont(font)
        bold.setBold(True)
        fm_h = self.fontMetrics().height()
        starts = layout.starts
        for block, top in self._visible_blocks():
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
                hovered = self.hovered in idx
                p.setFont(bold if hovered else font)
                p.setPen(strong if hovered else fg)
                y = int(top + line.y())
                p.drawText(
                    QRect(0, y, gutter.width() - 6, max(int(line.height()), fm_h)),
                    Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                    label,
                )
        p.end()

    # -- hover -----------------------------------------------------------------------
    def chunk_at_point(self, point) -> int | None:
        if self.layout_info is None:
            return None
        pos = self.cursorForPosition(point).position()
        return self.layout_info.chunk_at(pos)

    def chunk_tooltip(self, index: int) -> str:
        """Rich text for the hovered chunk: index, kind, snapped, tokens, words, hash."""
        c = self.chunking.chunks[index]
        kind = KIND_LABELS[c.kind]
        snapped = "yes: moved to a paragraph or sentence end" if c.snapped else "no"
        color = self.theme.kind["snapped" if c.snapped else c.kind]
        return (
            f"<b>Chunk {c.index}</b> of {len(self.chunking.chunks)}"
            f"<table cellspacing='0' cellpadding='1'>"
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
    """A pane with its header (side, file name, chunk count)."""

    def __init__(self, pane: DocumentPane, parent: QWidget | None = None):
        super().__init__(parent)
        self.pane = pane
        self.header = QLabel()
        self.header.setObjectName(f"header{pane.side}")
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

    def update_header(self, status: str = "") -> None:
        pane = self.pane
        doc = pane.document_info
        muted = pane.theme.muted
        badge = f"<b style='font-size:12pt'>{pane.side}</b>&nbsp;&nbsp;"
        if doc is None:
            self.header.setText(badge + f"<span style='color:{muted}'>no document</span>")
            self.header.setToolTip("")
            return
        parts = [f"<b>{html.escape(doc.name)}</b>"]
        if status:
            parts.append(f"<i style='color:{muted}'>{html.escape(status)}</i>")
        if pane.chunking is not None:
            d = pane.chunking.diagnostics
            parts.append(f"{d.chunk_count:,} chunks")
            parts.append(f"<span style='color:{muted}'>{d.word_count:,} words · {d.total_tokens:,} tokens</span>")
        self.header.setText(badge + " &nbsp;·&nbsp; ".join(parts))
        where = str(Path(doc.path).resolve()) if doc.path else doc.name
        syntax = f", {doc.syntax.lexer_name} syntax colour" if doc.syntax is not None else ""
        self.header.setToolTip(f"{where}\n{doc.size_label}{syntax}")
