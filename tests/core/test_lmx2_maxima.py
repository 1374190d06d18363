"""lmx2-v1's key maxima are cached per horizon and reused: a min_tokens change searches
none, and a wider horizon tests only the maxima a narrower one found. Whatever order
the parameters change in, a warm pipeline gives what a cold one gives."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core import Pipeline
from test_lmx2_oracle import small_params, streams


def _shape(result):
    return [(c.start_word, c.end_word, c.kind, c.boundary, c.hash) for c in result.chunks], result.diagnostics


@settings(max_examples=120)
@given(streams(), small_params(), st.lists(st.tuples(st.integers(1, 6), st.integers(0, 12)), min_size=1, max_size=6))
def test_any_sequence_of_horizon_and_min_changes_gives_the_cold_result(text, base, changes):
    warm = Pipeline()
    warm.chunk(text, base)
    for min_tokens, wider in changes:
        floor = max(1, min_tokens - 1)  # SPEC-lmx2 §1's lower bound of both horizons
        params = base.with_changes(min_tokens=min_tokens, max_tokens=max(base.max_tokens, 3 * min_tokens - 1),
                                   horizon=floor + wider, fill_horizon=max(base.fill_horizon, floor))
        assert _shape(warm.chunk(text, params)) == _shape(Pipeline().chunk(text, params))
