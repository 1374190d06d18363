"""A document pane with its header: side, file name, modified mark, chunk and status counts."""

from __future__ import annotations

import html
import re
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget
from steadlith_core.errors import visible

from ..model.pane_header import PaneHeader
from .names import FSI, PDI, plain_tooltip
from .palette import Theme


class PaneColumn(QWidget):
    """A pane with its header (side, file name, modified mark, chunk and status counts)."""

    def __init__(self, pane: QWidget, side: str, theme: Theme, parent: QWidget | None = None):
        """`pane`: the document pane shown under the header, for side `side`."""
        super().__init__(parent)
        self.pane = pane
        self.header = QLabel()
        self.header.setObjectName(f"header{side}")
        self.header.setAccessibleName(f"Header of {side}")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setContentsMargins(4, 2, 4, 2)
        # a long name is elided (…) to the width there is rather than widening the window
        self.header.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.header.setMinimumWidth(60)
        # (what the fitted name depends on, the name): a result updates the header's
        # counts, but measuring the name is the costly part and it rarely changes
        self._fitted: tuple[tuple, str] | None = None
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.setSpacing(2)
        lay.addWidget(self.header)
        lay.addWidget(pane, 1)
        self.update_header(PaneHeader(side), theme)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if event.size().width() != event.oldSize().width():
            self.update_header(self._shown, self._theme)  # the name elided for the new width

    def _fitted_name(self, header: PaneHeader) -> str:
        """The name as shown (controls escaped), its middle elided with "…" when the
        first line would be wider than the header: its start (the file) and its end (an
        edit's description) stay. A git revision's name ("path @ commit — subject") gives
        up its subject first, so the commit stays in sight. The tooltip keeps the whole name."""
        key = (header.name, header.status, header.side, self.header.width(), self.header.font().key(),
               self.header.contentsMargins().left(), self.header.contentsMargins().right())
        if self._fitted is None or self._fitted[0] != key:
            self._fitted = (key, self._fit_name(header))
        return self._fitted[1]

    def _fit_name(self, header: PaneHeader) -> str:
        name = visible(header.name or "")
        bold = QFont(self.header.font())
        bold.setBold(True)
        big = QFont(bold)
        big.setPointSizeF(12)
        plain = QFontMetricsF(self.header.font())
        rest = plain.horizontalAdvance("\u00a0\u00a0 • ✎ \u00a0" + (header.status or ""))
        margins = self.header.contentsMargins()
        room = (self.header.width() - margins.left() - margins.right() - 8
                - QFontMetricsF(big).horizontalAdvance(header.side) - rest)
        metrics, room = QFontMetricsF(bold), max(room, 40.0)
        head, dash, _subject = name.partition(" — ")
        if dash and " @ " in head and metrics.horizontalAdvance(name) > room:
            if metrics.horizontalAdvance(head + dash + "…") <= room:
                return metrics.elidedText(name, Qt.TextElideMode.ElideRight, room)
            name = head
        return metrics.elidedText(name, Qt.TextElideMode.ElideMiddle, room)

    def update_header(self, header: PaneHeader, theme: Theme) -> None:
        self._shown, self._theme = header, theme
        side, muted = header.side, theme.muted
        badge = f"<b style='font-size:12pt'>{side}</b>&nbsp;&nbsp;"
        if header.name is None:
            self.header.setText(badge + f"<span style='color:{muted}'>no document</span><br>&nbsp;")
            self.header.setToolTip("")
            self.pane.setAccessibleDescription(f"No document {side} loaded")
            return
        name = header.name
        shown = html.escape(f"{FSI}{self._fitted_name(header)}{PDI}", quote=True)
        first = f"<b>{shown}</b>"  # markup and bidi in a name stay text
        if header.modified:
            first += " <b>•</b>"
        if header.editable:
            first += f" <span style='color:{muted}'>✎</span>"
        if header.status:
            first += f" &nbsp;<i style='color:{muted}'>{html.escape(header.status)}</i>"
        second = f"<span style='color:{muted}'>{header.size_label}</span>"
        counts = header.counts
        if counts is not None:
            parts = [f"<b style='color:{theme.status[s]}'>{text}</b>" if s else text
                     for text, s in header.count_parts()]
            if counts.by_status is None:
                parts.append(f"<span style='color:{muted}'>{counts.words:,} words · {counts.tokens:,} tokens</span>")
            second = " · ".join(parts)
        self.header.setText(f"{badge}{first}<br>{second}")
        where = f"{name}\n{Path(header.path).resolve()}" if header.path else name
        syntax = f", {header.syntax} syntax colour" if header.syntax is not None else ""
        edited = "\nedited (File → Save as… keeps the edits)" if header.modified else ""
        editable = "\neditable: type to see the chunks change (Edit menu)" if header.editable else ""
        self.header.setToolTip(plain_tooltip(f"{where}\n{header.size_label}{syntax}{edited}{editable}"))
        plain = re.sub(r"<[^>]+>", "", second).replace("&nbsp;", " ")
        self.pane.setAccessibleDescription(
            f"{name}{', edited' if header.modified else ''}{', editable' if header.editable else ''}; {plain}. "
            "Cut markers by kind sit at each chunk's end; the background tint shows its status.")
