"""Word diff between two word streams: ordered opcodes over word ranges.

Like Meld's matcher, this knows nothing of chunks or of any toolkit: it takes two
sequences and returns plain tuples, `DiffOp(tag, a_start, a_end, b_start, b_end)`.

Two words are equal when their text *and* paragraph flag are equal: a re-flowed
paragraph is a change, because the separator before a word ("\n\n" or " ") is part of
the canonical text, hence the hash, of the chunk holding it (unless the word starts
that chunk), and the paragraph flag seeds the word's Rabin symbol.

The algorithm, chosen to stay near-linear on real documents and bounded on hostile ones:

1. Every word gets an int id, equal exactly when (text, para) are equal, so the rest
   compares ints. Streams from the text kernel carry one already: the word's xxh3
   symbol (seeded by its paragraph flag), so no word becomes a Python string. A 64-bit
   hash may collide, so every equal range of the result is then checked against the
   text itself; if one fails, the diff is redone with ids from a dict of the words'
   texts (what streams without symbols always use). Both give the same opcodes: the
   steps below see only which ids are equal.
2. A region is first trimmed of its common prefix and suffix (vectorized, galloping),
   which alone settles a single edit.
3. A small region (``len_a + len_b <= SMALL_REGION``) gets an exact Myers O(ND)
   shortest edit script, under a work budget.
4. A larger region is anchored, patience-style, on k-grams of ids that occur exactly
   once in each side: first 8-grams, then single words. 8-grams matter because prose
   over a small vocabulary (and markdown boilerplate) has almost no unique *words*
   but nearly only unique 8-word runs. The anchors' heaviest increasing chain (a
   weighted LIS over runs of consecutive anchors, O(R log R)) gives matched blocks;
   the gaps between them are diffed recursively.
5. A region with no anchor (repetitive text) is walked along the diagonal: equal runs
   are followed, and each mismatch is skipped to the nearest point within 32 words
   where 4 words agree again.
6. What is left without anchors or an affordable exact diff becomes one ``replace``.
   That is what makes two unrelated documents cheap (no common 8-gram, few unique
   common words): the answer is coarse exactly where there is little to find.

Steps 3-6 mean the result is a shortest edit script (a longest common subsequence) on
small inputs and a good, not necessarily minimal, one on large inputs. A coarse diff
only ever marks *more* words as changed, never an unequal word as equal.

The opcodes cover both streams completely and in order; there are no empty opcodes;
equal and non-equal opcodes alternate (two adjacent changes are merged into one
``replace``/``insert``/``delete``, two adjacent equal ranges into one).
"""

from __future__ import annotations

from bisect import bisect_left
from typing import Hashable, Iterable, NamedTuple, Sequence

import numpy as np

from ..chunking.normalize import WordStream

EQUAL, INSERT, DELETE, REPLACE = "equal", "insert", "delete", "replace"
TAGS = (EQUAL, INSERT, DELETE, REPLACE)

# Regions with at most this many words on both sides together get the exact Myers pass.
SMALL_REGION = 4096
# Myers inner-loop steps allowed per region before giving up (then anchors or replace),
# and for the whole diff: once spent, regions without anchors are replaced outright.
# (A step costs ~0.25 us in CPython; the total bounds the worst case near 0.5 s.)
MYERS_WORK = 50_000
MYERS_TOTAL_WORK = 2_000_000
# k-gram sizes tried for anchors, largest first.
ANCHOR_KGRAMS = (8, 1)
# Deeper recursion than this treats a region without a cheap exact diff as replaced.
MAX_DEPTH = 48
# Anchorless regions: how far (in words, on each side) a mismatch may be skipped to
# resynchronize, and how many words must then agree.
DIAGONAL_WINDOW = 32
DIAGONAL_MIN_RUN = 4


class DiffOp(NamedTuple):
    """One opcode: words a[a_start:a_end] become b[b_start:b_end]."""

    tag: str  # equal | insert | delete | replace
    a_start: int
    a_end: int
    b_start: int
    b_end: int


# -- public entry points -----------------------------------------------------------


