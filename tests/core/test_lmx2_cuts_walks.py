"""The compiled lmx2_cuts against the numpy stages on random token streams: every key_1
maximum, cut and kind equal, for each token source (an int64 or int32 running total,
chars4/1 of the scan's offsets) and with the maxima found or given.

The compiled walk keys only the barriers (cuts of class 1 or 2) and the cuts of the gaps
between barriers wider than two horizons, and passes over stretches between chosen cuts
narrower than two gates; the streams here reach each of those paths: barriers dense,
sparse or absent, the preference off (no barrier at all), long words next to and inside
the gaps, key windows wider than a gap and than the document, repeated symbols (equal
keys, which both qualify), and every parameter at its bounds (docs/contract/lmx2-v1.md#parameters)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core.chunking import lmx2
from steadlith_core.chunking.boundaries import classes_of
from steadlith_core.kernel import select as kernel

compiled = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built")

TOP = 2**32  # the largest min_tokens, horizon, fill_horizon and key_tokens Lmx2Params accepts


@st.composite
def token_streams(draw):
    """(symbols, tokens a word, paragraph flags, sentence-end flags): words of 1 to 8
    tokens, some long ones, symbols from an alphabet of 1 to 50 (small ones repeat whole
    key windows), barriers at any density."""
    n = draw(st.integers(1, 260))  # (the pipeline runs the numpy stages on an empty document)
    alphabet = draw(st.integers(1, 50))
    long_rate = draw(st.sampled_from([0.0, 0.0, 0.02, 0.2]))
    para_rate = draw(st.sampled_from([0.0, 0.0, 0.01, 0.05, 0.3, 1.0]))
    sent_rate = draw(st.sampled_from([0.0, 0.02, 0.1, 0.5, 1.0]))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    symbols = rng.integers(0, alphabet, size=n).astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)
    tokens = rng.integers(1, draw(st.integers(1, 8)) + 1, size=n)
    tokens = np.where(rng.random(n) < long_rate, rng.integers(9, 120, size=n), tokens).astype(np.int64)
    para = rng.random(n) < para_rate
    sentence = rng.random(n) < sent_rate
    return symbols, tokens, para, sentence


@st.composite
def cut_params(draw):
    """min, max, horizon, fill_horizon, key_tokens and the preference, each at its
    bounds or near them (max >= 3 min - 1, both horizons >= max(1, min - 1))."""
    min_tokens = draw(st.one_of(st.integers(1, 12), st.just(TOP)))
    max_tokens = 3 * min_tokens - 1 + draw(st.one_of(st.just(0), st.integers(0, 40), st.just(TOP)))
    floor = max(1, min_tokens - 1)
    horizon = draw(st.one_of(st.just(floor), st.integers(floor, floor + 60), st.just(TOP)))
    fill_horizon = draw(st.one_of(st.just(floor), st.integers(floor, floor + 60), st.just(TOP)))
    key_tokens = draw(st.one_of(st.just(1), st.integers(1, 80), st.just(TOP)))
    prefer = draw(st.booleans())
    return min_tokens, max_tokens, horizon, fill_horizon, key_tokens, prefer


def _numpy(symbols, cum, para, sentence, min_tokens, gate, horizon, fill_horizon, key_tokens, prefer):
    classes = classes_of(para, sentence)
    with kernel.using("numpy"):
        keys = lmx2.compute_keys(symbols, cum, classes, key_tokens, prefer)
        first = lmx2.compute_primary(keys, np.diff(cum), cum, min_tokens, horizon)
        cuts = lmx2.compute_fill(first, keys, cum, gate, fill_horizon)
        maxima = lmx2.key_maxima(keys, cum, horizon)
    return maxima.tolist(), cuts.positions.tolist(), cuts.kinds.tolist()


def _sources(tokens):
    """Each token source lmx2_cuts reads, for the same tokens a word."""
    cum = np.concatenate(([0], np.cumsum(tokens))).astype(np.int64)
    # chars4/1 of offsets: ceil(code points / 4) tokens, a word of 4 t - r code points
    lengths = 4 * tokens - (np.arange(tokens.size) % 4)
    starts = np.concatenate(([0], np.cumsum(lengths + 1)[:-1])).astype(np.int32)
    ends = (starts + lengths).astype(np.int32)
    return [(cum, None, None), (cum.astype(np.int32), None, None), (None, starts, ends)]


@compiled
@settings(max_examples=400, deadline=None)
@given(token_streams(), cut_params())
def test_lmx2_cuts_equals_the_numpy_stages(stream, params):
    symbols, tokens, para, sentence = stream
    min_tokens, max_tokens, horizon, fill_horizon, key_tokens, prefer = params
    gate = (max_tokens + 1 - min_tokens) // 2
    cum = np.concatenate(([0], np.cumsum(tokens))).astype(np.int64)
    want = _numpy(symbols, cum, para, sentence, min_tokens, gate, horizon, fill_horizon, key_tokens, prefer)
    with kernel.using("c"):
        args = (key_tokens, lmx2.KEY_BASE, horizon, min_tokens, gate, fill_horizon)
        for source in _sources(tokens):
            found, positions, kinds = kernel.lmx2_cuts(symbols, para, sentence, prefer, *source, *args, None)
            assert (found.tolist(), positions.tolist(), kinds.tolist()) == want
            again = kernel.lmx2_cuts(symbols, para, sentence, prefer, *source, *args, found)
            assert (positions.tolist(), kinds.tolist()) == (again[1].tolist(), again[2].tolist())


@compiled
@pytest.mark.parametrize("prefer", [True, False])
@pytest.mark.parametrize("barrier_every", [0, 3, 40, 400])
def test_long_documents_with_gaps_of_every_width(prefer, barrier_every):
    """Thousands of words, so the walks' rings wrap many times: barriers every k words
    (0: none), some long words, the default parameters and tight ones."""
    rng = np.random.default_rng(barrier_every + 7 * prefer)
    n = 30_000
    symbols = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    tokens = np.where(rng.random(n) < 0.002, 200, rng.integers(1, 5, size=n)).astype(np.int64)
    para = np.zeros(n, dtype=bool)
    sentence = np.zeros(n, dtype=bool)
    if barrier_every:
        at = np.arange(0, n, barrier_every) + rng.integers(0, barrier_every, size=len(range(0, n, barrier_every)))
        at = at[at < n]
        para[at[::3]] = True
        sentence[at[1::3]] = True
    for min_tokens, max_tokens, horizon, fill_horizon, key_tokens in ((96, 512, 128, 96, 32), (3, 8, 2, 2, 5),
                                                                       (10, 29, 9, 40, 300)):
        gate = (max_tokens + 1 - min_tokens) // 2
        cum = np.concatenate(([0], np.cumsum(tokens))).astype(np.int64)
        want = _numpy(symbols, cum, para, sentence, min_tokens, gate, horizon, fill_horizon, key_tokens, prefer)
        with kernel.using("c"):
            for source in _sources(tokens):
                got = kernel.lmx2_cuts(symbols, para, sentence, prefer, *source, key_tokens, lmx2.KEY_BASE, horizon,
                                       min_tokens, gate, fill_horizon, None)
                assert (got[0].tolist(), got[1].tolist(), got[2].tolist()) == want


def _traced_peak_of_cuts(n: int) -> int:
    """The traced peak (tracemalloc sees the kernel's PyMem and PyMem_Raw allocations)
    of one lmx2_cuts call over n one-token words, every one ending a sentence: every cut
    is a barrier."""
    rng = np.random.default_rng(7)
    symbols = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    cum = np.arange(n + 1, dtype=np.int64)
    para, sentence = np.zeros(n, dtype=bool), np.ones(n, dtype=bool)
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        kernel.lmx2_cuts(symbols, para, sentence, True, cum, None, None, 32, lmx2.KEY_BASE, 128, 64, 0, 96, None)
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


@compiled
def test_barrier_storage_does_not_grow_with_the_document():
    """Walk 1 keeps only the barriers its walks still read (a horizon's worth): four
    times the words, every one a barrier, add to the peak only what the cuts found take
    (under a byte a word), where a store of every barrier would add 24 bytes a word."""
    small, large = 50_000, 200_000
    grown = _traced_peak_of_cuts(large) - _traced_peak_of_cuts(small)
    assert grown < 4 * (large - small), f"the peak grew {grown / (large - small):.1f} bytes a word"
