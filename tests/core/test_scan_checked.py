"""The compiled lean scan that checks UTF-8 bytes as it reads them (scan_checked,
select.scan_checked): it stops at the byte utf8_error and the codec name, with the
codec's message; its words equal scan_lean's, and its chars4/1 running total
chars4_totals'; and a bytes document chunked through it (either rule) equals the one
checked and scanned apart."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.chunking import document as document_module
from steadlith_core.chunking.normalize import WHITESPACE
from steadlith_core.kernel import select as kernel

needs_kernel = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built here")

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
PARAM_SETS = json.loads((GOLDEN / "expected.json").read_text(encoding="utf-8"))["param_sets"]
PIECES = st.one_of(
    st.sampled_from([chr(c) for c in WHITESPACE] + ["\r\n", "\n\n", " \r \n "]),
    st.sampled_from(["a", "Z", ".", "\u00e9", "\u65e5", "\U0001F680", "\ufeff", "\u0080", "word", "x" * 40]),
    st.text(min_size=1, max_size=6),
)
TEXTS = st.lists(PIECES, max_size=80).map("".join).filter(lambda t: not any(0xD800 <= ord(c) < 0xE000 for c in t))

# truncated sequences, overlong forms, encoded surrogates, past U+10FFFF, stray bytes
NOT_UTF8 = [b"\xff", b"\x80", b"\xbf", b"\xc0\xaf", b"\xc1\xbf", b"\xc2", b"\xe2\x82", b"\xe0\x9f\xbf",
            b"\xe0\x80\xaf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xf0\x8f\xbf\xbf", b"\xf0\x80\x80\xaf",
            b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\xf0\x9f\x9a", b"\xe2\x82\x20", b"\xc3\x28"]
PLACES = ["start", "middle", "end", "in a word", "after a space", "after a paragraph"]


def _placed(bad: bytes, where: str) -> bytes:
    word = "mot d\u00e9j\u00e0 \U0001F680 ".encode() * 20
    return {"start": bad + word, "middle": word + bad + word, "end": word + bad,
            "in a word": word + b"ab" + bad + b"cd", "after a space": word + b" " + bad,
            "after a paragraph": word + b"\n\n" + bad + b" tail"}[where]


def checked(data: bytes) -> tuple:
    """select.scan_checked with chars4/1's total, each array as a list."""
    raw, cum = kernel.scan_checked(data, chars4=True)
    return (raw.starts.tolist(), raw.ends.tolist(), raw.para.tolist(), raw.sentence_ends.tolist(),
            raw.symbols.tolist(), cum.tolist())


def apart(data: bytes) -> tuple:
    """The same from the lean scan and chars4_totals over its offsets."""
    raw = kernel.scan(data, lean=True)
    _, cum = kernel.chars4_totals(raw.starts, raw.ends, False, narrow=True)
    return (raw.starts.tolist(), raw.ends.tolist(), raw.para.tolist(), raw.sentence_ends.tolist(),
            raw.symbols.tolist(), cum.tolist())


@needs_kernel
@pytest.mark.parametrize("bad", NOT_UTF8)
@pytest.mark.parametrize("where", PLACES)
def test_the_checked_scan_stops_at_the_byte_utf8_error_and_the_codec_name(bad, where):
    data = _placed(bad, where)
    with pytest.raises(UnicodeDecodeError) as codec:
        data.decode("utf-8")
    for chars4 in (False, True):
        assert kernel._kernel.scan_checked(data, chars4) == kernel._kernel.utf8_error(data) == codec.value.start
    with kernel.using("c"), pytest.raises(UnicodeDecodeError) as raised:
        kernel.scan_checked(data, chars4=True)
    assert str(raised.value) == str(codec.value)


@pytest.mark.parametrize("bad", NOT_UTF8)
@pytest.mark.parametrize("where", PLACES)
@pytest.mark.parametrize("params", [Lmx2Params(), ChunkerParams(window_words=2**21)], ids=["lmx2-v1", "tttd-wide"])
def test_a_bytes_document_that_is_not_utf8_is_refused_with_the_codecs_message_on_both_kernels(bad, where, params):
    """lmx2-v1, and tttd-v1 with a window the rolling scan does not roll, are checked by
    the checked scan under the compiled kernel and apart under numpy: the same error."""
    data = _placed(bad, where)
    with pytest.raises(UnicodeDecodeError) as codec:
        data.decode("utf-8")
    for name in kernel.KERNELS:
        pipeline = Pipeline()
        with kernel.using(name), pytest.raises(UnicodeDecodeError) as raised:
            pipeline.chunk(data, params)
        assert str(raised.value) == str(codec.value)
        assert len(pipeline._docs) == 0


