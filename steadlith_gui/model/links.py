"""How the two versions line up: `LinkList`, the link map's bands (reused pairs and the
status regions between them, a presentation grouping of the core's statuses);
`map_position()`, where a position of one version lies in the other (sync scrolling);
`WordMap`, positions of A and B aligned by the word diff (the link map's wedges and the
other version's cuts)."""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from itertools import chain

import numpy as np

from .offsets import OffsetMap

from .layouts import ChunkLayout


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
        # np.asarray of ~10,000 pairs converts each tuple on its own: four times slower than this
        pairs = np.fromiter(chain.from_iterable(alignment), dtype=np.int64, count=2 * len(alignment)).reshape(-1, 2)
        n = len(pairs)
        # gap k lies before pair k (the last one before the end): A chunks [lo_a, hi_a), B [lo_b, hi_b)
        hi_a, hi_b = np.append(pairs[:, 0], na), np.append(pairs[:, 1], nb)
        lo_a, lo_b = np.concatenate(([0], pairs[:, 0] + 1)), np.concatenate(([0], pairs[:, 1] + 1))
        # most pairs follow each other: only the gaps that hold chunks are grouped (in Python)
        gaps = {k: _gap_bands(status_a, status_b, int(lo_a[k]), int(hi_a[k]), int(lo_b[k]), int(hi_b[k]))
                for k in np.flatnonzero((hi_a > lo_a) | (hi_b > lo_b)).tolist()}
        count = np.zeros(n + 1, dtype=np.int64)
        count[list(gaps)] = [len(bands) for bands in gaps.values()]
        first = np.concatenate(([0], np.cumsum(count[:-1] + 1)))  # band index of gap k's first band
        at_pair = first[:n] + count[:n]
        total = int(count.sum()) + n
        status = ["reused"] * total
        cols = np.zeros((4, total), dtype=np.int64)
        cols[:, at_pair] = pairs[:, 0], pairs[:, 0] + 1, pairs[:, 1], pairs[:, 1] + 1
        for k, bands in gaps.items():
            for t, (st, *where) in enumerate(bands):
                status[int(first[k]) + t] = st
                cols[:, int(first[k]) + t] = where
        return cls(tuple(status), *cols, at_pair.astype(np.int64))

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


