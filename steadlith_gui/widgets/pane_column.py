"""A document pane with its header: side, file name, modified mark, chunk and status counts."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy, QVBoxLayout, QWidget

from ..names import name_html, plain_tooltip
from ..palette import STATUSES
if TYPE_CHECKING:
    from .document_pane import DocumentPane


class PaneColumn(QWidget):
    """A pane with its header (side, file name, modified mark, chunk and status counts)."""

    def __init__(self, pane: "DocumentPane", parent: QWidget | None = None):
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
        first = f"<b>{name_html(name)}</b>"  # markup and bidi in a name stay text
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
                # one status code per chunk (~10,000 on a 10 MB document): counted in numpy
                counts = dict(zip(STATUSES, np.bincount(st.codes, minlength=len(STATUSES)).tolist()))
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
        self.header.setToolTip(plain_tooltip(f"{where}\n{doc.size_label}{syntax}{edited}{editable}"))
        plain = re.sub(r"<[^>]+>", "", second).replace("&nbsp;", " ")
        pane.setAccessibleDescription(
            f"{name}{', edited' if pane.modified else ''}{', editable' if pane.editable else ''}; {plain}. "
            "Cut markers by kind sit at each chunk's end; the background tint shows its status.")
