"""The compiled scan that rolls tttd-v1's window as it reads UTF-8 bytes (scan_rabin,
select.scan_candidates): the words and the candidates of the scan and the rolling pass
apart, the check of the bytes that utf8_error makes apart, and the chunking of a bytes
document made through it equal to the one made apart."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, Pipeline
from steadlith_core.chunking import document as document_module
from steadlith_core.chunking.normalize import WHITESPACE
from steadlith_core.kernel import select as kernel

needs_rolling_scan = pytest.mark.skipif(
    "c" not in kernel.KERNELS or not kernel._kernel.HAS_CLMUL,
    reason="the compiled kernel rolls the window in its scan only where the CPU multiplies carry-less")

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PARAM_SETS = json.loads((GOLDEN / "expected.json").read_text(encoding="utf-8"))["param_sets"]
POLYNOMIALS = [0x3DA3358B4DC173, 0x201B, 0x11B, 0x8000000000000003]
MASKS = [(0x7F, 0x0, 0x3F, 0x0), (0x1, 0x1, 0x0, 0x0), (0x3, 0x2, 0x1, 0x0), (0xFF, 0x0, 0x7, 0x5)]
PIECES = st.one_of(
    st.sampled_from([chr(c) for c in WHITESPACE] + ["\r\n", "\n\n", " \r \n "]),
    st.sampled_from(["a", "Z", ".", "\u00e9", "\u65e5", "\U0001F680", "\ufeff", "\u0080", "word", "x" * 40]),
    st.text(min_size=1, max_size=6),
)
TEXTS = st.lists(PIECES, max_size=80).map("".join).filter(lambda t: not any(0xD800 <= ord(c) < 0xE000 for c in t))


def rolled(data: bytes, window: int, p: int, masks) -> tuple:
    """scan_candidates with chars4/1's total, each array as a list."""
    raw, primary, backup, cum = kernel.scan_candidates(data, window, p, masks, chars4=True)
    assert cum.dtype == np.int32
    return (raw.starts.tolist(), raw.ends.tolist(), raw.para.tolist(), raw.sentence_ends.tolist(),
            primary.tolist(), backup.tolist(), cum.tolist())


def apart(data: bytes, window: int, p: int, masks) -> tuple:
    """The same from the lean scan, the rolling pass over its stored symbols and chars4_totals."""
    raw = kernel.scan(data, lean=True)
    primary, backup = kernel.window_candidates(raw.symbols, window, p, *masks)
    _, cum = kernel.chars4_totals(raw.starts, raw.ends, False, narrow=True)
    return (raw.starts.tolist(), raw.ends.tolist(), raw.para.tolist(), raw.sentence_ends.tolist(),
            primary.tolist(), backup.tolist(), cum.tolist())


@needs_rolling_scan
@settings(max_examples=250, deadline=None)
@given(TEXTS, st.sampled_from([1, 2, 3, 16, 17, 40]), st.sampled_from(POLYNOMIALS), st.sampled_from(MASKS))
@example("", 16, POLYNOMIALS[0], MASKS[0])
@example("one", 1, POLYNOMIALS[0], MASKS[1])
@example(" a\u3000b\u00a0c\u2028d \U0001F680\r\n\r\ne ", 2, POLYNOMIALS[2], MASKS[2])
def test_the_rolling_scan_finds_the_words_and_candidates_of_the_scan_and_the_window_apart(text, window, p, masks):
    with kernel.using("c"):
        assert rolled(text.encode(), window, p, masks) == apart(text.encode(), window, p, masks)


@needs_rolling_scan
@pytest.mark.parametrize("window", [1, 5, 16, 1000])
def test_the_rolling_scan_agrees_past_the_first_candidate_lists_on_real_text(window):
    """Every golden document repeated past 1024 candidates a list (the lists grow) and
    windows under, at and far over a power of two (the ring of the last symbols)."""
    data = b"\n\n".join(path.read_bytes() for path in sorted(GOLDEN.glob("*.txt"))) * 40
    with kernel.using("c"):
        got, want = rolled(data, window, POLYNOMIALS[0], MASKS[1]), apart(data, window, POLYNOMIALS[0], MASKS[1])
    assert len(got[4]) > 4096 and got == want


