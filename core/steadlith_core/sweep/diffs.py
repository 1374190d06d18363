"""The word diffs of a sweep source, computed once per sweep and shipped to its tasks.

A pair's word diff does not depend on the parameters, and it costs about as much as
chunking and comparing the pair under one set (≈ 1 ms a commit on the bench's 20 KB
history). A grid of 48 sets must therefore not diff every pair 48 times, nor once in
every process that runs one of the source's tasks (each pool worker, each Dask worker):
the executors diff each source once, split over the workers, before its set tasks,
and hand the result to each of them.

A repository file's history is diffed where it is read: the batch that walks it for
its sets makes each change's diff once, as the versions stream by (change_ops).

What travels is `SourceDiffs`: every unit's opcodes packed in two int32 arrays (five
numbers an opcode and an offset a unit), about 70 KB for the bench's thousand commits,
which pickles as two buffers. Units without a diff (an added file, with no
version before) have no opcodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import numpy as np

from ..chunking.normalize import WordStream, normalize
from ..comparison.diff import TAGS, DiffOp, word_diff

_TAG_CODE = {tag: code for code, tag in enumerate(TAGS)}
_INT32_MAX = np.iinfo(np.int32).max


@dataclass(frozen=True, eq=False)
class SourceDiffs:
    """The opcodes of consecutive units of one source, from unit `first` on.

    `rows[offsets[k]:offsets[k + 1]]` are unit `first + k`'s opcodes, one row each:
    (tag code, a_start, a_end, b_start, b_end), the tag code an index into diff.TAGS."""

    first: int
    rows: np.ndarray  # (opcodes, 5) int32
    offsets: np.ndarray  # (units + 1,) int32

    @property
    def units(self) -> int:
        return len(self.offsets) - 1

    def ops(self, unit: int) -> tuple[DiffOp, ...]:
        k = unit - self.first
        if not 0 <= k < self.units:
            raise IndexError(f"unit {unit} is not among the diffs of units {self.first}..{self.first + self.units - 1}")
        rows = self.rows[int(self.offsets[k]) : int(self.offsets[k + 1])].tolist()
        return tuple(DiffOp(TAGS[t], a0, a1, b0, b1) for t, a0, a1, b0, b1 in rows)

    @staticmethod
    def pack(first: int, diffs: Iterable[Sequence[DiffOp]]) -> "SourceDiffs":
        rows: list[tuple[int, int, int, int, int]] = []
        offsets = [0]
        for ops in diffs:
            rows.extend((_TAG_CODE[op.tag], op.a_start, op.a_end, op.b_start, op.b_end) for op in ops)
            offsets.append(len(rows))
        packed = np.array(rows, dtype=np.int64).reshape(-1, 5)
        if packed.size and int(packed.max()) > _INT32_MAX:
            raise ValueError("a document of more than 2**31 words")  # beyond anything the loader accepts
        return SourceDiffs(first, packed.astype(np.int32), np.array(offsets, dtype=np.int32))

    @staticmethod
    def join(pieces: Sequence["SourceDiffs"]) -> "SourceDiffs":
        """Consecutive pieces (in unit order, as they were cut) as one."""
        pieces = sorted(pieces, key=lambda p: p.first)
        for before, after in zip(pieces, pieces[1:]):
            if before.first + before.units != after.first:
                raise ValueError(f"diff pieces not consecutive: units from {before.first} ({before.units}), "
                                 f"then from {after.first}")
        if len(pieces) == 1:
            return pieces[0]
        shift = np.cumsum([0] + [len(p.rows) for p in pieces[:-1]])
        offsets = np.concatenate([pieces[0].offsets[:1]] + [p.offsets[1:] + s for p, s in zip(pieces, shift)])
        rows = np.concatenate([p.rows for p in pieces]).reshape(-1, 5)
        return SourceDiffs(pieces[0].first, rows, offsets.astype(np.int32))


def diff_versions(first: int, versions: Iterable[tuple[Optional[str], str]]) -> SourceDiffs:
    """The diffs of successive (old text or None, new text) pairs, the units from
    `first` on. A text that is one pair's new and the next pair's old is split into
    words once."""
    last: tuple[str, WordStream] | None = None
    diffs: list[tuple[DiffOp, ...]] = []
    for old, new in versions:
        new_words = normalize(new)
        if old is None:
            diffs.append(())
        else:
            old_words = last[1] if last is not None and last[0] == old else normalize(old)
            diffs.append(word_diff(old_words, new_words))
        last = (new, new_words)
    return SourceDiffs.pack(first, diffs)


def change_ops(old_words: WordStream, new_words: WordStream) -> tuple[DiffOp, ...]:
    """The word diff of one change, for a batch that reads a file's versions itself and
    makes each change's diff once for all its sets (sweep.tasks.run_batch)."""
    return word_diff(old_words, new_words)


def unit_slices(units: int, parts: int, *, min_units: int = 25) -> list[tuple[int, int]]:
    """[lo, hi) ranges cutting `units` into about `parts` slices of at least `min_units`
    (a slice of a few dozen diffs is tens of milliseconds: enough to pay its shipping)."""
    if units <= 0:
        return [(0, 0)]
    count = max(1, min(parts, units // min_units))
    bounds = [units * k // count for k in range(count + 1)]
    return list(zip(bounds, bounds[1:]))
