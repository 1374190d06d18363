"""The two text kernels agree bit for bit, and each agrees with its references.

The compiled kernel (`_kernel.c`) and the numpy fallback (`bytescan.py`) are fed the
same texts: random Unicode built from every SPEC §1 whitespace code point, line-break
mixes, astral characters and very long words. Every array they return must be equal.
Their xxh3_64 must equal the `xxhash` package on every length from 0 to 2000 bytes
under both seeds of SPEC §3, and their Rabin windows must equal the doubling form.
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
from contextlib import contextmanager

import numpy as np
import pytest
import xxhash
from hypothesis import example, given, settings
from hypothesis import strategies as st

import steadlith_core
from steadlith_core import ChunkerParams, Pipeline, TokenCounter, register_counter, unregister_counter
from steadlith_core.kernel import select as kernel
from steadlith_core.kernel import threads as numpy_threads
from kernel_helpers import dense_layout
from steadlith_core.kernel.xxh3 import xxh3_64_many
from steadlith_core.chunking.normalize import WHITESPACE
from steadlith_core.kernel.rabin import window_fingerprints as doubling_fingerprints
from steadlith_core.kernel.segment import SENTENCE_CLOSERS, SENTENCE_ENDS, ends_sentence

needs_c = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built here")

WORD_CHARS = ["a", "Z", "7", ".", "\u00e9", "\u00ff", "\u0100", "\u65e5", "\U0001F680", "\U00010348",
              "\ufeff", "\u200b", "\u0080", "\u00c2"]
PIECES = st.one_of(
    st.sampled_from([chr(c) for c in WHITESPACE]),
    st.sampled_from(["\r\n", "\n\r", "\r\r", "\n\n", "\r\n\r\n", " \r \n "]),
    st.sampled_from(WORD_CHARS),
    st.text(min_size=1, max_size=6),  # anything Hypothesis likes, surrogates excluded below
    st.builds(lambda ch, k: ch * k, st.sampled_from(WORD_CHARS), st.integers(100, 3000)),  # very long words
    st.sampled_from(list(SENTENCE_CLOSERS) + list(SENTENCE_ENDS)),  # sentence ends, closers after them
)
TEXTS = st.lists(PIECES, max_size=60).map("".join).filter(lambda t: not any(0xD800 <= ord(c) < 0xE000 for c in t))


def scans(text: str):
    with kernel.using("c"):
        c = kernel.scan(text)
    with kernel.using("numpy"):
        n = kernel.scan(text)
    return c, n


@needs_c
@settings(max_examples=300)
@given(TEXTS)
@example("")
@example(" \u3000\u2028 ")
@example("a\r\n\r\nb\rc\n\rd\u2029\u2029e")
@example("x" * 5000 + "\u00a0" + "\U0001F680" * 700)
@example("a.\u201d b!)] c\u2026\u00bb d\u3002 e\uff01 f\uff1f\u2019 .\" \"' x.y \u00bb")
def test_both_kernels_return_the_same_arrays(text):
    c, n = scans(text)
    for field in ("starts", "ends", "para", "symbols", "canonical_ends", "sentence_ends"):
        got, want = getattr(c, field), getattr(n, field)
        assert got.dtype == want.dtype, field
        assert np.array_equal(got, want), field
    assert c.canonical == n.canonical
    # and both are SPEC §1 itself: words are str.split(), offsets index the source
    words = text.split()
    assert [text[s:e] for s, e in zip(c.starts.tolist(), c.ends.tolist())] == words
    assert c.canonical.decode() == steadlith_core.normalize(text).canonical_text(0, len(words))
    assert c.sentence_ends.tolist() == [ends_sentence(w) for w in words]
    # the compiled scan reads a str in place; given the UTF-8 bytes instead, it agrees
    from_bytes = kernel._kernel.scan(text.encode())
    assert from_bytes[5] == c.canonical and from_bytes[4] == c.symbols.tobytes() and from_bytes[1] == c.starts.tobytes()
    assert from_bytes[7] == c.sentence_ends.tobytes()


@needs_c
@pytest.mark.parametrize("text", ["a\ud800b c", "\udfff", "x \ud83d\ude80. y\u00e9\udc00\n\nz", "\u00e9 \udbff\u00ff"])
def test_both_kernels_agree_on_lone_surrogates(text):
    """A str built in Python may hold lone surrogates: both scans write them as UTF-8's
    "surrogatepass" does, in the canonical text and in the symbols."""
    c, n = scans(text)
    for field in RawScanFields:
        assert np.array_equal(getattr(c, field), getattr(n, field)) if field != "canonical" else c.canonical == n.canonical


RawScanFields = ("starts", "ends", "para", "symbols", "canonical", "canonical_ends", "sentence_ends")


def assert_same_scans(text: str) -> None:
    """Both kernels' scans of `text` are equal, and the compiled scan of its UTF-8 bytes too."""
    c, n = scans(text)
    for field in RawScanFields:
        got, want = getattr(c, field), getattr(n, field)
        assert (got == want if field == "canonical" else np.array_equal(got, want)), (field, text)
    from_bytes = kernel._kernel.scan(text.encode())
    assert [bytes(a) for a in from_bytes[1:]] == [
        c.starts.tobytes(), c.ends.tobytes(), c.para.tobytes(), c.symbols.tobytes(), bytes(c.canonical),
        c.canonical_ends.tobytes(), c.sentence_ends.tobytes()], text


