"""Syntax colours for a document pane, from pygments spans computed in the worker."""

from __future__ import annotations

from typing import Protocol

import numpy as np
from PySide6.QtGui import QColor, QFont, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from ..model.highlight import SyntaxSpans, token_style



class HighlightHost(Protocol):
    """The pane whose document is coloured (a DocumentPane): its document, and the
    syntax spans moved by the edits since they were computed."""

    def document(self) -> QTextDocument: ...

    def current_syntax(self, spans: SyntaxSpans) -> tuple[np.ndarray, np.ndarray]: ...


class PygmentsHighlighter(QSyntaxHighlighter):
    """Applies precomputed pygments token spans (Qt positions) block by block."""

    def __init__(self, pane: HighlightHost):
        super().__init__(None)  # not the document overload: that would install it at once
        self._owner = pane.document()
        self._own()
        self._pane = pane
        self._spans: SyntaxSpans | None = None
        self._formats: list[QTextCharFormat | None] = []

    def attach(self) -> None:
        """Colour the pane's document from now on."""
        self.setDocument(self._owner)
        self._own()

    def detach(self) -> None:
        """Stop colouring; the formats it applied are cleared."""
        self.setDocument(None)
        self._own()

    @property
    def attached(self) -> bool:
        return self.document() is not None

    def _own(self) -> None:
        # Owned by the pane's text document, never by Python. PySide hands a highlighter to
        # Python on every setDocument, and a Python-owned highlighter is destroyed when the
        # garbage collector frees the pane's attributes: its C++ destructor detaches from
        # the document, which reports a change to the pane while the pane is half torn
        # down ("Slot 'DocumentPane::' not found", sometimes a crash). As the document's
        # child it dies in the document's destructor, after Qt has cleared its pointer to
        # the document, so it reports nothing.
        self.setParent(self._owner)

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