@needs_kernel
@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=60))
@example(b"\xed\x9f\xbf\xed\xa0\x80")  # U+D7FF, then the first surrogate
@example(b"\xf4\x8f\xbf\xbf\xf4\x90\x80\x80")  # U+10FFFF, then past it
def test_the_checked_scan_accepts_exactly_what_the_codec_accepts(data):
    try:
        data.decode("utf-8")
        want = None
    except UnicodeDecodeError as e:
        want = e.start
    got = kernel._kernel.scan_checked(data, True)
    assert (got if isinstance(got, int) else None) == want


@needs_kernel
@settings(max_examples=250, deadline=None)
@given(TEXTS)
@example("")
@example(" a\u3000b\u00a0c\u2028d \U0001F680\r\n\r\ne ")
@example("x" * 41 + " \u65e5\u65e5\u65e5\u65e5\u65e5 y")
def test_the_checked_scan_finds_the_words_and_chars4_totals_of_the_scan_apart(text):
    with kernel.using("c"):
        assert checked(text.encode()) == apart(text.encode())


@needs_kernel
def test_the_checked_scan_agrees_on_the_golden_documents():
    for path in sorted(GOLDEN.glob("*.txt")):
        data = path.read_bytes()
        with kernel.using("c"):
            got, want = checked(data), apart(data)
        assert got == want, path.name
        assert kernel.scan_checked(data)[1] is None  # no total unless asked for


@needs_kernel
def test_the_checked_scan_refuses_a_str_and_leaves_a_long_input_to_the_pass_apart():
    with pytest.raises(TypeError, match="not a str"):
        kernel._kernel.scan_checked("text")
    with pytest.raises(ValueError, match="2\\^30 bytes"):
        kernel._kernel.scan_checked(b"x" * (kernel.FUSED_CHARS4_MAX + 1), True)
    with kernel.using("numpy"):
        assert kernel.scan_checked(b"text") is None


def _chunks(result) -> list[tuple]:
    return [tuple(c) for c in result.chunks]


@pytest.mark.parametrize("rule", ["tttd-wide", "lmx2-v1", "lmx2-v1 tokens"])
@pytest.mark.parametrize("doc", sorted(p.name for p in GOLDEN.glob("*.txt")))
def test_a_bytes_document_chunks_through_the_checked_scan_as_it_chunks_apart(rule, doc, monkeypatch):
    """The chunks (hashes, text, offsets, tokens) and diagnostics of the bytes equal
    those of the bytes checked and scanned apart, and those of the str."""
    params = {"tttd-wide": ChunkerParams(window_words=2**21), "lmx2-v1": Lmx2Params(),
              "lmx2-v1 tokens": Lmx2Params(min_tokens=8, max_tokens=40, horizon=16)}[rule]
    data = (GOLDEN / doc).read_bytes()
    through = Pipeline().chunk(data, params)
    with monkeypatch.context() as m:
        m.setattr(document_module, "scan_checked", lambda *a, **kw: None)
        separately = Pipeline().chunk(data, params)
    as_str = Pipeline().chunk(data.decode("utf-8"), params)
    assert _chunks(through) == _chunks(separately) == _chunks(as_str)
    assert through.diagnostics == separately.diagnostics == as_str.diagnostics
    assert through.words.starts.tolist() == as_str.words.starts.tolist()


@needs_kernel
def test_the_checked_scan_totals_chars4_for_a_small_bytes_document_only(monkeypatch):
    """Past SCAN_TOTAL_BYTES the total is made after the cut pass, not beside the
    symbols through it (the peak of a large document); the chunks are the same."""
    from steadlith_core.chunking import tokens as token_counters

    data = (GOLDEN / "long.txt").read_bytes()
    counter = token_counters.get_counter("chars4/1")
    with kernel.using("c"):
        small = document_module.Document(data, first=Lmx2Params())
        assert small.counted(counter) and small.tokens_cum(counter).dtype.name == "int32"
        assert not document_module.Document(data).counted(counter)  # no parameters: not asked for
        monkeypatch.setattr(document_module, "SCAN_TOTAL_BYTES", len(data) - 1)
        assert not document_module.Document(data, first=Lmx2Params()).counted(counter)
        assert _chunks(Pipeline().chunk(data, Lmx2Params())) == _chunks(Pipeline().chunk(data.decode(), Lmx2Params()))