def word_diff(a: WordStream, b: WordStream) -> tuple[DiffOp, ...]:
    """Opcodes turning the words of `a` into the words of `b` ((text, para) equality)."""
    if a.symbols is not None and b.symbols is not None:
        ops = diff_ids(a.symbols.view(np.int64), b.symbols.view(np.int64))
        if _equal_ranges_hold(a, b, ops):
            return ops
    ids_a, ids_b = word_ids(a, b)
    return diff_ids(ids_a, ids_b)


def _equal_ranges_hold(a: WordStream, b: WordStream, ops: Sequence[DiffOp]) -> bool:
    """Whether every equal opcode pairs words of equal text and paragraph flag.

    A range is usually the same stretch of text on both sides, checked as one string
    comparison; when only the whitespace between words differs, its words are compared."""
    for tag, a0, a1, b0, b1 in ops:
        if tag != EQUAL:
            continue
        if not np.array_equal(a.para[a0:a1], b.para[b0:b1]):
            return False
        text_a = a.source[int(a.starts[a0]) : int(a.ends[a1 - 1])]
        text_b = b.source[int(b.starts[b0]) : int(b.ends[b1 - 1])]
        # whitespace is str.isspace() (docs/contract/normalizer.md#whitespace)
        if text_a != text_b and text_a.split() != text_b.split():
            return False
    return True


def diff_sequences(a: Sequence[Hashable], b: Sequence[Hashable]) -> tuple[DiffOp, ...]:
    """Opcodes between two sequences of hashable items (equality of items)."""
    table: dict[Hashable, int] = {}
    get = table.setdefault
    ids_a = np.fromiter((get(x, len(table)) for x in a), dtype=np.int64, count=len(a))
    ids_b = np.fromiter((get(x, len(table)) for x in b), dtype=np.int64, count=len(b))
    return diff_ids(ids_a, ids_b)


def word_ids(a: WordStream, b: WordStream) -> tuple[np.ndarray, np.ndarray]:
    """One int per word, equal exactly when (text, para) are equal, shared by a and b."""
    # dict.fromkeys + map(__getitem__) keeps the per-word work in C.
    table = {w: i for i, w in enumerate(dict.fromkeys(a.texts + b.texts))}
    get = table.__getitem__

    def ids(ws: WordStream) -> np.ndarray:
        base = np.fromiter(map(get, ws.texts), dtype=np.int64, count=len(ws))
        return base * 2 + ws.para.astype(np.int64)

    return ids(a), ids(b)


def diff_ids(a: np.ndarray, b: np.ndarray) -> tuple[DiffOp, ...]:
    """Opcodes between two int arrays (the core of every diff here)."""
    a = np.ascontiguousarray(a, dtype=np.int64)
    b = np.ascontiguousarray(b, dtype=np.int64)
    raw: list[tuple[str, int, int, int, int]] = []
    _diff_region(a, b, 0, 0, raw, 0, [MYERS_TOTAL_WORK])
    return _normalize_ops(raw, len(a), len(b))


def check_ops(ops: Iterable[DiffOp], n_a: int, n_b: int) -> None:
    """Raise AssertionError unless `ops` is a well-formed opcode list for lengths n_a, n_b."""
    pa = pb = 0
    prev = None
    for op in ops:
        tag, a0, a1, b0, b1 = op
        assert tag in TAGS, op
        assert (a0, b0) == (pa, pb), f"gap or overlap before {op}"
        assert a1 >= a0 and b1 >= b0 and (a1 > a0 or b1 > b0), f"empty or reversed {op}"
        if tag == EQUAL:
            assert a1 - a0 == b1 - b0, op
        elif tag == INSERT:
            assert a1 == a0, op
        elif tag == DELETE:
            assert b1 == b0, op
        else:
            assert a1 > a0 and b1 > b0, op
        if prev is not None:
            assert (prev == EQUAL) != (tag == EQUAL), f"{prev} next to {tag} at {op}"
        prev = tag
        pa, pb = a1, b1
    assert (pa, pb) == (n_a, n_b), f"ops end at {(pa, pb)}, streams at {(n_a, n_b)}"


