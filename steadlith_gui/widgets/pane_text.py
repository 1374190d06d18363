"""The text behind what a document pane shows: a long line is shown in pieces (display
breaks that are not in the text), so reading the text, a span of it, finding, copying
and pasting go through the offset map. `PaneText` is that part of `DocumentPane`
(document_pane.py), which inherits it; it uses the pane's state and is not used alone.
"""

from __future__ import annotations

import re

import numpy as np
from PySide6.QtCore import QMimeData
from PySide6.QtGui import QTextCursor, QTextDocument

from ..model.long_lines import LINE_LIMIT, longest_line_after_insert, without_breaks


class PaneText:
    """DocumentPane's the text behind what a document pane shows: a long line is shown in pieces (display"""

    def current_text(self) -> str:
        """The editor's text (O(document): call it when the analysis is due, not per key).
        Line ends become "\\n"; everything else is kept (a no-break space too); display
        breaks are left out."""
        if self.soft_breaks.size:
            return self.text_between(0, self.document().characterCount() - 1)
        return self.document().toRawText().replace("\u2029", "\n")

    def text_between(self, start: int, end: int) -> str:
        """The text of Qt positions [start, end) as in the document: line ends "\\n",
        display breaks left out."""
        cursor = QTextCursor(self.document())
        breaks = self.soft_breaks
        cuts = breaks[int(np.searchsorted(breaks, start, "left")):int(np.searchsorted(breaks, end, "left"))]
        pieces = []
        for a, b in zip([start, *(int(c) + 1 for c in cuts)], [*map(int, cuts), end]):
            if b > a:
                cursor.setPosition(a)
                cursor.setPosition(b, QTextCursor.MoveMode.KeepAnchor)
                pieces.append(cursor.selectedText())
        return "".join(pieces).replace("\u2029", "\n")

    def find_text(self, needle: str, start: QTextCursor, flags: QTextDocument.FindFlag) -> QTextCursor:
        """QTextDocument.find, except that a match may straddle display breaks (they are
        not in the text). The found cursor selects the match (null if none)."""
        doc = self.document()
        if not self.soft_breaks.size or not needle:
            return doc.find(needle, start, flags)
        raw = doc.toRawText()
        cp = np.frombuffer(raw.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        qt = np.concatenate(([0], np.cumsum(1 + (cp > 0xFFFF)))).astype(np.int64)  # code point -> Qt position
        seps = np.searchsorted(qt, self.soft_breaks)  # the display breaks' code points in `raw`
        plain = without_breaks(raw, seps - np.arange(seps.size))
        in_plain = seps - np.arange(seps.size)  # where each break was, as an index of `plain`

        def to_plain(pos: int) -> int:
            r = int(np.searchsorted(qt, pos))
            return r - int(np.searchsorted(seps, r, "left"))

        def to_qt(i: int, side: str) -> int:
            return int(qt[i + int(np.searchsorted(in_plain, i, side))])

        case = 0 if flags & QTextDocument.FindFlag.FindCaseSensitively else re.IGNORECASE
        pattern = re.compile(re.escape(needle), case)
        if flags & QTextDocument.FindFlag.FindBackward:
            match = None
            for match in pattern.finditer(plain, 0, to_plain(start.selectionStart())):
                pass
        else:
            match = pattern.search(plain, to_plain(start.selectionEnd()))
        found = QTextCursor()
        if match is not None:
            found = QTextCursor(doc)
            found.setPosition(to_qt(match.start(), "right"))
            found.setPosition(to_qt(match.end(), "left"), QTextCursor.MoveMode.KeepAnchor)
        return found

    def insertFromMimeData(self, source: QMimeData) -> None:  # noqa: N802
        """Paste and drop, except text that would make a line longer than LINE_LIMIT: Qt
        lays out such a line as a whole (a pasted 200,000-character word froze the window
        for 12 s), and a loaded document shows it in read-only display pieces instead.
        The clipboard keeps the text; the window says how to open it as a document."""
        if source.hasText():
            cursor = self.textCursor()
            block = cursor.block()
            start = min(cursor.position(), cursor.anchor()) - block.position()
            end_block = self.document().findBlock(max(cursor.position(), cursor.anchor()))
            after = end_block.length() - 1 - (max(cursor.position(), cursor.anchor()) - end_block.position())
            text = source.text().replace("\r\n", "\n").replace("\r", "\n")
            longest = longest_line_after_insert(text, max(start, 0), max(after, 0))
            if longest > LINE_LIMIT:
                self.long_paste_refused.emit(longest)
                return
        super().insertFromMimeData(source)

    def createMimeDataFromSelection(self) -> QMimeData:  # noqa: N802
        """Copy and drag leave the display breaks out: they are not in the text."""
        if not self.soft_breaks.size:
            return super().createMimeDataFromSelection()
        c = self.textCursor()
        data = QMimeData()
        data.setText(self.text_between(c.selectionStart(), c.selectionEnd()))
        return data
