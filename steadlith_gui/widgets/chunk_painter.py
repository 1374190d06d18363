"""What a document pane paints over its text: chunk tints, changed-word underlines, cut
markers and the selection frame (meld's `gutterrendererchunk` keeps its chunk drawing
apart from the text view the same way).

Everything is painted for the visible blocks only, from sorted Qt positions (a
`PaneView`): a new result costs one repaint, whatever the size of the document.
Tints go under the text, the rest above it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Iterator, Protocol

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QFontMetrics, QPainter, QPainterPath, QPen
from steadlith_core.vocabulary import STATUSES

from ..model.layouts import STATUS_CODES, PaneView, runs_overlapping
from .markers import paint_marker
from .palette import Theme
from .pane_geometry import VisibleBlocks
from .status_patterns import pattern_brush



class PainterHost(Protocol):
    """What the painter reads from the pane it paints over (a DocumentPane): the theme,
    hover and selection, the other version's cuts, and where the text sits."""

    theme: Theme
    hovered: int | None
    selected: int | None
    partner_selected: int | None
    ghosts: np.ndarray
    reference_starts: np.ndarray  # a question set's reference runs (Qt positions, sorted, disjoint)
    reference_ends: np.ndarray
    reference_splits: np.ndarray  # the cuts splitting one (Qt positions, ascending)
    has_pending_edits: bool

    def contentOffset(self) -> QPointF: ...  # noqa: N802

    def fontMetrics(self) -> QFontMetrics: ...  # noqa: N802

GHOST_ALPHA = 130  # faint: a hint beside the real markers, never mistaken for one



def line_rects(visible: VisibleBlocks, ox: float, spans) -> Iterator[tuple[object, QRectF]]:
    """(tag, rectangle) covering Qt position spans [(s, e, tag)] (sorted, disjoint) on the
    visible lines. Costs the visible lines and the spans on them, whatever the size of
    the blocks they belong to (a one-line megabyte is one block)."""
    if not spans:
        return
    starts = [s for s, _, _ in spans]
    ends = [e for _, e, _ in spans]
    for k in range(len(visible)):
        lines = visible.lines(k)
        lo = lines.position
        top = lines.top
        for line in lines.lines:
            ls = lo + line.textStart()
            le = ls + line.textLength()
            for j in range(bisect_right(ends, ls), bisect_left(starts, le)):
                s, e, tag = spans[j]
                a, b = max(s, ls), min(e, le)
                if b <= a:
                    continue
                x1 = line.cursorToX(a - lo)[0]
                x2 = line.cursorToX(b - lo)[0]
                yield tag, QRectF(ox + x1, top + line.y(), x2 - x1, line.height())


def visible_range(visible: VisibleBlocks) -> tuple[int, int]:
    """First and last Qt position on the visible lines."""
    return visible.text_range()


def points_on_lines(visible: VisibleBlocks, positions: np.ndarray) -> Iterator[tuple[int, float, int, object]]:
    """(index into `positions`, top of its block, position in its block, its QTextLine)
    of every sorted position on a visible line (a line's end counts as on it)."""
    for k in range(len(visible)):
        lines = visible.lines(k)
        r = lines.text_range()
        if r is None:
            continue
        i0 = int(np.searchsorted(positions, r[0], "left"))
        i1 = int(np.searchsorted(positions, r[1], "right"))
        for i in range(i0, i1):
            rel = int(positions[i]) - lines.position
            line = lines.line_for(rel)
            if line is not None:
                yield i, lines.top, rel, line


