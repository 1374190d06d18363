"""A str of LEAN_STR_CHARS characters or more is chunked from its UTF-8 on the lean
bytes path (pipeline.lean_utf8): an ASCII str from its own bytes, read in place under
the compiled kernel, any other str from its encoded copy. Its chunks (offsets in code
points, hashes, texts) are those of the same text chunked as a short str and as bytes,
and `Chunking.text` is the caller's str."""

from __future__ import annotations

import gc
import random

import pytest

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.chunking import document as document_module
from steadlith_core.chunking.canonical import DocumentCanonical
from steadlith_core.chunking.document import lean_utf8
from steadlith_core.chunking.pipeline import Pipeline
from steadlith_core.kernel import select as kernel

PIECES = ["a", "bc", "d\u00e9f", "\U0001F680", "end.", "\u00a0", "\u2028", " ", "  ", "\n", "\n\n", "\r\n",
          "\r\n\r\n", "\t", "x" * 30, "word", "Words."]
PARAMS = [ChunkerParams(), ChunkerParams(min_tokens=8, max_tokens=64), Lmx2Params(min_tokens=8, max_tokens=64)]


def _text(seed: int, ascii_only: bool) -> str:
    rng = random.Random(seed)
    pieces = [p for p in PIECES if p.isascii()] if ascii_only else PIECES
    return "".join(rng.choice(pieces) for _ in range(3000))


def _rows(result):
    return [(c.start_word, c.end_word, c.start, c.end, c.kind, c.tokens, c.hash, c.boundary, c.text)
            for c in result.chunks]


@pytest.mark.parametrize("ascii_only", [True, False])
@pytest.mark.parametrize("params", PARAMS, ids=lambda p: f"{p.boundary_rule}-{p.max_tokens}")
def test_a_long_str_chunks_as_a_short_one_and_as_its_bytes(text_kernel, monkeypatch, ascii_only, params):
    text = _text(len(PARAMS) + ascii_only, ascii_only)
    short = Pipeline().chunk(text, params)
    as_bytes = Pipeline().chunk(text.encode(), params)
    monkeypatch.setattr(document_module, "LEAN_STR_CHARS", 100)
    doc = Pipeline().document(text)
    if kernel.KERNEL == "c":
        assert doc.lean and doc.utf8 is not None and doc.words.symbols is None  # scanned from its UTF-8
    else:  # the numpy scan encodes the str itself
        assert doc.lean and doc.utf8 is None and doc.words.symbols is not None
    result = Pipeline().chunk(text, params)
    assert result.text is text and result.document is text
    assert _rows(result) == _rows(short) == _rows(as_bytes)
    if kernel.KERNEL == "c":
        assert isinstance(result.canonical, DocumentCanonical)  # no canonical copy of the text


def test_a_compared_long_str_keeps_its_symbols_once(text_kernel, monkeypatch):
    text = "Start " + _text(3, False)
    symbols = Pipeline().document(text).words.symbols
    monkeypatch.setattr(document_module, "LEAN_STR_CHARS", 100)
    doc = Pipeline(word_symbols=True).document(text)
    assert doc.words.symbols is not None and doc.words.symbols.tolist() == symbols.tolist()
    lean = Pipeline().document(text)
    lean.spare_symbols()
    assert (lean.words.symbols is None) == (kernel.KERNEL == "c")
    assert lean.symbols.tolist() == symbols.tolist()  # scanned again from its UTF-8 when asked


@pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built")
def test_an_ascii_str_is_read_in_place_and_kept_alive_by_its_view():
    with kernel.using("c"):
        text = "".join(["ASCII only words, in place.\n\n"] * 50)
        view = lean_utf8(text)
        assert isinstance(view, memoryview) and view.readonly and bytes(view) == text.encode()
        expected = text.encode()
        del text
        gc.collect()
        assert bytes(view) == expected  # the view holds the str it reads
        encoded = lean_utf8("caf\u00e9 \U0001F680")
        assert isinstance(encoded, bytes) and encoded == "caf\u00e9 \U0001F680".encode()


def test_a_str_with_a_lone_surrogate_keeps_the_str_scan(text_kernel, monkeypatch):
    text = "one two \ud800 three four " * 20
    expected = _rows(Pipeline().chunk(text))
    monkeypatch.setattr(document_module, "LEAN_STR_CHARS", 10)
    assert lean_utf8(text) is None
    doc = Pipeline().document(text)
    assert doc.utf8 is None and doc.lean
    assert _rows(Pipeline().chunk(text)) == expected


def test_a_pipeline_may_keep_the_str_scan_of_a_long_str(monkeypatch):
    """str_utf8=False (the lab, which reads the whole canonical text): the str is scanned
    as itself, its canonical text written whole, its symbols kept."""
    text = _text(5, False)
    monkeypatch.setattr(document_module, "LEAN_STR_CHARS", 100)
    doc = Pipeline(str_utf8=False).document(text)
    assert doc.lean and doc.utf8 is None and doc.words.symbols is not None
    assert not isinstance(doc.canonical, DocumentCanonical)
    assert _rows(Pipeline(str_utf8=False).chunk(text)) == _rows(Pipeline().chunk(text))