# Characters that end or interrupt a run of printable ASCII, which the compiled scan
# copies 16 code points at a time: ASCII controls (word characters), whitespace of
# every storage width, and word characters of 1, 2 and 4 bytes.
RUN_BREAKERS = ["\x01", "\x1f", "\x7f", "\t", "\r\n", "\x85", "\xa0", "\xe9", "\xff", "\u0100", "\u1680",
                "\u2000", "\u200a", "\u3000", "\u65e5", "\uffff", "\U0001F680"]


@needs_c
@pytest.mark.parametrize("breaker", RUN_BREAKERS)
@pytest.mark.parametrize("widest", ["", "\u00e9", "\u0101", "\U0001F680"], ids=["ascii", "latin1", "bmp", "astral"])
def test_both_kernels_agree_wherever_a_run_of_ascii_is_broken(breaker, widest):
    """Every storage kind of str (the widest character sets it), with the breaking
    character at every offset of a long word, and the word ending the text or not."""
    for offset in range(0, 40):
        word = "x" * offset + breaker + "y" * (37 - offset)
        assert_same_scans(f"{widest} {word} " + "z" * offset)
        assert_same_scans(f"{widest}\n\n{word}")
        assert_same_scans(word + widest)


def _random_inputs(seed: int):
    rng = random.Random(seed)
    for length in range(0, 2001):
        yield rng.randbytes(length)


@needs_c
def test_compiled_xxh3_equals_xxhash_on_every_length_and_both_seeds():
    for data in _random_inputs(1):
        for seed in (0, 1):
            assert steadlith_core.kernel.select._kernel.xxh3_64(data, seed) == xxhash.xxh3_64_intdigest(data, seed), (
                len(data), seed)


