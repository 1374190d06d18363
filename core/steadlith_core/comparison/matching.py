"""The matched blocks of one region of a word diff (`diff` recurses between them): the
common prefix and suffix, an exact Myers O(ND) script for a small region, anchors on
k-grams that occur once in each side for a large one, and a walk along the diagonal for
a region without anchors. All of it compares int word ids in numpy arrays; `diff`'s
docstring gives the whole algorithm.
"""

from __future__ import annotations

from bisect import bisect_left

import numpy as np

# Anchorless regions: how far (in words, on each side) a mismatch may be skipped to
# resynchronize, and how many words must then agree.
DIAGONAL_WINDOW = 32
DIAGONAL_MIN_RUN = 4


def diagonal_blocks(
    a: np.ndarray, b: np.ndarray, window: int = DIAGONAL_WINDOW, min_run: int = DIAGONAL_MIN_RUN
) -> list[tuple[int, int, int]]:
    """Matched blocks found by following equal runs and, at each mismatch, jumping to
    the nearest (i + x, j + y), x, y <= window, where `min_run` items agree. Linear in
    the matched length plus window^2 per mismatch; stops at the first mismatch it cannot
    resolve (the caller diffs the rest). Small edits in repetitive text resolve at once."""
    n, m = len(a), len(b)
    blocks: list[tuple[int, int, int]] = []
    i = j = 0
    while i < n and j < m:
        if a[i] == b[j]:
            size = common_prefix(a[i:], b[j:])
            blocks.append((i, j, size))
            i, j = i + size, j + size
            continue
        # only the words a jump can reach become a list: a whole region's would be a
        # Python int per word (tens of bytes each)
        la, lb = a[i : i + window + min_run].tolist(), b[j : j + window + min_run].tolist()
        jump = None
        for d in range(1, 2 * window + 1):
            for x in range(max(0, d - window), min(d, window) + 1):
                y = d - x
                if x + min_run <= len(la) and y + min_run <= len(lb) and la[x : x + min_run] == lb[y : y + min_run]:
                    jump = (i + x, j + y)
                    break
            if jump:
                break
        if jump is None:
            break
        i, j = jump
    return blocks


# -- prefix and suffix ----------------------------------------------------------------


