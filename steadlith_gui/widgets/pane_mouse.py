"""Hover and click on a document pane: which chunk is under the mouse, its tooltip, the
chunk selected by a click (a text selection is not a click), and the hover cleared when
the mouse leaves. `PaneMouse` is that part of `DocumentPane` (document_pane.py), which
inherits it; it uses the pane's view and widgets and is not used alone.
"""

from __future__ import annotations

import html

from PySide6.QtCore import QEvent, Qt
from PySide6.QtWidgets import QToolTip
from steadlith_core import Chunking
from steadlith_core.report.style import BOUNDARY_LABELS, KIND_LABELS, STATUS_HELP

from ..model.layouts import SideStatus
from .palette import Theme


def chunk_tooltip(chunking: Chunking, status: SideStatus | None, index: int, side: str, theme: Theme,
                  stale: bool) -> str:
    """Rich text for a chunk: index, status (and partner), kind, snapped, tokens, words, hash.
    `stale`: the text was edited since the result was made."""
    c = chunking.chunks[index]
    kind = KIND_LABELS[c.kind]
    snapped = "yes: moved to a paragraph or sentence end" if c.snapped else "no"
    color = theme.kind["snapped" if c.snapped else c.kind]
    rows = []
    if status is not None and 0 <= index < len(status.statuses):
        st = status.statuses[index]
        partner = status.partner[index]
        other = "B" if side == "A" else "A"
        extra = f" (= {other} chunk {partner})" if partner is not None else ""
        rows.append(
            f"<tr><td>status</td><td><b style='color:{theme.status[st]}'>{st}</b>{extra}</td></tr>"
            f"<tr><td></td><td><i>{html.escape(STATUS_HELP[st])}</i></td></tr>")
    edited = " <i>(before your latest edits)</i>" if stale else ""
    return (
        f"<b>Chunk {c.index}</b> of {len(chunking.chunks)}{edited}"
        f"<table cellspacing='0' cellpadding='1'>"
        + "".join(rows) +
        f"<tr><td>cut kind&nbsp;</td><td><b style='color:{color}'>{html.escape(kind)}</b></td></tr>"
        f"<tr><td>ends at</td><td>{BOUNDARY_LABELS.get(c.boundary, c.boundary)}</td></tr>"
        f"<tr><td>snapped</td><td>{snapped}</td></tr>"
        f"<tr><td>tokens</td><td>{c.tokens:,}</td></tr>"
        f"<tr><td>words</td><td>{c.word_count:,}</td></tr>"
        f"<tr><td>hash</td><td><code>{c.hash}</code></td></tr></table>"
    )


class PaneMouse:
    """DocumentPane's hover and click on a document pane: which chunk is under the mouse, its tooltip, the"""

    def chunk_at_point(self, point) -> int | None:
        v = self.view()
        if v is None:
            return None
        pos = self.cursorForPosition(point).position()
        return v.chunk_at(pos)

    def chunk_tooltip(self, index: int) -> str:
        """Rich text for the hovered chunk: index, status, kind, snapped, tokens, words, hash."""
        return chunk_tooltip(self.chunking, self.status_info, index, self.side, self.theme, self.has_pending_edits)

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
