"""The churn panel's "Why?" section: explain the selected phase-shift region and mark,
in both panes, the words the explanation names.

A region is selected by clicking it in the list (navigation.show_region, which the
example's first jump also goes through) or by clicking a shifted chunk. The core's
explain_comparison runs for that one region on a one-thread pool of its own
(jobs.ProgressJob: a newer request drops an older answer): on a 1 MB pair it takes
longer than a frame. Any change that brings a new result clears the section and the
marks (why_state.WhyState.invalidate).
"""

from __future__ import annotations

from typing import Mapping

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QTextEdit
from steadlith_core.comparison.causes import explain_comparison

from ..model.why_state import A_CUT, CREATED, FALLBACK, LOST, RESYNC, WhyState, region_of_chunk
from ..model.session import Session
from ..widgets.churn import ChurnPanel
from ..widgets.document_pane import DocumentPane
from ..workers.jobs import ProgressJob
from .navigation import NavigationController

#: Background of each kind of marked word (translucent: the chunk colours show through).
MARK_COLOURS = {LOST: (220, 40, 40), CREATED: (30, 160, 60), FALLBACK: (235, 140, 0), A_CUT: (60, 110, 220),
                RESYNC: (150, 60, 200)}


class WhyController(QObject):
    shown = Signal(object)  # (WhyState): the section changed (an explanation, a clearing)

    def __init__(self, panes: Mapping[str, DocumentPane], churn: ChurnPanel, session: Session,
                 navigation: NavigationController, parent: QObject | None = None):
        """It holds the panes (their marks), the churn panel (its section), the session
        and the navigation (whose shown region it explains), not the window."""
        super().__init__(parent)
        self.panes = panes
        self.churn = churn
        self.session = session
        self.state = WhyState()
        self.job = ProgressJob(self)
        self.job.finished.connect(self._on_done)
        self.job.failed.connect(self._on_failed)
        self._ticket: int | None = None
        navigation.region_shown.connect(self.explain)
        for side, pane in panes.items():
            pane.chunk_clicked.connect(lambda i, s=side: self._on_chunk(s, i))
        session.events.analysis_wanted.connect(self.invalidate)
        session.events.result_changed.connect(self._on_result)
        self._show()

    def explain(self, region: int) -> None:
        comparison = self.session.comparison
        if comparison is None or not 0 <= region < len(comparison.phase_shift_regions):
            return
        ticket = self.state.request(comparison, region)
        if ticket is None:
            return
        self._ticket = ticket
        self._show()
        self.job.start(lambda _progress: explain_comparison(comparison, region)[0])

    def invalidate(self, *_args) -> None:
        if self.state.invalidate():
            self.job.cancel()
            self._show()

    def _on_result(self, _result, _consistent) -> None:
        c, old = self.session.comparison, self.state.comparison
        if old is None or c is old:
            return
        if c is not None and c.a is old.a and c.b is old.b:
            self.state.comparison = c  # the same chunks (another rule or the baseline filled in)
            self.churn.show_why(self.state)  # the rebuilt list selects the region again
            return
        self.invalidate()

    def _on_chunk(self, side: str, index: int) -> None:
        region = region_of_chunk(self.session.comparison, side, index)
        if region is not None:
            self.explain(region)

    def _on_done(self, explanation) -> None:
        if self._ticket is not None and self.state.accept(self._ticket, explanation):
            self._show()

    def _on_failed(self, message: str) -> None:
        if self._ticket is not None and self.state.fail(self._ticket, message):
            self._show()

    # -- showing ---------------------------------------------------------------------------
    def _show(self) -> None:
        self.churn.show_why(self.state)
        self._mark()
        self.shown.emit(self.state)

    def _mark(self) -> None:
        result = self.session.result
        for side, pane in self.panes.items():
            marks = [m for m in self.state.marks if m.side == side]
            doc = None if result is None else (result.doc_a if side == "A" else result.doc_b)
            c = self.state.comparison
            if not marks or doc is None or c is None or pane.has_pending_edits:
                if pane.extraSelections():
                    pane.setExtraSelections([])
                continue
            words = (c.a if side == "A" else c.b).words
            # a candidate at the document's end cut (lmx2-v1 names cut positions, the
            # last one past the last word) is marked on the last word
            idx = np.clip(np.array([m.word for m in marks], dtype=np.int64), 0, max(len(words) - 1, 0))
            starts = doc.offsets.to_display(np.asarray(words.starts)[idx])
            ends = doc.offsets.to_display(np.asarray(words.ends)[idx])
            selections = []
            for m, lo, hi in zip(marks, np.atleast_1d(starts).tolist(), np.atleast_1d(ends).tolist()):
                sel = QTextEdit.ExtraSelection()
                cursor = QTextCursor(pane.document())
                cursor.setPosition(int(lo))
                cursor.setPosition(int(hi), QTextCursor.MoveMode.KeepAnchor)
                sel.cursor = cursor
                fmt = QTextCharFormat()
                fmt.setBackground(QColor(*MARK_COLOURS[m.role], 110))
                fmt.setToolTip(m.label)
                sel.format = fmt
                selections.append(sel)
            pane.setExtraSelections(selections)

    def marked(self, side: str) -> list[tuple[int, int]]:
        """The marked spans of a pane (Qt positions), for tests and the accessible text."""
        return [(s.cursor.selectionStart(), s.cursor.selectionEnd())
                for s in self.panes[side].extraSelections()]
