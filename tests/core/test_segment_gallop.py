"""The compiled segment walk finds each chunk's limits and candidates by galloping forward
from where the last chunk's searches ended (kernel/_kernel.c: gallop, gallop_cum): on
long documents, words of no token (flat stretches of the running total), candidates far
apart or dense, a minimum above the maximum (a hint past the answer) and a narrow
(int32) running total, its cuts are segment.py's."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core.kernel import select as kernel
from steadlith_core.kernel.segment import segment as python_segment

needs_c = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built here")


def _both(cum: np.ndarray, primary: list[int], backup: list[int], min_tokens: int, max_tokens: int) -> None:
    want = python_segment(cum, primary, backup, min_tokens, max_tokens)
    with kernel.using("c"):
        assert kernel.segment(cum, primary, backup, min_tokens, max_tokens) == want
        if cum[-1] < 2**30:  # the narrow total the compiled chars4/1 gives a bytes document
            assert kernel.segment(cum.astype(np.int32), primary, backup, min_tokens, max_tokens) == want


@needs_c
@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 4000),
    st.integers(0, 2**32 - 1),
    st.sampled_from([0.0, 0.2, 0.9]),
    st.sampled_from([0.001, 0.02, 0.3]),
    st.integers(0, 300),
    st.integers(0, 900),
)
def test_the_galloping_walk_cuts_where_segment_py_does(n, seed, zeros, density, min_tokens, max_tokens):
    rng = np.random.default_rng(seed)
    tokens = rng.integers(1, 12, n)
    tokens[rng.random(n) < zeros] = 0  # words of no token: runs of equal totals
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tokens, out=cum[1:])
    primary = np.flatnonzero(rng.random(n) < density).tolist()
    backup = sorted(set(primary) | set(np.flatnonzero(rng.random(n) < 2 * density).tolist()))
    _both(cum, primary, backup, min_tokens, max_tokens)


@needs_c
@pytest.mark.parametrize("min_tokens, max_tokens", [(0, 0), (1, 1), (96, 512), (512, 96), (5000, 6000),
                                                     (10**6, 10**6)])
def test_the_galloping_walk_on_a_long_document_with_far_and_near_candidates(min_tokens, max_tokens):
    """Candidates only near the start and the end, a dense cluster in the middle: searches
    whose answers are far from where the last ones ended, both ways."""
    n = 50_000
    tokens = np.tile(np.array([3, 0, 7, 1, 0, 12, 2], dtype=np.int64), n // 7 + 1)[:n]
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tokens, out=cum[1:])
    primary = [5, 17, 24_000, 24_001, 24_050, n - 3]
    backup = [2, 9, 30, *range(24_000, 24_400, 7), n - 10, n - 1]
    _both(cum, primary, backup, min_tokens, max_tokens)
