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

from typing import Hashable, Iterable, NamedTuple, Sequence

import numpy as np

from ..chunking.normalize import WordStream
from ..kernel import select as kernel
from .matching import anchor_blocks, common_prefix, common_suffix, diagonal_blocks, myers

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


class DiffOp(NamedTuple):
    """One opcode: words a[a_start:a_end] become b[b_start:b_end]."""

    tag: str  # equal | insert | delete | replace
    a_start: int
    a_end: int
    b_start: int
    b_end: int


# Bytes walked at a time by utf8_offsets without the compiled kernel.
OFFSET_PIECE = 1 << 20


def utf8_offsets(document: bytes, offsets: np.ndarray) -> np.ndarray:
    """The byte offset in the UTF-8 `document` of each code-point offset in `offsets`
    (ascending), int64: kernel.utf8_offsets with the compiled kernel, else a walk over
    the document a piece at a time (no array of the whole document's length)."""
    if kernel.KERNEL == "c":
        return kernel.utf8_offsets(document, offsets)
    offsets = np.asarray(offsets, dtype=np.int64)
    out = np.full(offsets.size, len(document), dtype=np.int64)  # past the last character: the end
    data = np.frombuffer(document, dtype=np.uint8)
    done = chars = 0  # offsets placed; characters before the piece
    for lo in range(0, data.size, OFFSET_PIECE):
        if done == offsets.size:
            break
        leads = np.flatnonzero((data[lo : lo + OFFSET_PIECE] & 0xC0) != 0x80)  # each character's first byte
        upto = int(np.searchsorted(offsets, chars + leads.size, "left"))  # the offsets starting in this piece
        out[done:upto] = leads[offsets[done:upto] - chars] + lo
        done, chars = upto, chars + leads.size
    return out


# -- public entry points -----------------------------------------------------------


def word_diff(a: WordStream, b: WordStream, ids: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[DiffOp, ...]:
    """Opcodes turning the words of `a` into the words of `b` ((text, para) equality).
    `ids`: an id a word of each stream, equal exactly when their symbols are (word_ids:
    what a one-shot comparison keeps instead of the symbols)."""
    if ids is None and a.symbols is not None and b.symbols is not None:
        ids = (a.symbols.view(np.int64), b.symbols.view(np.int64))
    if ids is not None:
        ops = diff_ids(*ids)
        if equal_ranges_hold(a, b, ops):
            return ops
    ids_a, ids_b = word_ids(a, b)
    return diff_ids(ids_a, ids_b)


def equal_ranges_hold(a: WordStream, b: WordStream, ops: Sequence[DiffOp]) -> bool:
    """Whether every equal opcode pairs words of equal text and paragraph flag.

    A range is compared a block of words at a time (CHECK_BLOCK_WORDS), each block
    usually the same stretch of text on both sides, checked as one comparison; when only
    the whitespace between words differs, its words are compared. A document given as
    bytes is compared as bytes, never decoded whole: only a block whose bytes differ."""
    blocks = [(a0 + k, b0 + k, min(CHECK_BLOCK_WORDS, a1 - a0 - k))
              for tag, a0, a1, b0, b1 in ops if tag == EQUAL for k in range(0, a1 - a0, CHECK_BLOCK_WORDS)]
    for tag, a0, a1, b0, b1 in ops:
        if tag == EQUAL and not np.array_equal(a.para[a0:a1], b.para[b0:b1]):
            return False
    spans_a, spans_b = _block_spans(a, [(x, n) for x, _, n in blocks]), _block_spans(b, [(y, n) for _, y, n in blocks])
    doc_a, doc_b = _text_of(a), _text_of(b)
    for (sa, ea), (sb, eb) in zip(spans_a, spans_b):
        text_a, text_b = doc_a[sa:ea], doc_b[sb:eb]
        if text_a == text_b:
            continue
        if isinstance(text_a, bytes):
            text_a = text_a.decode("utf-8")
        if isinstance(text_b, bytes):
            text_b = text_b.decode("utf-8")
        # whitespace is str.isspace() (docs/contract/normalizer.md#whitespace)
        if text_a.split() != text_b.split():
            return False
    return True


# Words compared at a time by equal_ranges_hold: the slices of a block are its only copies.
CHECK_BLOCK_WORDS = 1 << 16


def _text_of(ws: WordStream) -> str | bytes:
    """What a stream's word offsets index: its str, or its UTF-8 bytes (never decoded here)."""
    return ws.document if isinstance(ws.document, bytes) else ws.source


def _block_spans(ws: WordStream, blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """For each block (first word, word count) of `ws`, in order, where its text starts
    and ends in _text_of(ws): code points in a str, bytes in UTF-8 bytes."""
    if not blocks:
        return []
    first = np.fromiter((k for k, _ in blocks), dtype=np.int64, count=len(blocks))
    last = first + np.fromiter((n for _, n in blocks), dtype=np.int64, count=len(blocks)) - 1
    both = np.empty(2 * first.size, dtype=np.int64)
    both[0::2], both[1::2] = ws.starts[first], ws.ends[last]
    if isinstance(ws.document, bytes):
        both = utf8_offsets(ws.document, both)
    flat = both.tolist()
    return list(zip(flat[0::2], flat[1::2]))


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
    """Opcodes between two int arrays (the core of every diff here): int64, or uint32
    word ids as they are (no copy)."""
    a, b = _id_array(a), _id_array(b)
    raw: list[tuple[str, int, int, int, int]] = []
    _diff_region(a, b, 0, 0, raw, 0, [MYERS_TOTAL_WORK])
    return _normalize_ops(raw, len(a), len(b))


def _id_array(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x)
    dtype = x.dtype if x.dtype == np.uint32 else np.int64
    return np.ascontiguousarray(x, dtype=dtype)


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
    p = common_prefix(a, b)
    if p:
        out.append((EQUAL, a0, a0 + p, b0, b0 + p))
    s = common_suffix(a[p:], b[p:])
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
        blocks, spent = myers(a.tolist(), b.tolist(), min(MYERS_WORK, budget[0]))
        budget[0] -= spent
        if blocks is not None:
            _emit_blocks(blocks, a0, b0, n, m, out)
            return
    if depth < MAX_DEPTH:
        for k in ANCHOR_KGRAMS:
            blocks = anchor_blocks(a, b, k)
            if blocks:
                _recurse_between(blocks, a, b, a0, b0, out, depth, budget)
                return
        # No anchor: text that repeats itself (the same paragraph many times) has no
        # unique k-gram. Walk the diagonal instead, resynchronizing near each mismatch.
        blocks = diagonal_blocks(a, b)
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
