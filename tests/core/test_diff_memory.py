"""The word diff of two large documents allocates little beside its inputs: the common
prefix is found without listing every difference, and the k-gram hashes of the anchors
are made a block at a time (matching.HASH_BLOCK) and sorted in place, with the same
anchors as hashing the whole side at once."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from steadlith_core.comparison import matching
from steadlith_core.comparison.matching import _kgram_hashes, _unique_kgrams, anchor_blocks, common_prefix


def test_the_common_prefix_lists_no_difference():
    """Past an insertion every word differs: the prefix is found with a boolean a word,
    not an index (8 bytes) per difference."""
    n = 1_000_000
    a = np.arange(n, dtype=np.int64)
    b = a.copy()
    b[400_000:] += 1  # a word inserted: every word after it differs
    same = a[: n // 2].copy()
    tracemalloc.start()
    try:
        found = common_prefix(a, b), common_prefix(a[: n // 2], same), common_prefix(b[10:], a[10:])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert found == (400_000, n // 2, 400_000 - 10)
    assert peak < 2 * n, peak  # a bool a word; an index a difference would be 8 bytes each


def _reference(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Unique k-gram hashes (sorted) and their positions, hashing the whole side at once."""
    with np.errstate(over="ignore"):
        mixed = (x.astype(np.uint64) + np.uint64(1)) * matching._MIX
        mixed ^= mixed >> np.uint64(31)
        h = mixed[: len(x) - k + 1].copy()
        for t in range(1, k):
            h = (h * matching._POLY) ^ mixed[t : t + len(h)]
    values, first, counts = np.unique(h, return_index=True, return_counts=True)
    return values[counts == 1], first[counts == 1]


@pytest.mark.parametrize("block", [1, 7, 64, matching.HASH_BLOCK])
def test_kgrams_hashed_a_block_at_a_time_are_those_of_the_whole_side(monkeypatch, block):
    monkeypatch.setattr(matching, "HASH_BLOCK", block)
    rng = np.random.default_rng(block)
    for trial in range(20):
        x = rng.integers(0, int(rng.integers(2, 40)), int(rng.integers(0, 600))).astype(np.int64)
        for k in (1, 8):
            if len(x) < k:
                continue
            values, positions = _unique_kgrams(x, k)
            ref_values, ref_positions = _reference(x, k)
            assert values.tolist() == ref_values.tolist() and positions.tolist() == ref_positions.tolist()
            assert _kgram_hashes(x, k, 3, max(3, len(x) - k)).tolist() == _kgram_hashes(x, k)[3 : max(3, len(x) - k)].tolist()
        y = x.copy()
        if y.size:
            y[rng.integers(0, y.size, 3)] = 99
        blocks = anchor_blocks(x, y, 8)
        for i, j, size in blocks:
            assert x[i : i + size].tolist() == y[j : j + size].tolist()


def _anchor_pairs_at_once(a: np.ndarray, b: np.ndarray, k: int) -> list[tuple[int, int]]:
    """The verified anchor pairs (i, j) by the unique k-grams of each whole side, sorted by i."""
    va, pa = _reference(a, k)
    vb, pb = _reference(b, k)
    _, ia, ib = np.intersect1d(va, vb, assume_unique=True, return_indices=True)
    pairs = sorted(zip(pa[ia].tolist(), pb[ib].tolist()))
    return [(i, j) for i, j in pairs if a[i : i + k].tolist() == b[j : j + k].tolist()]


@pytest.mark.parametrize("block", [1, 5, matching.HASH_BLOCK])
def test_the_anchors_are_the_unique_kgrams_both_sides_hold(monkeypatch, block):
    monkeypatch.setattr(matching, "HASH_BLOCK", block)
    seen = []
    chain = matching._heaviest_chain

    def spy(run_i, run_j, run_len):  # the runs of anchors the chain is chosen from
        seen.append((list(run_i), list(run_j), list(run_len)))
        return chain(run_i, run_j, run_len)

    monkeypatch.setattr(matching, "_heaviest_chain", spy)
    rng = np.random.default_rng(block)
    for trial in range(30):
        x = rng.integers(0, int(rng.integers(2, 60)), int(rng.integers(8, 500))).astype(np.uint32)
        y = np.concatenate((x[: x.size // 2], rng.integers(0, 60, 4).astype(np.uint32), x[x.size // 3 :]))
        seen.clear()
        matching.anchor_blocks(x, y, 8)
        pairs = _anchor_pairs_at_once(x, y, 8)
        runs = [(i + t, j + t) for run_i, run_j, run_len in seen for i, j, n in zip(run_i, run_j, run_len)
                for t in range(n)]
        assert runs == pairs


def test_the_anchors_of_unique_text_keep_under_34_bytes_a_word(monkeypatch):
    """Text whose k-grams are nearly all unique (real prose, not a repeated corpus): the
    anchors keep their hashes (8 bytes), positions (4) and pairs, not 8-byte copies of
    each at every step (56 bytes a word). A block far smaller than the text, as in a
    large document."""
    monkeypatch.setattr(matching, "HASH_BLOCK", 4096)
    n = 400_000
    rng = np.random.default_rng(1)
    a = rng.integers(0, 50_000, n).astype(np.uint32)
    b = a.copy()
    b[rng.integers(0, n, 10)] = 50_001  # ten scattered edits
    tracemalloc.start()
    try:
        blocks = anchor_blocks(a, b, 8)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(blocks) >= 10
    assert peak < 34 * n, peak / n
