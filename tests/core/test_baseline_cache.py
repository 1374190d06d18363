"""Analysis keeps the fixed-size baseline's churn by what it depends on: both texts,
max_tokens, the token counter and the rule's locality margin."""

import pytest
from steadlith_core import Analysis, ChunkerParams, Lmx2Params, compare
from steadlith_core.bench.examples import generate_prose
from steadlith_core.progress import Cancelled

A = generate_prose(12_000, seed=21)
B = A[:5_000] + " inserted words here " + A[5_000:]


@pytest.mark.parametrize("params", [ChunkerParams(), ChunkerParams(max_tokens=200, min_tokens=40),
                                    Lmx2Params(), Lmx2Params(max_tokens=300, min_tokens=60)])
def test_cached_baseline_is_the_baseline_compare_computes(params):
    an = Analysis()
    a, b = an.chunk(A, params), an.chunk(B, params)
    assert an.cached_baseline_churn(a, b) is None
    assert an.compare(a, b).baseline == compare(a, b).baseline
    assert an.cached_baseline_churn(a, b) == compare(a, b).baseline


def test_min_tokens_and_masks_reuse_the_baseline_max_tokens_does_not():
    an = Analysis()
    base = ChunkerParams()
    first = an.baseline_churn(an.chunk(A, base), an.chunk(B, base))
    for p in (base.with_changes(min_tokens=50), base.with_changes(primary_mask=0x3F, primary_remainder=0x3F)):
        assert an.cached_baseline_churn(an.chunk(A, p), an.chunk(B, p)) is first
    wider = base.with_changes(max_tokens=300)
    a, b = an.chunk(A, wider), an.chunk(B, wider)
    assert an.cached_baseline_churn(a, b) is None
    assert an.baseline_churn(a, b).max_tokens == 300 != first.max_tokens


def test_a_cancelled_baseline_is_not_cached_and_can_be_asked_again():
    an = Analysis()
    p = ChunkerParams()
    a, b = an.chunk(A, p), an.chunk(B, p)
    calls = []

    def stop_at_second(done, total):
        calls.append(done)
        if done == 2:
            raise Cancelled()

    with pytest.raises(Cancelled):
        an.baseline_churn(a, b, stop_at_second)
    assert calls == [0, 1, 2] and an.cached_baseline_churn(a, b) is None
    assert an.baseline_churn(a, b) == compare(a, b).baseline
