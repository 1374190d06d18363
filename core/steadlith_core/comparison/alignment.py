"""The array work under a comparison: each side's chunks as columns, the changed words
of each side, the alignment of reused chunks and every chunk's status code. Column-wise
over the chunks (numpy), never a Python object per chunk; `measurement` turns the codes
into statuses, regions and the summary (the definitions are in `churn`'s docstring).
"""

from __future__ import annotations

from typing import Protocol, Sequence

import numpy as np

from ..chunking.chunks import ChunkColumns
from ..chunking.normalize import WordStream
from .diff import EQUAL, DiffOp, diff_sequences


class ChunkedStream(Protocol):
    """What the analysis reads: a Chunking, or a baseline FixedChunking (both keep their
    chunks column-wise: the analysis makes no Chunk object)."""

    words: WordStream
    columns: ChunkColumns
    cum_tokens: np.ndarray


# the codes status_codes gives; measurement names them (B: reused, shifted, new, edited;
# A: reused, shifted, removed, edited)
CODE_REUSED, CODE_SHIFTED, CODE_ALL_CHANGED, CODE_EDITED = 0, 1, 2, 3


class Columns:
    """The chunks' word ranges and tokens as int64 arrays, and their hashes and boundaries."""

    def __init__(self, starts: np.ndarray, ends: np.ndarray, tokens: np.ndarray, hashes: list[str],
                 boundaries: list[str]):
        self.starts, self.ends, self.tokens, self.hashes = starts, ends, tokens, hashes
        self.boundaries = boundaries

    def __len__(self) -> int:
        return len(self.hashes)

    @classmethod
    def of(cls, stream: "ChunkedStream") -> "Columns":
        # the stream's chunk columns, not its Chunk objects: reading those would build
        # ~10,000 a side on every change of a 10 MB pair in the inspector
        c = stream.columns
        return cls(c.start_words, c.end_words, c.tokens, c.hashes, c.boundaries)


class ChangedRanges:
    """The changed words of one side (its ranges in non-equal opcodes), counted before
    any word position without a per-word array."""

    def __init__(self, lo: np.ndarray, hi: np.ndarray):
        self.lo, self.hi = lo, hi
        self.before_range = np.concatenate(([0], np.cumsum(hi - lo))).astype(np.int64)
        # past the last range nothing is partly counted: a start no position reaches
        self._lo_or_end = np.append(lo, np.iinfo(np.int64).max)

    @property
    def total(self) -> int:
        return int(self.before_range[-1])

    def before(self, positions: np.ndarray) -> np.ndarray:
        """Changed words among words [0, k) for each k in `positions`."""
        k = np.searchsorted(self.hi, positions, "right")  # ranges ending at or before k: wholly counted
        return self.before_range[k] + np.maximum(positions - self._lo_or_end[k], 0)


def changed_ranges(ops: Sequence[DiffOp], side: str) -> ChangedRanges:
    spans = [(op.a_start, op.a_end) if side == "a" else (op.b_start, op.b_end) for op in ops if op.tag != EQUAL]
    spans = [(lo, hi) for lo, hi in spans if hi > lo]
    arr = np.array(spans, dtype=np.int64).reshape(-1, 2)
    return ChangedRanges(arr[:, 0].copy(), arr[:, 1].copy())


def inside_equal(cols: Columns, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """For each chunk, the index of the equal range holding all its words, or -1."""
    if not len(starts):
        return np.full(len(cols.starts), -1, dtype=np.int64)
    k = np.searchsorted(starts, cols.starts, "right") - 1
    held = (k >= 0) & (cols.ends <= ends[np.maximum(k, 0)])
    return np.where(held, k, -1)


def align(cols_a: Columns, cols_b: Columns, eq: np.ndarray,
           inside_b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The alignment as two int64 arrays (A index, B index), increasing in both."""
    # pass 1: the diff says where each B chunk's words were in A
    js = np.flatnonzero(inside_b >= 0)
    k = inside_b[js]
    shift = eq[k, 0] - eq[k, 2]
    want_start, want_end = cols_b.starts[js] + shift, cols_b.ends[js] + shift
    i = np.searchsorted(cols_a.starts, want_start)
    ok = i < len(cols_a)
    i_safe = np.minimum(i, max(len(cols_a) - 1, 0))
    if len(cols_a):
        ok &= (cols_a.starts[i_safe] == want_start) & (cols_a.ends[i_safe] == want_end)
    else:
        ok[:] = False
    ha, hb = cols_a.hashes, cols_b.hashes
    cand_i, cand_j = i[ok].tolist(), js[ok].tolist()
    same = [ha[x] == hb[y] for x, y in zip(cand_i, cand_j)]
    pairs_i = np.asarray(cand_i, dtype=np.int64)[np.asarray(same, dtype=bool)]
    pairs_j = np.asarray(cand_j, dtype=np.int64)[np.asarray(same, dtype=bool)]
    # pass 2: equal hashes inside the gaps between consecutive pairs, matched in order
    bound_i = np.concatenate(([-1], pairs_i, [len(cols_a)]))
    bound_j = np.concatenate(([-1], pairs_j, [len(cols_b)]))
    gaps = np.flatnonzero((bound_i[1:] - bound_i[:-1] > 1) & (bound_j[1:] - bound_j[:-1] > 1)).tolist()
    extra_i: list[int] = []
    extra_j: list[int] = []
    for g in gaps:
        pa, qa, pb, qb = int(bound_i[g]), int(bound_i[g + 1]), int(bound_j[g]), int(bound_j[g + 1])
        sa, sb = ha[pa + 1:qa], hb[pb + 1:qb]
        if set(sa).isdisjoint(sb):
            continue
        for op in diff_sequences(sa, sb):  # bounded, unlike difflib on repeated hashes
            if op.tag == EQUAL:
                extra_i.extend(range(pa + 1 + op.a_start, pa + 1 + op.a_end))
                extra_j.extend(range(pb + 1 + op.b_start, pb + 1 + op.b_end))
    all_i = np.concatenate((pairs_i, np.asarray(extra_i, dtype=np.int64)))
    all_j = np.concatenate((pairs_j, np.asarray(extra_j, dtype=np.int64)))
    order = np.argsort(all_j, kind="stable")
    all_i, all_j = all_i[order], all_j[order]
    bad = np.flatnonzero((all_i[1:] <= all_i[:-1]) | (all_j[1:] <= all_j[:-1]))  # np.diff costs more on short arrays
    if bad.size:
        t = int(bad[0])
        raise AssertionError(f"alignment not monotone at {(int(all_i[t]), int(all_j[t]))}, "
                             f"{(int(all_i[t + 1]), int(all_j[t + 1]))}")
    return all_i, all_j


def status_codes(cols: Columns, partner: np.ndarray, inside: np.ndarray, changed: ChangedRanges) -> np.ndarray:
    """Reused (paired), shifted (inside one equal range), all changed, or edited."""
    n_changed = changed.before(cols.ends) - changed.before(cols.starts)
    codes = np.full(len(partner), CODE_EDITED, dtype=np.int64)
    codes[n_changed == cols.ends - cols.starts] = CODE_ALL_CHANGED
    codes[inside >= 0] = CODE_SHIFTED
    codes[partner >= 0] = CODE_REUSED
    return codes
