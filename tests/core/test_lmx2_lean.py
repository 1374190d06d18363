"""lmx2-v1 by the compiled kernel (select.lmx2_cuts, pipeline.run_lmx2_lean; and
select.lmx2_prefix, the prefix sums its window hashes are differences of) against the
numpy stages (lmx2.compute_keys, compute_cuts): the same cuts, kinds and key maxima,
byte for byte, on the shipped fixtures and on edge cases, for every token source the
passes read (chars4/1 of the offsets, an int64 or an int32 running total)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.chunking import lmx2
from steadlith_core.chunking.boundaries import classes_of
from steadlith_core.kernel import select as kernel

compiled = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built")

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
FIXTURES = ["mixed.txt", "long.txt", "lmx2-edges.txt", "whitespace.txt", "snap-edges.txt"]
LONG_WORDS = "\n\n".join(" ".join("x" * (40 + 7 * i + j) for j in range(30)) for i in range(3))
EDGES = {
    "empty": "",
    "blank": " \n\n \t",
    "one word": "word",
    "two words": "two words",
    "a paragraph of long words": LONG_WORDS,
    "long words between short ones": "a b c " + " ".join(["y" * 900, "d e f g"] * 6) + " h",
}
PARAMS = [
    Lmx2Params(),
    Lmx2Params(min_tokens=3, max_tokens=8, horizon=2, fill_horizon=2, key_tokens=2, token_counter="words/1"),
    Lmx2Params(min_tokens=20, max_tokens=80, horizon=300, fill_horizon=500, key_tokens=5),
    Lmx2Params(min_tokens=2, max_tokens=5, horizon=1, fill_horizon=1, key_tokens=1, boundary_preference="off"),
    Lmx2Params(min_tokens=10, max_tokens=40, horizon=2**32, fill_horizon=2**32, key_tokens=2**32),
]


def _rows(result):
    return [(c.start_word, c.end_word, c.start, c.end, c.kind, c.tokens, c.hash, c.boundary, c.text)
            for c in result.chunks]


def _texts():
    return [(name, (GOLDEN / name).read_text(encoding="utf-8")) for name in FIXTURES] + list(EDGES.items())


@compiled
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: p.params_hash[:8])
@pytest.mark.parametrize("name,text", _texts(), ids=[name for name, _ in _texts()])
def test_the_compiled_passes_chunk_as_the_numpy_stages(name, text, params):
    """str, bytes (chars4/1 from the offsets, symbols let go) and a long str (lean)
    give every chunk field of the numpy path."""
    with kernel.using("numpy"):
        want = _rows(Pipeline().chunk(text, params))
    with kernel.using("c"):
        got_str = _rows(Pipeline().chunk(text, params))
        got_bytes = _rows(Pipeline().chunk(text.encode(), params))
    assert got_str == want and got_bytes == want


def _numpy_cuts(symbols, cum, para, sentence, p):
    classes = classes_of(para, sentence)
    with kernel.using("numpy"):
        keys = lmx2.compute_keys(symbols, cum, classes, p.key_tokens, p.prefers_boundaries)
        first = lmx2.compute_primary(keys, np.diff(cum), cum, p.min_tokens, p.horizon)
        cuts = lmx2.compute_fill(first, keys, cum, p.gate, p.fill_horizon)
        maxima = lmx2.key_maxima(keys, cum, p.horizon)
    return maxima, cuts


def _random_words(seed: int, n: int, top: int):
    rng = np.random.default_rng(seed)
    symbols = rng.integers(0, 2**63, size=n, dtype=np.uint64) * np.uint64(2) + rng.integers(0, 2, size=n,
                                                                                               dtype=np.uint64)
    tok = rng.integers(1, top + 1, size=n)
    cum = np.concatenate(([0], np.cumsum(tok))).astype(np.int64)
    para = rng.random(n) < 0.05
    sentence = rng.random(n) < 0.1
    return symbols, cum, para, sentence


@compiled
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("p", PARAMS[:4], ids=lambda p: p.params_hash[:8])
def test_lmx2_cuts_reads_int64_and_int32_totals_and_finds_or_takes_the_maxima(seed, p):
    symbols, cum, para, sentence = _random_words(seed, 4000, 6)
    maxima, cuts = _numpy_cuts(symbols, cum, para, sentence, p)
    with kernel.using("c"):
        args = (p.key_tokens, lmx2.KEY_BASE, p.horizon, p.min_tokens, p.gate, p.fill_horizon)
        for total in (cum, cum.astype(np.int32)):
            found, positions, kinds = kernel.lmx2_cuts(symbols, para, sentence, p.prefers_boundaries, total, None,
                                                       None, *args, None)
            assert found.tolist() == maxima.tolist()
            assert positions.tolist() == cuts.positions.tolist() and kinds.tolist() == cuts.kinds.tolist()
            again = kernel.lmx2_cuts(symbols, para, sentence, p.prefers_boundaries, total, None, None, *args, found)
            assert again[1].tolist() == positions.tolist() and again[2].tolist() == kinds.tolist()


@compiled
def test_positions_past_int32_are_exact():
    """Token counts of up to 2^40 a word: every position and distance stays int64."""
    symbols, _, para, sentence = _random_words(3, 3000, 1)
    rng = np.random.default_rng(5)
    tok = rng.integers(2**38, 2**40, size=3000)
    cum = np.concatenate(([0], np.cumsum(tok))).astype(np.int64)
    # beyond what Lmx2Params accepts (2^32): the kernel's own limits are what is tested
    p = SimpleNamespace(min_tokens=2**40, horizon=2**41, fill_horizon=2**41, key_tokens=2**40, gate=2**40,
                        prefers_boundaries=True)
    maxima, cuts = _numpy_cuts(symbols, cum, para, sentence, p)
    with kernel.using("c"):
        found, positions, kinds = kernel.lmx2_cuts(symbols, para, sentence, True, cum, None, None, p.key_tokens,
                                                   lmx2.KEY_BASE, p.horizon, p.min_tokens, p.gate, p.fill_horizon,
                                                   None)
    assert found.tolist() == maxima.tolist()
    assert positions.tolist() == cuts.positions.tolist() and kinds.tolist() == cuts.kinds.tolist()


@compiled
def test_the_prefix_sums_are_the_window_hashes_differences_and_may_replace_the_symbols():
    symbols, cum, _, _ = _random_words(11, 2000, 4)
    a, h = lmx2.window_hashes(symbols, cum, 7)
    with kernel.using("c"):
        prefix = kernel.lmx2_prefix(symbols, lmx2.KEY_BASE, False)
        mine = symbols.copy()
        same = kernel.lmx2_prefix(mine, lmx2.KEY_BASE, True)
    assert same is mine and mine.tolist() == prefix.tolist()
    full = np.concatenate((np.zeros(1, dtype=np.uint64), prefix))
    powers = lmx2._powers(lmx2.KEY_BASE, symbols.size)
    with np.errstate(over="ignore"):
        assert (powers * (full[1:] - full[a[1:]])).tolist() == h[1:].tolist()


@compiled
def test_the_prefix_sums_are_never_written_over_read_only_symbols():
    """in_place on memory that may not be written (a frozen array, bytes) is refused,
    naming the argument, and leaves it as it was."""
    symbols, _, _, _ = _random_words(12, 64, 4)
    frozen = symbols.copy()
    frozen.flags.writeable = False
    before = frozen.tolist()
    with kernel.using("c"):
        with pytest.raises(ValueError, match="symbols"):
            kernel.lmx2_prefix(frozen, lmx2.KEY_BASE, True)
        data = symbols.tobytes()
        with pytest.raises(ValueError, match="symbols"):
            kernel._kernel.lmx2_prefix(data, pow(lmx2.KEY_BASE, -1, 2**64), True)
        assert kernel.lmx2_prefix(frozen, lmx2.KEY_BASE, False).tolist() == \
            kernel.lmx2_prefix(symbols.copy(), lmx2.KEY_BASE, True).tolist()
    assert frozen.tolist() == before and data == symbols.tobytes()


@compiled
def test_a_bytes_document_reads_its_symbols_and_lets_them_go():
    """The cuts read the symbols and never write them (a caller holding them sees them
    unchanged); the document lets them go, and the next rule that needs them scans
    them again."""
    text = (GOLDEN / "mixed.txt").read_text(encoding="utf-8")
    data = text.encode()
    with kernel.using("c"):
        pipeline = Pipeline()
        doc = pipeline.document(data)
        held = doc.symbols
        before = held.tolist()
        first = pipeline.chunk(data, Lmx2Params())
        assert held.tolist() == before and doc._symbols is None
        del held
        other = Pipeline()
        lmx2_run = other.chunk(data, Lmx2Params())
        assert other.document(data)._symbols is None
        tttd_after = other.chunk(data, ChunkerParams())
        assert other.document(data).symbols.tolist() == before  # scanned again
        assert _rows(tttd_after) == _rows(Pipeline().chunk(text, ChunkerParams()))
        assert _rows(lmx2_run) == _rows(first)
        # the stages a caller reads are made again, equal to a str run's
        keys, kept = lmx2_run.stages.keys, Pipeline().chunk(text, Lmx2Params()).stages.keys
        assert keys.h.tolist() == kept.h.tolist()
        assert lmx2_run.stages.classes.tolist() == Pipeline().chunk(text, Lmx2Params()).stages.classes.tolist()
        # a comparison's word stream keeps them, unchanged
        compared = Pipeline(word_symbols=True)
        compared.chunk(data, Lmx2Params())
        assert compared.document(data).symbols.tolist() == before


@compiled
def test_bad_input_is_refused_with_a_clear_error():
    symbols, cum, para, sentence = _random_words(2, 50, 3)
    with kernel.using("c"):
        args = (4, lmx2.KEY_BASE, 3, 2, 3, 3)
        flat = cum.copy()
        flat[10:] -= cum[10] - cum[9]  # word 9 has no token
        with pytest.raises(ValueError, match="a token or more"):
            kernel.lmx2_cuts(symbols, para, sentence, True, flat, None, None, *args, None)
        with pytest.raises(ValueError, match="one entry"):
            kernel.lmx2_cuts(symbols[:-1], para, sentence, True, cum, None, None, *args, None)
        with pytest.raises(ValueError, match="maxima"):
            kernel.lmx2_cuts(symbols, para, sentence, True, cum, None, None, *args, np.array([3, 2]))
        starts = np.arange(50, dtype=np.int32) * 2
        with pytest.raises(ValueError, match="a token or more"):
            kernel.lmx2_cuts(symbols, para, sentence, True, None, starts, starts, *args, None)


@compiled
@pytest.mark.parametrize("case", ["falls below zero", "falls", "wraps", "starts below zero"])
def test_a_total_that_is_no_running_total_is_refused_within_its_arrays(case):
    """A running total whose words do not each add a token or more is refused, whatever
    its values: the passes read nothing outside their arrays on the way (a maximum before
    the first edge) and no position arithmetic overflows (.ci/asan runs this under the
    sanitizers, where either aborts)."""
    top, low = np.iinfo(np.int64).max, np.iinfo(np.int64).min
    cum = {"falls below zero": [0, -3, -2, -1, 0, 1, 2, 3, 4],
           "falls": [0, 5, 6, 7, 1, 2, 3, 9, 12],
           "wraps": [0, 2**62 + 1, top, low, low + 1, low + 2, low + 3, low + 4, low + 5],
           "starts below zero": [low, low + 1, -3, top - 9, top - 7, top - 5, top - 3, top - 2, top - 1]}[case]
    cum = np.array(cum, dtype=np.int64)
    n = cum.size - 1
    symbols, _, para, sentence = _random_words(4, n, 3)
    with kernel.using("c"):
        for maxima in (None, np.array([1, 3, 5], dtype=np.int64)):
            for key_tokens, gate in ((2, 1), (2**62, 2**62), (top, top)):
                with pytest.raises(ValueError, match="a token or more"):
                    kernel._kernel.lmx2_cuts(symbols, para, sentence, True, cum, None, None, key_tokens,
                                             lmx2.KEY_BASE, 2, 1, gate, 2, maxima)