# -- the recursion ------------------------------------------------------------------


def _diff_region(a: np.ndarray, b: np.ndarray, a0: int, b0: int, out: list, depth: int, budget: list[int]) -> None:
    """Append raw opcodes (possibly adjacent non-equal ones) for a vs b, offset by a0, b0."""
    n, m = len(a), len(b)
    p = _common_prefix(a, b)
    if p:
        out.append((EQUAL, a0, a0 + p, b0, b0 + p))
    s = _common_suffix(a[p:], b[p:])
    a_mid, b_mid = a[p : n - s], b[p : m - s]
    ma, mb = a0 + p, b0 + p
    tail = (EQUAL, a0 + n - s, a0 + n, b0 + m - s, b0 + m) if s else None
    _diff_core(a_mid, b_mid, ma, mb, out, depth, budget)
    if tail:
        out.append(tail)


def _diff_core(a: np.ndarray, b: np.ndarray, a0: int, b0: int, out: list, depth: int, budget: list[int]) -> None:
    """a and b share no prefix or suffix here. `budget[0]` is the Myers work left for
    the whole diff (a one-item list, so the recursion shares it without global state)."""
    n, m = len(a), len(b)
    if n == 0 and m == 0:
        return
    if n == 0 or m == 0:
        out.append((INSERT if n == 0 else DELETE, a0, a0 + n, b0, b0 + m))
        return
    # |n - m| <= D and Myers spends >= D^2/2 steps: skip hopeless exact passes early
    if n + m <= SMALL_REGION and (n - m) ** 2 // 2 <= min(MYERS_WORK, budget[0]):
        blocks, spent = _myers(a.tolist(), b.tolist(), min(MYERS_WORK, budget[0]))
        budget[0] -= spent
        if blocks is not None:
            _emit_blocks(blocks, a0, b0, n, m, out)
            return
    if depth < MAX_DEPTH:
        for k in ANCHOR_KGRAMS:
            blocks = _anchor_blocks(a, b, k)
            if blocks:
                _recurse_between(blocks, a, b, a0, b0, out, depth, budget)
                return
        # No anchor: text that repeats itself (the same paragraph many times) has no
        # unique k-gram. Walk the diagonal instead, resynchronizing near each mismatch.
        blocks = _diagonal_blocks(a, b)
        if blocks:
            _recurse_between(blocks, a, b, a0, b0, out, depth, budget)
            return
    out.append((REPLACE, a0, a0 + n, b0, b0 + m))


def _recurse_between(blocks, a, b, a0: int, b0: int, out: list, depth: int, budget: list[int]) -> None:
    """Emit matched blocks as equal ranges and diff the gaps between them recursively."""
    pa = pb = 0
    for i, j, size in blocks:
        _diff_region(a[pa:i], b[pb:j], a0 + pa, b0 + pb, out, depth + 1, budget)
        out.append((EQUAL, a0 + i, a0 + i + size, b0 + j, b0 + j + size))
        pa, pb = i + size, j + size
    _diff_region(a[pa:], b[pb:], a0 + pa, b0 + pb, out, depth + 1, budget)


