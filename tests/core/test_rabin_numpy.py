"""rabin.window_fingerprints (the numpy doubling) against SPEC §3 read literally.

The definition is evaluated in Python integers, one word at a time: F_k = sum over the
last w symbols of s_(k-j) x^(64 j), mod P. Polynomials of degree 49 to 63 take the
path that carries symbols unreduced through the doubling; lower degrees reduce every
symbol first: both are covered, with windows of every bit pattern up to 40 and wider
than the stream.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core.kernel.polynomial import clmul, is_irreducible, polymod
from steadlith_core.kernel.rabin import window_fingerprints

# irreducible, of degree 8, 13, 48, 49, 53 (the default) and 63
POLYNOMIALS = [0x11B, 0x201B, 0x100000000002D, 0x2000000000071, 0x3DA3358B4DC173, 0x8000000000000003]


def spec_fingerprints(symbols: list[int], window: int, p: int) -> list[int]:
    out = []
    for k in range(len(symbols)):
        total = 0
        for j in range(min(k, window - 1) + 1):
            total ^= clmul(symbols[k - j], 1 << (64 * j))
        out.append(polymod(total, p))
    return out


def test_the_polynomials_are_irreducible_of_the_degrees_named():
    assert [p.bit_length() - 1 for p in POLYNOMIALS] == [8, 13, 48, 49, 53, 63]
    assert all(is_irreducible(p) for p in POLYNOMIALS)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.one_of(st.integers(0, 2**64 - 1), st.sampled_from([0, 1, 2**63, 2**64 - 1])), max_size=80),
    st.one_of(st.integers(1, 40), st.just(10**9)),
    st.sampled_from(POLYNOMIALS),
)
def test_numpy_windows_equal_the_definition(symbols, window, p):
    got = window_fingerprints(np.array(symbols, dtype=np.uint64), window, p)
    assert got.dtype == np.uint64
    assert got.tolist() == spec_fingerprints(symbols, window, p)
