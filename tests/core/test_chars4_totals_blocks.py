"""The compiled chars4_totals of a str document (counts kept, int64 total) takes four
words at a time: every length of the offsets around that block (0 to 40 words), and a
word that ends before it starts at every place in a block, give numpy's counts and
totals, or the same error naming that word."""

from __future__ import annotations

import numpy as np
import pytest

from steadlith_core.kernel import select as kernel

needs_c = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built here")


def _offsets(n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 40, n)
    gaps = rng.integers(1, 3, n)
    starts = np.cumsum(gaps) + np.concatenate(([0], np.cumsum(lengths)[:-1])) if n else np.zeros(0, np.int64)
    return starts.astype(np.int32), (starts + lengths).astype(np.int32)


@needs_c
@pytest.mark.parametrize("n", range(41))
def test_counts_and_totals_of_every_length_around_the_block(n):
    starts, ends = _offsets(n, n)
    want = (ends.astype(np.int64) - starts + 3) // 4
    counts, cum = kernel.chars4_totals(starts, ends, True)
    assert counts.dtype == np.int32 and cum.dtype == np.int64
    assert counts.tolist() == want.tolist()
    assert cum.tolist() == [0, *np.cumsum(want).tolist()]


@needs_c
@pytest.mark.parametrize("bad", range(13))
def test_a_word_that_ends_before_it_starts_is_named_wherever_it_falls(bad):
    starts, ends = _offsets(13, 5)
    ends = ends.copy()
    ends[bad] = starts[bad] - (bad % 2)  # no character, or a negative length
    with pytest.raises(ValueError, match=f"word {bad} ends before it starts"):
        kernel.chars4_totals(starts, ends, True)