def common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the common prefix, galloping so a short prefix costs little. The first
    difference of a stretch is found by argmax, never by listing every difference (past
    an insertion nearly every word differs: 8 bytes a word of a whole document)."""
    limit = min(len(a), len(b))
    done, step = 0, 64
    while done < limit:
        hi = min(limit, done + step)
        differs = a[done:hi] != b[done:hi]
        first = int(differs.argmax())
        if differs[first]:
            return done + first
        done, step = hi, step * 4
    return limit


def common_suffix(a: np.ndarray, b: np.ndarray) -> int:
    limit = min(len(a), len(b))
    if limit == 0:
        return 0
    return common_prefix(a[::-1][:limit], b[::-1][:limit])


# -- exact diff for small regions: Myers' O(ND) greedy algorithm -----------------------


def myers(a: list[int], b: list[int], max_work: int) -> tuple[list[tuple[int, int, int]] | None, int]:
    """Matching blocks (i, j, size) of a shortest edit script (None over `max_work`),
    and the work spent.

    Keeps a copy of the frontier per edit distance d for the backtrack: O(D^2) memory,
    bounded by the work budget."""
    n, m = len(a), len(b)
    off = n + m + 1
    v = [0] * (2 * off + 1)
    trace: list[list[int]] = []
    work = 0
    for d in range(n + m + 1):
        trace.append(v[off - d - 1 : off + d + 2])  # frontier before step d, k in [-d-1, d+1]
        for k in range(-d, d + 1, 2):
            if k == -d or (k != d and v[off + k - 1] < v[off + k + 1]):
                x = v[off + k + 1]
            else:
                x = v[off + k - 1] + 1
            y = x - k
            x0 = x
            while x < n and y < m and a[x] == b[y]:
                x += 1
                y += 1
            work += x - x0
            v[off + k] = x
            if x >= n and y >= m:
                return _myers_backtrack(trace, d, k, n, m), work
        work += d + 1
        if work > max_work:
            return None, work
    raise AssertionError("unreachable: d = n + m always reaches the end")


def _myers_backtrack(trace: list[list[int]], d_end: int, k_end: int, n: int, m: int) -> list[tuple[int, int, int]]:
    blocks = []
    x, y = n, m
    for d in range(d_end, 0, -1):
        before = trace[d]  # index k + d + 1 holds the frontier for diagonal k
        k = x - y

        def at(kk: int, _d: int = d, _v: list[int] = before) -> int:
            return _v[kk + _d + 1]

        if k == -d or (k != d and at(k - 1) < at(k + 1)):
            prev_k = k + 1  # came down: b[y-1] inserted
            px = at(prev_k)
            mx, my = px, px - prev_k + 1
        else:
            prev_k = k - 1  # came right: a[x-1] deleted
            px = at(prev_k)
            mx, my = px + 1, px - prev_k
        if x > mx:
            blocks.append((mx, my, x - mx))
        x, y = px, px - prev_k
    if x > 0:
        blocks.append((0, 0, x))
    blocks.reverse()
    return blocks


# -- anchors: unique k-grams, heaviest increasing chain -------------------------------

_MIX = np.uint64(0x9E3779B97F4A7C15)
_POLY = np.uint64(0x100000001B3)


# k-grams hashed at a time: the temporaries of a block are all a hash pass allocates
# beside its output (a whole document's would be 8 bytes a word each)
HASH_BLOCK = 1 << 18


def _kgram_hashes(x: np.ndarray, k: int, start: int = 0, stop: int | None = None) -> np.ndarray:
    """A 64-bit hash of every k-gram x[i:i+k], i in [start, stop) (all of them when
    `stop` is None; collisions are checked by the caller), made a block at a time."""
    stop = len(x) - k + 1 if stop is None else stop
    h = np.empty(max(stop - start, 0), dtype=np.uint64)
    with np.errstate(over="ignore"):
        for lo in range(start, stop, HASH_BLOCK):
            hi = min(stop, lo + HASH_BLOCK)
            mixed = x[lo : hi + k - 1].astype(np.uint64)
            mixed += np.uint64(1)
            mixed *= _MIX
            mixed ^= mixed >> np.uint64(31)
            out = h[lo - start : hi - start]
            out[:] = mixed[: hi - lo]
            for t in range(1, k):
                out *= _POLY
                out ^= mixed[t : t + hi - lo]
    return h


def _unique_kgrams(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The k-gram hashes of x occurring exactly once (sorted) and the positions of their
    k-grams. The hashes are sorted in place, and the positions found by hashing again a
    block at a time: beside the values kept, one array of 8 bytes a k-gram, never the
    three of an argsort (the order, the sorted copy, the hashes)."""
    h = _kgram_hashes(x, k)
    h.sort()
    if h.size == 0:
        return h, np.empty(0, dtype=np.int64)
    new = np.empty(h.size + 1, dtype=bool)
    new[0] = new[-1] = True
    np.not_equal(h[1:], h[:-1], out=new[1:-1])
    values = h[new[:-1] & new[1:]]
    del h, new
    positions = np.empty(values.size, dtype=_position_dtype(len(x)))
    if values.size:
        length = len(x) - k + 1
        for lo in range(0, length, HASH_BLOCK):
            part = _kgram_hashes(x, k, lo, min(length, lo + HASH_BLOCK))
            at = np.searchsorted(values, part)
            at[at == values.size] = 0
            hit = values[at] == part
            positions[at[hit]] = np.flatnonzero(hit) + lo
    return values, positions


def _position_dtype(n: int) -> np.dtype:
    """The narrowest of int32 and int64 holding every position below `n`: half the
    bytes a unique k-gram keeps on documents below 2^31 words."""
    return np.dtype(np.int32 if n < 2**31 else np.int64)


