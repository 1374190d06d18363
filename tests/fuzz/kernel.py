"""Targets over the compiled kernel's entry points: bytes of any kind, arrays holding the
limits of their integer type, and the agreement of the compiled and the numpy kernels on
every valid input. Called directly (below the wrappers of kernel.select, which validate
and clamp), a malformed argument must raise TypeError, ValueError, OverflowError or
MemoryError: never crash the interpreter, never read or write outside a buffer (the
ASan/UBSan build of .ci/asan runs these same targets)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.kernel import bytescan, select
from steadlith_core.kernel.extension import KERNEL_MODULE as C

from .contract import expect
from .strategies import encode
from .target import Target

REFUSED = (TypeError, ValueError, OverflowError, MemoryError)
I64_MIN, I64_MAX, U64_MAX = -(2**63), 2**63 - 1, 2**64 - 1


def _no_c() -> str:
    return "" if "c" in select.KERNELS else "the compiled kernel is not built (or STEADLITH_KERNEL=numpy)"


# -- bytes of any kind -------------------------------------------------------------------

# pieces that exercise every class of the scanner: multi-byte spaces (NBSP, ideographic
# space, line separator), CR/LF runs, sentence ends, sequences cut short or overlong,
# surrogates encoded, bytes past U+10FFFF, long printable runs (the 16-byte fast path)
_PIECES = st.sampled_from([
    b" ", b"\n", b"\r\n", b"\r", b"\n\n", b"\t", b"\x0b\x0c", b"\xc2\xa0", b"\xe3\x80\x80", b"\xe2\x80\xa8",
    b"\xe2\x80\xa9", b"\xc2\x85", b"word", b"end.", b"(quote).\"", b"\xc3\xa9", b"\xf0\x9f\x98\x80", b"\xc3",
    b"\xe2\x80", b"\xf0\x9f\x98", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xff", b"\x80", b"\x00",
    b"x" * 17, b"a b " * 5, b"\xe2\x80\x8b",
])
_BYTES = st.one_of(st.binary(max_size=400), st.lists(_PIECES, max_size=60).map(b"".join),
                   st.text(max_size=200).map(encode))


def _python_utf8_error(data: bytes) -> int:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        return e.start
    return -1


def _as_tuple(raw) -> tuple:
    return (raw.starts.tolist(), raw.ends.tolist(), raw.para.tolist(), raw.symbols.tolist(), bytes(raw.canonical),
            raw.canonical_ends.tolist(), raw.sentence_ends.tolist())


def _check_bytes(_, data: bytes) -> None:
    assert C.utf8_error(data) == _python_utf8_error(data)
    assert C.utf8_error(bytearray(data)) == _python_utf8_error(data)
    # the scanner reads any bytes without crashing (its callers check UTF-8 first)
    expect(lambda: C.scan(data), REFUSED)
    expect(lambda: C.scan(memoryview(data)[1:]), REFUSED)
    C.xxh3_64(data, U64_MAX)
    assert len(C.xxh3_128_hexdigest(data)) == 32
    if _python_utf8_error(data) >= 0:
        return
    with select.using("c"):
        compiled = _as_tuple(select.scan(data))
        from_str = _as_tuple(select.scan(data.decode("utf-8")))
        from_buffer = _as_tuple(select.scan(bytearray(data)))
    numpy = _as_tuple(bytescan.scan(data))
    assert compiled == numpy, "the compiled and the numpy scans differ"
    assert from_str == compiled and from_buffer == compiled


KERNEL_BYTES = Target("kernel-bytes", "the kernel's scan, UTF-8 check and hashes on bytes of any kind; compiled == "
                      "numpy on valid UTF-8", _BYTES, _check_bytes, available=_no_c)

# -- integers at their limits ------------------------------------------------------------

_I64 = st.one_of(st.integers(I64_MIN, I64_MAX),
                 st.sampled_from([0, 1, -1, I64_MAX, I64_MIN, I64_MAX - 1, 2**31 - 1, 2**31, 2**32, 2**62]))
_U64 = st.one_of(st.integers(0, U64_MAX), st.sampled_from([0, 1, U64_MAX, 2**63, 2**32 - 1]))
_I64S = st.lists(_I64, max_size=8).map(lambda v: np.array(v, dtype=np.int64))
_SORTED = st.lists(st.integers(0, 2**40), max_size=8).map(lambda v: np.array(sorted(v), dtype=np.int64))
_ARRAY = st.one_of(_I64S, _SORTED)
_I32S = st.lists(st.integers(-(2**31), 2**31 - 1), max_size=8).map(lambda v: np.array(v, dtype=np.int32))
_U64S = st.lists(_U64, max_size=8).map(lambda v: np.array(v, dtype=np.uint64))
_ODD = st.integers(0, 2**63 - 1).map(lambda v: 2 * v + 1)
_WRONG = st.sampled_from([b"1234567", bytearray(3), np.zeros(3, dtype=np.int32), np.zeros(2, dtype=np.float64), 7,
                          "text", None, np.zeros((2, 2), dtype=np.int64)[:, 0]])


def _token_source(source: tuple, n: int) -> tuple:
    """lmx2_cuts' token source for n words from any values: an int64 or an int32 running
    total, or int32 offsets (starts, ends)."""
    kind, values = source
    values = np.resize(np.array(values, dtype=np.int64), n + 1)
    if kind == 0:
        return values, None, None
    if kind == 1:
        return values.astype(np.int32), None, None
    return None, values[:n].astype(np.int32), values[1:].astype(np.int32)


def _call(draw_name: str, args: tuple) -> None:
    fn = getattr(C, draw_name)
    expect(lambda: fn(*args), REFUSED)


_CALLS = st.one_of(
    st.tuples(st.just("segment"), st.tuples(_ARRAY, _ARRAY, _ARRAY, _I64, _I64)),
    st.tuples(st.just("chars4_totals"), st.tuples(_I32S, _I32S, st.booleans())),
    st.tuples(st.just("candidates"), st.tuples(_U64S, _U64, _U64, _U64, _U64)),
    st.tuples(st.just("local_maxima"), st.tuples(_U64S, _ARRAY, _U64, st.one_of(st.none(), _ARRAY), _I64)),
    st.tuples(st.just("lmx2_keys"), st.builds(
        lambda sym, cum, extra, key, prefer, base, dense: (sym, cum, np.ones(sym.size + extra, dtype=np.uint8), key,
                                                            prefer, base, pow(base, -1, 2**64), dense),
        _U64S, _ARRAY, st.integers(0, 2), _I64, st.booleans(), _ODD, _I64)),
    st.tuples(st.just("chunk_hashes"), st.tuples(st.binary(max_size=40), _ARRAY, _ARRAY, st.binary(max_size=8))),
    st.tuples(st.just("xxh3_64"), st.tuples(st.binary(max_size=64), _U64)),
    st.tuples(st.just("fingerprints"), st.builds(
        lambda sym, window, masks: (sym, window, *select._rolling_tables(0x1D, 4), None, masks),
        _U64S, st.integers(1, I64_MAX), st.one_of(st.none(), st.tuples(_U64, _U64, _U64, _U64)))),
    st.tuples(st.just("lmx2_prefix"), st.tuples(_U64S, _U64, st.booleans())),
    st.tuples(st.just("lmx2_cuts"), st.builds(
        lambda sym, extra, flags, source, ints, maxima: (
            sym, np.resize(np.array(flags, dtype=np.uint8), sym.size + extra),
            np.resize(np.array(flags[::-1], dtype=np.uint8), sym.size), ints[0] & 1,
            *_token_source(source, sym.size), *ints[1:], maxima),
        _U64S, st.integers(-1, 1).map(lambda x: max(x, 0)), st.lists(st.integers(0, 1), min_size=1, max_size=8),
        st.tuples(st.integers(0, 2), st.lists(_I64, min_size=9, max_size=9)),
        st.tuples(st.integers(0, 1), _I64, _U64, _U64, _I64, _I64, _U64), st.one_of(st.none(), _ARRAY))),
    st.tuples(st.sampled_from(["segment", "chars4_totals", "chunk_hashes", "candidates", "local_maxima"]),
              st.lists(_WRONG, min_size=3, max_size=5).map(tuple)),
)


def _check_limits(_, case) -> None:
    name, args = case
    _call(name, args)


KERNEL_LIMITS = Target("kernel-limits", "every compiled entry point with arrays and integers at their type's "
                       "limits and malformed buffers -> a result or TypeError/ValueError/OverflowError",
                       _CALLS, _check_limits, available=_no_c)

# -- both kernels agree ------------------------------------------------------------------

_WORDS = st.sampled_from(["the", "Fox.", "é", "😀", "a-b", "x" * 30, "end!", "(b)", "\u00a0", "\u3000", "Zürich",
                          "\ud800"])
_GAPS = st.sampled_from([" ", "  ", "\n", "\n\n", "\r\n\r\n", "\t", "\u2028"])
_TEXT = st.lists(st.tuples(_WORDS, _GAPS), max_size=120).map(lambda ws: "".join(w + g for w, g in ws))
_PARAMS = st.one_of(
    st.builds(lambda lo, extra, window: ChunkerParams(min_tokens=lo, max_tokens=lo + extra, window_words=window),
              st.integers(1, 40), st.integers(0, 60), st.integers(1, 12)),
    st.builds(lambda lo, extra: ChunkerParams(min_tokens=lo, max_tokens=min(2**64 - 1, lo + extra)),
              st.integers(1, 2**64 - 1), st.integers(0, 2**64 - 1)),
    st.builds(lambda lo, extra: Lmx2Params(min_tokens=lo, max_tokens=3 * lo - 1 + extra), st.integers(1, 40),
              st.integers(1, 60)),
)


def _chunks(text: str, params) -> list:
    chunking = Pipeline().chunk(text, params)
    return [(c.start, c.end, c.kind, c.tokens, c.hash, c.boundary) for c in chunking.chunks]


def _check_agree(_, case) -> None:
    text, params, as_bytes = case
    if as_bytes:
        text_in = encode(text)
        if _python_utf8_error(text_in) >= 0:
            return
    else:
        text_in = text
    with select.using("c"):
        compiled = _chunks(text_in, params)
    with select.using("numpy"):
        numpy = _chunks(text_in, params)
    assert compiled == numpy, "the compiled and the numpy kernels chunk differently"


_SEGMENT = st.builds(lambda tokens, data: (tokens, data), st.lists(st.integers(1, 2**40), max_size=60), st.data())


def _check_segment(_, case) -> None:
    from steadlith_core.kernel.segment import segment as python_segment

    tokens, data = case
    n = len(tokens)
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tokens, out=cum[1:])
    primary = sorted(data.draw(st.sets(st.integers(0, max(0, n - 1)), max_size=n // 2 + 1))) if n else []
    backup = sorted(data.draw(st.sets(st.integers(0, max(0, n - 1)), max_size=n // 2 + 1))) if n else []
    lo = data.draw(st.one_of(st.integers(1, 2**42), st.sampled_from([I64_MAX, 2**64 - 1, 2**63])))
    hi = lo + data.draw(st.one_of(st.integers(0, 2**42), st.sampled_from([0, I64_MAX, 2**64])))
    with select.using("c"):
        got = select.segment(cum, primary, backup, lo, hi)
    assert got == python_segment(cum, primary, backup, lo, hi)


KERNEL_AGREE = Target("kernel-agree", "compiled and numpy kernels chunk valid text (str and bytes, both rules) and "
                      "segment token runs at int64 scale identically",
                      st.one_of(st.tuples(st.just("chunk"), st.tuples(_TEXT, _PARAMS, st.booleans())),
                                st.tuples(st.just("segment"), _SEGMENT)),
                      lambda ctx, case: (_check_agree if case[0] == "chunk" else _check_segment)(ctx, case[1]),
                      available=_no_c)