NOT_UTF8 = [b"\xff", b"\x80", b"\xc0\xaf", b"\xc2", b"\xe2\x82", b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xf0\x8f\xbf\xbf",
            b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf0\x9f\x9a"]


@needs_rolling_scan
@pytest.mark.parametrize("bad", NOT_UTF8)
@pytest.mark.parametrize("where", ["start", "middle", "end", "in a word", "after a space"])
def test_the_rolling_scan_stops_at_the_byte_utf8_error_and_the_codec_name(bad, where):
    word = "mot d\u00e9j\u00e0 \U0001F680 ".encode() * 20
    data = {"start": bad + word, "middle": word + bad + word, "end": word + bad, "in a word": word + b"ab" + bad + b"cd",
            "after a space": word + b" " + bad}[where]
    with pytest.raises(UnicodeDecodeError) as codec:
        data.decode("utf-8")
    with kernel.using("c"):
        got = kernel._kernel.scan_rabin(data, 16, kernel._carryless_constants(POLYNOMIALS[0], 16), MASKS[0])
        assert got == kernel._kernel.utf8_error(data) == codec.value.start
        with pytest.raises(UnicodeDecodeError) as raised:
            kernel.scan_candidates(data, 16, POLYNOMIALS[0], MASKS[0])
    assert str(raised.value) == str(codec.value)


@needs_rolling_scan
@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=60))
def test_the_rolling_scan_accepts_exactly_what_the_codec_accepts(data):
    try:
        data.decode("utf-8")
        want = None
    except UnicodeDecodeError as e:
        want = e.start
    with kernel.using("c"):
        got = kernel._kernel.scan_rabin(data, 3, kernel._carryless_constants(POLYNOMIALS[2], 3), MASKS[2])
    assert (got if isinstance(got, int) else None) == want


@needs_rolling_scan
def test_the_rolling_scan_refuses_what_it_cannot_roll():
    k, constants = kernel._kernel, kernel._carryless_constants(POLYNOMIALS[0], 16)
    with pytest.raises(TypeError, match="not a str"):
        k.scan_rabin("text", 16, constants, MASKS[0])
    with pytest.raises(ValueError, match="window"):
        k.scan_rabin(b"text", 0, constants, MASKS[0])
    with pytest.raises(ValueError, match="window"):
        k.scan_rabin(b"text", kernel.FUSED_WINDOW_MAX + 1, constants, MASKS[0])
    with pytest.raises(ValueError, match="below 2\\^d"):
        k.scan_rabin(b"text", 16, constants, (1 << 53, 0, 0, 0))
    with pytest.raises(RuntimeError, match="carry-less"):
        k.scan_rabin(b"text", 16, None, MASKS[0])
    # where select.py does not roll in the scan, it says so and the caller rolls apart
    with pytest.raises(ValueError, match="2\\^30 bytes"):
        k.scan_rabin(b"x" * (kernel.FUSED_CHARS4_MAX + 1), 16, constants, MASKS[0], True)
    with kernel.using("c"):
        assert kernel.scan_candidates(b"text", 16, POLYNOMIALS[0], MASKS[0])[3] is None  # not asked for
        assert kernel.scan_candidates(b"text", kernel.FUSED_WINDOW_MAX + 1, POLYNOMIALS[0], MASKS[0]) is None
        assert kernel.scan_candidates(b"text", 16, POLYNOMIALS[1], (1 << 13, 0, 0, 0)) is None
    with kernel.using("numpy"):
        assert kernel.scan_candidates(b"text", 16, POLYNOMIALS[0], MASKS[0]) is None


def _chunks(result) -> list[tuple]:
    return [tuple(c) for c in result.chunks]


