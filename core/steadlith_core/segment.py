"""tttd-v1 boundary selection and bounded snapping (SPEC §4-5).

The rule of SPEC §4 walks words one by one; this walks chunks. For a chunk starting
at word s it finds, by binary search over cumulative token counts and sorted candidate
positions: the first word whose inclusion reaches min_tokens, the first word whose
inclusion would overflow max_tokens, the first primary candidate in between, and the
last backup candidate before the overflow. That is the same decision the word loop
makes, in O(log n) per chunk.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple, Sequence

import numpy as np

PRIMARY, BACKUP, HARD, END = "primary", "backup", "hard", "end"
KINDS = (PRIMARY, BACKUP, HARD, END)

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


def snap(
    e: int,
    s: int,
    n: int,
    window: int,
    cum: np.ndarray,
    para: Sequence[bool],
    texts: Sequence[str],
    min_tokens: int,
    max_tokens: int,
) -> int:
    """SPEC §5: the kept cut for raw cut `e` of a chunk starting at `s`."""
    lo, hi = max(1, e - window), min(n - 1, e + window)
    paragraphs = [c for c in range(lo, hi + 1) if para[c]]
    candidates = paragraphs or [c for c in range(lo, hi + 1) if ends_sentence(texts[c - 1])]
    if not candidates:
        return e
    # nearest to e; on equal distance the later one
    pick = min(candidates, key=lambda c: (abs(c - e), -c))
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
    para: Sequence[bool] = (),
    texts: Sequence[str] = (),
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
            kept = snap(end, s, n, snap_window, cum, para, texts, min_tokens, max_tokens)
            snapped = kept != end
            end = kept
        cuts.append(new_cut(Cut, (s, end, kind, snapped)))
        s = end
    return cuts
