"""Every run of the spec's test vectors (tests/golden, copied byte for byte from the spec)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steadlith_core import NORMALIZER_VERSION, ChunkerParams, ParameterError, chunk, load_text
from steadlith_core.chunking.identity import IDENTITY_SCHEMA_VERSION
from steadlith_core.chunking.canonical import compute_symbols

# Every test here runs once per text kernel (conftest.py: text_kernel).
pytestmark = pytest.mark.usefixtures("text_kernel")

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text(encoding="utf-8"))
PARAM_SETS = EXPECTED["param_sets"]
DOCUMENTS = EXPECTED["documents"]
RUNS = [(doc, run) for doc, d in DOCUMENTS.items() for run in d["runs"]]
CHUNK_FIELDS = ("start_word", "end_word", "start", "end", "kind", "snapped", "tokens", "hash", "text")


def params_of(name: str) -> ChunkerParams:
    return ChunkerParams(**PARAM_SETS[name]["params"])


def test_versions():
    assert EXPECTED["normalizer_version"] == NORMALIZER_VERSION
    assert EXPECTED["identity_schema_version"] == IDENTITY_SCHEMA_VERSION


def test_mixed_file_keeps_its_cr_and_crlf():
    raw = (GOLDEN / "mixed.txt").read_bytes()
    assert b"\r\n" in raw and b"\r\r" in raw, "tests/golden must hold the vectors byte for byte (-text)"


@pytest.mark.parametrize("name", PARAM_SETS)
def test_canonical_parameters(name):
    expected = PARAM_SETS[name]
    p = params_of(name)
    assert [list(f) for f in p.canonical_fields()] == expected["canonical_fields"]
    assert p.canonical_bytes().hex() == expected["canonical_bytes_hex"]
    assert p.params_hash == expected["params_hash"]


@pytest.mark.parametrize("doc,run", RUNS)
def test_chunks(doc, run):
    text = load_text(GOLDEN / doc)
    expected = DOCUMENTS[doc]["runs"][run]
    result = chunk(text, params_of(run))
    assert result.word_count == DOCUMENTS[doc]["word_count"]
    assert result.params_hash == expected["params_hash"]
    got = [{f: getattr(c, f) for f in CHUNK_FIELDS if f in e} for c, e in zip(result.chunks, expected["chunks"])]
    assert got == expected["chunks"]
    assert len(result.chunks) == len(expected["chunks"])
    assert [c.index for c in result.chunks] == list(range(len(result.chunks)))


@pytest.mark.parametrize("doc", [d for d in DOCUMENTS if "words_head" in DOCUMENTS[d]])
def test_words_head(doc):
    result = chunk(load_text(GOLDEN / doc))
    symbols = compute_symbols(result.words)
    head = DOCUMENTS[doc]["words_head"]
    got = [
        {"text": w.text, "start": w.start, "end": w.end, "para": w.para, "symbol": f"{int(symbols[k]):016x}"}
        for k, w in zip(range(len(head)), result.words)
    ]
    assert got == head


@pytest.mark.parametrize(
    "doc,run", [(d, r) for d in DOCUMENTS for r in DOCUMENTS[d].get("fingerprints_head", {})]
)
def test_fingerprints_head(doc, run):
    expected = DOCUMENTS[doc]["fingerprints_head"][run]
    result = chunk(load_text(GOLDEN / doc), params_of(run))
    assert [f"{int(f):x}" for f in result.fingerprints[: len(expected)]] == expected


@pytest.mark.parametrize("case", EXPECTED["invalid_params"], ids=lambda c: c["why"])
def test_invalid_params_rejected(case):
    with pytest.raises(ParameterError) as info:
        ChunkerParams(**case["change"])
    assert info.value.field in case["change"]
    assert info.value.field in str(info.value)
