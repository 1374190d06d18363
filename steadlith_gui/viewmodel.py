"""The inspector's display logic, free of Qt: what the widgets show, computed from
core results in plain Python and numpy (mostly in the worker thread; immutable once
built). Importing this module loads no PySide6 (tests/gui/test_viewmodel.py checks in
a fresh interpreter), so these rules of presentation are testable without a QApplication.

- `LoadedDocument`: a document as shown (source text, name, offset map, syntax spans);
  an edited document remembers the loaded one it came from (`origin`) and the editor
  revision its text was taken at.
- `ChunkLayout`: a `Chunking`'s chunk spans and cut markers in Qt positions.
- `SideStatus`: one side's chunk statuses and changed-word runs (Qt positions).
- `PaneView`: what a pane paints now (a layout and statuses, shifted by pending edits).
- `LinkList`: the bands of the link map: reused pairs and the status regions between
  them, as chunk ranges (a presentation grouping of the core's statuses).
- `AnalysisResult`: what one analysis produced; its first two fields are the
  `Chunking`s of A and B, the third the core's `Comparison` (None unless both exist).
- `map_position()`: where a position of one version lies in the other (sync scrolling).
- `span_at`, `spans_overlapping`, `runs_overlapping`: the position lookups every view
  shares (sorted, disjoint spans; one copy each).
"""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from steadlith_core import Chunking, ChunkerParams, Comparison, has_words
from steadlith_core.style import STATUSES, marker_kind

from .highlight import SyntaxSpans, syntax_spans
from .offsets import OffsetMap


class DocumentError(Exception):
    """A document cannot be shown; the message is meant for the user as is."""


@dataclass(frozen=True, eq=False)
class LoadedDocument:
    text: str
    name: str  # shown in the pane header
    path: str | None
    offsets: OffsetMap
    syntax: SyntaxSpans | None
    revision: int = 0  # editor revision the text was taken at (0: as loaded)
    origin: "LoadedDocument | None" = None  # the loaded document an edited one came from

    @property
    def root(self) -> "LoadedDocument":
        """The document as loaded (itself, unless this is an edited version of it)."""
        return self.origin if self.origin is not None else self

    @property
    def size_label(self) -> str:
        n = len(self.text)
        if n >= 1_000_000:
            return f"{n / 1e6:.1f} M chars"
        if n >= 10_000:
            return f"{n / 1e3:.0f} k chars"
        return f"{n:,} chars"


def prepare_document(side: str, text: str, name: str | None = None, path: str | None = None) -> LoadedDocument:
    """Check and index a text for display. Runs in the worker thread."""
    shown = name or (os.path.basename(path) if path else f"document {side}")
    if not has_words(text):
        problem = "is empty" if text == "" else "has only whitespace"
        raise DocumentError(f"{side} {problem}: nothing to chunk ({shown})")
    offsets = OffsetMap(text)
    return LoadedDocument(text, shown, path, offsets, syntax_spans(text, name or path, offsets))


def materialize(side: str, source) -> LoadedDocument | None:
    """A LoadedDocument for an analysis request entry (worker thread): an edited pane's
    text (session.EditedText) gets its offset map and syntax spans here, never on the
    GUI thread, since both are O(document)."""
    if source is None or isinstance(source, LoadedDocument):
        return source
    doc = prepare_document(side, source.text, name=source.name, path=source.path)
    return LoadedDocument(doc.text, source.name, source.path, doc.offsets, doc.syntax, source.revision, source.origin)


