"""Selection, navigation and synchronized scrolling between the panes.

A scroll this controller makes itself runs under `scroll_lock()` (meld's
with_scroll_lock), so the pane it moves does not sync back to the one it follows.
Partners and alignment come from the session's result, never from the panes' state.
"""

from __future__ import annotations

import contextlib
from typing import Callable, Iterator, Mapping

import numpy as np
from PySide6.QtCore import QEvent, QObject, QPoint, QTimer, Signal
from PySide6.QtGui import QTextCursor, QTextDocument
from steadlith_core.vocabulary import SHIFTED, is_changed

from ..model.layouts import STATUS_CODES
from ..model.links import map_position
from ..model.session import OTHER, Session
from ..model.viewmodel import change_target, landing
from ..widgets.chunk_table import ChunkTable
from ..widgets.churn import ChurnPanel
from ..widgets.find_bar import FindBar
from ..widgets.link_map import Band, LinkMap
from ..widgets.overview_map import OverviewMap
from ..widgets.pane_geometry import ABOVE, BELOW

CHANGED_CODES = [code for status, code in STATUS_CODES.items() if is_changed(status)]  # "next change" stops there


class NavigationController(QObject):
    """It holds the session, the panes and the widgets that navigate or show where the
    panes are (link map, overview, churn panel's regions, find bar, chunk table) and a
    status-line callable, not the window."""

    region_shown = Signal(int)  # a phase-shift region was shown (its index in the comparison's list)
    chunk_selected = Signal(str, object)  # side, chunk index (None: cleared)

    def __init__(self, session: Session, panes: Mapping, *, link_map: LinkMap, overview: OverviewMap,
                 churn: ChurnPanel, find_bar: FindBar, table: ChunkTable, status: Callable[[str, int], None],
                 parent: QObject | None = None):
        """`status(text, ms)`: a passing note in the status line."""
        super().__init__(parent)
        self.session = session
        self.panes = panes
        self.link_map = link_map
        self.overview = overview
        self.find_bar = find_bar
        self.table = table
        self.status = status
        self.active_side = "B"  # the pane navigation acts on: the one last focused
        self.selection: tuple[str, int] | None = None
        self._locked = 0
        # B's position a landing centred, held until the user moves: the docks can still be
        # settling when the result lands (a History or Sweep dock opening with a git file),
        # and a pane that gets wider re-wraps its text, which leaves the landed change off
        # screen; while held, every width change lands again
        self._held: int | None = None
        self._watched: dict[QObject, str] = {}
        for side, pane in self.panes.items():
            for obj in (pane, pane.viewport(), pane.verticalScrollBar()):
                obj.installEventFilter(self)
                self._watched[obj] = side
            pane.chunk_clicked.connect(lambda i, s=side: self.select_chunk(s, i, scroll=False))
            pane.focused.connect(lambda s=side: setattr(self, "active_side", s))
            pane.verticalScrollBar().valueChanged.connect(lambda _v, s=side: self._on_pane_scrolled(s))
        link_map.band_clicked.connect(self._on_band_clicked)
        overview.jump_requested.connect(self.jump_to_position)
        churn.region_activated.connect(self.show_region)
        find_bar.find_requested.connect(self.find)
        table.chunk_selected.connect(lambda s, i: self.select_chunk(s, i, scroll=True, from_table=True))
        session.events.view_changed.connect(self._on_view_changed)
        session.events.documents_changed.connect(self._release)
        self._sync_on = session.view.sync_scroll

    _USER_MOVES = (QEvent.Type.Wheel, QEvent.Type.MouseButtonPress, QEvent.Type.KeyPress)

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        """Release the held landing when the user reaches for a pane; land again when a
        pane's size changed under it (a new width re-wraps the text; a new height, as
        docks settle, moves the middle the landing is centred on)."""
        if self._held is not None and obj in self._watched:
            kind = event.type()
            if kind in self._USER_MOVES:
                self._held = None
            elif kind == QEvent.Type.Resize and obj is self.panes[self._watched[obj]].viewport() \
                    and event.size() != event.oldSize():
                QTimer.singleShot(0, self._land_again)
        return False

    def _release(self) -> None:
        self._held = None

    def _land_again(self) -> None:
        if self._held is not None and self.session.comparison is not None:
            self.centre_position("B", self._held, hold=True)

    @property
    def holding_landing(self) -> bool:
        """A landing is kept on screen until the user scrolls, clicks or types."""
        return self._held is not None

    @contextlib.contextmanager
    def scroll_lock(self) -> Iterator[None]:
        """Scrolls made inside do not drive the other pane."""
        self._locked += 1
        try:
            yield
        finally:
            self._locked -= 1

    def _on_view_changed(self, view) -> None:
        turned_on = view.sync_scroll and not self._sync_on
        self._sync_on = view.sync_scroll
        if turned_on:
            self.sync_from(self.active_side)

    def _partner(self, side: str, index: int) -> int | None:
        result = self.session.result
        if not self.session.consistent or result is None:
            return None
        status = result.side_status(side)
        return None if status is None else status.partner[index]

    def select_chunk(self, side: str, index: int | None, scroll: bool = True, from_table: bool = False) -> None:
        pane, other = self.panes[side], self.panes[OTHER[side]]
        view = pane.view()
        if view is None or index is None or not 0 <= index < view.count:
            index = None
        partner = self._partner(side, index) if index is not None else None
        pane.set_selected(index)
        other.set_selected(None, partner)
        self.selection = (side, index) if index is not None else None
        if scroll and index is not None:
            self._held = None
            pane.scroll_chunk_into_view(index)
            if partner is not None and not self.session.view.sync_scroll:
                other.scroll_chunk_into_view(partner)
        if not from_table:
            self.table.select_chunk(side, index)
        self.chunk_selected.emit(side, index)

    def step_origin(self, side: str) -> tuple[int, int, bool]:
        """(lo, hi, at_caret): where F7/F8 and the boundary keys step from in `side`: the
        caret while it is on screen (where the last step or click put it: its chunk is
        the current one), else the line at the middle of the pane, as Meld does: a caret
        scrolled out of sight is not what the user is looking at."""
        pane = self.panes[side]
        caret = pane.textCursor().position()
        lo, hi = pane.visible_position_range()
        if lo <= caret <= hi:
            return caret, caret, True
        vp = pane.viewport()
        middle = vp.height() // 2
        return (pane.cursorForPosition(QPoint(0, middle)).position(),
                pane.cursorForPosition(QPoint(vp.width() - 1, middle)).position(), False)

    def navigate(self, what: str, direction: int, side: str | None = None) -> int | None:
        self._held = None
        side = side or self.active_side
        pane = self.panes[side]
        view = pane.view()
        if view is None:
            return None
        lo, hi, at_caret = self.step_origin(side)
        if what == "boundary":
            ends = view.ends
            k = (int(np.searchsorted(ends, hi, "right")) if direction > 0
                 else int(np.searchsorted(ends, lo, "left")) - 1)
            if not 0 <= k < view.count:
                return None
            target, index = int(ends[k]), k
        else:
            if view.codes is None or not self.session.consistent:
                return None
            codes = view.codes
            mask = codes == STATUS_CODES[SHIFTED] if what == "shifted" else np.isin(codes, CHANGED_CODES)
            index = self._next_change(view, mask, lo, hi, direction, at_caret)
            if index is None:
                # No wrap (Meld offers one): a reviewer stepping through changes must know
                # when the last one was seen, and a silent jump back to the top hides that.
                kind = "shifted chunk" if what == "shifted" else "change"
                where = "last" if direction > 0 else "first"
                self.status(f"{side}: this is the {where} {kind}; none {'after' if direction > 0 else 'before'} it",
                            5000)
                return None
            target = change_target(view, index)
            pane.move_caret(target)
            pane.scroll_position_to_y(target, pane.viewport().height() / 2)  # centred, as Meld does
            self.select_chunk(side, index, scroll=False)
            return index
        pane.move_caret(target)
        lo, hi = pane.visible_position_range()
        if not lo <= target <= hi:
            pane.scroll_position_to_y(target, pane.viewport().height() * 0.3)
        self.select_chunk(side, index, scroll=False)
        return index

    @staticmethod
    def _next_change(view, mask: np.ndarray, lo: int, hi: int, direction: int, at_caret: bool) -> int | None:
        """The next chunk of `mask` after the origin (direction > 0), or the previous one.
        From the caret: the chunks after (before) the one holding it. From the middle of
        the screen: the first chunk whose change (change_target) lies below the middle
        line, or the last one whose change lies above it; a chunk's change lies within the
        chunk, so only the chunks from the one holding the line on need looking at."""
        here = int(np.searchsorted(view.starts, lo, "right")) - 1
        if at_caret:
            hits = np.flatnonzero(mask[here + 1:]) if direction > 0 else np.flatnonzero(mask[: max(here, 0)])
            if not hits.size:
                return None
            return here + 1 + int(hits[0]) if direction > 0 else int(hits[-1])
        here = max(here, 0)
        if direction > 0:
            for k in np.flatnonzero(mask[here:]) + here:
                if change_target(view, int(k)) > hi:
                    return int(k)
            return None
        for k in np.flatnonzero(mask[: here + 1])[::-1]:
            if change_target(view, int(k)) < lo:
                return int(k)
        return None

    def find(self, text: str, direction: int = 1) -> tuple[str, int] | None:
        """The next (or previous) match of `text` across both panes, from the caret of the
        active one: on through it, then the other pane, then around. The match is
        selected and centred; (side, position) or None (the status bar says so)."""
        self._held = None
        order = [self.active_side, OTHER[self.active_side]]
        flags = QTextDocument.FindFlag.FindBackward if direction < 0 else QTextDocument.FindFlag(0)
        attempts = [(order[0], self.panes[order[0]].textCursor())]
        attempts += [(side, None) for side in (order[1], order[0])]
        for side, start in attempts:
            pane = self.panes[side]
            doc = pane.document()
            if start is None:
                start = QTextCursor(doc)
                if direction < 0:
                    start.movePosition(QTextCursor.MoveOperation.End)
            found = pane.find_text(text, start, flags)  # also across a long line's display breaks
            if not found.isNull():
                pane.setTextCursor(found)
                pane.scroll_position_to_y(found.selectionStart(), pane.viewport().height() / 2)
                self.active_side = side
                self.find_bar.status.setText(f"in {side}")
                return side, found.selectionStart()
        self.find_bar.status.setText("not found")
        self.status(f"“{text}” is in neither A nor B", 4000)
        return None

    def show_pair(self, a_index: int | None, b_index: int | None, fraction: float = 0.25) -> None:
        self._held = None
        with self.scroll_lock():
            for side, index in (("A", a_index), ("B", b_index)):
                pane = self.panes[side]
                view = pane.view()
                if view is None or index is None or not view.count:
                    continue
                index = min(max(index, 0), view.count)
                pos = int(view.starts[index]) if index < view.count else int(view.ends[-1])
                pane.scroll_position_to_y(pos, pane.viewport().height() * fraction)
        self.link_map.update()

    def _on_band_clicked(self, band: Band) -> None:
        self.show_pair(band.a_lo, band.b_lo)
        if band.b_hi > band.b_lo:
            self.select_chunk("B", band.b_lo, scroll=False)
        elif band.a_hi > band.a_lo:
            self.select_chunk("A", band.a_lo, scroll=False)

    def show_region(self, k: int) -> None:
        comparison = self.session.comparison
        if comparison is None or not 0 <= k < len(comparison.phase_shift_regions):
            return
        r = comparison.phase_shift_regions[k]
        self.show_pair(r.a_chunks[0], r.b_chunks[0])
        self.select_chunk("B", r.b_chunks[0], scroll=False)
        self.region_shown.emit(k)

    def show_first_change(self, first: tuple[str, int]) -> None:
        """Open on what matters, as Meld does: the first change centred in B and its
        place in A level with it. The first shifted region (as a click on it would
        select it), else the first edited chunk of B."""
        comparison, view = self.session.comparison, self.panes["B"].view()
        if comparison is None or view is None:
            return
        j, target, region = landing(comparison, view, first)
        self.centre_position("B", target, hold=True)
        self.select_chunk("B", j, scroll=False)
        if region:
            self.region_shown.emit(0)

    def centre_position(self, side: str, target: int, hold: bool = False) -> None:
        """Centre `target` (a change) in `side` and put the same words of the other pane
        at the same height, so both panes show it. `hold`: a landing, kept there while the
        layout settles (see `_held`); any other move releases a held one."""
        self._held = target if hold and side == "B" else None
        pane, other = self.panes[side], self.panes[OTHER[side]]
        with self.scroll_lock():
            pane.move_caret(target)
            pane.scroll_position_to_y(target, pane.viewport().height() / 2)
            y = pane.y_locator()(target)[0]
            if y in (ABOVE, BELOW):
                y = pane.viewport().height() / 2
            mapped = self._map_to_other(side, target)
            if mapped is not None:
                other.move_caret(mapped)
                other.scroll_position_to_y(mapped, y)
        self.link_map.update()
        self.overview.update()

    def _map_to_other(self, side: str, pos: int) -> int | None:
        """The other pane's position of the words at `pos`, None when nothing pairs them:
        every aligned word (as Meld aligns by lines) while the word map is current; once
        typed into, the word map's positions moved, but chunks still pair up."""
        src, dst = self.panes[side], self.panes[OTHER[side]]
        vs, vd = src.view(), dst.view()
        align = self.session.alignment
        if vs is None or vd is None or not self.session.consistent or side not in align:
            return None
        word_map = self.session.result.word_map if self.session.result is not None else None
        if word_map is not None and not (src.has_pending_edits or dst.has_pending_edits):
            return int(word_map.map(side, pos))
        return int(map_position(pos, vs.starts, vs.ends, src.document().characterCount(),
                                vd.starts, vd.ends, dst.document().characterCount(),
                                align[side], align[OTHER[side]]))

    def jump_to_position(self, side: str, position: int) -> None:
        self._held = None
        pane = self.panes[side]
        if self.session.sides[side].doc is None:
            return
        pane.scroll_position_to_y(position, pane.viewport().height() / 2)
        self.overview.update()

    def _on_pane_scrolled(self, side: str) -> None:
        self.overview.update()
        if self._locked or not self.session.view.sync_scroll:
            return
        self.sync_from(side)

    def sync_from(self, side: str) -> None:
        """Scroll the other pane so the chunk level with the middle of `side`'s viewport
        is level with its partner (or the matching place between partners)."""
        src, dst = self.panes[side], self.panes[OTHER[side]]
        vs, vd = src.view(), dst.view()
        align = self.session.alignment
        if vs is None or vd is None or not self.session.consistent or side not in align:
            return
        with self.scroll_lock():
            bar, dbar = src.verticalScrollBar(), dst.verticalScrollBar()
            if bar.value() == bar.minimum():
                dbar.setValue(dbar.minimum())
            elif bar.value() == bar.maximum() and bar.maximum() > 0:
                dbar.setValue(dbar.maximum())
            else:
                h = src.viewport().height()
                pos = src.position_at_y(h / 2)
                y = src.y_locator()(pos)[0]
                if y in (ABOVE, BELOW):
                    y = h / 2
                dst.scroll_position_to_y(self._map_to_other(side, pos), y)
        self.link_map.update()
