"""lmx2.local_maxima stays exact at the edges of int64, on numpy and compiled.

Positions are int64 and the reach a Python int: pos +- reach, and the span of the
positions itself, can leave int64 when either is extreme. The numpy path must then
still answer what the definition says (checked here against a brute-force reading of
it in Python integers), never wrap around or raise. So must the compiled kernel, in both
of its ways (blocks over dense positions, a queue over sparse ones).
"""

from __future__ import annotations

from contextlib import nullcontext

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from kernel_helpers import dense_layout
from steadlith_core.kernel import select as kernel
from steadlith_core.chunking import lmx2

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def brute_force(values: list[int], pos: list[int], reach: int, candidates: list[int]) -> list[bool]:
    return [all(values[i] >= values[j] for j in range(len(pos)) if abs(pos[j] - pos[i]) <= reach)
            for i in candidates]


def numpy_local_maxima(values: list[int], pos: list[int], reach: int, candidates: list[int]) -> list[bool]:
    return kernel_local_maxima("numpy", values, pos, reach, candidates)


def kernel_local_maxima(name: str, values: list[int], pos: list[int], reach: int, candidates: list[int],
                        dense: bool | None = None) -> list[bool]:
    with kernel.using(name), (nullcontext() if dense is None else dense_layout(dense)):
        return lmx2.local_maxima(np.array(values, dtype=np.uint64), np.array(pos, dtype=np.int64), reach,
                                 np.array(candidates, dtype=np.int64)).tolist()


# strictly increasing int64 positions: a start anywhere in int64, then gaps small or huge
EXTREME_POSITIONS = st.tuples(
    st.one_of(st.sampled_from([INT64_MIN, INT64_MIN + 1, -(2**62), 0, 2**62, INT64_MAX - 40]),
              st.integers(INT64_MIN, INT64_MAX - 40)),
    st.lists(st.one_of(st.integers(1, 5), st.sampled_from([2**31, 2**61, 2**62, 2**63 - 1])), min_size=0,
             max_size=12),
).map(lambda t: [p for p in np.cumsum([t[0], *t[1]], dtype=object).tolist() if p <= INT64_MAX])


@settings(max_examples=300)
@given(EXTREME_POSITIONS, st.data(),
       st.one_of(st.integers(0, 8), st.sampled_from([2**32, 2**62, 2**63 - 1, 2**63, 2**64, 2**70])))
@example([INT64_MIN, INT64_MAX], None, 2**64)
@example([INT64_MIN, -1, 0, INT64_MAX], None, 2**63 - 1)
@example([INT64_MAX - 2, INT64_MAX - 1, INT64_MAX], None, 2**63)
def test_numpy_local_maxima_at_the_edges_of_int64_agree_with_the_definition(pos, data, reach):
    m = len(pos)
    if data is None:  # the explicit examples: distinct values, every position a candidate
        values, candidates = list(range(m, 0, -1)), list(range(m))
    else:
        values = data.draw(st.lists(st.sampled_from([0, 1, 2, 2**64 - 1]), min_size=m, max_size=m))
        candidates = sorted(data.draw(st.sets(st.integers(0, m - 1)))) if m else []
    want = brute_force(values, pos, reach, candidates)
    assert numpy_local_maxima(values, pos, reach, candidates) == want
    if "c" in kernel.KERNELS:
        for dense in (True, False):  # blocks, queue
            assert kernel_local_maxima("c", values, pos, reach, candidates, dense) == want, dense


def test_a_reach_past_every_position_keeps_only_the_global_maxima():
    """The case that used to overflow: positions at both ends of int64 and a reach of
    2^64 (every position sees every other)."""
    pos = [INT64_MIN, -5, 7, INT64_MAX]
    values = [3, 9, 9, 1]
    assert numpy_local_maxima(values, pos, 2**64, [0, 1, 2, 3]) == [False, True, True, False]
    # and a reach of zero sees nothing but the position itself
    assert numpy_local_maxima(values, pos, 0, [0, 1, 2, 3]) == [True, True, True, True]
