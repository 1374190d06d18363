"""The incremental path: cut and hash again only the chunks an edit can touch.

Every chunker here decides a cut from a bounded stretch of words, so the edited
document's chunks equal the original's away from the edit:

- `tttd-v1` scans from one cut to the next. A chunk of the original whose decision read
  no changed word (its scan, the word that overflowed, the snapping window) is kept; the
  scan restarts at the first one that did, and stops at the first cut both versions
  share past the edit (far enough past it that fingerprints and snapping read only
  unchanged words): from there on it would repeat the original's decisions.
- `lmx2-v1` decides each cut from words within its margin M (docs/contract/lmx2-v1.md#locality). Cuts more than
  M tokens from every changed word are the original's; the rest are recomputed by the
  rule's own stages on a stretch of the edited words reaching M tokens (and some) past
  that zone, whose ends therefore cannot sway any decision kept from it.
- The fixed-size baseline cuts greedily from the start: it restarts at the first window
  that read a changed word and stops where a cut lands on one of the original's.

A chunk whose words and cut equal an original chunk's keeps its hash; any other is
hashed from its canonical text. Only chunks whose hash the original lacks are returned.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from typing import Any

import numpy as np
import xxhash

from ..chunking.identity import chunk_hash_prefix
from ..chunking.lmx2 import compute_fill, compute_keys, compute_primary
from ..chunking.params import enc
from ..kernel.segment import SnapPoints, ends_sentence, snap
from ..kernel.select import window_fingerprints
from .measure import ChangedChunk
from .stream import EditedStream, TokenView

LMX2_CONTEXT_SLACK = 64  # tokens beyond M on each side of the recomputed zone


def changed_chunks(chunker: Any, stream: EditedStream) -> list[ChangedChunk]:
    """The chunks of the edited document whose hash `chunker` (a chunkers.LabChunker)
    did not produce for the original, in tokens of the edited document."""
    if not stream.spans:  # the same words, hence the same chunks: a re-wrap costs nothing
        return []
    window = WINDOWS.get(chunker.rule)
    if window is None:
        raise TypeError(f"no incremental path for {chunker.rule!r}")
    return _Hasher(chunker, stream).changed(window(chunker, stream))


# -- hashing the chunks around the edit ----------------------------------------------------


class _Hasher:
    def __init__(self, chunker: Any, stream: EditedStream):
        self.chunker = chunker
        self.stream = stream
        first, last = stream.spans[0], stream.spans[-1]
        self.before = first.b_start  # edited words [0, before) are the original's
        self.after = last.b_end  # and so are [after, n), shifted by delta
        self.delta = last.b_end - last.a_end
        self.cum = _tokens(chunker, stream)
        self.bounds = chunker.bounds
        self.prefix = chunk_hash_prefix(chunker.params_hash, chunker.family)

    def changed(self, chunks: list[tuple[int, int]]) -> list[ChangedChunk]:
        cum, hashes = self.cum, self.chunker.hashes
        return [ChangedChunk(int(cum[s]), int(cum[e])) for s, e in chunks if self.hash(s, e) not in hashes]

    def hash(self, s: int, e: int) -> str:
        known = None
        if e <= self.before:
            known = self.bounds.get((s, e))
        elif s >= self.after:
            known = self.bounds.get((s - self.delta, e - self.delta))
        if known is not None:
            return known
        data = self.stream.canonical(s, e, self.chunker.doc.canonical)
        return xxhash.xxh3_128_hexdigest(self.prefix + enc(data))


def _tokens(chunker: Any, stream: EditedStream) -> TokenView:
    return stream.token_view(chunker.counter, chunker.tokens, chunker.cum)


# -- tttd-v1 ------------------------------------------------------------------------------


def _tttd_window(ch, stream: EditedStream) -> list[tuple[int, int]]:
    p = ch.params
    w, snap_window = p.window_words, p.effective_snap_window
    first, last = stream.spans[0], stream.spans[-1]
    cum = _tokens(ch, stream)
    n = stream.n
    primary, backup = _edited_candidates(ch, stream, first.b_start, last)

    j0 = bisect_left(ch.reads_up_to, first.b_start)  # the first original chunk that read a changed word
    s = int(ch.chunk_starts[j0]) if j0 < len(ch.chunk_starts) else n
    delta = last.b_end - last.a_end
    sync_from = last.b_end + w + snap_window + 1  # from here on a cut reads only unchanged words
    starts = ch.start_index
    out: list[tuple[int, int]] = []
    past_end = int(cum[-1]) + 1
    n_primary = len(primary)
    while s < n:
        if s >= sync_from and (s - delta) in starts:
            break
        base = int(cum[s])
        i_min = max(s, int(cum.searchsorted(min(base + p.min_tokens, past_end), "left")) - 1)
        i_over = max(s + 1, int(cum.searchsorted(min(base + p.max_tokens, past_end), "right")) - 1)
        limit = min(i_over, n)
        k = bisect_left(primary, i_min)
        if k < n_primary and primary[k] < limit:
            end = primary[k] + 1
        elif i_over < n:
            k = bisect_left(backup, limit) - 1
            end = backup[k] + 1 if k >= 0 and backup[k] >= i_min else i_over
        else:
            end = n
        if snap_window and end < n:
            end = snap(end, s, n, snap_window, cum, _snap_points(stream, end, snap_window), p.min_tokens,
                       p.max_tokens)
        out.append((s, end))
        s = end
    return out


def _edited_candidates(ch, stream: EditedStream, b0: int, last) -> tuple[list[int], list[int]]:
    """The primary and backup candidates of the edited words: the original's where the
    fingerprint window holds no changed word, shifted; recomputed in between."""
    p = ch.params
    w = p.window_words
    hi = min(stream.n, last.b_end + w - 1)  # from here on every window is the original's
    ctx = max(0, b0 - w + 1)
    mid = window_fingerprints(stream.symbols_of(ctx, hi), w, p.polynomial)[b0 - ctx:]
    delta = last.b_end - last.a_end
    out = []
    for original, mask, remainder in ((ch.primary_at, p.primary_mask, p.primary_remainder),
                                      (ch.backup_at, p.backup_mask, p.backup_remainder)):
        hits = np.flatnonzero((mid & np.uint64(mask)) == np.uint64(remainder)) + b0
        head = original[:np.searchsorted(original, b0)]
        tail = original[np.searchsorted(original, hi - delta):] + delta
        out.append(np.concatenate([head, hits, tail]).tolist())
    return out[0], out[1]


def _snap_points(stream: EditedStream, e: int, window: int) -> SnapPoints:
    lo, hi = max(1, e - window), min(stream.n - 1, e + window)
    para = stream.para_of(lo, hi + 1).tolist()
    return SnapPoints([c for c in range(lo, hi + 1) if para[c - lo]],
                      [c for c in range(lo, hi + 1) if ends_sentence(stream.word(c - 1))])


# -- lmx2-v1 ------------------------------------------------------------------------------


def _lmx2_window(ch, stream: EditedStream) -> list[tuple[int, int]]:
    p = ch.params
    margin = p.margin
    first, last = stream.spans[0], stream.spans[-1]
    cum = _tokens(ch, stream)
    n = stream.n
    lo_t = int(cum[first.b_start]) - margin - 1  # cuts outside [lo_t, hi_t] are the original's
    hi_t = int(cum[last.b_end]) + margin + 1
    reach = margin + LMX2_CONTEXT_SLACK
    wl = max(0, int(cum.searchsorted(lo_t - reach, "right")) - 1)
    wr = min(n, int(cum.searchsorted(hi_t + reach, "left")))

    base = cum[wl]
    local_cum = cum.cum(wl, wr + 1) - base
    classes = stream.classes_of(wl, wr)
    keys = compute_keys(stream.symbols_of(wl, wr), local_cum, classes, p.key_tokens, p.prefers_boundaries)
    cuts = compute_fill(compute_primary(keys, cum.tokens(wl, wr), local_cum, p.min_tokens, p.horizon), keys,
                        local_cum, p.gate, p.fill_horizon)
    at_tokens = local_cum[cuts.positions] + base
    recomputed = (cuts.positions[(at_tokens >= lo_t) & (at_tokens <= hi_t)] + wl).tolist()

    a_cuts, a_cum = ch.cuts, ch.cum
    shift_t = int(cum[last.b_end]) - int(a_cum[last.a_end])
    delta = last.b_end - last.a_end
    k = bisect_left(ch.cut_tokens, lo_t)
    left = a_cuts[k - 1] if k > 0 else None  # the last kept cut before the zone
    r = bisect_right(ch.cut_tokens, hi_t - shift_t)
    right = a_cuts[r] + delta if r < len(a_cuts) else None  # the first kept cut after it
    chain = ([left] if left is not None else []) + recomputed + ([right] if right is not None else [])
    return list(zip(chain, chain[1:]))


# -- the fixed-size baseline -----------------------------------------------------------------


def _fixed_window(ch, stream: EditedStream) -> list[tuple[int, int]]:
    first, last = stream.spans[0], stream.spans[-1]
    cum = stream.tokens(ch.counter, ch.tokens, ch.cum)[1]  # whole: the scan usually runs to the end
    n = stream.n
    window = min(ch.params.max_tokens, int(cum[-1]) + 1)
    j0 = int(np.searchsorted(ch.chunk_ends, first.b_start, "left"))  # the first window that read a changed word
    s = int(ch.chunk_starts[j0]) if j0 < len(ch.chunk_starts) else n
    delta = last.b_end - last.a_end
    starts = ch.start_index
    out: list[tuple[int, int]] = []
    # the greedy rule of baseline.fixed_cuts
    while s < n:
        if s >= last.b_end and (s - delta) in starts:
            break
        e = max(int(cum.searchsorted(cum[s] + window, "right")) - 1, s + 1)
        out.append((s, e))
        s = e
    return out


WINDOWS = {"tttd-v1": _tttd_window, "lmx2-v1": _lmx2_window, "fixed-tokens/1": _fixed_window}
