"""tttd-v1 boundary selection and bounded snapping (SPEC §4-5).

The rule of SPEC §4 walks words one by one; this walks chunks. For a chunk starting
at word s it finds, by binary search over cumulative token counts and sorted candidate
positions: the first word whose inclusion reaches min_tokens, the first word whose
inclusion would overflow max_tokens, the first primary candidate in between, and the
last backup candidate before the overflow. That is the same decision the word loop
makes, in O(log n) per chunk, snapping included.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import NamedTuple, Sequence

import numpy as np

from .vocabulary import BACKUP, END, HARD, KINDS, PRIMARY  # noqa: F401 - KINDS re-exported

SENTENCE_CLOSERS = "\"')]}\u201d\u2019\u00bb"
SENTENCE_ENDS = (".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f")


class Cut(NamedTuple):
    start_word: int
    end_word: int
    kind: str
    snapped: bool


def ends_sentence(word: str) -> bool:
    """SPEC §5.2: the word, stripped of trailing closers, ends with a sentence mark."""
    return word.rstrip(SENTENCE_CLOSERS).endswith(SENTENCE_ENDS)


class SnapPoints(NamedTuple):
    """Where snapping may move a cut (SPEC §5.2), as sorted cut positions c in [1, n-1]:
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
    """SPEC §5: the kept cut for raw cut `e` of a chunk starting at `s`. Binary search
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
    n = len(cum) - 1
    search = cum.searchsorted
    # Searching for any value past the total finds n; clamping keeps huge min/max
    # parameters (Python ints) inside int64.
    past_end = int(cum[-1]) + 1
    n_primary = len(primary)
    new_cut = tuple.__new__
    cuts: list[Cut] = []
    s = 0
    while s < n:
        base = int(cum[s])
        # first i >= s whose inclusion brings the chunk to min_tokens
        i_min = int(search(min(base + min_tokens, past_end), "left")) - 1
        if i_min < s:
            i_min = s
        # first i > s whose inclusion would exceed max_tokens (n if none)
        i_over = int(search(min(base + max_tokens, past_end), "right")) - 1
        if i_over <= s:
            i_over = s + 1
        limit = i_over if i_over < n else n  # words [s, limit) are taken into the chunk
        k = bisect_left(primary, i_min)
        if k < n_primary and primary[k] < limit:
            end, kind = primary[k] + 1, PRIMARY
        elif i_over < n:
            k = bisect_left(backup, limit) - 1
            if k >= 0 and backup[k] >= i_min:
                end, kind = backup[k] + 1, BACKUP
            else:
                end, kind = i_over, HARD
        else:
            end, kind = n, END
        snapped = False
        if snap_window and end < n:
            kept = snap(end, s, n, snap_window, cum, points, min_tokens, max_tokens)
            snapped = kept != end
            end = kept
        cuts.append(new_cut(Cut, (s, end, kind, snapped)))
        s = end
    return cuts