@dataclass(frozen=True, eq=False)
class ChunkLayout:
    """Chunk spans of one Chunking in Qt positions.

    starts[i], ends[i]: where chunk i's first word starts and last word ends; the cut
    marker of chunk i sits at ends[i]. markers[i] is the marker kind (palette.MARKER_KINDS).
    """

    starts: np.ndarray
    ends: np.ndarray
    markers: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.markers)

    @classmethod
    def build(cls, chunking: Chunking, offsets: OffsetMap) -> "ChunkLayout":
        chunks = chunking.chunks
        n = len(chunks)
        starts = np.fromiter((c.start for c in chunks), dtype=np.int64, count=n)
        ends = np.fromiter((c.end for c in chunks), dtype=np.int64, count=n)
        markers = tuple(marker_kind(c.kind, c.snapped) for c in chunks)
        return cls(
            np.asarray(offsets.to_display(starts), dtype=np.int64),
            np.asarray(offsets.to_display(ends), dtype=np.int64),
            markers,
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


@dataclass(frozen=True, eq=False)
class LinkList:
    """The link map's bands, monotone in A and in B: band k joins A chunks
    [a_lo[k], a_hi[k]) to B chunks [b_lo[k], b_hi[k]) (an empty range marks the place
    between two chunks). `status[k]` is "reused" for an alignment pair (one chunk each
    side), else the status of the region: shifted, edited, new or removed.

    Between two consecutive pairs, the unpaired chunks of each side are grouped into
    runs of shifted / other chunks; runs of the two sides are matched in order by kind
    (a tiny LCS), unmatched ones join the band beside them. It only groups the core's
    statuses for drawing; no chunking rule is involved."""

    status: tuple[str, ...]
    a_lo: np.ndarray
    a_hi: np.ndarray
    b_lo: np.ndarray
    b_hi: np.ndarray
    pairs: np.ndarray  # band indices of the alignment pairs, in order

    def __len__(self) -> int:
        return len(self.status)

    @classmethod
    def build(cls, status_a, status_b, alignment) -> "LinkList":
        na, nb = len(status_a), len(status_b)
        bands: list[tuple[str, int, int, int, int]] = []
        pairs: list[int] = []
        prev_a = prev_b = 0
        for i, j in [*alignment, (na, nb)]:
            bands.extend(_gap_bands(status_a, status_b, prev_a, i, prev_b, j))
            if i < na and j < nb:
                pairs.append(len(bands))
                bands.append(("reused", i, i + 1, j, j + 1))
            prev_a, prev_b = i + 1, j + 1
        cols = list(zip(*bands)) if bands else [(), (), (), (), ()]
        arr = [np.asarray(c, dtype=np.int64) for c in cols[1:]]
        return cls(tuple(cols[0]), *arr, np.asarray(pairs, dtype=np.int64))

    def visible(self, a_range: tuple[int, int] | None, b_range: tuple[int, int] | None) -> range:
        """Bands touching A chunks [a0, a1) or B chunks [b0, b1) (either may be None).
        A band with an empty range touches the place it marks."""
        lo, hi = len(self.status), 0
        for rng, los, his in ((a_range, self.a_lo, self.a_hi), (b_range, self.b_lo, self.b_hi)):
            if rng is None or rng[1] <= rng[0]:
                continue
            r0, r1 = rng
            # bands are sorted by lo and by hi; touching: hi > r0 (or hi == lo == r0), lo < r1
            k0 = int(np.searchsorted(his, r0, "right"))
            while k0 > 0 and his[k0 - 1] == r0 and los[k0 - 1] == r0:
                k0 -= 1
            k1 = int(np.searchsorted(los, r1, "left"))
            while k1 < len(los) and los[k1] == r1 and his[k1] == r1:
                k1 += 1
            if k1 > k0:
                lo, hi = min(lo, k0), max(hi, k1)
        return range(lo, hi) if hi > lo else range(0)


def _kind(status: str) -> str:
    return "s" if status == "shifted" else "c"


def _runs(statuses, lo: int, hi: int) -> list[tuple[str, int, int]]:
    runs: list[tuple[str, int, int]] = []
    for k in range(lo, hi):
        kd = _kind(statuses[k])
        if runs and runs[-1][0] == kd:
            runs[-1] = (kd, runs[-1][1], k + 1)
        else:
            runs.append((kd, k, k + 1))
    return runs


def _band_status(statuses: set[str]) -> str:
    if "shifted" in statuses:
        return "shifted"
    if statuses <= {"new"}:
        return "new"
    if statuses <= {"removed"}:
        return "removed"
    return "edited"


def _gap_bands(status_a, status_b, a0: int, a1: int, b0: int, b1: int) -> list[tuple[str, int, int, int, int]]:
    if a1 <= a0 and b1 <= b0:
        return []
    ra, rb = _runs(status_a, a0, a1), _runs(status_b, b0, b1)
    matcher = difflib.SequenceMatcher(None, [r[0] for r in ra], [r[0] for r in rb], autojunk=False)
    out: list[tuple[str, int, int, int, int]] = []
    ia = ib = 0  # next unconsumed run on each side
    pa, pb = a0, b0  # chunk cursor on each side

    def emit(ra_part, rb_part) -> None:
        nonlocal pa, pb
        if not ra_part and not rb_part:
            return
        alo = ra_part[0][1] if ra_part else pa
        ahi = ra_part[-1][2] if ra_part else pa
        blo = rb_part[0][1] if rb_part else pb
        bhi = rb_part[-1][2] if rb_part else pb
        sts = {status_a[k] for k in range(alo, ahi)} | {status_b[k] for k in range(blo, bhi)}
        out.append((_band_status(sts), alo, ahi, blo, bhi))
        pa, pb = ahi, bhi

    for blk in matcher.get_matching_blocks():
        emit(ra[ia:blk.a], rb[ib:blk.b])  # the unmatched runs before this block, as one band
        for t in range(blk.size):
            emit([ra[blk.a + t]], [rb[blk.b + t]])
        ia, ib = blk.a + blk.size, blk.b + blk.size
    return out


def map_position(pos: int, src_starts, src_ends, src_length: int, dst_starts, dst_ends, dst_length: int,
                 align_src, align_dst) -> int:
    """The position in the other version level with `pos` (Qt positions).

    Inside a reused chunk: the same fraction of its partner. Between two reused chunks
    (a gap of shifted, edited, new or removed chunks): the same fraction of the gap
    between their partners. No pairs at all: the same fraction of the document."""
    n = len(align_src)
    if n == 0:
        return int(round(pos / max(src_length, 1) * dst_length))
    starts_of_pairs = src_starts[align_src]
    k = int(np.searchsorted(starts_of_pairs, pos, "right")) - 1
    if k >= 0 and pos <= src_ends[align_src[k]]:
        s0, s1 = int(src_starts[align_src[k]]), int(src_ends[align_src[k]])
        d0, d1 = int(dst_starts[align_dst[k]]), int(dst_ends[align_dst[k]])
    else:
        s0 = int(src_ends[align_src[k]]) if k >= 0 else 0
        d0 = int(dst_ends[align_dst[k]]) if k >= 0 else 0
        s1 = int(src_starts[align_src[k + 1]]) if k + 1 < n else src_length
        d1 = int(dst_starts[align_dst[k + 1]]) if k + 1 < n else dst_length
    t = (pos - s0) / (s1 - s0) if s1 > s0 else 0.0
    return int(round(d0 + min(max(t, 0.0), 1.0) * (d1 - d0)))


class AnalysisResult(NamedTuple):
    a: Chunking | None  # the shown chunking of A
    b: Chunking | None  # the shown chunking of B
    comparison: Comparison | None  # of A and B (None unless both exist)
    params: ChunkerParams
    generation: int
    doc_a: LoadedDocument | None
    doc_b: LoadedDocument | None
    layout_a: ChunkLayout | None
    layout_b: ChunkLayout | None
    ms_a: float  # time to chunk A (and lay it out), milliseconds
    ms_b: float
    ms_total: float  # the whole analysis in the worker
    status_a: SideStatus | None = None  # the comparison, side by side, in Qt positions
    status_b: SideStatus | None = None
    links: LinkList | None = None
    ms_compare: float = 0.0
    comparison_error: str | None = None  # why there is no comparison although A and B exist
    rules: dict | None = None  # {rule: Comparison} of every rule (the shown one first) when A and B exist

    def side_status(self, side: str) -> SideStatus | None:
        return self.status_a if side == "A" else self.status_b
