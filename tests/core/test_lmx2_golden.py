"""Every lmx2-v1 vector of the spec (tests/golden/lmx2-*, copied byte for byte)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steadlith_core import NORMALIZER_VERSION, ChunkerParams, ParameterError, chunk, load_text
from steadlith_core.chunking.identity import IDENTITY_SCHEMA_VERSION
from steadlith_core.chunking.boundaries import CLASS_NAMES
from steadlith_core.chunking.lmx2_params import Lmx2Params
from steadlith_core.chunking.rules import params_from_mapping

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
EXPECTED = json.loads((GOLDEN / "lmx2-expected.json").read_text(encoding="utf-8"))
PARAM_SETS = EXPECTED["param_sets"]
DOCUMENTS = EXPECTED["documents"]
RUNS = [(doc, run) for doc, d in DOCUMENTS.items() for run in d["runs"]]
DEFAULTS = PARAM_SETS["default"]["params"]


def params_of(name: str) -> Lmx2Params:
    p = params_from_mapping(PARAM_SETS[name]["params"])
    assert isinstance(p, Lmx2Params)
    return p


def test_versions():
    assert EXPECTED["boundary_rule"] == "lmx2-v1" == Lmx2Params.boundary_rule
    assert EXPECTED["normalizer_version"] == NORMALIZER_VERSION
    assert EXPECTED["identity_schema_version"] == IDENTITY_SCHEMA_VERSION


def test_default_set_is_the_default_params():
    assert params_of("default") == Lmx2Params()


@pytest.mark.parametrize("name", PARAM_SETS)
def test_canonical_parameters(name):
    expected = PARAM_SETS[name]
    p = params_of(name)
    assert [list(f) for f in p.canonical_fields()] == expected["canonical_fields"]
    assert p.canonical_bytes().hex() == expected["canonical_bytes_hex"]
    assert p.params_hash == expected["params_hash"]
    assert (p.gate, p.margin) == (expected["gate"], expected["margin"])
    assert params_from_mapping(p.to_dict()) == p


@pytest.mark.parametrize("doc,run", RUNS)
def test_chunks(doc, run):
    expected = DOCUMENTS[doc]["runs"][run]
    result = chunk(load_text(GOLDEN / doc), params_of(run))
    assert result.word_count == DOCUMENTS[doc]["word_count"]
    assert result.params_hash == expected["params_hash"]
    assert result.boundary_rule == "lmx2-v1"
    got = [c._asdict() for c in result.chunks]
    assert [{f: g[f] for f in e} for g, e in zip(got, expected["chunks"])] == expected["chunks"]
    assert len(result.chunks) == len(expected["chunks"])
    assert [c.index for c in result.chunks] == list(range(len(result.chunks)))


def test_keys_head():
    head = DOCUMENTS["mixed.txt"]["keys_head"]
    assert len(head) == 40
    result = chunk(load_text(GOLDEN / "mixed.txt"), params_of("small"))
    keys, cum, classes = result.stages.keys, result.cum_tokens, result.stages.classes
    got = [
        {
            "cut": c,
            "x": int(cum[c]),
            "h": f"{int(keys.h[c]):016x}",
            "key_1": f"{int(keys.key_1[c]):016x}",
            "key_2": f"{int(keys.key_2[c]):016x}",
            "class": CLASS_NAMES[int(classes[c])],
        }
        for c in range(1, 41)
    ]
    assert got == head


def test_diagnostics_count_what_the_chunks_show():
    result = chunk(load_text(GOLDEN / "lmx2-edges.txt"), params_of("small"))
    d, p = result.diagnostics, result.params
    kinds = [c.kind for c in result.chunks]
    assert (d.primary, d.fill, d.long_word, d.end) == tuple(kinds.count(k) for k in ("primary", "fill", "long-word", "end"))
    assert d.long_word == 4 and d.end == 1
    assert d.paragraph_boundaries + d.sentence_boundaries + d.word_boundaries + 1 == d.chunk_count == 70
    assert d.chunks_under_min == sum(1 for c in result.chunks if c.tokens < p.min_tokens)
    assert d.chunks_over_max == sum(1 for c in result.chunks if c.tokens > p.max_tokens)
    assert (d.gate, d.margin, d.params_hash) == (16, 40, PARAM_SETS["small"]["params_hash"])


def test_empty_and_one_word_documents():
    assert chunk("", Lmx2Params()).chunks == ()
    assert chunk(" \n\t ", Lmx2Params()).chunks == ()
    one = chunk("lonely", Lmx2Params())
    assert [(c.start_word, c.end_word, c.kind, c.boundary) for c in one.chunks] == [(0, 1, "end", "end")]


@pytest.mark.parametrize("case", EXPECTED["valid_params"], ids=lambda c: c["why"])
def test_valid_params(case):
    p = params_from_mapping({**DEFAULTS, **case["change"]})
    assert isinstance(p, Lmx2Params)
    for name, value in case["change"].items():
        if name != "boundary_rule":
            assert getattr(p, name) == value


def expected_field(change: dict) -> str:
    """The field an invalid change must be reported against: the one it breaks first in
    SPEC-lmx2 §1's table order (the vectors give the change and a reason, not the field)."""
    if change.get("boundary_rule") not in ("tttd-v1", "lmx2-v1"):
        return "boundary_rule"
    p = {**DEFAULTS, **change}
    if "min_tokens" in change and (type(p["min_tokens"]) is not int or not 1 <= p["min_tokens"] <= 2**32):
        return "min_tokens"
    if p["min_tokens"] == 100 and p["max_tokens"] == 298:
        return "max_tokens"
    named = [k for k in change if k not in ("boundary_rule", "min_tokens")]
    assert len(named) == 1, change
    return named[0]


