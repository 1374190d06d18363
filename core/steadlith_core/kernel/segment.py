"""tttd-v1 boundary selection and bounded snapping (docs/contract/tttd-v1.md#segmentation).

The rule (docs/contract/tttd-v1.md#segmentation) walks words one by one; this walks
chunks. For a chunk starting
at word s it finds, by binary search over cumulative token counts and sorted candidate
positions: the first word whose inclusion reaches min_tokens, the first word whose
inclusion would overflow max_tokens, the first primary candidate in between, and the
last backup candidate before the overflow. That is the same decision the word loop
makes, in O(log n) per chunk, snapping included.

Without snapping a chunk starts at word 0, right after a candidate (a primary or
backup cut), or at a hard cut. `segment_columns` makes the decision for every start
of the first two kinds at once, in numpy, then for the starts after hard cuts in a few
more rounds, and only follows the chain of starts in Python, one list look-up per
chunk. A chain of hard cuts longer than the rounds, and every start when snapping is
on, is decided by the binary searches one chunk at a time.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import NamedTuple, Sequence

import numpy as np

from ..vocabulary import BACKUP, END, HARD, KINDS, PRIMARY

SENTENCE_CLOSERS = "\"')]}\u201d\u2019\u00bb"
SENTENCE_ENDS = (".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f")


class Cut(NamedTuple):
    start_word: int
    end_word: int
    kind: str
    snapped: bool


def ends_sentence(word: str) -> bool:
    """The word, stripped of trailing closers, ends with a sentence mark (docs/contract/tttd-v1.md#snapping)."""
    return word.rstrip(SENTENCE_CLOSERS).endswith(SENTENCE_ENDS)


class SnapPoints(NamedTuple):
    """Where snapping may move a cut (docs/contract/tttd-v1.md#snapping), as sorted cut positions c in [1, n-1]:
    `paragraphs` where word c starts a paragraph, `sentences` where word c-1 ends one."""

    paragraphs: list[int]
    sentences: list[int]

    @classmethod
    def of(cls, para: Sequence[bool], texts: Sequence[str]) -> "SnapPoints":
        n = len(texts)
        paragraphs = [c for c in range(1, n) if para[c]]
        sentences = [c for c in range(1, n) if ends_sentence(texts[c - 1])]
        return cls(paragraphs, sentences)

    @classmethod
    def of_flags(cls, para: np.ndarray, sentence_ends: np.ndarray) -> "SnapPoints":
        """The same points from the text scan's per-word flags, with no str per word."""
        n = para.size
        paragraphs = (np.flatnonzero(para[1:n]) + 1).tolist()
        sentences = (np.flatnonzero(sentence_ends[: max(n - 1, 0)]) + 1).tolist()
        return cls(paragraphs, sentences)


def _nearest(points: list[int], lo: int, hi: int, e: int) -> int | None:
    """The point in [lo, hi] nearest to e, the later one on a tie; None if there is none."""
    first, last = bisect_left(points, lo), bisect_right(points, hi)
    if first == last:
        return None
    k = bisect_left(points, e, first, last)  # points[k] >= e, points[k - 1] < e
    after = points[k] if k < last else None
    before = points[k - 1] if k > first else None
    if before is None or (after is not None and after - e <= e - before):
        return after
    return before


def snap(
    e: int,
    s: int,
    n: int,
    window: int,
    cum: np.ndarray,
    points: SnapPoints,
    min_tokens: int,
    max_tokens: int,
) -> int:
    """Snapping (docs/contract/tttd-v1.md#snapping): the kept cut for raw cut `e` of a chunk starting at `s`. Binary search
    over the document's snap points, so a wide window costs no more than a narrow one."""
    lo, hi = max(1, e - window), min(n - 1, e + window)
    pick = _nearest(points.paragraphs, lo, hi, e)
    if pick is None:
        pick = _nearest(points.sentences, lo, hi, e)
    if pick is None:
        return e
    if pick > s and min_tokens <= int(cum[pick] - cum[s]) <= max_tokens:
        return pick
    return e


_KIND_CODES = {PRIMARY: 0, BACKUP: 1, HARD: 2, END: 3}  # the order of KINDS


class _Walk:
    """The decision (docs/contract/tttd-v1.md#segmentation) for a chunk starting at word s, one chunk at a time."""

    def __init__(self, cum: np.ndarray, primary: Sequence[int], backup: Sequence[int], min_tokens: int,
                 max_tokens: int):
        self.n = len(cum) - 1
        self.search = cum.searchsorted
        self.cum = cum
        # Searching for any value past the total finds n; clamping keeps huge min/max
        # parameters (Python ints) inside int64.
        self.past_end = int(cum[-1]) + 1
        self.primary, self.backup = primary, backup
        self.min_tokens, self.max_tokens = min_tokens, max_tokens

    def cut(self, s: int) -> tuple[int, str]:
        n, search, past_end = self.n, self.search, self.past_end
        primary, backup = self.primary, self.backup
        base = int(self.cum[s])
        # first i >= s whose inclusion brings the chunk to min_tokens
        i_min = int(search(min(base + self.min_tokens, past_end), "left")) - 1
        if i_min < s:
            i_min = s
        # first i > s whose inclusion would exceed max_tokens (n if none)
        i_over = int(search(min(base + self.max_tokens, past_end), "right")) - 1
        if i_over <= s:
            i_over = s + 1
        limit = i_over if i_over < n else n  # words [s, limit) are taken into the chunk
        k = bisect_left(primary, i_min)
        if k < len(primary) and primary[k] < limit:
            return primary[k] + 1, PRIMARY
        if i_over < n:
            k = bisect_left(backup, limit) - 1
            if k >= 0 and backup[k] >= i_min:
                return backup[k] + 1, BACKUP
            return i_over, HARD
        return n, END


def _cuts_from(starts: np.ndarray, cum: np.ndarray, primary: np.ndarray, backup: np.ndarray, min_tokens: int,
               max_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """_Walk.cut for every start in `starts` at once: (end words, kind codes)."""
    n = cum.size - 1
    past_end = int(cum[-1]) + 1
    base = cum[starts]
    # as in _Walk.cut: base + x searched as min(base + x, past_end), without leaving int64
    room = past_end - base
    i_min = np.maximum(cum.searchsorted(base + np.minimum(room, min(min_tokens, past_end)), "left") - 1, starts)
    i_over = np.maximum(cum.searchsorted(base + np.minimum(room, min(max_tokens, past_end)), "right") - 1, starts + 1)
    limit = np.minimum(i_over, n)
    end = np.full(starts.size, n, dtype=np.int64)
    kind = np.full(starts.size, _KIND_CODES[END], dtype=np.int8)
    inside = i_over < n
    end[inside] = i_over[inside]
    kind[inside] = _KIND_CODES[HARD]
    if backup.size:
        k = backup.searchsorted(limit, "left") - 1
        b = backup[np.maximum(k, 0)]
        found = inside & (k >= 0) & (b >= i_min)
        end[found] = b[found] + 1
        kind[found] = _KIND_CODES[BACKUP]
    if primary.size:
        k = primary.searchsorted(i_min, "left")
        c = primary[np.minimum(k, primary.size - 1)]
        found = (k < primary.size) & (c < limit)
        end[found] = c[found] + 1
        kind[found] = _KIND_CODES[PRIMARY]
    return end, kind


def segment_columns(
    cum: np.ndarray,
    primary: np.ndarray | Sequence[int],
    backup: np.ndarray | Sequence[int],
    min_tokens: int,
    max_tokens: int,
    snap_window: int = 0,
    points: SnapPoints | None = None,
) -> tuple[np.ndarray, np.ndarray, list[str], list[bool] | None]:
    """The cuts of `segment`, column-wise: (first words, end words, kinds, snapped
    flags; None when snapping is off), as kernel.segment_columns returns them."""
    n = len(cum) - 1
    primary = np.asarray(primary, dtype=np.int64)
    backup = np.asarray(backup, dtype=np.int64)
    walk = _Walk(cum, primary.tolist(), backup.tolist(), min_tokens, max_tokens)
    if snap_window or n == 0:
        cuts = _segment_walk(walk, snap_window, points)
        count = len(cuts)
        return (np.fromiter((c[0] for c in cuts), dtype=np.int64, count=count),
                np.fromiter((c[1] for c in cuts), dtype=np.int64, count=count),
                [c[2] for c in cuts], [c[3] for c in cuts] if snap_window else None)
    # Every chunk that follows a candidate cut starts right after it: decide those
    # chunks all at once. Dense candidates (more of them than a few per chunk) would
    # make that cost more than walking the chunks, and then only word 0 is decided so.
    chunks_at_least = int(cum[-1]) // max(1, min(max_tokens, int(cum[-1]) + 1)) + 1
    known = np.concatenate(([0], primary + 1, backup + 1))
    if known.size > 16 * chunks_at_least + 1024:
        known = known[:1]
    starts, ends, codes, closed = _decide_closure(known, cum, primary, backup, min_tokens, max_tokens)
    if closed:
        path = _chain(starts, ends, n)
        return starts[path], ends[path], [KINDS[k] for k in codes[path].tolist()], None
    decided = dict(zip(starts.tolist(), zip(ends.tolist(), codes.tolist())))
    starts_out: list[int] = []
    ends_out: list[int] = []
    kinds: list[str] = []
    s = 0
    while s < n:
        hit = decided.get(s)
        if hit is None:  # after a hard cut the rounds of _decide_closure did not reach
            end, kind = walk.cut(s)
        else:
            end, kind = hit[0], KINDS[hit[1]]
        starts_out.append(s)
        ends_out.append(end)
        kinds.append(kind)
        s = end
    return np.array(starts_out, dtype=np.int64), np.array(ends_out, dtype=np.int64), kinds, None


# A chunk after a hard cut starts where no candidate is: its decision is one more round
# over the starts the previous round's hard cuts made. Prose needs one or two rounds; a
# document without candidates (a long chain of hard cuts) is walked instead.
_HARD_CUT_ROUNDS = 8


def _decide_closure(known: np.ndarray, cum: np.ndarray, primary: np.ndarray, backup: np.ndarray, min_tokens: int,
                    max_tokens: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """The chunks starting at each of `known` and, round by round, at the ends of the
    hard cuts among them: (sorted distinct starts, their ends, kind codes, whether every
    end is a start or n, so the chain from word 0 needs no further decision)."""
    n = cum.size - 1
    starts = _distinct_sorted(known)
    ends, codes = _cuts_from(starts, cum, primary, backup, min_tokens, max_tokens)
    for _ in range(_HARD_CUT_ROUNDS):
        new = _distinct_sorted(ends[ends < n])
        at = np.minimum(starts.searchsorted(new), starts.size - 1)
        new = new[starts[at] != new]
        if not new.size:
            return starts, ends, codes, True
        more_ends, more_codes = _cuts_from(new, cum, primary, backup, min_tokens, max_tokens)
        order = np.argsort(np.concatenate((starts, new)), kind="stable")
        starts = np.concatenate((starts, new))[order]
        ends = np.concatenate((ends, more_ends))[order]
        codes = np.concatenate((codes, more_codes))[order]
    return starts, ends, codes, False


def _distinct_sorted(a: np.ndarray) -> np.ndarray:
    """np.unique by a sort (numpy's own unique hashes: several times slower on these)."""
    a = np.sort(a)
    return a[np.concatenate(([True], a[1:] != a[:-1]))] if a.size else a


def _chain(starts: np.ndarray, ends: np.ndarray, n: int) -> list[int]:
    """Rows of the chunks met from word 0 on, when every end is n or another row's start
    (sorted `starts`): the only loop per chunk is this one over a Python list."""
    following = np.minimum(starts.searchsorted(ends), starts.size)  # the row starting where each ends
    following[ends >= n] = -1
    following = following.tolist()
    path, row = [], 0
    while row >= 0:
        path.append(row)
        row = following[row]
    return path


def _segment_walk(walk: _Walk, snap_window: int, points: SnapPoints | None) -> list[Cut]:
    n = walk.n
    new_cut = tuple.__new__
    cuts: list[Cut] = []
    s = 0
    while s < n:
        end, kind = walk.cut(s)
        snapped = False
        if snap_window and end < n:
            kept = snap(end, s, n, snap_window, walk.cum, points, walk.min_tokens, walk.max_tokens)
            snapped = kept != end
            end = kept
        cuts.append(new_cut(Cut, (s, end, kind, snapped)))
        s = end
    return cuts


def segment(
    cum: np.ndarray,
    primary: Sequence[int],
    backup: Sequence[int],
    min_tokens: int,
    max_tokens: int,
    snap_window: int = 0,
    points: SnapPoints | None = None,
) -> list[Cut]:
    """Cut the word stream. `cum[i]` is the tokens of words [0, i) (an int64 array of
    n + 1); `primary`/`backup` are the sorted positions of candidate words."""
    starts, ends, kinds, snapped = segment_columns(cum, primary, backup, min_tokens, max_tokens, snap_window, points)
    new_cut = tuple.__new__
    flags = snapped if snapped is not None else [False] * len(kinds)
    return [new_cut(Cut, row) for row in zip(starts.tolist(), ends.tolist(), kinds, flags)]