@needs_c
def test_compiled_chunk_hashes_equal_xxhash_128_on_every_length():
    """The chunk hash (SPEC §7) in C: xxh3_128 of prefix + 8-byte length + the chunk's
    bytes, against the `xxhash` package, for chunks of every length from 0 to 2000
    bytes (every branch of the 128-bit algorithm) and a prefix of any length."""
    inputs = list(_random_inputs(3))
    blob = b"".join(inputs)
    lengths = np.array([len(d) for d in inputs], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    for prefix in (b"", b"p" * 7, bytes(range(90))):
        with kernel.using("c"):
            got = kernel.chunk_hashes(blob, starts, starts + lengths, prefix)
        want = [xxhash.xxh3_128_hexdigest(prefix + len(d).to_bytes(8, "big") + d) for d in inputs]
        assert got == want
    for data in inputs[:300]:  # and with no prefix nor length, the bare hash: lengths 0 to 16 included
        assert kernel._kernel.xxh3_128_hexdigest(data) == xxhash.xxh3_128_hexdigest(data), len(data)


def test_numpy_xxh3_equals_xxhash_on_every_length_and_both_seeds():
    inputs = list(_random_inputs(2))
    blob = b"".join(inputs)
    lengths = np.array([len(d) for d in inputs], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    for seed in (0, 1):
        got = xxh3_64_many(np.frombuffer(blob, dtype=np.uint8), starts, lengths, np.full(lengths.size, seed))
        want = [xxhash.xxh3_64_intdigest(d, seed) for d in inputs]
        assert got.tolist() == want


@needs_c
@settings(max_examples=60)
@given(
    st.lists(st.integers(0, 2**64 - 1), max_size=300),
    st.integers(1, 40),
    # irreducible, of degree 53 (the default), 13, 8 and 63
    st.sampled_from([0x3DA3358B4DC173, 0x201B, 0x11B, 0x8000000000000003]),
)
@pytest.mark.parametrize("carryless", [True, False], ids=["carryless", "tables"])
def test_rolling_and_doubling_rabin_windows_agree(carryless, symbols, window, poly):
    """Both forms of the compiled rolling window (carry-less multiplication where the
    CPU has it, byte tables) against numpy's doubling form."""
    s = np.array(symbols, dtype=np.uint64)
    with kernel.using("c"), rolling_by(carryless):
        rolling = kernel.window_fingerprints(s, window, poly)
    assert rolling.tolist() == doubling_fingerprints(s, window, poly).tolist()


@contextmanager
def rolling_by(carryless: bool):
    """The compiled Rabin passes with carry-less multiplication, or with the byte tables
    that CPUs without it (and CARRYLESS = False) get."""
    previous, kernel.CARRYLESS = kernel.CARRYLESS, carryless
    try:
        yield
    finally:
        kernel.CARRYLESS = previous


def test_chunking_makes_no_word_strings_unless_asked():
    """The built-in counters read offsets only: `texts` is made on first use."""
    result = Pipeline().chunk("one two  three\n\nfour " * 50, ChunkerParams(min_tokens=4, max_tokens=16))
    assert "texts" not in vars(result.words)
    assert result.words.texts[:3] == ("one", "two", "three")


def test_a_registered_per_word_counter_still_sees_each_word():
    seen = []

    def count(word: str) -> int:
        seen.append(word)
        return len(word)

    register_counter(TokenCounter("test-letters/1", "letters", per_word=count))
    try:
        result = Pipeline().chunk("ab c\u00e9 \U0001F680x", ChunkerParams(token_counter="test-letters/1", min_tokens=1,
                                                                     max_tokens=3))
    finally:
        unregister_counter("test-letters/1")
    assert seen == ["ab", "c\u00e9", "\U0001F680x"]
    assert result.word_tokens.tolist() == [2, 2, 2]


def _kernel_in_fresh_process(**env) -> str:
    script = "import steadlith_core as s, steadlith_core.kernel.select as k; print(s.KERNEL, ','.join(k.KERNELS))"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True,
                          env={**os.environ, **env}).stdout.strip()


def test_the_environment_variable_forces_the_fallback():
    assert _kernel_in_fresh_process(STEADLITH_KERNEL="numpy") == "numpy numpy"


@needs_c
def test_without_the_variable_the_compiled_kernel_runs():
    env = {k: v for k, v in os.environ.items() if k != "STEADLITH_KERNEL"}
    out = subprocess.run([sys.executable, "-c", "import steadlith_core as s; print(s.KERNEL)"], capture_output=True,
                         text=True, check=True, env=env).stdout.strip()
    assert out == "c"


@pytest.mark.skipif(not os.environ.get("STEADLITH_REQUIRE_KERNEL"), reason="only where CI requires the build")
def test_the_compiled_kernel_was_built():
    """CI sets STEADLITH_REQUIRE_KERNEL: a failed optional build must not pass quietly
    there as a run of the fallback alone."""
    assert "c" in kernel.KERNELS, "the optional extension steadlith_core.kernel._kernel did not build"


@needs_c
@settings(max_examples=200)
@given(
    st.lists(st.integers(1, 40), max_size=300),
    st.data(),
    st.integers(1, 200),
    st.integers(0, 400),
)
def test_compiled_segmentation_cuts_where_segment_py_does(tokens, data, min_tokens, extra):
    """The C walk over chunks (kernel.segment) against segment.py's, without snapping;
    huge min/max (past the document's total) included."""
    from steadlith_core.kernel.segment import segment as python_segment

    n = len(tokens)
    primary = sorted(data.draw(st.sets(st.integers(0, max(0, n - 1)), max_size=n // 3 + 1)) if n else set())
    backup = sorted(data.draw(st.sets(st.integers(0, max(0, n - 1)), max_size=n // 2 + 1)) if n else set())
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tokens, out=cum[1:])
    max_tokens = min_tokens + extra if extra < 390 else 2**63 + extra
    with kernel.using("c"):
        got = kernel.segment(cum, primary, backup, min_tokens, max_tokens)
    assert got == python_segment(cum, primary, backup, min_tokens, max_tokens)


@needs_c
@settings(max_examples=200)
@given(
    st.lists(st.integers(0, 40), max_size=300),
    st.data(),
    st.integers(1, 120),
    st.booleans(),
)
def test_compiled_lmx2_keys_equal_the_prefix_sums_of_numpy(tokens, data, key_tokens, prefer):
    """lmx2-v1's keys: both C ways (the table of token positions, the sliding window for
    sparse tokens) against lmx2.window_hashes' prefix form, on symbols from a tiny set
    (repeats) or anywhere in 64 bits, any classes, words of no token; a window wider
    than the document included."""
    from steadlith_core.chunking import lmx2

    n = len(tokens)
    symbols = np.array(data.draw(st.lists(st.one_of(st.sampled_from([0, 1, 2**63]), st.integers(0, 2**64 - 1)),
                                          min_size=n, max_size=n)), dtype=np.uint64)
    classes = np.array(data.draw(st.lists(st.integers(0, 2), min_size=n + 1, max_size=n + 1)), dtype=np.uint8)
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tokens, out=cum[1:])
    key_tokens = key_tokens if key_tokens < 110 else 2**32  # the largest Lmx2Params accepts
    with kernel.using("numpy"):
        want = lmx2.compute_keys(symbols, cum, classes, key_tokens, prefer)
    for layout in ("table", "sliding"):
        with kernel.using("c"), dense_layout(layout == "table"):
            got = lmx2.compute_keys(symbols, cum, classes, key_tokens, prefer)
        for field, g, w in zip(lmx2.Lmx2Keys._fields, got, want):
            assert g.dtype == w.dtype and g.tolist() == w.tolist(), (layout, field)
        # without h, the hashes are written where key_1 goes: the keys must not change
        with kernel.using("c"), dense_layout(layout == "table"):
            lean = lmx2.compute_keys(symbols, cum, classes, key_tokens, prefer, keep_h=False)
        assert lean.h is None and lean.key_1.tolist() == want.key_1.tolist(), layout
        assert lean.key_2.tolist() == want.key_2.tolist(), layout


@needs_c
@settings(max_examples=300)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=300), st.data(), st.integers(0, 90))
def test_compiled_local_maxima_equal_the_sparse_table_of_numpy(gaps, data, reach):
    """Local maxima over a token distance: both C ways (blocks of the window's width
    over the positions laid out, the monotonic queue for sparse ones) against numpy's
    range maxima, with many ties (values from 0..3), any candidate subset, huge reaches."""
    from steadlith_core.chunking import lmx2

    m = len(gaps)
    values = np.array(data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=np.uint64)
    pos = np.cumsum(np.array(gaps, dtype=np.int64))
    candidates = np.array(sorted(data.draw(st.sets(st.integers(0, m - 1)))), dtype=np.int64)
    reach = reach if reach < 85 else 2**32  # the largest horizon Lmx2Params accepts
    with kernel.using("numpy"):
        want = lmx2.local_maxima(values, pos, reach, candidates)
    for layout in ("blocks", "queue"):
        with kernel.using("c"), dense_layout(layout == "blocks"):
            got = lmx2.local_maxima(values, pos, reach, candidates)
        assert got.tolist() == want.tolist(), layout


@settings(max_examples=200)
@given(st.lists(st.integers(1, 30), min_size=0, max_size=300), st.data(), st.integers(0, 90))
def test_local_maxima_of_every_index_equal_those_of_all_candidates_listed(gaps, data, reach):
    """candidates=None (every index, no array of them made) answers as the full list,
    on every kernel and, for the compiled one, both layouts."""
    from steadlith_core.chunking import lmx2

    m = len(gaps)
    values = np.array(data.draw(st.lists(st.integers(0, 3), min_size=m, max_size=m)), dtype=np.uint64)
    pos = np.cumsum(np.array(gaps, dtype=np.int64))
    every = np.arange(m, dtype=np.int64)
    for name in kernel.KERNELS:
        for dense in ((True, False) if name == "c" else (True,)):
            with kernel.using(name), dense_layout(dense):
                assert lmx2.local_maxima(values, pos, reach, None).tolist() == \
                    lmx2.local_maxima(values, pos, reach, every).tolist(), (name, dense)


@needs_c
@settings(max_examples=300)
@given(st.lists(st.integers(1, 30), min_size=1, max_size=300), st.data(), st.integers(0, 90),
       st.sampled_from([3, 2**64 - 1]))
def test_compiled_walk_over_every_index_and_its_indices_equal_numpy(gaps, data, reach, top):
    """Every index a candidate: the compiled forward walk (flags, and local_maxima_at's
    indices with an offset) against numpy's range maxima, with many ties (values from
    0..3) or random 64-bit ones, huge reaches and positions near the ends of int64."""
    from steadlith_core.chunking import lmx2
    from steadlith_core.kernel import select

    m = len(gaps)
    values = np.array(data.draw(st.lists(st.integers(0, top), min_size=m, max_size=m)), dtype=np.uint64)
    pos = np.cumsum(np.array(gaps, dtype=np.int64)) + data.draw(st.sampled_from([0, -(2**63), 2**63 - 1 - sum(gaps)]))
    reach = reach if reach < 85 else 2**32
    with kernel.using("numpy"):
        want = lmx2.local_maxima(values, pos, reach, None)
    with kernel.using("c"):
        assert lmx2.local_maxima(values, pos, reach, None).tolist() == want.tolist()
        found = select.local_maxima_at(values, pos, reach, 1)
    assert found.dtype == np.int64 and found.tolist() == (np.flatnonzero(want) + 1).tolist()


@needs_c
def test_compiled_walk_refuses_positions_that_do_not_increase():
    """The walk checks the positions as it passes them: a fall anywhere is refused."""
    from steadlith_core.kernel import _kernel

    values = np.array([1, 9, 3, 4, 5], dtype=np.uint64)
    for at in range(1, 5):
        pos = np.array([10, 20, 30, 40, 50], dtype=np.int64)
        pos[at] = pos[at - 1]
        with pytest.raises(ValueError, match="increase strictly"):
            _kernel.local_maxima(values, pos, 15, None, 0)
        with pytest.raises(ValueError, match="increase strictly"):
            _kernel.local_maxima_at(values, pos, 15, 0)


@needs_c
def test_compiled_lmx2_stages_refuse_what_they_cannot_answer_and_survive_extremes():
    """Called directly (the wrappers never send such input), the kernel's lmx2 stages
    refuse what breaks their preconditions and stay exact, in bounds and quick at the
    edges of int64 whatever dense_limit a caller passes (found by an ASan/UBSan run)."""
    from steadlith_core.kernel import _kernel
    from steadlith_core.chunking import lmx2

    u64, i64 = (lambda v: np.array(v, dtype=np.uint64)), (lambda v: np.array(v, dtype=np.int64))
    base, inverse, huge = lmx2.KEY_BASE, pow(lmx2.KEY_BASE, -1, 2**64), 2**63 - 1
    classes = np.zeros(3, dtype=np.uint8)
    with pytest.raises(ValueError, match="decreasing"):
        _kernel.lmx2_keys(u64([5, 6]), i64([0, 3, 2]), classes, 1, False, base, inverse, huge)
    with pytest.raises(ValueError, match="0 first"):
        _kernel.lmx2_keys(u64([5, 6]), i64([1, 3, 4]), classes, 1, False, base, inverse, huge)
    with pytest.raises(ValueError, match="inverse"):
        _kernel.lmx2_keys(u64([5, 6]), i64([0, 1, 2]), classes, 1, False, base, 12345, huge)
    with pytest.raises(ValueError, match="increase strictly"):
        _kernel.local_maxima(u64([1, 2]), i64([5, 0]), 0, i64([1]), 0)
    # a running total near 2^62 with any dense_limit: the table is capped, not allocated
    h, _, _ = _kernel.lmx2_keys(u64([7]), i64([0, 2**62]), np.zeros(2, dtype=np.uint8), 1, False, base, inverse, huge)
    assert np.frombuffer(h, dtype=np.uint64).tolist() == [0, 7]
    # positions at the ends of int64, any dense_limit: exact (numpy agrees), and quick
    for values, pos, reach, cands, want in (([1, 2], [0, 2**63 - 2], 2, [0], [True]),
                                            ([1, 2], [0, 2**63 - 2], 0, [1], [True]),
                                            ([1, 2], [-(2**63), 2**63 - 1], 1, [0, 1], [True, True]),
                                            ([2, 1], [-(2**63), 2**63 - 1], 2**64 - 1, [0, 1], [True, False]),
                                            ([1], [2**63 - 1], 1, [0], [True])):
        for limit in (0, huge):
            got = _kernel.local_maxima(u64(values), i64(pos), reach, i64(cands), limit)
            assert np.frombuffer(got, dtype=np.bool_).tolist() == want, (pos, reach, limit)


@needs_c
@pytest.mark.parametrize("reach", [1, 255, 32_767, 32_768, 100_000])
def test_compiled_local_maxima_over_wide_windows_on_real_keys(reach):
    """The blocks are as wide as the window and held two at a time; from a reach of
    32,768 the queue answers instead. Both against numpy on 40,000 positions of real
    text's spacing (1-5 tokens apart) with random 64-bit keys and every index a candidate."""
    from steadlith_core.chunking import lmx2

    rng = np.random.default_rng(reach)
    pos = np.cumsum(rng.integers(1, 6, 40_000)).astype(np.int64)
    values = rng.integers(0, 2**64 - 1, pos.size, dtype=np.uint64, endpoint=True)
    candidates = np.arange(pos.size, dtype=np.int64)
    with kernel.using("numpy"):
        want = lmx2.local_maxima(values, pos, reach, candidates)
    with kernel.using("c"):
        got = lmx2.local_maxima(values, pos, reach, candidates)
    assert want.sum() >= 1 and got.tolist() == want.tolist()


@needs_c
@settings(max_examples=100, deadline=None)
@given(TEXTS, st.integers(1, 12), st.integers(0, 30))
def test_both_kernels_chunk_alike_under_both_rules(text, min_tokens, extra):
    """Whole chunkings, each rule at small sizes so that texts of a few words cut often."""
    from steadlith_core import Lmx2Params

    if not steadlith_core.has_words(text):
        return
    for params in (ChunkerParams(min_tokens=min_tokens, max_tokens=min_tokens + extra + 1, primary_mask=0x3, primary_remainder=0x3,
                                 backup_mask=0x1, backup_remainder=0x1),
                   Lmx2Params(min_tokens=min_tokens, max_tokens=3 * min_tokens + extra, horizon=min_tokens + 3,
                              fill_horizon=min_tokens + 1, key_tokens=max(1, extra))):
        with kernel.using("c"):
            c = Pipeline().chunk(text, params)
        with kernel.using("numpy"):
            n = Pipeline().chunk(text, params)
        assert [(x.start_word, x.end_word, x.kind, x.boundary, x.hash, x.text) for x in c.chunks] == \
            [(x.start_word, x.end_word, x.kind, x.boundary, x.hash, x.text) for x in n.chunks]
        assert c.word_tokens.dtype == n.word_tokens.dtype and np.array_equal(c.word_tokens, n.word_tokens)
        assert c.cum_tokens.dtype == n.cum_tokens.dtype and np.array_equal(c.cum_tokens, n.cum_tokens)


@needs_c
@pytest.mark.parametrize("as_bytes", [False, True], ids=["str", "bytes"])
def test_compiled_chars4_counts_and_totals_equal_numpy(as_bytes):
    """chars4/1 counted in the compiled pass: per word ceil(code points / 4) (1-8
    code points and long words, astral characters one each), their running total, and a
    bytes document's counts made from the total when asked; as numpy counts them."""
    text = " ".join("\U0001F680" * k + "e" * (k % 3) for k in range(1, 300)) + "\n\n" + "x" * 100_000
    doc = text.encode() if as_bytes else text
    with kernel.using("c"):
        c = Pipeline().chunk(doc)
    with kernel.using("numpy"):
        n = Pipeline().chunk(doc)
    want = [(len(w) + 3) // 4 for w in text.split()]
    assert c.word_tokens.tolist() == n.word_tokens.tolist() == want
    assert c.word_tokens.dtype == n.word_tokens.dtype
    assert c.cum_tokens.tolist() == n.cum_tokens.tolist() == [0, *np.cumsum(want).tolist()]


def _bench_json(tmp_path, *extra):
    import json

    doc = tmp_path / "doc.txt"
    doc.write_text("Some words to chunk, over and over.\n\n" * 400, encoding="utf-8")
    # --memory-only measures the bench's own Markdown and takes no FILE
    file = [] if "--memory-only" in extra else [str(doc)]
    out = subprocess.run([sys.executable, "-m", "steadlith_core", "bench", *file, "--repeat", "1",
                          "--format", "json", *extra], capture_output=True, text=True, check=True).stdout
    return json.loads(out)


@pytest.mark.bench
def test_bench_names_the_kernel_and_times_every_kernel_side_by_side(tmp_path):
    report = _bench_json(tmp_path)
    assert report["kernel"] == kernel.active()
    rows = report["kernels"]["kernels"]
    threads = report["kernels"]["numpy_threads"]
    assert threads == numpy_threads.count()
    # numpy on its threads and, when it has several, on one beside them
    assert tuple(rows) == kernel.KERNELS + (("numpy-1t",) if threads > 1 else ())
    assert all(r["this file"]["cold_mb_per_s"] > 0 for r in rows.values())


@pytest.mark.bench
def test_bench_peers_times_exactly_the_installed_peers(tmp_path):
    import importlib.util

    def has_fast_chunker() -> bool:  # chonkie's FastChunker came after its RecursiveChunker
        if importlib.util.find_spec("chonkie") is None:
            return False
        import chonkie

        return hasattr(chonkie, "FastChunker")

    report = _bench_json(tmp_path, "--peers")
    names = set(report["peers"]["chunkers"])
    installed = {
        "langchain RecursiveCharacterTextSplitter": importlib.util.find_spec("langchain_text_splitters") is not None,
        "chonkie RecursiveChunker": importlib.util.find_spec("chonkie") is not None,
        "chonkie FastChunker": has_fast_chunker(),
        "semchunk": importlib.util.find_spec("semchunk") is not None,
    }
    ours = {f"steadlith {rule} {form}" for rule in ("tttd-v1", "lmx2-v1") for form in ("str", "bytes")}
    assert names == ours | {n for n, present in installed.items() if present}
    for name in names - ours:  # every peer sized to tttd-v1's mean chunk, and a ratio for each
        assert report["peers"]["chunkers"][name]["chunk_size"] > 0
        assert f"str tttd-v1 / {name}" in report["peers"]["ratios"]


@pytest.mark.bench
@pytest.mark.parametrize("flag", ["--memory", "--memory-only"])
def test_bench_memory_reports_the_peak_of_a_fresh_process_for_the_size_asked(tmp_path, flag):
    report = _bench_json(tmp_path, flag, "--memory-mb", "1")
    rows = report["memory"]
    forms = ("str", "str-ascii", "bytes", "json", "jsonl", "compare")
    assert [(m["form"], m["rule"]) for m in rows] == [(f, r) for f in forms for r in ("tttd-v1", "lmx2-v1")]
    for m in rows:
        # compare's size is both documents': the file and its edited copy; str-ascii's the
        # file without its non-ASCII characters
        want = 2 if m["form"] == "compare" else 1
        low = 0.85 if m["form"] == "str-ascii" else 0.9
        assert m["kernel"] == kernel.active() and low * want <= m["size_mb"] <= 1.2 * want
        assert m["peak_net_mb"] > 0 and m["baseline_mb"] > 10  # an interpreter with numpy imported
        assert m["peak_over_size"] == pytest.approx(m["peak_net_mb"] / m["size_mb"], rel=0.05)
    by = {(m["form"], m["rule"]): m for m in rows}
    assert by[("str", "tttd-v1")]["str_bytes_per_char"] in (1, 2, 4)
    # the str rows hold the text as a str: its width a character times the file (ASCII
    # text, as the shipped notes are, one byte a character; RSS pages give some slack)
    as_str = by[("str", "tttd-v1")]
    assert 0.75 <= as_str["document_mb"] / (as_str["str_bytes_per_char"] * as_str["size_mb"]) <= 1.5
    # and over the str object's own size: its width a character times the characters
    assert 0.9 <= as_str["str_object_mb"] / (as_str["str_bytes_per_char"] * as_str["size_mb"]) <= 1.1
    assert as_str["peak_over_str"] == pytest.approx(as_str["peak_net_mb"] / as_str["str_object_mb"], rel=0.05)
    assert "peak_over_str" not in by[("bytes", "tttd-v1")]
    ascii_only = by[("str-ascii", "tttd-v1")]  # one byte a character: the str is the file's size
    assert ascii_only["str_bytes_per_char"] == 1 and ascii_only["size_mb"] <= as_str["size_mb"]
    assert 0.9 <= ascii_only["str_object_mb"] / ascii_only["size_mb"] <= 1.1


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
@settings(max_examples=100, deadline=None)
@given(text=TEXTS)
@example(text="\ufeffa\r\n\r\nb")
@example(text="  One two.\n\nThree \U0001F680 four\n")  # canonical from its first word: a view of the bytes
@example(text="a b\tc d\n\n\ne f\u00a0g\n\nh")  # canonical at first, then not
def test_chunking_the_utf8_bytes_gives_the_chunking_of_the_str(kernel_name, text):
    """Pipeline.chunk(bytes) scans the bytes themselves: the same words, offsets in
    code points, chunks and hashes as the str, under both rules, on either kernel."""
    from steadlith_core import Lmx2Params

    for params in (ChunkerParams(min_tokens=2, max_tokens=9, primary_mask=0x3, primary_remainder=0x3),
                   Lmx2Params(min_tokens=2, max_tokens=9, horizon=4, fill_horizon=3, key_tokens=3)):
        with kernel.using(kernel_name):
            a, b = Pipeline().chunk(text, params), Pipeline().chunk(text.encode(), params)
        assert [tuple(c) for c in b.chunks] == [tuple(c) for c in a.chunks]
        assert b.words.starts.tolist() == a.words.starts.tolist() and b.words.ends.tolist() == a.words.ends.tolist()
        assert b.word_tokens.tolist() == a.word_tokens.tolist() and b.text == text


UTF8_EDGES = [b"", b"a", b"\x80", b"\xc2", b"\xc1\xbf", b"\xe0\x9f\xbf", b"\xed\x9f\xbf", b"\xed\xa0\x80",
              b"\xef\xbf\xbf", b"\xf0\x8f\xbf\xbf", b"\xf0\x90\x80\x80", b"\xf4\x8f\xbf\xbf", b"\xf4\x90\x80\x80",
              b"\xf5\x80\x80\x80", b"\xff", "abcdefgh\u00e9".encode() + b"\xe2\x82"]


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
@settings(max_examples=300, deadline=None)
@given(data=st.one_of(st.binary(max_size=40), st.text(max_size=30).map(lambda t: t.encode("utf-8", "surrogatepass")),
                      st.lists(st.sampled_from(UTF8_EDGES + [b"x" * 9, "\U0001F680".encode()]), max_size=8).map(b"".join)))
def test_the_utf8_check_refuses_exactly_what_the_codec_refuses_at_the_same_byte(kernel_name, data):
    try:
        data.decode("utf-8")
        want = None
    except UnicodeDecodeError as e:
        want = e.start
    with kernel.using(kernel_name):
        if want is None:
            kernel.check_utf8(data)
        else:
            with pytest.raises(UnicodeDecodeError) as info:
                kernel.check_utf8(data)
            assert info.value.start == want


def test_chunking_bytes_that_are_not_utf8_is_a_clear_error_and_caches_nothing():
    pipeline = Pipeline()
    with pytest.raises(UnicodeDecodeError, match="position 5"):
        pipeline.chunk(b"word \xff word")
    assert len(pipeline._docs) == 0
    with pytest.raises(TypeError, match="str or UTF-8 bytes"):
        pipeline.chunk(12)  # type: ignore[arg-type]
    assert pipeline.chunk(bytearray(b"a b")).word_count == 2


@pytest.mark.parametrize("kernel_name,carryless", [(k, c) for k in kernel.KERNELS for c in (True, False)
                                                    if k == "c" or c])
@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.one_of(st.integers(0, 2**64 - 1), st.sampled_from([0, 0x7F, 0x3F, 2**64 - 1])), max_size=300),
    st.integers(1, 40),
    st.sampled_from([0x3DA3358B4DC173, 0x201B, 0x11B, 0x8000000000000003]),
    st.sampled_from([(0x7F, 0x7F, 0x3F, 0x3F), (0x1, 0x1, 0x0, 0x0), (0x3, 0x2, 0x1, 0x0), (0xFF, 0x0, 0x7, 0x5)]),
)
def test_candidates_in_one_pass_are_the_candidates_of_the_fingerprints(kernel_name, carryless, symbols, window, poly,
                                                                       masks):
    """The fused pass that stores no fingerprint (window_candidates), the one that stores
    them and tests the masks (fingerprints_and_candidates), and the mask test on stored
    fingerprints (candidates), against numpy's masks over the doubling form."""
    s = np.array(symbols, dtype=np.uint64)
    fp = doubling_fingerprints(s, window, poly)
    pm, pr, bm, br = masks
    want = (np.flatnonzero(fp & np.uint64(pm) == np.uint64(pr)).tolist(),
            np.flatnonzero(fp & np.uint64(bm) == np.uint64(br)).tolist())
    with kernel.using(kernel_name), rolling_by(carryless):
        fused = kernel.window_candidates(s, window, poly, *masks)
        stored = kernel.candidates(fp, *masks)
        kept, *tested = kernel.fingerprints_and_candidates(s, window, poly, *masks)
    assert (fused[0].tolist(), fused[1].tolist()) == want
    assert (stored[0].tolist(), stored[1].tolist()) == want
    assert (tested[0].tolist(), tested[1].tolist()) == want and kept.tolist() == fp.tolist()
    assert all(a.dtype == np.int64 for a in (*fused, *stored, *tested))


@needs_c
def test_both_kernels_agree_past_65536_words_and_long_offsets():
    """Offsets are int32 in both kernels: a text of 70,000 words of every width (ASCII,
    Latin-1, BMP, astral), line-break mixes and a 100,000-character word."""
    rng = random.Random(7)
    pieces = []
    for _ in range(70_000):
        pieces.append(rng.choice(["a", "\u00e9t\u00e9", "\u65e5\u672c", "\U0001F680x", "end."]))
        pieces.append(rng.choice([" ", "\r\n", "\n\n", "\u3000", "\r\r", "\u2029\u2029", "\t"]))
    text = "".join(pieces) + "w" * 100_000 + " tail"
    c, n = scans(text)
    for field in ("starts", "ends", "para", "symbols", "canonical_ends", "sentence_ends"):
        got, want = getattr(c, field), getattr(n, field)
        assert got.dtype == want.dtype and np.array_equal(got, want), field
    assert c.starts.dtype == np.int32 and c.starts.size == 70_002 and int(c.ends[-2]) == len(text) - 5
    assert c.canonical == n.canonical


@needs_c
def test_bytes_already_in_canonical_form_are_their_own_canonical_text():
    """Words parted by one space, paragraphs by one blank line (leading and trailing
    whitespace aside): the compiled scan returns a view of the input, not a copy of it."""
    data = ("\n  " + "Word w\u00e9 \U0001F680.\n\nNext one two." * 1000 + "\n").encode()
    with kernel.using("c"):
        raw = kernel.scan(data)
    assert np.shares_memory(np.frombuffer(raw.canonical, np.uint8), np.frombuffer(data, np.uint8))
    assert bytes(raw.canonical) == data.strip() and raw.canonical_ends[-1] == len(data.strip())
    with kernel.using("numpy"):
        assert kernel.scan(data).canonical == raw.canonical


def test_numpy_xxh3_equals_xxhash_across_passes_and_on_any_seed():
    """Words of every length class side by side, more of them than one pass of the
    short-word hash takes (so lanes of long words sit in the pass beside short ones), under
    the seeds of SPEC §3 and under arbitrary 64-bit seeds (kernel.xxh3_64 takes any)."""
    from steadlith_core.kernel import xxh3

    rng = random.Random(3)
    inputs = [rng.randbytes(rng.choice([0, 1, 3, 4, 8, 9, 16, 17, 128, 129, rng.randrange(300)]))
              for _ in range(xxh3.BLOCK_WORDS + 5000)]
    blob = b"".join(inputs)
    lengths = np.array([len(d) for d in inputs], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    for seeds in ([rng.randrange(2) for _ in inputs], [rng.randrange(2**64) for _ in inputs]):
        got = xxh3_64_many(np.frombuffer(blob, dtype=np.uint8), starts, lengths, np.array(seeds, dtype=np.uint64))
        assert got.tolist() == [xxhash.xxh3_64_intdigest(d, s) for d, s in zip(inputs, seeds)]
    with kernel.using("numpy"):
        assert kernel.xxh3_64(b"steadlith", 2**63 + 5) == xxhash.xxh3_64_intdigest(b"steadlith", 2**63 + 5)


ASCII_TEXTS = st.lists(st.one_of(
    st.sampled_from(["\t", "\n", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f", " ", "\r\n", "\n\r", "\r\r"]),
    st.text(st.characters(max_codepoint=0x7F), min_size=1, max_size=8),
    st.builds(lambda k: "w" * k, st.integers(100, 400)),
), max_size=60).map("".join)


@needs_c
@settings(max_examples=200)
@given(ASCII_TEXTS)
@example("")
@example(" \x1c\x1f a\r\n\r\nb\rc\n\rd\x0b\x0ce.\" f!) ")
def test_both_kernels_agree_on_ascii_text(text):
    """The numpy scan takes a shorter way when no byte is above 0x7F (no multi-byte
    character to place): every array must still be the compiled kernel's, on a str
    and on its bytes."""
    assert text.isascii()
    c, n = scans(text)
    for field in RawScanFields:
        assert np.array_equal(np.asarray(getattr(c, field)), np.asarray(getattr(n, field))), field
    with kernel.using("numpy"):
        from_bytes = kernel.scan(text.encode())
    assert np.array_equal(from_bytes.starts, n.starts) and from_bytes.canonical == n.canonical


@needs_c
@settings(max_examples=300)
@given(TEXTS, st.sampled_from([1, 2, 3, 8, 64]))
@example("a\n \n b\r\n\r c \u3000\n\n d", 1)
@example(" \n\n  x", 1)
@example("a " + "\u65e5" * 40 + " b\n\n\u2029c", 2)
def test_the_numpy_scan_in_pieces_equals_the_compiled_scan(text, piece_bytes):
    """A large document is scanned in pieces cut after a space, tab or \\n: with pieces
    of a few bytes, every stitch (line breaks of one gap on both sides of a cut, pieces
    without a word, no place to cut for a long stretch) meets the random texts."""
    from steadlith_core.kernel import bytescan
    from steadlith_core.kernel import threads as numpy_threads

    saved = bytescan.PIECE_BYTES
    bytescan.PIECE_BYTES = piece_bytes
    try:
        for threads in (1, 3):  # pieces in order, and scanned apart then stitched
            with numpy_threads.using(threads):
                c, n = scans(text)
            for field in RawScanFields:
                assert np.array_equal(np.asarray(getattr(c, field)), np.asarray(getattr(n, field))), (threads, field)
    finally:
        bytescan.PIECE_BYTES = saved


def test_pieces_end_after_single_byte_spaces_and_run_on_past_long_stretches_without_one():
    """A piece runs on to the first space, tab or \\n after its target end, however far:
    CJK text parted only by line breaks is still cut at each of them."""
    from steadlith_core.kernel import bytescan

    line = ("\u65e5" * 3000 + "\n").encode()  # 9,001 bytes, one place to cut
    assert bytescan._pieces(line * 3, 4000) == [(0, 9001), (9001, 18002), (18002, 27003)]
    text = b"aaaa " + b"x" * 50 + b" b c d e f g h"
    pieces = bytescan._pieces(text, 4)
    assert pieces[0] == (0, 5) and pieces[1] == (5, 56)  # the long word makes one long piece
    assert [text[z - 1 : z] for _, z in pieces[:-1]] == [b" "] * (len(pieces) - 1)
    assert pieces[-1][1] == len(text) and all(a < z for a, z in pieces)


@settings(max_examples=200)
@given(TEXTS, st.sampled_from([1, 3, 16]))
@example("x \ud83d\ude80. y\u00e9 \udc00\n\nz \ud800 b\r\n\r\n c", 2)  # lone surrogates in several pieces
def test_the_numpy_scan_of_a_str_in_pieces_equals_that_of_its_utf8(text, piece_bytes):
    """The numpy scan encodes a str a piece at a time, never the whole text: its pieces
    are cut in characters, those of bytes in bytes, and both give the same scan (lone
    surrogates written as "surrogatepass" does, in every piece)."""
    from steadlith_core.kernel import bytescan

    saved = bytescan.PIECE_BYTES
    bytescan.PIECE_BYTES = piece_bytes
    try:
        from_str, from_utf8 = bytescan.scan(text), bytescan.scan(text.encode("utf-8", "surrogatepass"))
    finally:
        bytescan.PIECE_BYTES = saved
    for field in RawScanFields:
        assert np.array_equal(np.asarray(getattr(from_str, field)), np.asarray(getattr(from_utf8, field))), field
    assert from_str.canonical == from_utf8.canonical and isinstance(from_str.canonical, bytes)
    assert from_str.starts.dtype == np.int32 and from_str.canonical_ends.dtype == np.int32
