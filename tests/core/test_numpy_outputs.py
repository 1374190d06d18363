"""The numpy path's kept output blocks (kernel/outputs.py): reused only once nothing
refers to them, bounded, let go on request, and never visible in a result."""

from __future__ import annotations

import numpy as np
import pytest

from steadlith_core.kernel import outputs
from steadlith_core.kernel import select as kernel


@pytest.fixture(autouse=True)
def _empty_pool():
    outputs.release()
    yield
    outputs.release()


def _block(a: np.ndarray) -> np.ndarray:
    """The kept block an output lives in (its base is a memoryview of it)."""
    return a.base.obj


def test_a_block_is_reused_once_no_view_of_it_is_left_and_not_before():
    n = outputs.MIN_BYTES // 4
    a = outputs.empty(n, np.int32)
    tail = a[n // 2 :]  # a view of the output keeps its block taken
    block = id(_block(a))
    del a
    assert outputs.stats() == {"taken_blocks": 1, "free_blocks": 0, "free_bytes": 0}
    b = outputs.empty(n, np.int32)
    assert id(_block(b)) != block
    del tail  # the last view of the first output: its block is free at once
    assert outputs.stats() == {"taken_blocks": 1, "free_blocks": 1, "free_bytes": 4 * n}
    c = outputs.empty(n, np.int32)
    assert id(_block(c)) == block and outputs.stats()["free_blocks"] == 0
    assert not np.shares_memory(b, c)


def test_small_outputs_and_ill_fitting_blocks_come_from_the_allocator():
    small = outputs.empty(1000, np.uint64)
    assert small.base is None and small.size == 1000
    big = outputs.empty(outputs.MIN_BYTES // 8 * 4, np.uint64)  # 4 MB
    del big
    assert outputs.stats()["free_bytes"] == 4 * outputs.MIN_BYTES
    half = outputs.empty(outputs.MIN_BYTES // 8 * 2, np.uint64)  # would leave half of the 4 MB block unused
    assert outputs.stats()["free_blocks"] == 1 and half.base is not None
    del half


def test_free_blocks_past_the_limit_and_on_release_are_let_go(monkeypatch):
    mb = outputs.MIN_BYTES
    monkeypatch.setattr(outputs, "LIMIT", 12 * mb)
    assert outputs.empty(3 * mb + 1, np.uint8).base is None  # over a quarter of the limit: not kept
    held = [outputs.empty(3 * mb, np.uint8) for _ in range(5)]
    first = id(_block(held[0]))
    for k in range(5):  # 15 MB come back, in this order: the longest free goes at once
        held[k] = None
    stats = outputs.stats()
    assert stats == {"taken_blocks": 0, "free_blocks": 4, "free_bytes": 12 * mb}
    assert first not in {id(b) for b in outputs._free}  # the first back went first
    assert kernel.release_pool() >= 12 * mb  # Pipeline.clear() calls it
    assert outputs.stats() == {"taken_blocks": 0, "free_blocks": 0, "free_bytes": 0}


def test_a_result_held_by_the_caller_is_never_written_over_by_the_next_chunking():
    """The joined scan and the fingerprints of a long document live in kept blocks: a
    second document chunked while the first result is held gets blocks of its own, and
    once the first is dropped its blocks serve the next one with the same arrays."""
    from steadlith_core import ChunkerParams, Pipeline
    from steadlith_core.bench.examples import generate_prose
    from steadlith_core.kernel import bytescan
    from steadlith_core.kernel import threads as numpy_threads

    first, second = generate_prose(2_600_000, seed=7), generate_prose(2_600_000, seed=8)
    saved = bytescan.PIECE_BYTES
    bytescan.PIECE_BYTES = 1 << 19  # several pieces, so the joined scan is in kept blocks
    try:
        with kernel.using("numpy"), numpy_threads.using(1):
            a = Pipeline().chunk(first, ChunkerParams())
            words_a, fp_a = a.words.starts.copy(), np.array(a.fingerprints)
            assert outputs.stats()["taken_blocks"] >= 4
            b = Pipeline().chunk(second, ChunkerParams())
            assert np.array_equal(a.words.starts, words_a) and np.array_equal(a.fingerprints, fp_a)
            hashes_b = [c.hash for c in b.chunks]
            del b
            free = outputs.stats()["free_blocks"]
            assert free >= 4
            again = Pipeline().chunk(second, ChunkerParams())
            assert outputs.stats()["free_blocks"] < free  # the blocks b left were taken again
            assert [c.hash for c in again.chunks] == hashes_b
            assert np.array_equal(a.words.starts, words_a)
    finally:
        bytescan.PIECE_BYTES = saved