@pytest.mark.parametrize("name", sorted(PARAM_SETS))
@pytest.mark.parametrize("doc", sorted(p.name for p in GOLDEN.glob("*.txt")))
def test_a_bytes_document_chunks_through_the_rolling_scan_as_it_chunks_apart(name, doc, monkeypatch):
    """Every golden document under every golden parameter set: the chunks (hashes, text,
    offsets, tokens), fingerprints and word arrays of the bytes equal those of the str
    and those of the bytes chunked apart (check_utf8, the lean scan, the window)."""
    params = ChunkerParams(**PARAM_SETS[name]["params"])
    data = (GOLDEN / doc).read_bytes()
    through = Pipeline().chunk(data, params)
    with monkeypatch.context() as m:
        m.setattr(document_module, "scan_candidates", lambda *a, **kw: None)
        separately = Pipeline().chunk(data, params)
    as_str = Pipeline().chunk(data.decode("utf-8"), params)
    assert _chunks(through) == _chunks(separately) == _chunks(as_str)
    assert through.fingerprints.tolist() == separately.fingerprints.tolist() == as_str.fingerprints.tolist()
    assert through.words.starts.tolist() == as_str.words.starts.tolist()
    assert through.words.para.tolist() == as_str.words.para.tolist()


@needs_rolling_scan
def test_a_bytes_document_made_by_the_rolling_scan_stores_no_symbols_and_scans_again_for_them():
    params = ChunkerParams(min_tokens=8, max_tokens=40)
    data = (GOLDEN / "long.txt").read_bytes()
    pipeline = Pipeline()
    with kernel.using("c"):
        first = pipeline.chunk(data, params)
        doc = pipeline.document(data)
        assert doc._symbols is None  # never stored
        assert doc.stage("candidates").peek((params.window_words, params.polynomial, params.primary_mask,
                                             params.primary_remainder, params.backup_mask, params.backup_remainder))
        assert doc.symbols.tolist() == kernel.scan(data).symbols.tolist()  # asked for: scanned again
        other = params.with_changes(primary_mask=0xFF, primary_remainder=0x3)  # a mask change rolls over them
        assert _chunks(pipeline.chunk(data, other)) == _chunks(Pipeline().chunk(data.decode(), other))
    assert _chunks(first) == _chunks(Pipeline().chunk(data.decode(), params))


def test_bytes_that_are_not_utf8_are_refused_by_either_path_with_the_codecs_message(monkeypatch):
    data = "d\u00e9j\u00e0 vu ".encode() * 50 + b"\xe2\x82 tail"
    with pytest.raises(UnicodeDecodeError) as codec:
        data.decode("utf-8")
    pipeline = Pipeline()
    for kernel_name in kernel.KERNELS:
        with kernel.using(kernel_name), pytest.raises(UnicodeDecodeError) as raised:
            pipeline.chunk(data, ChunkerParams())
        assert str(raised.value) == str(codec.value)
        with kernel.using(kernel_name), pytest.raises(UnicodeDecodeError) as raised:
            pipeline.document(data)  # no parameters: checked apart
        assert str(raised.value) == str(codec.value)
    assert len(pipeline._docs) == 0
    assert pipeline.chunk(data[:-7], ChunkerParams()).word_count == len(data[:-7].split())  # valid: chunked


@pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built here")
@pytest.mark.parametrize("n", [255, 256, 257, 1001, 20_000])
@pytest.mark.parametrize("window", [1, 2, 16, 31, 32, 33])
def test_the_rolling_passes_over_stored_symbols_equal_the_doubling_form_however_the_stream_is_split(n, window):
    """The compiled passes roll a long stream as two chains (the second from the window
    before its half): every fingerprint and candidate equals numpy's doubling form, at
    every length around where the split starts and windows on both sides of n / 8."""
    from steadlith_core.kernel.rabin import window_fingerprints as doubling

    s = np.random.default_rng(n * 100 + window).integers(0, 2**64, n, dtype=np.uint64, endpoint=False)
    for p, masks in zip(POLYNOMIALS, MASKS):
        want_fp = doubling(s, window, p)
        want = [np.flatnonzero(want_fp & np.uint64(m) == np.uint64(r)).tolist() for m, r in (masks[:2], masks[2:])]
        with kernel.using("c"):
            for carryless in (True, False):
                kernel.CARRYLESS = carryless
                try:
                    fp = kernel.window_fingerprints(s, window, p)
                    kept, *tested = kernel.fingerprints_and_candidates(s, window, p, *masks)
                    fused = kernel.window_candidates(s, window, p, *masks)
                finally:
                    kernel.CARRYLESS = True
                assert fp.tolist() == kept.tolist() == want_fp.tolist()
                assert [a.tolist() for a in tested] == [a.tolist() for a in fused] == want
