"""Boundary rule `lmx2-v1` (docs/contract/lmx2-v1.md): every cut decided from the words near it.

Stages and what each depends on; pipeline.run_lmx2 caches each under exactly these:
    classes   text                  (boundaries.boundary_classes: paragraph / sentence / word)
    keys      text, token counter, key_tokens, boundary_preference
    maxima    keys + horizon                 (the key_1 maxima S is drawn from)
    primary   maxima + token counter + min                      (E and S)
    cuts      primary + max (the gate) + fill_horizon           (Z and Q)
    chunks    cuts + params hash
All per-cut work is vectorized: the Horner hashes of the key windows come from one
prefix sum (B is odd, so invertible mod 2^64), and the local maxima over a token
distance are range-maximum queries on a sparse table. Nothing runs per word in Python
except the sentence test of the few words that end in a mark or a closer.

Under the compiled kernel pipeline.run_lmx2_lean runs the same rule from the symbols
(kernel.select.lmx2_cuts), caching the maxima and the cuts; the functions here are the
numpy reference the tests hold it to.
"""

from __future__ import annotations

from typing import Callable, NamedTuple

import numpy as np

from ..kernel import select as kernel
from ..vocabulary import BOUNDARIES, LMX2_KINDS
from .boundaries import CLASS_NAMES, cut_boundary_codes
from .canonical import CanonicalText
from .chunks import CutColumns

CHUNKER_FAMILY = "cdc-lmx2"
KEY_BASE = 0x9E3779B97F4A7C15
_FMIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_FMIX_2 = np.uint64(0x94D049BB133111EB)

KINDS = LMX2_KINDS
# the names as object arrays: a column of names is one take and tolist (the same str
# objects as a map over the tuples, several times faster for a thousand chunks)
_KIND_NAMES = np.array(KINDS, dtype=object)
_BOUNDARY_NAMES = np.array(BOUNDARIES, dtype=object)


# -- stage 2: keys ----------------------------------------------------------------------


def _fmix(z: np.ndarray) -> np.ndarray:
    z = z ^ (z >> np.uint64(30))
    z = z * _FMIX_1
    z = z ^ (z >> np.uint64(27))
    z = z * _FMIX_2
    return z ^ (z >> np.uint64(31))


def _powers(base: int, count: int) -> np.ndarray:
    """base^0 .. base^(count-1) mod 2^64."""
    out = np.full(count, base, dtype=np.uint64)
    if count:
        out[0] = 1
    return np.multiply.accumulate(out, dtype=np.uint64)


