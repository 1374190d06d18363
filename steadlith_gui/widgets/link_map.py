"""The link map between the panes, in the spirit of Meld's linkmap.

A band joins each reused chunk of A to its partner in B; between two pairs, the
regions of shifted, edited, new and removed chunks are bands in their status colours
(shifted loudest: saturated, hatched, outlined). Each band is a filled-then-stroked
cubic Bézier shape from the A chunk range's lines to the B chunk range's lines. Only
the bands touching the visible chunks of either pane are computed and painted; when
one end is off screen the band becomes a short stub pointing up or down towards it.
Clicking a band scrolls both panes to it.

Keyboard: the map takes the focus (Tab); Down/Up step to the next/previous band,
Home/End to the first/last, Enter shows the current one again, Page Up/Down scroll
(the other pane follows when scrolling is synchronized). The current band is outlined
while the map has the focus, and is named in the accessible description.

The bands come precomputed from the worker (`viewmodel.LinkList`); this widget only asks
each pane where its visible chunks are on screen.
"""

from __future__ import annotations

from typing import NamedTuple

from PySide6.QtCore import QPoint, QPointF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter, QPainterPath, QPen
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget
from steadlith_core.vocabulary import REUSED
from steadlith_core.report.style import STATUS_HELP

from ..model.links import LinkList, WordMap
from .document_pane import DocumentPane
from .palette import LIGHT, Theme
from .pane_geometry import ABOVE, BELOW

LINK_MAP_WIDTH = 56
STUB = 22  # length of a stub towards an off-screen end, in pixels
# paint order: quiet first, loud last (on top)
PAINT_ORDER = {REUSED: 0, "removed": 1, "new": 1, "edited": 2, "shifted": 3}


class Band(NamedTuple):
    index: int  # in the LinkList
    status: str
    a_lo: int
    a_hi: int
    b_lo: int
    b_hi: int
    path: QPainterPath
    stub: str  # "", "A" or "B": the end that is off screen


def range_y(view, locate, lo: int, hi: int) -> tuple[float, float]:
    """Viewport y from the top of chunk lo's first line to the bottom of chunk hi - 1's
    last (ABOVE / BELOW off screen); an empty range is the place before chunk lo."""
    n = view.count
    if hi > lo:
        return locate(int(view.starts[lo]))[0], locate(int(view.ends[hi - 1]))[1]
    # an empty range: the place between chunk lo - 1 and chunk lo
    if lo < n:
        y = locate(int(view.starts[lo]))[0]
    elif n:
        y = locate(int(view.ends[n - 1]))[1]
    else:
        y = ABOVE
    return y, y


def band_path(w: float, a0: float, a1: float, b0: float, b1: float) -> QPainterPath:
    """A band from [a0, a1] at the left edge to [b0, b1] at the right, Bézier sides
    (meld's link map shape)."""
    xm = w * 0.5
    path = QPainterPath(QPointF(0, a0))
    path.cubicTo(QPointF(xm, a0), QPointF(xm, b0), QPointF(w, b0))
    path.lineTo(QPointF(w, b1))
    path.cubicTo(QPointF(xm, b1), QPointF(xm, a1), QPointF(0, a1))
    path.closeSubpath()
    return path


def stub_path(w: float, y0: float, y1: float, where: str, to_left: bool) -> QPainterPath:
    """A tongue from the visible end's lines (at the right edge if to_left, else at the
    left edge) towards the off-screen end, `STUB` px up or down."""
    x_from = w if to_left else 0.0
    x_tip = w * 0.35 if to_left else w * 0.65
    xm = (x_from + x_tip) / 2
    tip = (y0 - STUB) if where == "above" else (y1 + STUB)
    path = QPainterPath(QPointF(x_from, y0))
    path.cubicTo(QPointF(xm, y0), QPointF(x_tip, (y0 + tip) / 2), QPointF(x_tip, tip))
    path.cubicTo(QPointF(x_tip, (y1 + tip) / 2), QPointF(xm, y1), QPointF(x_from, y1))
    path.closeSubpath()
    return path


