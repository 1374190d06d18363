"""A chunking laid out for the panes, in Qt positions: `ChunkFields` (the table's columns),
`ChunkLayout` (chunk spans and cut markers), `SideStatus` (one side's statuses and
changed-word runs), `PaneView` (what a pane paints now, shifted by pending edits), and
the position lookups every view shares (`span_at`, `spans_overlapping`,
`runs_overlapping`: sorted, disjoint spans; one copy each)."""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter
from typing import Any, NamedTuple

import numpy as np
from steadlith_core import Chunking
from steadlith_core.report.style import marker_kind
from steadlith_core.vocabulary import STATUSES

from .offsets import OffsetMap


_INT_FIELDS = ("start_word", "end_word", "start", "end", "tokens")
_FIELDS = (*_INT_FIELDS, "kind", "snapped", "boundary", "hash")
# where the core's column-wise chunks (Chunking.columns) keep each field
_COLUMN_OF = {"start_word": "start_words", "end_word": "end_words", "start": "starts", "end": "ends",
              "tokens": "tokens", "kind": "kinds", "snapped": "snapped", "boundary": "boundaries", "hash": "hashes"}
# a chunk's fields by getter: ~10,000 chunks a side on a 10 MB pair, one call each
_GETTERS = {f: attrgetter(f) for f in _FIELDS}


class ChunkFields:
    """The fields of every chunk of one chunking (a Chunking, or an external chunker's
    spans), column-wise: `column("end")` is every chunk's end. Read from the core's
    columns when it keeps them (`Chunking.columns`: no Python object per chunk), else
    from the chunks, one column when first asked for. `value(field, i)` reads one chunk's
    field without making a whole column (the chunk table shows a few rows at a time)."""

    def __init__(self, chunking):
        self._chunking = chunking
        cols = getattr(chunking, "columns", None)
        self._columns = cols if cols is not None and hasattr(cols, "end_words") else None
        self._made: dict[str, Any] = {}
        self.count = len(self._columns.starts) if self._columns is not None else len(chunking.chunks)

    def __len__(self) -> int:
        return self.count

    def column(self, field: str):
        """int64 array for the numeric fields, a sequence for kind, snapped, boundary and hash."""
        made = self._made.get(field)
        if made is not None:
            return made
        if self._columns is not None:
            made = getattr(self._columns, _COLUMN_OF[field])
            if made is None and field == "snapped":  # lmx2-v1 never snaps
                made = (False,) * self.count
        else:
            chunks = self._chunking.chunks
            if field in _INT_FIELDS:
                made = np.fromiter(map(_GETTERS[field], chunks), dtype=np.int64, count=len(chunks))
            else:
                made = tuple(map(_GETTERS[field], chunks))
        self._made[field] = made
        return made

    def value(self, field: str, i: int):
        """Chunk i's field (an int, str or bool)."""
        if self._columns is None and field not in self._made:
            return _GETTERS[field](self._chunking.chunks[i])
        v = self.column(field)[i]
        return v.item() if isinstance(v, np.generic) else v


@dataclass(frozen=True, eq=False)
class ChunkLayout:
    """Chunk spans of one Chunking in Qt positions.

    starts[i], ends[i]: where chunk i's first word starts and last word ends; the cut
    marker of chunk i sits at ends[i]. markers[i] is the marker kind (palette.MARKER_KINDS).
    `fields`: the chunks' fields column-wise (None for an external chunker's spans, which
    are laid out by external_runs), for the chunk table and the ghost cuts.
    """

    starts: np.ndarray
    ends: np.ndarray
    markers: tuple[str, ...]
    fields: ChunkFields | None = None

    @property
    def count(self) -> int:
        return len(self.markers)

    @classmethod
    def build(cls, chunking: Chunking, offsets: OffsetMap) -> "ChunkLayout":
        fields = ChunkFields(chunking)
        markers = tuple(map(marker_kind, fields.column("kind"), fields.column("snapped")))
        return cls(
            np.asarray(offsets.to_display(fields.column("start")), dtype=np.int64),
            np.asarray(offsets.to_display(fields.column("end")), dtype=np.int64),
            markers,
            fields,
        )

    def chunk_at(self, pos: int) -> int | None:
        return span_at(self.starts, self.ends, pos)

    def visible(self, lo: int, hi: int) -> range:
        return spans_overlapping(self.starts, self.ends, lo, hi)