def _ranges(los: list[int], his: list[int]) -> np.ndarray:
    """The concatenation of range(lo, hi) for each pair, vectorized."""
    lens = np.asarray(his, dtype=np.int64) - np.asarray(los, dtype=np.int64)
    total = int(lens.sum()) if lens.size else 0
    if not total:
        return np.zeros(0, dtype=np.int64)
    offsets = np.repeat(np.asarray(los, dtype=np.int64) - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
    return np.arange(total, dtype=np.int64) + offsets


@dataclass(frozen=True, eq=False)
class WordMap:
    """Where each position of one version lies in the other, through the word diff (Meld
    aligns its panes by the diff's lines; we have words). Every word the core's word diff
    calls equal is a pair of knots, its start and its end in A and in B; between knots the
    map is linear. Inside an unchanged word it is exact to the character, so an unchanged
    line sits level with its copy; across a deletion the deleted text all maps to the one
    place in the other version where it was (and an insertion likewise).

    Knots are kept in code points (the core's offsets) and only the positions asked about
    are converted to and from Qt positions: converting every knot costs more than the rest
    of the build on a 1 MB pair with astral characters.

    `gaps`: the diff's deletions and insertions in Qt positions, for the link map's wedges:
    rows (a_lo, a_hi, b_lo, b_hi), one side empty (lo == hi: the place it would go).
    `ghosts_a`, `ghosts_b`: where the other version cuts, in each side's Qt positions
    (see ghost_cuts), computed with the result in the worker."""

    knots_a: np.ndarray  # increasing code points in A (float64: np.interp would convert them on every call)
    knots_b: np.ndarray  # the same places in B
    offsets_a: OffsetMap
    offsets_b: OffsetMap
    gap_kind: np.ndarray  # per gap: 0 deletion (A only), 1 insertion (B only)
    gaps: np.ndarray  # (n, 4) int64: a_lo, a_hi, b_lo, b_hi (Qt positions)
    ghosts_a: np.ndarray
    ghosts_b: np.ndarray
    # the word diff's equal runs as rows (a_start, a_end, b_start, b_end) of word indices,
    # each side's word starts and ends (code points) and text length: ghost cuts by word (_ghosts)
    equal_runs: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros((0, 4), dtype=np.int64))
    word_starts_a: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    word_starts_b: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    word_ends_a: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    word_ends_b: np.ndarray = dataclasses.field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    length_a: int = 0
    length_b: int = 0

    @classmethod
    def build(cls, comparison, offsets_a: OffsetMap, offsets_b: OffsetMap,
              layout_a: "ChunkLayout | None" = None, layout_b: "ChunkLayout | None" = None) -> "WordMap":
        wa, wb = comparison.a.words, comparison.b.words
        len_a, len_b = len(comparison.a.text), len(comparison.b.text)
        equal = [op for op in comparison.ops if op.tag == "equal"]
        ia = _ranges([op.a_start for op in equal], [op.a_end for op in equal])
        ib = _ranges([op.b_start for op in equal], [op.b_end for op in equal])
        sa, ea = np.asarray(wa.starts)[ia], np.asarray(wa.ends)[ia]
        sb, eb = np.asarray(wb.starts)[ib], np.asarray(wb.ends)[ib]
        knots_a = np.concatenate(([0], np.column_stack((sa, ea)).ravel(), [len_a])).astype(np.float64)
        knots_b = np.concatenate(([0], np.column_stack((sb, eb)).ravel(), [len_b])).astype(np.float64)
        if len(knots_a) > 2 and (knots_a[1] == 0 or knots_b[1] == 0):  # a first word at 0: no separate origin
            knots_a, knots_b = knots_a[1:], knots_b[1:]
        rows, kinds = [], []
        na, nb = len(wa.starts), len(wb.starts)
        for op in comparison.ops:
            if op.tag not in ("delete", "insert"):
                continue
            if op.tag == "delete":
                a_lo, a_hi = int(wa.starts[op.a_start]), int(wa.ends[op.a_end - 1])
                b_lo = b_hi = int(wb.starts[op.b_start]) if op.b_start < nb else len_b
            else:
                b_lo, b_hi = int(wb.starts[op.b_start]), int(wb.ends[op.b_end - 1])
                a_lo = a_hi = int(wa.starts[op.a_start]) if op.a_start < na else len_a
            rows.append((offsets_a.to_display(a_lo), offsets_a.to_display(a_hi),
                         offsets_b.to_display(b_lo), offsets_b.to_display(b_hi)))
            kinds.append(0 if op.tag == "delete" else 1)
        gaps = np.asarray(rows, dtype=np.int64).reshape(-1, 4)
        empty = np.zeros(0, dtype=np.int64)
        runs = np.array([(op.a_start, op.a_end, op.b_start, op.b_end) for op in equal], dtype=np.int64).reshape(-1, 4)
        wm = cls(knots_a, knots_b, offsets_a, offsets_b, np.asarray(kinds, dtype=np.int8), gaps, empty, empty,
                 runs, np.asarray(wa.starts, dtype=np.int64), np.asarray(wb.starts, dtype=np.int64),
                 np.asarray(wa.ends, dtype=np.int64), np.asarray(wb.ends, dtype=np.int64), len_a, len_b)
        return wm.with_ghosts(layout_a, layout_b) if layout_a is not None and layout_b is not None else wm

    def with_ghosts(self, layout_a: "ChunkLayout", layout_b: "ChunkLayout") -> "WordMap":
        """This map with the ghost cuts of two layouts. The rest depends only on the word
        diff and the two texts, so one map serves every parameter set of a pair."""
        if layout_a.fields is not None and layout_b.fields is not None:
            ends_a, ends_b = layout_a.fields.column("end_word"), layout_b.fields.column("end_word")
            return dataclasses.replace(self, ghosts_a=self.ghost_cuts_at_words("A", layout_a.ends, ends_b),
                                       ghosts_b=self.ghost_cuts_at_words("B", layout_b.ends, ends_a))
        return dataclasses.replace(self, ghosts_a=self.ghost_cuts("A", layout_a.ends, layout_b.ends),
                                   ghosts_b=self.ghost_cuts("B", layout_b.ends, layout_a.ends))

    def ghost_cuts_at_words(self, side: str, own_ends: np.ndarray, other_end_words: np.ndarray) -> np.ndarray:
        """ghost_cuts for the other version's cuts given as chunk end words (one past each
        chunk's last word), as a pipeline chunking keeps them: each cut is its last word's
        end. O(chunks log words), like ghost_cuts."""
        src_ends = self.word_ends_b if side == "A" else self.word_ends_a
        last = np.asarray(other_end_words, dtype=np.int64).reshape(-1) - 1  # each cut's last word
        last = last[last >= 0]
        return self._ghosts(side, own_ends, src_ends[last], last)

    def _sides(self, side: str):
        if side == "A":
            return self.knots_a, self.knots_b, self.offsets_a, self.offsets_b
        return self.knots_b, self.knots_a, self.offsets_b, self.offsets_a

    def map(self, side: str, positions):
        """Qt positions of `side` ("A" or "B") in the other version (int or array)."""
        src, dst, src_off, dst_off = self._sides(side)
        cp = np.asarray(src_off.to_source(np.asarray(positions, dtype=np.int64)), dtype=np.float64)
        out = np.rint(np.interp(cp, src, dst)).astype(np.int64)
        shown = np.asarray(dst_off.to_display(out), dtype=np.int64)
        return int(shown) if shown.ndim == 0 else shown

    def ghost_cuts(self, side: str, own_ends: np.ndarray, other_ends: np.ndarray) -> np.ndarray:
        """Where the OTHER version cuts, as Qt positions of `side`, from its cuts as Qt
        positions (`other_ends`: an external chunker's, whose spans carry no words), less
        the ones this side cuts at too. A phase shift shows as ghosts beside (not on) this
        side's own markers.

        A ghost stands only where the other version's cut has an unchanged place here: a
        cut at or inside a word the word diff calls equal moves to the same character of
        that word's copy (a pipeline's cuts all end words); a cut at the other text's end
        moves to this text's end. A cut in the whitespace between words, or in a changed
        word, has no ghost: the word diff does not compare separators, so "\\n\\n" here may
        be " " there, and no one place here is where it cut. A position just before a
        "\\r\\n" is the end of the line, not its "\\n": a QTextDocument shows both at one
        position, and the word ends there."""
        offsets = self.offsets_b if side == "A" else self.offsets_a
        pos = np.asarray(other_ends, dtype=np.int64).reshape(-1)
        cp = np.asarray(offsets.to_source(pos), dtype=np.int64).reshape(-1)
        back = np.maximum(cp - 1, 0)  # to_source reads a "\r\n" position as its "\n"; the "\r" shows there too
        before_cr = (cp > 0) & (np.asarray(offsets.to_display(back), dtype=np.int64).reshape(-1) == pos)
        cuts = np.where(before_cr, back, cp)
        ends = self.word_ends_b if side == "A" else self.word_ends_a
        return self._ghosts(side, own_ends, cuts, np.searchsorted(ends, cuts, "left"))

    def _ghosts(self, side: str, own_ends: np.ndarray, cuts: np.ndarray, words: np.ndarray) -> np.ndarray:
        """Ghosts on `side` of the other version's cuts given as its code points (see
        ghost_cuts) and, for each, the first of its words that ends at or after it (the
        caller knows it or searches the word ends: 2 ms for 10,000 cuts among 1.5 million
        words, more than the rest). From there the word diff's few equal runs say where
        that word is here: no search among every word's knots (~3 million on 10 MB)."""
        runs = self.equal_runs
        if side == "A":  # the other version is B: its runs are columns 2-3, ours 0
            lo, hi, dst_lo = runs[:, 2], runs[:, 3], runs[:, 0]
            src_starts, src_ends, dst_starts, dst_ends = self.word_starts_b, self.word_ends_b, \
                self.word_starts_a, self.word_ends_a
            src_len, dst_len, offsets = self.length_b, self.length_a, self.offsets_a
        else:
            lo, hi, dst_lo = runs[:, 0], runs[:, 1], runs[:, 2]
            src_starts, src_ends, dst_starts, dst_ends = self.word_starts_a, self.word_ends_a, \
                self.word_starts_b, self.word_ends_b
            src_len, dst_len, offsets = self.length_a, self.length_b, self.offsets_b
        cuts = np.asarray(cuts, dtype=np.int64).reshape(-1)
        at_end = cuts == src_len  # the map's last knot: a cut at the other text's end lies at this text's end
        w = np.minimum(np.asarray(words, dtype=np.int64).reshape(-1), max(src_ends.size - 1, 0))
        k = np.searchsorted(lo, w, "right") - 1  # the equal run that may hold that word
        kk = np.maximum(k, 0)
        if lo.size and src_ends.size:
            equal = ~at_end & (k >= 0) & (w < hi[kk]) & (src_starts[w] <= cuts) & (cuts <= src_ends[w])
        else:
            equal = np.zeros(cuts.size, dtype=bool)
        w, partner = w[equal], dst_lo[kk[equal]] + (w[equal] - lo[kk[equal]])
        # equal words are the same text; the minimum keeps a symbol collision inside the word
        inside = np.minimum(dst_starts[partner] + (cuts[equal] - src_starts[w]), dst_ends[partner])
        mapped = np.concatenate((inside, np.full(int(at_end.sum()), dst_len, dtype=np.int64)))
        shown = np.asarray(offsets.to_display(mapped), dtype=np.int64).reshape(-1)
        return _sorted_difference(shown, own_ends)

    def gaps_visible(self, a_range: tuple[int, int], b_range: tuple[int, int]) -> np.ndarray:
        """Indices of the gaps touching A positions [a0, a1] or B positions [b0, b1]."""
        g = self.gaps
        if not len(g):
            return np.zeros(0, dtype=np.int64)
        hit = ((g[:, 1] >= a_range[0]) & (g[:, 0] <= a_range[1])) | ((g[:, 3] >= b_range[0]) & (g[:, 2] <= b_range[1]))
        return np.flatnonzero(hit)


def _sorted_difference(values: np.ndarray, remove: np.ndarray) -> np.ndarray:
    """np.setdiff1d(values, remove) for a sorted `remove` (a layout's ends). setdiff1d
    picks a lookup table as long as the range of the values (10 million entries on a
    10 MB document: 3 ms); a binary search in `remove` costs its log."""
    u = np.asarray(values, dtype=np.int64).reshape(-1)
    if u.size > 1:
        step = np.diff(u)
        if (step < 0).any():  # the cuts come mapped in order: sorting is the exception
            u = np.sort(u)
            step = np.diff(u)
        u = u[np.concatenate(([True], step != 0))]  # np.unique hashes: slower than this on sorted values
    remove = np.asarray(remove, dtype=np.int64)
    if not remove.size:
        return u
    i = np.minimum(np.searchsorted(remove, u), remove.size - 1)
    return u[remove[i] != u]