def anchor_blocks(a: np.ndarray, b: np.ndarray, k: int) -> list[tuple[int, int, int]]:
    """Matched, non-overlapping, increasing blocks (i, j, size) from unique k-grams."""
    if len(a) < k or len(b) < k:
        return []
    ha, pos_a = _unique_kgrams(a, k)
    hb, pos_b = _unique_kgrams(b, k)
    if ha.size == 0 or hb.size == 0:
        return []
    # the k-grams both hold: for each position of a, that of the same k-gram in b (-1
    # for none), found a block of b's at a time, so the pairs come out in a's order
    # without an argsort (its order and the sorted copies: 8 bytes a pair each)
    partner = np.full(len(a) - k + 1, -1, dtype=pos_b.dtype)
    for lo in range(0, hb.size, HASH_BLOCK):
        part = hb[lo : lo + HASH_BLOCK]
        at = np.searchsorted(ha, part)
        at[at == ha.size] = 0
        hit = ha[at] == part
        partner[pos_a[at[hit]]] = pos_b[lo : lo + HASH_BLOCK][hit]
    del ha, hb, pos_a, pos_b
    ai = np.flatnonzero(partner >= 0)  # positions in a are distinct: increasing
    bj = partner[ai]
    del partner
    if ai.size == 0:
        return []
    ok = np.ones(ai.size, dtype=bool)
    for lo in range(0, ai.size, HASH_BLOCK):  # a block at a time: its gathers are the only copies
        i, j, good = ai[lo : lo + HASH_BLOCK], bj[lo : lo + HASH_BLOCK], ok[lo : lo + HASH_BLOCK]
        for t in range(k):  # a hash collision must never make unequal words equal
            good &= a[i + t] == b[j + t]
    del i, j, good  # views: the arrays they view go with the line below
    ai = ai[ok]  # one at a time: the old one goes before the next is made
    bj = bj[ok]
    del ok
    if ai.size == 0:
        return []
    # runs of anchors on one diagonal at consecutive positions
    brk = np.flatnonzero((np.diff(ai) != 1) | (np.diff(bj) != 1)) + 1
    starts = np.concatenate(([0], brk))
    ends = np.concatenate((brk, [ai.size]))
    run_i, run_j, run_len = ai[starts].tolist(), bj[starts].tolist(), (ends - starts).tolist()
    chain = _heaviest_chain(run_i, run_j, run_len)
    blocks = []
    pa = pb = 0
    for r in chain:
        i, j, size = run_i[r], run_j[r], run_len[r] + k - 1
        skip = max(pa - i, pb - j, 0)  # neighbouring k-grams of other diagonals may overlap
        i, j, size = i + skip, j + skip, size - skip
        if size > 0:
            blocks.append((i, j, size))
            pa, pb = i + size, j + size
    return blocks


def _heaviest_chain(run_i: list[int], run_j: list[int], run_len: list[int]) -> list[int]:
    """Indices of runs (sorted by i, disjoint in i) forming an increasing chain in j of
    the greatest total length: a weighted LIS with a Fenwick tree of prefix maxima."""
    r_count = len(run_i)
    run_end = [j + length - 1 for j, length in zip(run_j, run_len)]
    if all(run_j[r + 1] > run_end[r] for r in range(r_count - 1)):
        return list(range(r_count))  # already in order: the common case for edits
    coords = sorted(set(run_end))
    size = len(coords)
    tree_val = [0] * (size + 1)
    tree_arg = [-1] * (size + 1)
    best = [0] * r_count
    back = [-1] * r_count
    for r in range(r_count):
        q = bisect_left(coords, run_j[r])  # how many end coordinates lie below j_r
        val, arg = 0, -1
        while q > 0:
            if tree_val[q] > val:
                val, arg = tree_val[q], tree_arg[q]
            q -= q & -q
        best[r] = val + run_len[r]
        back[r] = arg
        q = bisect_left(coords, run_end[r]) + 1
        while q <= size:
            if best[r] > tree_val[q]:
                tree_val[q], tree_arg[q] = best[r], r
            q += q & -q
    r = max(range(r_count), key=best.__getitem__)
    chain = []
    while r != -1:
        chain.append(r)
        r = back[r]
    chain.reverse()
    return chain
