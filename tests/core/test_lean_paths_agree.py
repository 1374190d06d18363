"""Every way a text can be chunked gives the same chunks, and every way two texts can be
compared the same output: a short str (its own scan, every stage kept), its UTF-8 bytes
(the lean path: lmx2-v1's prefix sums over the symbols, chars4/1 from the offsets), a
long str (LEAN_STR_CHARS lowered: chunked from its UTF-8, an ASCII one from its own
bytes), and a comparison's pipeline (symbols kept) or word ids (word_ids.WordIds), under
either kernel. The texts mix odd Unicode whitespace, CR, CRLF and LF runs, a BOM, emoji,
combining marks and words long enough to be cut alone; the parameters reach the
extremes of lmx2-v1's ranges and a non-default token counter."""

from __future__ import annotations

from contextlib import contextmanager

from hypothesis import given, settings, strategies as st

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.chunking import document as document_module
from steadlith_core.chunking.pipeline import Pipeline
from steadlith_core.cli.compare import format_comparison
from steadlith_core.comparison.analysis import Analysis
from steadlith_core.comparison.causes import explain_comparison, explanation_json
from steadlith_core.kernel import select as kernel
from steadlith_core.report.export import comparison_json, to_json_text

PIECES = ["a", "bc", "d\u00e9f", "\U0001F680", "end.", "Hi!", "?\"", ".)", "word", "Words.", "e\u0301",
          "\U0001F469\u200d\U0001F4BB", "\u4e2d\u6587", "\u0130", "\u00df", "x" * 300,
          " ", "  ", "\t", "\n", "\n\n", "\r", "\r\r", "\r\n", "\n\r", "\r\n\r\n", "\u00a0", "\u2028", "\u2029",
          "\u3000", "\u0085", "\x0b", "\x0c", "\x1c", "\x1f", "\u200b", "\ufeff"]
TOP = 2**32
PARAMS = st.one_of(
    st.builds(ChunkerParams, min_tokens=st.sampled_from([1, 2, 8, 64]), max_tokens=st.sampled_from([64, 200, 4096]),
              token_counter=st.sampled_from(["chars4/1", "words/1"])),
    st.builds(lambda counter, lo, up, horizon, fill, key, pref: Lmx2Params(
        token_counter=counter, min_tokens=lo, max_tokens=min(TOP, 3 * lo - 1 + up), horizon=max(horizon, lo - 1),
        fill_horizon=max(fill, lo - 1), key_tokens=key, boundary_preference=pref),
        st.sampled_from(["chars4/1", "words/1"]), st.sampled_from([1, 2, 3, 8, 96, (TOP + 1) // 3]),
        st.sampled_from([0, 1, 5, 400, TOP]), st.sampled_from([1, 2, 7, 128, TOP]),
        st.sampled_from([1, 2, 5, 96, TOP]), st.sampled_from([1, 2, 3, 32, TOP]),
        st.sampled_from(["paragraph-sentence/1", "off"])),
)
WORDS = st.lists(st.sampled_from(PIECES), max_size=300)
BOM = st.sampled_from(["", "\ufeff"])


def _rows(result) -> list:
    return [c._asdict() for c in result.chunks]


@contextmanager
def _long(on: bool = True):
    """A str of any length chunked as a long one (from its UTF-8), when `on`."""
    kept = document_module.LEAN_STR_CHARS
    document_module.LEAN_STR_CHARS = 1 if on else kept
    try:
        yield
    finally:
        document_module.LEAN_STR_CHARS = kept


@settings(max_examples=60, deadline=None)
@given(words=WORDS, bom=BOM, params=PARAMS)
def test_every_path_chunks_alike(words, bom, params):
    text = bom + "".join(words)
    ascii_text = text.encode("ascii", "ignore").decode()
    found = {}
    for name in kernel.KERNELS:
        with kernel.using(name):
            found[name, "str"] = _rows(Pipeline().chunk(text, params))
            found[name, "bytes"] = _rows(Pipeline().chunk(text.encode(), params))
            found[name, "bytes kept"] = _rows(Pipeline(word_symbols=True).chunk(text.encode(), params))
            found[name, "ASCII str"] = _rows(Pipeline().chunk(ascii_text, params))
            with _long():
                found[name, "long str"] = _rows(Pipeline().chunk(text, params))
                found[name, "long ASCII str"] = _rows(Pipeline().chunk(ascii_text, params))
    want = found["numpy" if "numpy" in kernel.KERNELS else "c", "str"]
    want_ascii = found["numpy" if "numpy" in kernel.KERNELS else "c", "ASCII str"]
    for key, rows in found.items():
        assert rows == (want_ascii if "ASCII" in key[1] else want), key


def _outputs(a, b, params, word_ids: bool) -> list[str]:
    analysis = Analysis(word_ids=word_ids)
    c = analysis.compare(analysis.chunk(a, params), analysis.chunk(b, params))
    explaining = Analysis()
    e = explaining.compare(explaining.chunk(a, params), explaining.chunk(b, params), baseline=False)
    return [to_json_text(comparison_json(c, "a", "b")), format_comparison(c, "a", "b"),
            to_json_text(explanation_json(explain_comparison(e, None), e))]


EDITS = st.lists(st.tuples(st.integers(0, 300), st.integers(0, 5), st.lists(st.sampled_from(PIECES), max_size=6)),
                 max_size=4)


@settings(max_examples=40, deadline=None)
@given(words=WORDS, edits=EDITS, bom=BOM, params=PARAMS)
def test_every_path_compares_and_explains_alike(words, edits, bom, params):
    edited = list(words)
    for at, removed, inserted in edits:
        at = min(at, len(edited))
        edited[at : at + removed] = inserted
    a, b = bom + "".join(words), "".join(edited)
    for name in kernel.KERNELS:
        with kernel.using(name):
            want = _outputs(a, b, params, False)
            for form, x, y, ids, long in [("bytes, word ids", a.encode(), b.encode(), True, False),
                                          ("bytes, symbols", a.encode(), b.encode(), False, False),
                                          ("str and bytes", a, b.encode(), True, False),
                                          ("long str, word ids", a, b, True, True),
                                          ("long str, symbols", a, b, False, True)]:
                with _long(long):
                    assert _outputs(x, y, params, ids) == want, (name, form)
