"""Where positions of a document pane are on screen, and scrolling to them.

A mixin for `QPlainTextEdit` subclasses that have `view()` (a `PaneView` or None):
the painter, the gutter, the link map and the window's navigation all ask these
questions, so they are answered in one place.
"""

from __future__ import annotations

from bisect import bisect_right

from PySide6.QtCore import QPoint
from PySide6.QtGui import QTextCursor

ABOVE, BELOW = float("-inf"), float("inf")  # y of a position above / below the viewport
SMALL_BLOCK = 12  # lines: a block this short is taken whole, without bisecting for the visible ones


class BlockLines:
    """The lines of one visible block that are on screen. Found by bisection, so a
    block of thousands of lines costs what is visible (QTextLayout.lineForTextPosition
    walks every line)."""

    __slots__ = ("position", "top", "lines", "starts")

    def __init__(self, block, top: float, height: float):
        self.position = block.position()
        self.top = top
        tl = block.layout()
        n = tl.lineCount()
        if n <= SMALL_BLOCK:  # a paragraph of ordinary length: all its lines, painting clips
            k0, k1 = 0, n
        else:
            k0 = _first_line(tl, n, lambda line: top + line.y() + line.height() > 0)
            k1 = _first_line(tl, n, lambda line: top + line.y() >= height)
        self.lines = [tl.lineAt(k) for k in range(k0, max(k0, k1))]
        self.starts = [line.textStart() for line in self.lines]

    def line_for(self, rel: int):
        """The visible line holding block position `rel` (its end counts too), or None."""
        k = bisect_right(self.starts, rel) - 1
        if k < 0:
            return None
        line = self.lines[k]
        return line if rel <= line.textStart() + line.textLength() else None

    def text_range(self) -> tuple[int, int] | None:
        """First and last document position on the visible lines."""
        if not self.lines:
            return None
        last = self.lines[-1]
        return self.position + self.starts[0], self.position + last.textStart() + last.textLength()


def _first_line(tl, n: int, test) -> int:
    """The first line index k in [0, n] whose line passes `test` (monotone in k)."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi) // 2
        if test(tl.lineAt(mid)):
            hi = mid
        else:
            lo = mid + 1
    return lo


class VisibleBlocks(list):
    """[(QTextBlock, top y in the viewport)] of the blocks on screen, in order, and the
    lines of each that are visible (cached for one paint)."""

    def __init__(self, items, height: float):
        super().__init__(items)
        self.height = height
        self._lines: dict[int, BlockLines] = {}

    def lines(self, k: int) -> BlockLines:
        got = self._lines.get(k)
        if got is None:
            block, top = self[k]
            got = self._lines[k] = BlockLines(block, top, self.height)
        return got

    def text_range(self) -> tuple[int, int]:
        """First and last document position on the visible lines."""
        ranges = [r for r in (self.lines(0).text_range(), self.lines(len(self) - 1).text_range()) if r]
        if not ranges:
            first, _ = self[0]
            return first.position(), first.position()
        return ranges[0][0], ranges[-1][1]


class PaneGeometry:
    """Position ↔ viewport geometry and scrolling of a QPlainTextEdit with chunks."""

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
        """Height of one laid-out line. Read off the layout: QFontMetrics.lineSpacing()
        adds the font's leading, which can be negative (DejaVu Sans Mono: 15 px spacing,
        16 px lines), and the text layout does not use it."""
        layout = self.firstVisibleBlock().layout()
        if layout is not None and layout.lineCount():
            return float(layout.lineAt(0).height())
        return float(self.fontMetrics().height())

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
        # the line count above is exact only if every line has the height guessed;
        # measure where the line landed, move by the whole lines it missed by, and keep
        # whichever of the two places is nearer to y
        top = self.y_locator()(position)[0]
        if top not in (ABOVE, BELOW):
            off = int(round((top - y) / self.line_height()))
            if off:
                before = bar.value()
                bar.setValue(max(bar.minimum(), min(bar.maximum(), before + off)))
                moved = self.y_locator()(position)[0]
                if moved in (ABOVE, BELOW) or abs(moved - y) > abs(top - y):
                    bar.setValue(before)

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

    def visible_blocks(self) -> VisibleBlocks:
        """[(block, top y in the viewport)] of the blocks on screen, in order."""
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
        return VisibleBlocks(out, height)

    def y_locator(self):
        """A function pos -> (top, bottom) of the line holding `pos` in viewport y,
        or (ABOVE, ABOVE) / (BELOW, BELOW) for positions outside the visible blocks."""
        visible = self.visible_blocks()
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
            lines = visible.lines(k)
            line = lines.line_for(pos - positions[k])
            if line is None:  # on a line off screen
                r = lines.text_range()
                return (ABOVE, ABOVE) if r is None or pos < r[0] else (BELOW, BELOW)
            top = lines.top
            y0 = top + line.y()
            y1 = y0 + line.height()
            if y0 > height:
                return BELOW, BELOW
            if y1 < 0:
                return ABOVE, ABOVE
            return y0, y1

        return locate