def span_at(starts: np.ndarray, ends: np.ndarray, pos: int) -> int | None:
    """The span i with starts[i] <= pos <= ends[i] (sorted, disjoint spans), if any."""
    i = int(np.searchsorted(starts, pos, "right")) - 1
    if i >= 0 and pos <= ends[i]:
        return i
    return None


def spans_overlapping(starts: np.ndarray, ends: np.ndarray, lo: int, hi: int) -> range:
    """Indices of the sorted, disjoint spans that overlap positions [lo, hi]."""
    i0 = int(np.searchsorted(ends, lo, "left"))
    i1 = int(np.searchsorted(starts, hi, "right"))
    return range(i0, max(i0, i1))


def runs_overlapping(starts: np.ndarray, ends: np.ndarray, lo: int, hi: int) -> range:
    """Indices of the sorted, disjoint half-open runs [starts[k], ends[k]) that share a
    character with [lo, hi] (changed words: a run ending at lo or starting at hi only
    touches it, and paints nothing there)."""
    i0 = int(np.searchsorted(ends, lo, "right"))
    i1 = int(np.searchsorted(starts, hi, "left"))
    return range(i0, max(i0, i1))


STATUS_CODES = {s: i for i, s in enumerate(STATUSES)}  # reused 0, shifted 1, edited 2, new 3, removed 4
NO_STATUS = -1


@dataclass(frozen=True, eq=False)
class SideStatus:
    """One side of a comparison, for display: per-chunk status codes (STATUS_CODES),
    partners, and the runs of changed words as sorted, disjoint Qt position spans
    [changed_starts[k], changed_ends[k])."""

    side: str
    statuses: tuple[str, ...]
    codes: np.ndarray  # int8 per chunk
    partner: tuple[int | None, ...]
    changed_starts: np.ndarray
    changed_ends: np.ndarray

    @classmethod
    def build(cls, side: str, comparison, offsets: OffsetMap) -> "SideStatus":
        statuses = comparison.status_a if side == "A" else comparison.status_b
        partner = comparison.partner_a if side == "A" else comparison.partner_b
        words = (comparison.a if side == "A" else comparison.b).words
        lo_hi = [(op.a_start, op.a_end) if side == "A" else (op.b_start, op.b_end)
                 for op in comparison.ops if op.tag != "equal"]
        lo_hi = [(lo, hi) for lo, hi in lo_hi if hi > lo]
        starts = np.fromiter((words.starts[lo] for lo, _ in lo_hi), dtype=np.int64, count=len(lo_hi))
        ends = np.fromiter((words.ends[hi - 1] for _, hi in lo_hi), dtype=np.int64, count=len(lo_hi))
        codes = np.fromiter((STATUS_CODES[s] for s in statuses), dtype=np.int8, count=len(statuses))
        return cls(
            side, tuple(statuses), codes, tuple(partner),
            np.asarray(offsets.to_display(starts), dtype=np.int64),
            np.asarray(offsets.to_display(ends), dtype=np.int64),
        )

    def changed_visible(self, lo: int, hi: int) -> range:
        """Indices of the changed-word runs overlapping Qt positions [lo, hi]."""
        return runs_overlapping(self.changed_starts, self.changed_ends, lo, hi)


class PaneView(NamedTuple):
    """What a pane paints, in current Qt positions (a result's, shifted by the edits
    typed since: see edit_tracker.EditTracker)."""

    starts: np.ndarray
    ends: np.ndarray
    markers: tuple[str, ...]
    codes: np.ndarray | None  # status code per chunk, or None without a comparison
    changed_starts: np.ndarray
    changed_ends: np.ndarray

    @property
    def count(self) -> int:
        return len(self.markers)

    def chunk_at(self, pos: int) -> int | None:
        return span_at(self.starts, self.ends, pos)

    def visible(self, lo: int, hi: int) -> range:
        return spans_overlapping(self.starts, self.ends, lo, hi)

    def changed_visible(self, lo: int, hi: int) -> range:
        return runs_overlapping(self.changed_starts, self.changed_ends, lo, hi)