class ChunkPainter:
    """Paints one pane's chunks; reads the pane's theme, hover and selection."""

    def __init__(self, pane: PainterHost):
        self.pane = pane

    def paint_under_text(self, p: QPainter, visible: VisibleBlocks, view: PaneView) -> None:
        self._paint_tints(p, visible, view)

    def paint_over_text(self, p: QPainter, visible: VisibleBlocks, view: PaneView) -> None:
        self._paint_changed_underlines(p, visible, view)
        self._paint_references(p, visible)
        self._paint_ghosts(p, visible)
        self._paint_markers(p, visible, view)
        self._paint_selection(p, visible, view)

    def _paint_tints(self, p: QPainter, visible: VisibleBlocks, view: PaneView) -> None:
        """Alternating tints without a comparison; with one, the status's pair of tints,
        and the changed words in a stronger colour on top."""
        pane = self.pane
        theme = pane.theme
        hover = QColor(theme.hover_tint)
        if view.codes is None:
            palette = [(QColor(theme.tints[0]), QColor(theme.tints[1]))]
        else:
            palette = [theme.status_tints(s) for s in STATUSES]
        codes = view.codes
        lo, hi = visible_range(visible)
        spans = []
        for i in view.visible(lo, hi):
            if i == pane.hovered:
                color = hover
            else:
                pair = palette[int(codes[i])] if codes is not None else palette[0]
                color = pair[i % 2]
            spans.append((int(view.starts[i]), int(view.ends[i]), color))
        ox = pane.contentOffset().x()
        for color, rect in line_rects(visible, ox, spans):
            p.fillRect(rect, color)
        hatch = pattern_brush("shifted", theme, alpha=110 if not theme.dark else 60)
        if codes is not None and hatch is not None:  # shifted text faintly hatched: it stands out without its hue
            shifted = STATUS_CODES["shifted"]
            sspans = [(int(view.starts[i]), int(view.ends[i]), None) for i in view.visible(lo, hi)
                      if codes[i] == shifted]
            for _, rect in line_rects(visible, ox, sspans):
                p.fillRect(rect, hatch)
        if view.changed_starts.size:
            changed = theme.changed_word_color()
            cspans = [(int(view.changed_starts[k]), int(view.changed_ends[k]), changed)
                      for k in view.changed_visible(lo, hi)]
            for color, rect in line_rects(visible, ox, cspans):
                p.fillRect(rect, color)

    def _paint_changed_underlines(self, p: QPainter, visible: VisibleBlocks, view: PaneView) -> None:
        if not view.changed_starts.size:
            return
        ks = view.changed_visible(*visible_range(visible))
        if not ks:
            return
        theme = self.pane.theme
        color = theme.changed_word_edge()
        frame, underline = QPen(color, 1), QPen(color, 2)
        spans = [(int(view.changed_starts[k]), int(view.changed_ends[k]), None) for k in ks]
        for _, rect in line_rects(visible, self.pane.contentOffset().x(), spans):
            p.setPen(frame)  # the frame sets the word off from the chunk's tint
            p.drawRect(QRectF(rect).adjusted(0.5, 0.5, -0.5, -0.5))
            p.setPen(underline)
            y = rect.bottom() - 1.5
            p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))

    def reference_rects(self, visible: VisibleBlocks) -> list[QRectF]:
        """The line rectangles of the reference runs on the visible lines (none while
        typed text has moved the positions since the analysis)."""
        pane = self.pane
        starts, ends = pane.reference_starts, pane.reference_ends
        if not starts.size or pane.has_pending_edits:
            return []
        ks = runs_overlapping(starts, ends, *visible_range(visible))
        spans = [(int(starts[k]), int(ends[k]), None) for k in ks]
        return [rect for _, rect in line_rects(visible, pane.contentOffset().x(), spans)]

    def _paint_references(self, p: QPainter, visible: VisibleBlocks) -> None:
        """A dotted underline under every reference excerpt, lower than the changed words'
        solid one so both show; a notch through it where a cut splits a reference."""
        rects = self.reference_rects(visible)
        if not rects:
            return
        pane = self.pane
        color = QColor(pane.theme.reference)
        pen = QPen(color, 2, Qt.PenStyle.DotLine)
        pen.setCapStyle(Qt.PenCapStyle.FlatCap)
        p.setPen(pen)
        for rect in rects:
            y = rect.bottom() - 0.5
            p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y))
        if not pane.reference_splits.size:
            return
        p.setPen(QPen(color, 2.5))
        ox = pane.contentOffset().x()
        half_space = pane.fontMetrics().horizontalAdvance(" ") / 2
        for _, top, rel, line in points_on_lines(visible, pane.reference_splits):
            x = ox + line.cursorToX(rel)[0] + half_space
            bottom = top + line.y() + line.height()
            p.drawLine(QPointF(x, bottom - line.height() * 0.45), QPointF(x, bottom))

    def ghost_points(self, visible: VisibleBlocks) -> list[tuple[float, float, float]]:
        """(x, top, bottom) in the viewport of every ghost cut on the visible lines: where
        the other version cuts, just after the word it cuts after (where its marker would be)."""
        pane = self.pane
        ghosts = pane.ghosts
        if not ghosts.size or pane.has_pending_edits:  # typed since: the positions moved
            return []
        ox = pane.contentOffset().x()
        half_space = pane.fontMetrics().horizontalAdvance(" ") / 2
        out = []
        for _, top, rel, line in points_on_lines(visible, ghosts):
            x = ox + line.cursorToX(rel)[0] + half_space
            out.append((x, top + line.y(), top + line.y() + line.height()))
        return out

    def _paint_ghosts(self, p: QPainter, visible: VisibleBlocks) -> None:
        """Faint dashed ticks where the other version cuts: beside this side's own markers
        they show a phase shift at a glance (Meld shows the other side's lines the same way)."""
        points = self.ghost_points(visible)
        if not points:
            return
        color = QColor(self.pane.theme.text)
        color.setAlpha(GHOST_ALPHA)
        pen = QPen(color, 1.6, Qt.PenStyle.DashLine)
        p.setPen(pen)
        for x, top, bottom in points:
            p.drawLine(QPointF(x, top + 1), QPointF(x, bottom - 1))

    def _paint_markers(self, p: QPainter, visible: VisibleBlocks, view: PaneView) -> None:
        """A marker after the last word of every chunk, shaped and coloured by its kind."""
        pane = self.pane
        ox = pane.contentOffset().x()
        half_space = pane.fontMetrics().horizontalAdvance(" ") / 2
        outline = QColor(pane.theme.base)
        colors = {k: QColor(v) for k, v in pane.theme.kind.items()}
        markers = view.markers
        for i, top, rel, line in points_on_lines(visible, view.ends):
            h = line.height()
            center = QPointF(ox + line.cursorToX(rel)[0] + half_space, top + line.y() + h / 2)
            size = min(half_space * 2.1, h * 0.62)
            kind = markers[i]
            paint_marker(p, kind, center, size, colors[kind], outline, height=h - 2)

    def _paint_selection(self, p: QPainter, visible: VisibleBlocks, view: PaneView) -> None:
        """A frame around the selected chunk (solid) and its partner (dashed): one outline
        around the union of its line rectangles."""
        pane = self.pane
        for index, style in ((pane.selected, Qt.PenStyle.SolidLine), (pane.partner_selected, Qt.PenStyle.DashLine)):
            if index is None or not 0 <= index < view.count:
                continue
            s, e = int(view.starts[index]), int(view.ends[index])
            path = QPainterPath()
            for _, r in line_rects(visible, pane.contentOffset().x(), [(s, e, None)]):
                path.addRect(r.adjusted(-1.5, -0.5, 1.5, 0.5))
            if path.isEmpty():
                continue
            p.setPen(QPen(QColor(pane.theme.highlight), 2, style))
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
            p.drawPath(path.simplified())
