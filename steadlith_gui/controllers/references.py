"""The question set's references in the panes: each pane whose analysed text is a corpus
of the Retrieval dock's question set (exact text equality: model/reference_cuts.py says
why) underlines that corpus's reference excerpts and marks the cuts that split one; the
churn panel counts them per side, and Navigate → Next / Previous reference split steps
through them in the focused pane, centring each.

Holds the panes, the churn panel, the session and the dock's state, not the window."""

from __future__ import annotations

from typing import Callable, Mapping

import numpy as np
from PySide6.QtCore import QObject

from ..model.layouts import ChunkFields
from ..model.reference_cuts import NO_RANGES, ReferenceIndex, SideReferences, split_summary, step_target
from ..model.retrieval_state import RetrievalState
from ..model.session import SIDES, Session

#: The key the churn panel's line names (actions.py binds it to Next reference split).
STEP_KEY = "F9"


class ReferenceMarks(QObject):
    def __init__(self, panes: Mapping, churn, session: Session, state: RetrievalState,
                 active_side: Callable[[], str],
                 select_chunk: Callable[[str, int], None] | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.panes = panes
        self.churn = churn
        self.session = session
        self.state = state
        self.active_side = active_side
        self.status = session.note
        self.select_chunk = select_chunk
        self.sides: dict[str, SideReferences | None] = {side: None for side in SIDES}
        state.references_changed.connect(lambda _index: self.refresh())
        session.events.result_changed.connect(lambda _result, _consistent: self.refresh())
        session.events.document_replaced.connect(lambda _side: self.refresh())

    @property
    def index(self) -> ReferenceIndex | None:
        return self.state.references

    def refresh(self) -> None:
        """Recompute every side from the question set and the chunks on screen."""
        index = self.index
        for side in SIDES:
            refs = self._side(index, side)
            self.sides[side] = refs
            pane = self.panes[side]
            if refs is None:
                pane.set_references(None)
                continue
            offsets = self.session.sides[side].doc.offsets
            ends = ChunkFields(self.session.sides[side].chunking).column("end")
            r = refs.references
            split_ends = np.asarray(ends, dtype=np.int64)[refs.splitting]
            pane.set_references(np.asarray(offsets.to_display(r.run_starts), dtype=np.int64),
                                np.asarray(offsets.to_display(r.run_ends), dtype=np.int64),
                                np.asarray(offsets.to_display(split_ends), dtype=np.int64) if split_ends.size
                                else NO_RANGES)
        self.churn.show_reference_splits(split_summary(self.sides, STEP_KEY) if index is not None else None)

    def _side(self, index: ReferenceIndex | None, side: str) -> SideReferences | None:
        st = self.session.sides[side]
        if index is None or st.doc is None or st.chunking is None:
            return None
        text = st.doc.text
        if st.chunking.text is not text and st.chunking.text != text:  # a result of another revision
            return None
        fields = ChunkFields(st.chunking)
        return index.side(text, fields.column("start"), fields.column("end"))

    def split_count(self, side: str) -> int | None:
        refs = self.sides[side]
        return None if refs is None else refs.split_count

    def step(self, direction: int, side: str | None = None) -> int | None:
        """Go to the next (or previous) cut splitting a reference in `side` (the focused
        pane): the caret to the cut, centred. The chunk before the cut, or None."""
        side = side or self.active_side()
        pane = self.panes[side]
        refs = self.sides[side]
        if refs is None:
            self.status(f"{side}: no reference of the Retrieval dock's question set is in this text")
            return None
        if pane.has_pending_edits:
            self.status(f"{side}: typed since the analysis; the splitting cuts show again with the next result")
            return None
        positions = pane.reference_splits
        k = step_target(positions, pane.textCursor().position(), direction)
        if k is None:
            where = "after" if direction > 0 else "before"
            self.status(f"{side}: no cut splitting a reference {where} this one "
                        f"({refs.split_count} in all)" if refs.split_count else f"{side}: no cut splits a reference")
            return None
        target = int(positions[k])
        pane.move_caret(target)
        pane.scroll_position_to_y(target, pane.viewport().height() / 2)  # centred, as the change navigation
        index = int(refs.splitting[k])
        if self.select_chunk is not None:
            self.select_chunk(side, index)
        self.status(f"{side}: cut {k + 1} of {refs.split_count} splitting a reference (after chunk {index})")
        return index