def window_hashes(symbols: np.ndarray, cum: np.ndarray, key_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, h) for every cut c in 0..n: `a[c]` the first word of c's key window and
    `h[c]` the Horner hash of symbols a..c-1 (docs/contract/lmx2-v1.md#keys); meaningful for interior
    cuts only. h(c) = B^(c-1) * (P[c] - P[a]) with P the prefix sums of s_i * B^-i."""
    n = symbols.size
    a = np.searchsorted(cum, cum - key_tokens, "left")
    a[1:] = np.minimum(a[1:], np.arange(n))  # word c-1 is always in the window
    with np.errstate(over="ignore"):
        inverse = pow(KEY_BASE, -1, 2**64)
        prefix = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(symbols * _powers(inverse, n), dtype=np.uint64, out=prefix[1:])
        scale = np.empty(n + 1, dtype=np.uint64)
        scale[0] = 0
        scale[1:] = _powers(KEY_BASE, n)  # B^(c-1) for c >= 1
        h = scale * (prefix - prefix[a])
    return a, h


class Lmx2Keys(NamedTuple):
    """The keys stage: arrays over cuts 0..n (edges hold 0, below every real key). `h`,
    the window hashes the keys are made from, is None when it was not kept."""

    h: np.ndarray | None
    key_1: np.ndarray
    key_2: np.ndarray

    def key_at(self, j: int, at: np.ndarray) -> np.ndarray:
        """key_j of the cuts `at`."""
        return (self.key_1 if j == 1 else self.key_2)[at]


class Lmx2HashKeys:
    """The keys stage of a document given as bytes (document.Document): only the window
    hashes `h` are kept, 8 bytes a cut instead of the two keys' 16, and a key is made
    from them where it is read (`key_at`: the fill zone's key_2); `key_1` and `key_2`
    make every key each time they are read (key_maxima reads key_1 once)."""

    __slots__ = ("h", "classes", "prefer")

    def __init__(self, h: np.ndarray, classes: np.ndarray, prefer: bool):
        self.h, self.classes, self.prefer = h, classes, prefer

    def key_at(self, j: int, at: np.ndarray | None) -> np.ndarray:
        """key_j of the cuts `at` (None: every cut), 0 at the edges."""
        made = kernel.lmx2_key_of(self.h, self.classes, self.prefer, j, at)
        if made is not None:
            return made
        return _keys_of(self.h, self.classes, self.prefer, j, at)

    @property
    def key_1(self) -> np.ndarray:
        return self.key_at(1, None)

    @property
    def key_2(self) -> np.ndarray:
        return self.key_at(2, None)


def _keys_of(h: np.ndarray, classes: np.ndarray, prefer: bool, j: int, at: np.ndarray | None = None) -> np.ndarray:
    """key_j (docs/contract/lmx2-v1.md#keys) of the cuts `at` (None: every cut 0..n) in numpy, 0 at the edges."""
    n = h.size - 1
    idx = np.arange(h.size) if at is None else np.asarray(at, dtype=np.int64)
    hv, cls = h[idx], classes[idx]
    top = (cls.astype(np.uint64) << np.uint64(61)) if prefer else np.uint64(0)
    with np.errstate(over="ignore"):
        k = (top | (_fmix(hv ^ np.uint64(j)) >> np.uint64(3)) | np.uint64(1)).astype(np.uint64)
    k[(idx == 0) | (idx == n)] = 0
    return k


def compute_keys(
    symbols: np.ndarray, cum: np.ndarray, classes: np.ndarray, key_tokens: int, prefer_boundaries: bool,
    keep_h: bool = True, hashes_only: bool = False,
) -> "Lmx2Keys | Lmx2HashKeys":
    """key_j(c) = (r(c) << 61) | (fmix(h(c) ^ j) >> 3) | 1 (docs/contract/lmx2-v1.md#keys);
    h is None in the result unless `keep_h` (the compiled kernel then never stores it).
    `hashes_only`: an Lmx2HashKeys, which keeps h and makes keys where they are read."""
    compiled = kernel.lmx2_keys(symbols, cum, classes, key_tokens, prefer_boundaries, KEY_BASE, keep_h or hashes_only,
                                not hashes_only)
    if compiled is not None:
        return Lmx2HashKeys(compiled[0], classes, prefer_boundaries) if hashes_only else Lmx2Keys(*compiled)
    _, h = window_hashes(symbols, cum, key_tokens)
    if hashes_only:
        return Lmx2HashKeys(h, classes, prefer_boundaries)
    keys = [_keys_of(h, classes, prefer_boundaries, j) if h.size else h.copy() for j in (1, 2)]
    return Lmx2Keys(h if keep_h else None, keys[0], keys[1])


# -- stage 3: cuts -----------------------------------------------------------------------


def _floor_log2(v: np.ndarray) -> np.ndarray:
    return np.frexp(v)[1].astype(np.int64) - 1  # exact for positive ints below 2^53


def _reach_bounds(pos: np.ndarray, at: np.ndarray, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi): the indices j with |pos[j] - a| <= reach, for each a in `at` (a value
    of `pos`). Token positions are integers: when they span few tokens (any real text)
    a running count of positions answers each query with one lookup, cheaper than two
    binary searches; long words can make positions sparse, and then it searches."""
    span = int(pos[-1]) - int(pos[0])
    if span >= kernel.dense_span(pos.size):
        return np.searchsorted(pos, at - reach, "left"), np.searchsorted(pos, at + reach, "right")
    below = np.zeros(span + 2, dtype=np.int64)  # below[t]: how many positions lie below pos[0] + t
    below[pos - pos[0] + 1] = 1
    np.cumsum(below, out=below)
    rel = at - pos[0]
    return below[np.maximum(rel - reach, 0)], below[np.minimum(rel + reach + 1, span + 1)]


def local_maxima(values: np.ndarray, pos: np.ndarray, reach: int, candidates: np.ndarray | None) -> np.ndarray:
    """For each index i in `candidates` (None: every index), whether values[i] >=
    values[j] for every j with |pos[j] - pos[i]| <= reach (`pos` strictly increasing;
    equal values both qualify).

    A candidate smaller than a neighbour in reach is dropped first (two comparisons a
    cut remove most); the rest get a range-maximum query on a sparse table."""
    m = values.size
    if (m if candidates is None else candidates.size) == 0:
        return np.zeros(0, dtype=bool)
    compiled = kernel.local_maxima(values, pos, reach, candidates)
    if compiled is not None:
        return compiled
    if candidates is None:
        candidates = np.arange(m, dtype=np.int64)
    # Positions are taken relative to the first one and the reach is clamped to their
    # span (a wider reach sees no more), so that pos +- reach stays inside int64; only
    # spans of 2^62 or more, which no document has, fall back to Python integers.
    span = int(pos[-1]) - int(pos[0])
    reach = min(reach, span + 1)
    if span < 2**62:
        pos = pos - pos[0]
    else:
        first = int(pos[0])
        pos = np.array([int(x) - first for x in pos.tolist()], dtype=object)
    near = np.diff(pos) <= reach
    left_ok = np.ones(m, dtype=bool)
    left_ok[1:] = ~near | (values[1:] >= values[:-1])
    right_ok = np.ones(m, dtype=bool)
    right_ok[:-1] = ~near | (values[:-1] >= values[1:])
    keep = left_ok[candidates] & right_ok[candidates]
    cand = candidates[keep]
    result = np.zeros(candidates.size, dtype=bool)
    if cand.size == 0:
        return result
    lo, hi = _reach_bounds(pos, pos[cand], reach)
    level = _floor_log2(hi - lo)
    top = int(level.max())
    table = np.empty((top + 1, m), dtype=values.dtype)
    table[0] = values
    for k in range(1, top + 1):
        step = 1 << (k - 1)
        np.maximum(table[k - 1, : m - step], table[k - 1, step:], out=table[k, : m - step])  # no temporary
        table[k, m - step :] = table[k - 1, m - step :]  # never read by a query
    flat = table.ravel()
    row = level * m
    best = np.maximum(flat[row + lo], flat[row + hi - (1 << level)])
    result[keep] = values[cand] >= best
    return result


def _within_runs(marked: np.ndarray, cum: np.ndarray, distance: int) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi): the sorted, disjoint index runs of the cuts over 0..n at token distance
    < `distance` from some cut in `marked` (sorted cut indices). Each marked cut covers
    an index range; the ranges come sorted by both ends, so their union is a few runs,
    found without a pass over every cut."""
    at = cum[marked]
    first = np.searchsorted(cum, at - distance, "right")
    stop = np.searchsorted(cum, at + distance, "left")
    nonempty = first < stop
    first, stop = first[nonempty], stop[nonempty]
    if first.size == 0:
        return first, stop
    # a range joins the run before it when it starts at or before that run's stop (the
    # stop of its last range, as stops increase)
    opens = np.ones(first.size, dtype=bool)
    opens[1:] = first[1:] > stop[:-1]
    return first[opens], stop[np.append(opens[1:], True)]


def _within(marked: np.ndarray, cum: np.ndarray, distance: int) -> np.ndarray:
    """Mask over cuts 0..n: some cut in `marked` (sorted cut indices) lies at token
    distance < `distance` (_within_runs laid out by one np.repeat)."""
    n1 = cum.size
    lo, hi = _within_runs(marked, cum, distance)
    if lo.size == 0:
        return np.zeros(n1, dtype=bool)
    runs = lo.size
    lengths = np.empty(2 * runs + 1, dtype=np.int64)
    lengths[0] = lo[0]
    lengths[2:-1:2] = lo[1:] - hi[:-1]  # the gaps between runs
    lengths[1::2] = hi - lo
    lengths[-1] = n1 - hi[-1]
    return np.repeat(np.arange(2 * runs + 1) % 2 == 1, lengths)


def _in_runs(at: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Whether each index in `at` lies in one of the sorted disjoint runs [lo, hi)."""
    k = np.searchsorted(lo, at, "right") - 1
    return (k >= 0) & (at < hi[np.maximum(k, 0)]) if lo.size else np.zeros(at.size, dtype=bool)


def _outside_runs(lo: np.ndarray, hi: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The indices in [start, stop) outside the sorted disjoint runs [lo, hi), in order:
    made from the gaps between the runs, so the cost follows the gaps, not the span."""
    gap_lo = np.clip(np.concatenate(([start], hi)), start, stop)
    gap_hi = np.clip(np.concatenate((lo, [stop])), start, stop)
    keep = gap_lo < gap_hi
    gap_lo, gap_hi = gap_lo[keep], gap_hi[keep]
    sizes = gap_hi - gap_lo
    total = int(sizes.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    # one run of consecutive indices per gap: ones, with each gap's first step a jump
    steps = np.ones(total, dtype=np.int64)
    heads = np.cumsum(sizes)[:-1]
    steps[0] = gap_lo[0]
    steps[heads] = gap_lo[1:] - gap_hi[:-1] + 1
    return np.cumsum(steps)


class Lmx2Cuts:
    """The cuts stage: every cut in order (`positions`, int64, the edges included) and
    the set it belongs to (`kinds`, uint8: 0 S, 1 Q, 2 E, as vocabulary.LMX2_KINDS
    names them), over cuts 0..n (`size` = n + 1). The boolean masks E, S and Q over
    every cut (`edges`, `primary`, `fill`) are made when first read: a document chunked
    once never pays for them (3 bytes a word)."""

    __slots__ = ("positions", "kinds", "size", "_masks")

    def __init__(self, positions: np.ndarray, kinds: np.ndarray, size: int):
        self.positions, self.kinds, self.size = positions, kinds, size
        self._masks: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    @classmethod
    def of_masks(cls, edges: np.ndarray, primary: np.ndarray, fill: np.ndarray, positions: np.ndarray) -> "Lmx2Cuts":
        """From the masks E, S, Q over every cut and their union in order."""
        kinds = np.where(edges[positions], 2, np.where(primary[positions], 0, 1)).astype(np.uint8)
        made = cls(positions, kinds, edges.size)
        made._masks = (edges, primary, fill)
        return made

    def _mask(self, which: int) -> np.ndarray:
        if self._masks is None:
            masks = []
            for code in (2, 0, 1):
                m = np.zeros(self.size, dtype=bool)
                m[self.positions[self.kinds == code]] = True
                masks.append(m)
            self._masks = (masks[0], masks[1], masks[2])
        return self._masks[which]

    @property
    def edges(self) -> np.ndarray:  # E
        return self._mask(0)

    @property
    def primary(self) -> np.ndarray:  # S
        return self._mask(1)

    @property
    def fill(self) -> np.ndarray:  # Q
        return self._mask(2)


class Lmx2Primary(NamedTuple):
    """The first half of the cut stage: E and S, which do not depend on max_tokens or
    fill_horizon (so a pipeline can keep them when only those change). `chosen`, when
    given, is the sorted cut indices of E | S (compute_fill then makes no pass for it)."""

    edges: np.ndarray  # E
    primary: np.ndarray  # S
    chosen: np.ndarray | None = None


def key_maxima(keys: "Lmx2Keys | Lmx2HashKeys", cum: np.ndarray, horizon: int, within: np.ndarray | None = None) -> np.ndarray:
    """The interior cuts whose key_1 is a maximum among all interior cuts within
    `horizon` tokens (sorted cut indices): S of docs/contract/lmx2-v1.md#cuts before the edges block any
    of them, so it does not depend on min_tokens. `within`, when given, holds every one
    of them (the maxima of a shorter horizon: a wider reach can only drop some), and
    only those are tested."""
    n = cum.size - 1
    if n < 2:
        return np.zeros(0, dtype=np.int64)
    key_1 = keys.key_1  # read once: Lmx2HashKeys makes them on each read
    if within is None:  # every interior cut: no array of their indices is made
        found = kernel.local_maxima_at(key_1[1:n], cum[1:n], horizon, 1)
        if found is not None:
            return found
        return np.flatnonzero(local_maxima(key_1[1:n], cum[1:n], horizon, None)) + 1
    candidates = within - 1
    return candidates[local_maxima(key_1[1:n], cum[1:n], horizon, candidates)] + 1


def compute_primary(keys: Lmx2Keys, word_tokens: np.ndarray, cum: np.ndarray, min_tokens: int,
                    horizon: int, maxima: np.ndarray | None = None) -> Lmx2Primary:
    """E and S of docs/contract/lmx2-v1.md#cuts; `maxima` is key_maxima(keys, cum, horizon) when known."""
    n = word_tokens.size
    edges = np.zeros(n + 1, dtype=bool)
    edges[0] = edges[n] = True
    primary = np.zeros(n + 1, dtype=bool)
    if n < 2:
        return Lmx2Primary(edges, primary)
    # the cuts on either side of a long word (few: found from the long words' indices)
    long_at = np.flatnonzero(word_tokens >= min_tokens)
    at_edges = np.unique(np.concatenate(([0], long_at, long_at + 1, [n]))).astype(np.int64, copy=False)
    edges[at_edges] = True

    # S: the maxima of key_1 among all interior cuts in reach that lie away from every edge
    if maxima is None:
        maxima = key_maxima(keys, cum, horizon)
    # only the maxima are tested against the runs near an edge (no mask over every cut)
    near_lo, near_hi = _within_runs(at_edges, cum, min_tokens)
    at_primary = maxima[~(edges[maxima] | _in_runs(maxima, near_lo, near_hi))]
    primary[at_primary] = True
    # E and S are disjoint (an edge blocks itself)
    return Lmx2Primary(edges, primary, np.sort(np.concatenate((at_edges, at_primary))))


def compute_fill(first: Lmx2Primary, keys: Lmx2Keys, cum: np.ndarray, gate: int, fill_horizon: int) -> Lmx2Cuts:
    """Z and Q of docs/contract/lmx2-v1.md#cuts over E and S: every cut in order."""
    edges, primary, chosen = first
    n = cum.size - 1
    fill = np.zeros(n + 1, dtype=bool)
    if n < 2:
        return Lmx2Cuts.of_masks(edges, primary, fill, np.flatnonzero(edges) if n else np.zeros(0, dtype=np.int64))
    # Z, then Q: a maximum of key_2 among the zone's cuts in reach (only those compete)
    if chosen is None:
        chosen = np.flatnonzero(edges | primary)
    gate_lo, gate_hi = _within_runs(chosen, cum, gate)
    # the interior cuts outside every run; a chosen cut lies in its own run when gate >= 1
    zone = _outside_runs(gate_lo, gate_hi, 1, n)
    if gate < 1:
        zone = zone[~np.isin(zone, chosen)]
    found = zone[local_maxima(keys.key_at(2, zone), cum[zone], fill_horizon, None)]
    fill[found] = True
    # chosen and found are disjoint and sorted: their merge is every cut in order
    return Lmx2Cuts.of_masks(edges, primary, fill, np.sort(np.concatenate((chosen, found))))


def compute_cuts(
    keys: Lmx2Keys, word_tokens: np.ndarray, cum: np.ndarray, min_tokens: int, gate: int, horizon: int, fill_horizon: int
) -> Lmx2Cuts:
    """E, S, Z, Q of docs/contract/lmx2-v1.md#cuts."""
    return compute_fill(compute_primary(keys, word_tokens, cum, min_tokens, horizon), keys, cum, gate, fill_horizon)


class Lmx2Span(NamedTuple):
    start_word: int
    end_word: int
    kind: str
    boundary: str


def spans(cuts: Lmx2Cuts, classes: np.ndarray) -> list[Lmx2Span]:
    """The chunks between consecutive cuts, named by their end cut (docs/contract/lmx2-v1.md#chunks)."""
    pos = cuts.positions.tolist()
    if len(pos) < 2:
        return []
    ends = cuts.positions[1:]
    kind_code = cuts.kinds[1:].copy()
    kind_code[-1] = 3
    boundary_code = np.where(classes[ends] == 2, 0, np.where(classes[ends] == 1, 1, 2))
    boundary_code[-1] = 3
    new = tuple.__new__
    return [
        new(Lmx2Span, (s, e, KINDS[k], BOUNDARIES[b]))
        for s, e, k, b in zip(pos, pos[1:], kind_code.tolist(), boundary_code.tolist())
    ]


def cut_columns(cuts: Lmx2Cuts, canon: CanonicalText) -> CutColumns:
    """The chunks of `spans`, column-wise, as build_chunks takes them: each chunk's
    boundary from the scan's per-word flags at its end cut (boundaries.cut_boundary_codes,
    the class with the preference on), so no class array over every cut is read."""
    return cut_columns_and_codes(cuts, canon)[0]


def cut_columns_and_codes(cuts: Lmx2Cuts, canon: CanonicalText) -> tuple[CutColumns, np.ndarray, np.ndarray]:
    """(cut_columns, kind codes, boundary codes): each chunk's kind and boundary also as
    its index in KINDS and BOUNDARIES (uint8), which the diagnostics count in one numpy
    pass each instead of a pass over the names per count."""
    pos = cuts.positions
    if pos.size < 2:
        empty, none = np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.uint8)
        return CutColumns(empty, empty, [], None, []), none, none
    ends = pos[1:]
    kind_code = cuts.kinds[1:].copy()
    kind_code[-1] = 3
    boundary_code = cut_boundary_codes(canon, ends)
    columns = CutColumns(pos[:-1].astype(np.int64), ends.astype(np.int64), _KIND_NAMES[kind_code].tolist(), None,
                         _BOUNDARY_NAMES[boundary_code].tolist())
    return columns, kind_code, boundary_code


class Lmx2Stages:
    """lmx2-v1's own stages of one chunking (Chunking.stages): the boundary class of
    every cut, the keys and the cut sets, for diagnostics and for the inspector. The
    classes and the keys may be given as functions that make them when first read (a
    document chunked once keeps neither)."""

    __slots__ = ("_classes", "_keys", "cuts")

    def __init__(self, classes: "np.ndarray | Callable[[], np.ndarray]",
                 keys: "Lmx2Keys | Lmx2HashKeys | Callable[[], Lmx2Keys | Lmx2HashKeys]", cuts: Lmx2Cuts):
        self._classes, self._keys, self.cuts = classes, keys, cuts

    def __reduce__(self):
        # sent elsewhere, the stages go made: the functions that make them read the document's cache
        return (Lmx2Stages, (self.classes, self.keys, self.cuts))

    @property
    def classes(self) -> np.ndarray:
        if callable(self._classes):
            self._classes = self._classes()
        return self._classes

    @property
    def keys(self) -> "Lmx2Keys | Lmx2HashKeys":
        if callable(self._keys):
            self._keys = self._keys()
        return self._keys


__all__ = [
    "CHUNKER_FAMILY", "KINDS", "BOUNDARIES", "CLASS_NAMES", "Lmx2Cuts", "Lmx2HashKeys", "Lmx2Keys", "Lmx2Primary",
    "Lmx2Span",
    "Lmx2Stages", "compute_cuts", "cut_columns", "cut_columns_and_codes", "compute_fill", "compute_keys", "compute_primary", "key_maxima", "local_maxima", "spans",
    "window_hashes",
]
