"""Which text an analysis result belongs to while the user types, free of Qt.

A pane shows a result made from its text at some editor revision; the user may have
typed since. `EditTracker` records every change with the revision it made and keeps
the ones newer than the shown result, so the result's positions can be shifted to the
current text at the next paint (one vectorized pass over the chunk positions, never
per keystroke). Meld's chunk renderers keep the same separation: the buffer's edit
bookkeeping is not the painter's business.
"""

from __future__ import annotations

from typing import Iterable

import numpy as np

from .highlight import SyntaxSpans
from .layouts import ChunkLayout, PaneView, SideStatus

_EMPTY = np.zeros(0, dtype=np.int64)


def shift_positions(arr: np.ndarray, edits: Iterable[tuple[int, int, int]]) -> np.ndarray:
    """Qt positions after the edits (pos, removed, added), applied in order: positions
    after an edit move by its length change, positions inside a removed range move to
    its start. A change that keeps the length moves nothing."""
    for pos, removed, added in edits:
        if removed == added or arr.size == 0:
            continue
        end = pos + removed
        arr = np.where(arr >= end, arr + (added - removed), np.where(arr > pos, pos, arr))
    return arr


class EditTracker:
    """The editor revision, the revision of the shown result, the edits between them,
    and the shown result's positions moved by those edits (cached per revision)."""

    def __init__(self) -> None:
        self.revision = 0  # bumped by every change of the text
        self.shown_revision = 0  # the revision the shown result was made from
        self._edits: list[tuple[int, int, int, int]] = []  # (revision, pos, removed, added)
        self._view: PaneView | None = None
        self._view_rev = -1
        self._syntax: tuple[int, SyntaxSpans, np.ndarray, np.ndarray] | None = None

    @property
    def has_pending_edits(self) -> bool:
        """The text differs from the one the shown result was made from."""
        return self.revision != self.shown_revision

    def reset(self, revision: int = 0) -> None:
        """A new text (loaded, or cleared) at `revision`: no edits, nothing shifted."""
        self.revision = self.shown_revision = revision
        self._edits = []
        self.invalidate()

    def record(self, pos: int, removed: int, added: int) -> bool:
        """One change of the text; False if it changed nothing."""
        if removed == added == 0:
            return False
        self.revision += 1
        self._edits.append((self.revision, pos, removed, added))
        if removed != added:
            self._view = None  # positions moved: shift at the next paint
        return True

    def show(self, revision: int) -> None:
        """A result made from the text at `revision` is now shown (the session took it:
        never older than the one shown): the edits up to it are in its positions."""
        self.shown_revision = revision
        self._edits = [e for e in self._edits if e[0] > revision]
        self.invalidate()

    def invalidate(self) -> None:
        """The shown layout or statuses changed: rebuild the view at the next paint."""
        self._view = None
        self._syntax = None

    def pending(self) -> list[tuple[int, int, int]]:
        """(pos, removed, added) of the edits since the shown result, in order."""
        return [(p, r, a) for _, p, r, a in self._edits]

    def view(self, layout: ChunkLayout | None, status: SideStatus | None) -> PaneView | None:
        """The layout and statuses in current Qt positions (None without chunks)."""
        if layout is None or not layout.count:
            return None
        if self._view is not None and self._view_rev == self.revision:
            return self._view
        edits = self.pending()
        starts, ends = layout.starts, layout.ends
        cs, ce = (status.changed_starts, status.changed_ends) if status is not None else (_EMPTY, _EMPTY)
        if edits:
            starts, ends = shift_positions(starts, edits), shift_positions(ends, edits)
            cs, ce = shift_positions(cs, edits), shift_positions(ce, edits)
        self._view = PaneView(starts, ends, layout.markers, status.codes if status is not None else None, cs, ce)
        self._view_rev = self.revision
        return self._view

    def syntax(self, spans: SyntaxSpans) -> tuple[np.ndarray, np.ndarray]:
        """Syntax span starts and ends in current Qt positions."""
        edits = self.pending()
        if not edits:
            return spans.starts, spans.ends
        c = self._syntax
        if c is not None and c[0] == self.revision and c[1] is spans:
            return c[2], c[3]
        starts, ends = shift_positions(spans.starts, edits), shift_positions(spans.ends, edits)
        self._syntax = (self.revision, spans, starts, ends)
        return starts, ends
