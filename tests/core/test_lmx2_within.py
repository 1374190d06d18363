"""lmx2's "some marked cut lies within a token distance" mask, used for the blocked zone
around edges and the gate around chosen cuts, is the brute-force mask: with no marked
cut, few, or many whose ranges touch, overlap or leave gaps."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core.chunking import lmx2


def _brute(marked, cum, distance):
    return np.array([any(abs(int(cum[c]) - int(cum[m])) < distance for m in marked) for c in range(cum.size)])


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=120), st.data(), st.integers(1, 40))
def test_within_is_the_brute_force_mask(tokens, data, distance):
    cum = np.concatenate([[0], np.cumsum(tokens)]).astype(np.int64)
    marked = np.array(sorted(data.draw(st.sets(st.integers(0, cum.size - 1), max_size=cum.size))), dtype=np.int64)
    want = _brute(marked.tolist(), cum, distance)
    assert lmx2._within(marked, cum, distance).tolist() == want.tolist()