@pytest.mark.parametrize("case", EXPECTED["invalid_params"], ids=lambda c: c["why"])
def test_invalid_params(case):
    change = case["change"]
    # each case is a change from the defaults of the rule it names
    base = dict(DEFAULTS) if change.get("boundary_rule") == "lmx2-v1" else {}
    with pytest.raises(ParameterError) as info:
        params_from_mapping({**base, **change})
    assert info.value.field == expected_field(change)
    assert str(info.value).startswith(info.value.field + ": ")


def test_each_rule_rejects_the_other_rules_fields_before_values():
    with pytest.raises(ParameterError) as info:
        params_from_mapping({"boundary_rule": "lmx2-v1", "min_tokens": 0, "snap_mode": "off"})
    assert info.value.field == "snap_mode" and "tttd-v1 field" in info.value.rule
    with pytest.raises(ParameterError) as info:
        params_from_mapping({"min_tokens": 0, "key_tokens": 8})
    assert info.value.field == "key_tokens" and "lmx2-v1 field" in info.value.rule
    with pytest.raises(ParameterError) as info:
        params_from_mapping({"boundary_rule": "lmx2-v1", "min_tokens": 0, "colour": 3})
    assert info.value.field == "colour"


def test_a_mapping_without_rule_is_tttd_v1():
    assert params_from_mapping({}) == ChunkerParams()
    assert params_from_mapping({"boundary_rule": "tttd-v1", "min_tokens": 50}) == ChunkerParams(min_tokens=50)
    assert params_from_mapping({"boundary_rule": "lmx2-v1"}) == Lmx2Params()


def test_the_rules_never_share_a_chunk_hash():
    from steadlith_core import chunk

    text = "One short paragraph, a single chunk under both rules."
    (a,), (b,) = chunk(text, Lmx2Params()).chunks, chunk(text).chunks
    assert a.text == b.text
    assert a.hash != b.hash


def test_changes_keep_the_rule_and_are_validated():
    p = Lmx2Params().with_changes(min_tokens=50)
    assert (p.min_tokens, p.gate, p.margin) == (50, 231, 96 + 231 + 128 + 32)
    assert Lmx2Params.from_dict({"boundary_rule": "lmx2-v1", "horizon": 200}).horizon == 200
    for change, field in (({"window_words": 4}, "window_words"), ({"boundary_rule": "tttd-v1"}, "boundary_rule"),
                          ({"max_tokens": 100}, "max_tokens")):
        with pytest.raises(ParameterError) as info:
            Lmx2Params.from_dict(change)
        assert info.value.field == field