def _diagonal_blocks(
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
            size = _common_prefix(a[i:], b[j:])
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


def _emit_blocks(blocks: list[tuple[int, int, int]], a0: int, b0: int, n: int, m: int, out: list) -> None:
    pa = pb = 0
    for i, j, size in blocks + [(n, m, 0)]:
        if i > pa or j > pb:
            out.append((REPLACE, a0 + pa, a0 + i, b0 + pb, b0 + j))  # tag fixed in _normalize_ops
        if size:
            out.append((EQUAL, a0 + i, a0 + i + size, b0 + j, b0 + j + size))
        pa, pb = i + size, j + size


def _normalize_ops(raw: list, n_a: int, n_b: int) -> tuple[DiffOp, ...]:
    """Merge neighbours so equal and changed ranges alternate; name each change by its shape."""
    merged: list[list] = []
    for tag, a0, a1, b0, b1 in raw:
        if a1 == a0 and b1 == b0:
            continue
        kind = tag == EQUAL
        if merged and (merged[-1][0] == EQUAL) == kind:
            merged[-1][2], merged[-1][4] = a1, b1
        else:
            merged.append([EQUAL if kind else REPLACE, a0, a1, b0, b1])
    ops = []
    for tag, a0, a1, b0, b1 in merged:
        if tag != EQUAL:
            tag = INSERT if a1 == a0 else DELETE if b1 == b0 else REPLACE
        ops.append(DiffOp(tag, a0, a1, b0, b1))
    result = tuple(ops)
    check_ops(result, n_a, n_b)
    return result


# -- prefix and suffix ----------------------------------------------------------------


def _common_prefix(a: np.ndarray, b: np.ndarray) -> int:
    """Length of the common prefix, galloping so a short prefix costs little."""
    limit = min(len(a), len(b))
    done, step = 0, 64
    while done < limit:
        hi = min(limit, done + step)
        diff = np.flatnonzero(a[done:hi] != b[done:hi])
        if diff.size:
            return done + int(diff[0])
        done, step = hi, step * 4
    return limit


def _common_suffix(a: np.ndarray, b: np.ndarray) -> int:
    limit = min(len(a), len(b))
    if limit == 0:
        return 0
    return _common_prefix(a[::-1][:limit], b[::-1][:limit])


# -- exact diff for small regions: Myers' O(ND) greedy algorithm -----------------------


def _myers(a: list[int], b: list[int], max_work: int) -> tuple[list[tuple[int, int, int]] | None, int]:
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


def _kgram_hashes(x: np.ndarray, k: int) -> np.ndarray:
    """A 64-bit hash of every k-gram x[i:i+k] (collisions are checked by the caller).
    In place after one copy of x: each pass over a whole document's words would
    otherwise make a temporary of 8 bytes a word."""
    with np.errstate(over="ignore"):
        mixed = x.astype(np.uint64)
        mixed += np.uint64(1)
        mixed *= _MIX
        mixed ^= mixed >> np.uint64(31)
        if k == 1:
            return mixed
        length = len(x) - k + 1
        h = mixed[:length].copy()
        for t in range(1, k):
            h *= _POLY
            h ^= mixed[t : t + length]
    return h


def _unique_positions(h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values occurring exactly once in h (sorted) and their positions. `h` is the
    caller's to give up: it is let go as soon as its sorted copy exists."""
    order = np.argsort(h)  # stability is moot: only values occurring once are kept
    sorted_h = h[order]
    del h
    if sorted_h.size == 0:
        return sorted_h, order
    new = np.empty(sorted_h.size + 1, dtype=bool)
    new[0] = new[-1] = True
    np.not_equal(sorted_h[1:], sorted_h[:-1], out=new[1:-1])
    once = new[:-1] & new[1:]
    del new
    sorted_h = sorted_h[once]
    return sorted_h, order[once]


def _anchor_blocks(a: np.ndarray, b: np.ndarray, k: int) -> list[tuple[int, int, int]]:
    """Matched, non-overlapping, increasing blocks (i, j, size) from unique k-grams."""
    if len(a) < k or len(b) < k:
        return []
    ha, pos_a = _unique_positions(_kgram_hashes(a, k))
    hb, pos_b = _unique_positions(_kgram_hashes(b, k))
    if ha.size == 0 or hb.size == 0:
        return []
    # the values both hold, in increasing order, with their indices in each (as
    # np.intersect1d gives them, without its sorted copy of both together)
    at = np.searchsorted(ha, hb)
    at[at == ha.size] = 0
    ib = np.flatnonzero(ha[at] == hb)
    ia = at[ib]
    del at, ha, hb
    if ia.size == 0:
        return []
    ai, bj = pos_a[ia], pos_b[ib]
    del pos_a, pos_b, ia, ib
    ok = np.ones(ai.size, dtype=bool)
    for t in range(k):  # a hash collision must never make unequal words equal
        ok &= a[ai + t] == b[bj + t]
    ai, bj = ai[ok], bj[ok]
    if ai.size == 0:
        return []
    order = np.argsort(ai)  # positions in a are distinct
    ai, bj = ai[order], bj[order]
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