class LinkMap(QWidget):
    """The bands between pane A and pane B; asks each pane where its chunks are."""

    band_clicked = Signal(object)  # Band

    def __init__(self, pane_a: DocumentPane, pane_b: DocumentPane, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("linkMap")
        self.pane_a, self.pane_b = pane_a, pane_b
        self.theme = theme
        self.links: LinkList | None = None
        self.word_map: WordMap | None = None
        self.paint_count = 0
        self.setFixedWidth(LINK_MAP_WIDTH)
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Expanding)
        self.setMouseTracking(True)
        self.setToolTip("")
        self.current: int | None = None  # the band keyboard navigation is on (LinkList index)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setAccessibleName("Link map")
        self._describe()
        for pane in (pane_a, pane_b):
            pane.verticalScrollBar().valueChanged.connect(self.update)
            pane.updateRequest.connect(self._on_pane_update)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(LINK_MAP_WIDTH, 100)

    def set_links(self, links: LinkList | None, word_map: WordMap | None = None) -> None:
        """The bands of the shown comparison (None: nothing to link), and its word map
        for the deletion and insertion wedges."""
        self.links = links
        self.word_map = word_map if links is not None else None
        if links is None or self.current is None or self.current >= len(links):
            self.current = None
        self._describe()
        self.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def _on_pane_update(self, rect, dy: int) -> None:
        if dy or rect.width() > 4:  # a scroll or a text change; not the caret blinking
            self.update()

    # -- geometry ------------------------------------------------------------------------
    def _side_geometry(self, pane: DocumentPane):
        """(view, locate, y offset in this widget, viewport height) of one pane, or None."""
        view = pane.view()
        if view is None:
            return None
        dy = self.mapFromGlobal(pane.viewport().mapToGlobal(QPoint(0, 0))).y()
        return view, pane.y_locator(), dy, pane.viewport().height()

    def bands(self) -> list[Band]:
        """The bands painted now (visible in at least one pane), in paint order."""
        links = self.links
        if links is None or not len(links):
            return []
        ga, gb = self._side_geometry(self.pane_a), self._side_geometry(self.pane_b)
        if ga is None or gb is None:
            return []
        va, vb = self.pane_a.visible_chunks(), self.pane_b.visible_chunks()
        ra = (va.start, va.stop) if len(va) else None
        rb = (vb.start, vb.stop) if len(vb) else None
        w = float(self.width())
        out: list[Band] = []
        for k in links.visible(ra, rb):
            a_lo, a_hi, b_lo, b_hi = int(links.a_lo[k]), int(links.a_hi[k]), int(links.b_lo[k]), int(links.b_hi[k])
            ends = []
            for (view, locate, dy, h), lo, hi in ((ga, a_lo, a_hi), (gb, b_lo, b_hi)):
                y0, y1 = range_y(view, locate, lo, hi)
                if y0 == ABOVE and y1 == ABOVE:
                    ends.append(("above", dy, dy))
                elif y0 == BELOW and y1 == BELOW:
                    ends.append(("below", dy + h, dy + h))
                else:
                    y0 = -2.0 if y0 == ABOVE else y0
                    y1 = h + 2.0 if y1 == BELOW else y1
                    ends.append(("", dy + y0, dy + max(y1, y0 + 1.0)))
            (sa, a0, a1), (sb, b0, b1) = ends
            if sa and sb:
                continue  # neither end on screen
            if sa:
                path, stub = stub_path(w, b0, b1, sa, to_left=True), "A"
            elif sb:
                path, stub = stub_path(w, a0, a1, sb, to_left=False), "B"
            else:
                path, stub = band_path(w, a0, a1, b0, b1), ""
            out.append(Band(k, links.status[k], a_lo, a_hi, b_lo, b_hi, path, stub))
        out.sort(key=lambda b: PAINT_ORDER[b.status])
        return out

    def wedges(self) -> list[tuple[str, QPainterPath]]:
        """("removed" | "new", shape) of every deletion and insertion of the word diff with
        both ends on screen: a wedge from the deleted text in A to the point in B where it
        was (an insertion the other way), as Meld draws them."""
        wm = self.word_map
        if wm is None or self.pane_a.has_pending_edits or self.pane_b.has_pending_edits:
            return []
        ga, gb = self._side_geometry(self.pane_a), self._side_geometry(self.pane_b)
        if ga is None or gb is None:
            return []
        out = []
        w = float(self.width())
        for k in wm.gaps_visible(self.pane_a.visible_position_range(), self.pane_b.visible_position_range()):
            a_lo, a_hi, b_lo, b_hi = (int(v) for v in wm.gaps[k])
            ys = []
            for (view, locate, dy, h), lo, hi in ((ga, a_lo, a_hi), (gb, b_lo, b_hi)):
                top = locate(lo)[0]
                bottom = locate(hi)[1] if hi > lo else top
                if top == bottom and top in (ABOVE, BELOW):
                    break  # this end is wholly off screen
                top = -2.0 if top == ABOVE else h + 2.0 if top == BELOW else top
                bottom = -2.0 if bottom == ABOVE else h + 2.0 if bottom == BELOW else bottom
                ys.append((dy + top, dy + bottom))
            else:
                (a0, a1), (b0, b1) = ys
                out.append(("removed" if wm.gap_kind[k] == 0 else "new", band_path(w, a0, a1, b0, b1)))
        return out

    def wedge_color(self, kind: str) -> QColor:
        """The wedges' fill: opaque, so they read over the chunk bands."""
        c = QColor(self.theme.status[kind])
        return c.lighter(115) if not self.theme.dark else c

    def pair_bands(self) -> list[tuple[int, int, QPainterPath]]:
        """(a_index, b_index, shape) of every alignment pair drawn now."""
        return [(b.a_lo, b.b_lo, b.path) for b in self.bands() if b.status == REUSED]

    def band_at(self, point: QPointF) -> Band | None:
        for band in reversed(self.bands()):  # topmost first
            if band.path.contains(QPointF(point)):
                return band
        return None

    # -- painting --------------------------------------------------------------------------
    def _style(self, status: str) -> tuple[QBrush, QPen, QBrush | None]:
        t = self.theme
        c = QColor(t.status[status])
        fill = QColor(c)
        if status == REUSED:
            fill.setAlpha(80 if not t.dark else 110)
            edge = QColor(c).darker(125) if not t.dark else QColor(c).lighter(140)
            edge.setAlpha(170)
            return QBrush(fill), QPen(edge, 1.0), None
        if status == "shifted":
            fill.setAlpha(215)
            hatch = QColor(t.base)
            hatch.setAlpha(150)
            edge = QColor(c).darker(150) if not t.dark else QColor(c).lighter(130)
            return QBrush(fill), QPen(edge, 1.6), QBrush(hatch, Qt.BrushStyle.BDiagPattern)
        # edited / new / removed: clearly coloured, yet quieter than shifted (a big edited
        # chunk must not out-shout a small phase shift)
        fill.setAlpha(115 if not t.dark else 95)
        edge = QColor(c).darker(140) if not t.dark else QColor(c).lighter(110)
        return QBrush(fill), QPen(edge, 1.2), None

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        p.fillRect(self.rect(), QColor(self.theme.window))
        p.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        bands = self.bands()
        if not bands:
            self._paint_empty(p)
        for band in bands:
            brush, pen, hatch = self._style(band.status)
            if band.stub:
                c = brush.color()
                c.setAlpha(int(c.alpha() * 0.7))
                brush = QBrush(c)
                pen.setStyle(Qt.PenStyle.DashLine)
            p.setPen(Qt.PenStyle.NoPen)
            p.setBrush(brush)
            p.drawPath(band.path)
            if hatch is not None:
                p.setBrush(hatch)
                p.drawPath(band.path)
            p.setBrush(Qt.BrushStyle.NoBrush)
            p.setPen(pen)
            p.drawPath(band.path)
        for kind, path in self.wedges():
            p.setBrush(self.wedge_color(kind))
            edge = QColor(self.theme.text)
            edge.setAlpha(160)
            p.setPen(QPen(edge, 1.0))
            p.drawPath(path)
        if self.hasFocus():
            focus = QColor(self.theme.highlight)
            current = next((b for b in bands if b.index == self.current), None)
            if current is not None:
                p.setBrush(Qt.BrushStyle.NoBrush)
                p.setPen(QPen(focus, 2.5))
                p.drawPath(current.path)
            p.setPen(QPen(focus, 1.5, Qt.PenStyle.DashLine))
            p.drawRect(self.rect().adjusted(1, 1, -2, -2))
        p.end()
        self.paint_count += 1

    def _paint_empty(self, p: QPainter) -> None:
        if self.links is not None:
            return
        p.setPen(QColor(self.theme.mid))
        x = self.width() / 2
        top = self.mapFromGlobal(self.pane_a.viewport().mapToGlobal(QPoint(0, 0))).y()
        p.drawLine(QPointF(x, top), QPointF(x, self.height() - 4))

    # -- interaction -----------------------------------------------------------------------
    def mousePressEvent(self, event) -> None:  # noqa: N802
        if event.button() == Qt.MouseButton.LeftButton:
            band = self.band_at(event.position())
            if band is not None:
                self.band_clicked.emit(band)
                event.accept()
                return
        super().mousePressEvent(event)

    def mouseMoveEvent(self, event) -> None:  # noqa: N802
        band = self.band_at(event.position())
        self.setCursor(Qt.CursorShape.PointingHandCursor if band is not None else Qt.CursorShape.ArrowCursor)
        super().mouseMoveEvent(event)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        links = self.links
        key = event.key()
        K = Qt.Key
        if key in (K.Key_PageDown, K.Key_PageUp):
            bar = self.pane_b.verticalScrollBar()
            bar.triggerAction(bar.SliderAction.SliderPageStepAdd if key == K.Key_PageDown
                              else bar.SliderAction.SliderPageStepSub)
            event.accept()
            return
        if links is None or not len(links) or key not in (K.Key_Down, K.Key_Up, K.Key_Home, K.Key_End,
                                                            K.Key_Return, K.Key_Enter, K.Key_Space):
            super().keyPressEvent(event)
            return
        n = len(links)
        if key == K.Key_Home:
            k = 0
        elif key == K.Key_End:
            k = n - 1
        elif key in (K.Key_Return, K.Key_Enter, K.Key_Space):
            k = self.current if self.current is not None else self._first_visible()
        elif self.current is None:
            k = self._first_visible()
        else:
            k = min(max(self.current + (1 if key == K.Key_Down else -1), 0), n - 1)
        self.activate(k)
        event.accept()

    def _first_visible(self) -> int:
        bands = self.bands()
        return min((b.index for b in bands), default=0)

    def activate(self, k: int) -> None:
        """Make band k of the LinkList current and show it (as a click on it would)."""
        links = self.links
        if links is None or not 0 <= k < len(links):
            return
        self.current = k
        band = Band(k, links.status[k], int(links.a_lo[k]), int(links.a_hi[k]), int(links.b_lo[k]),
                    int(links.b_hi[k]), QPainterPath(), "")
        self._describe()
        self.band_clicked.emit(band)
        self.update()

    def _describe(self) -> None:
        base = ("Bands join each reused chunk of A to its partner in B; coloured bands between them are "
                "shifted, edited, new or removed chunks. Down and Up step through the bands, Enter shows "
                "the current one, Page Down and Page Up scroll.")
        links = self.links
        if links is None:
            self.setAccessibleDescription("No comparison yet. " + base)
            return
        if self.current is not None:
            k = self.current
            band = Band(k, links.status[k], int(links.a_lo[k]), int(links.a_hi[k]), int(links.b_lo[k]),
                        int(links.b_hi[k]), QPainterPath(), "")
            text = self.band_tooltip(band).split("<br>")[0].replace("<b>", "").replace("</b>", "")
            self.setAccessibleDescription(f"Band {k + 1} of {len(links)}: {text}. " + base)
        else:
            self.setAccessibleDescription(f"{len(links)} bands. " + base)

    def focusInEvent(self, event) -> None:  # noqa: N802
        super().focusInEvent(event)
        self.update()

    def focusOutEvent(self, event) -> None:  # noqa: N802
        super().focusOutEvent(event)
        self.update()

    def event(self, e) -> bool:
        if e.type() == e.Type.ToolTip:
            band = self.band_at(QPointF(e.pos()))
            if band is None:
                QToolTip.hideText()
                if self.links is None:
                    QToolTip.showText(e.globalPos(), "Load two versions to see how their chunks line up", self)
                return True
            QToolTip.showText(e.globalPos(), self.band_tooltip(band), self)
            return True
        return super().event(e)

    @staticmethod
    def band_tooltip(band: Band) -> str:
        def rng(lo: int, hi: int) -> str:
            if hi <= lo:
                return f"between chunks {lo - 1} and {lo}" if lo else "before chunk 0"
            return f"chunk {lo}" if hi - lo == 1 else f"chunks {lo}–{hi - 1}"

        head = f"<b>{band.status}</b>: A {rng(band.a_lo, band.a_hi)} ↔ B {rng(band.b_lo, band.b_hi)}"
        return f"{head}<br><i>{STATUS_HELP[band.status]}</i><br>Click to show both."
