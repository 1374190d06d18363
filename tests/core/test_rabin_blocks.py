"""The numpy Rabin windows are computed a block of words at a time (the arrays of a block
stay in the cache); each block re-reads the w - 1 symbols before it. Blocked or whole,
and next to the compiled rolling window where it is built, the fingerprints agree."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core.kernel import select as kernel
from steadlith_core.kernel import threads as numpy_threads
from steadlith_core.kernel import rabin


def _whole_and_blocked(symbols: np.ndarray, window: int, poly: int, block_words: int, threads: int = 1):
    saved = rabin.BLOCK_WORDS, rabin.WHOLE_WORDS
    try:
        rabin.BLOCK_WORDS = rabin.WHOLE_WORDS = 10**9
        whole = rabin.window_fingerprints(symbols, window, poly)
        rabin.BLOCK_WORDS, rabin.WHOLE_WORDS = block_words, 0  # blocks at any length
        with numpy_threads.using(threads):
            blocked = rabin.window_fingerprints(symbols, window, poly)
    finally:
        rabin.BLOCK_WORDS, rabin.WHOLE_WORDS = saved
    return whole, blocked


@settings(max_examples=150)
@given(
    st.lists(st.integers(0, 2**64 - 1), min_size=100, max_size=400),
    st.integers(1, 16),
    st.sampled_from([0x3DA3358B4DC173, 0x201B, 0x11B, 0x8000000000000003]),
    st.sampled_from([8, 16, 64]),  # a window up to a quarter of a block is computed in blocks
    st.sampled_from([1, 3]),  # blocks in order, or filled by threads
)
def test_blocked_windows_equal_whole_windows(symbols, window, poly, block_words, threads):
    whole, blocked = _whole_and_blocked(np.array(symbols, dtype=np.uint64), window, poly, block_words, threads)
    assert blocked.tolist() == whole.tolist()


def test_a_million_symbols_in_blocks_equal_the_rolling_window():
    """The default block size on a stream of many blocks, a window crossing every
    block boundary; against the compiled rolling window where it is built."""
    symbols = np.random.default_rng(5).integers(0, 2**63, 1_000_003, dtype=np.int64).view(np.uint64)
    symbols = symbols * np.uint64(3)
    whole, blocked = _whole_and_blocked(symbols, 16, 0x3DA3358B4DC173, rabin.BLOCK_WORDS, threads=2)
    assert np.array_equal(blocked, whole)
    if "c" in kernel.KERNELS:
        with kernel.using("c"):
            assert np.array_equal(kernel.window_fingerprints(symbols, 16, 0x3DA3358B4DC173), blocked)
