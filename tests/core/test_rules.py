"""One parser for both rules: a field mapping or `--set` strings into the right type,
fields of the other rule refused by name, and the CLI switching rule with `--set`."""

from __future__ import annotations

import json

import pytest

from steadlith_core import (ChunkerParams, Lmx2Params, ParameterError, params_from_mapping, parse_assignments,
                            parse_rule_assignments, preset)
from cli_helpers import run


def test_boundary_rule_switches_the_parameter_type():
    p = parse_assignments(["boundary_rule=lmx2-v1", "horizon=0x100", "min_tokens=50"])
    assert p == Lmx2Params(horizon=256, min_tokens=50)
    assert parse_assignments(["min_tokens=50"]) == ChunkerParams(min_tokens=50)
    # a base of the other rule does not leak into the new rule; one of the same rule does
    assert parse_assignments(["boundary_rule=lmx2-v1"], base=ChunkerParams(min_tokens=8, max_tokens=40)) == Lmx2Params()
    assert parse_assignments(["key_tokens=9"], base=Lmx2Params(horizon=300)) == Lmx2Params(horizon=300, key_tokens=9)
    assert parse_assignments(["boundary_rule=tttd-v1"], base=Lmx2Params()) == ChunkerParams()


@pytest.mark.parametrize("items,field,words", [
    (["boundary_rule=lmx2-v1", "window_words=4"], "window_words", "tttd-v1 field"),
    (["horizon=10"], "horizon", "lmx2-v1 field"),
    (["boundary_rule=lmx2-v1", "colour=3"], "colour", "unknown"),
    (["boundary_rule=lmx3"], "boundary_rule", "unknown boundary rule"),
    (["boundary_rule=lmx2-v1", "horizon=ten"], "horizon", "integer"),
    (["boundary_rule=lmx2-v1", "max_tokens=100"], "max_tokens", "3 * min_tokens - 1"),
])
def test_errors_name_the_field(items, field, words):
    with pytest.raises(ParameterError) as info:
        parse_assignments(items)
    assert info.value.field == field and words in str(info.value)


def test_names_are_checked_before_values():
    with pytest.raises(ParameterError) as info:
        parse_assignments(["boundary_rule=lmx2-v1", "min_tokens=zero", "snap_mode=off"])
    assert info.value.field == "snap_mode"


@pytest.mark.parametrize("params", [ChunkerParams(min_tokens=8, max_tokens=40, snap_mode="paragraph-sentence/1",
                                                  snap_window_words=3), Lmx2Params(horizon=300, key_tokens=5)])
def test_both_rules_round_trip_through_their_mapping_and_the_cli_syntax(params):
    d = params.to_dict()
    assert next(iter(d)) == "boundary_rule" and d["boundary_rule"] == params.boundary_rule
    assert params_from_mapping(json.loads(json.dumps(d))) == params
    assert type(params).from_dict(d) == params
    assert parse_assignments([f"{k}={v}" for k, v in d.items()]) == params


def test_each_type_refuses_the_other_rules_mapping():
    with pytest.raises(ParameterError) as info:
        ChunkerParams.from_dict(Lmx2Params().to_dict())
    assert info.value.field == "boundary_rule" and "lmx2-v1" in str(info.value)


def test_one_set_of_assignments_goes_to_each_rule_that_has_the_field():
    got = parse_rule_assignments(["min_tokens=20", "max_tokens=200", "window_words=8", "horizon=64"],
                                 ["tttd-v1", "lmx2-v1"])
    assert got == {"tttd-v1": ChunkerParams(min_tokens=20, max_tokens=200, window_words=8),
                   "lmx2-v1": Lmx2Params(min_tokens=20, max_tokens=200, horizon=64)}
    assert list(parse_rule_assignments([], ["lmx2-v1"])) == ["lmx2-v1"]
    with pytest.raises(ParameterError) as info:
        parse_rule_assignments(["horizon=64"], ["tttd-v1"])  # only the other rule has it
    assert info.value.field == "horizon"
    with pytest.raises(ParameterError) as info:
        parse_rule_assignments(["colour=1"], ["tttd-v1", "lmx2-v1"])
    assert info.value.field == "colour"
    with pytest.raises(ParameterError) as info:
        parse_rule_assignments(["boundary_rule=lmx2-v1"], ["tttd-v1", "lmx2-v1"])
    assert info.value.field == "boundary_rule"


def test_lmx2_presets_select_their_rule():
    assert preset("lmx2-default") == Lmx2Params()
    assert preset("LMX2 small chunks").max_tokens == 40
    assert parse_assignments(["horizon=20"], base=preset("lmx2-small-chunks")).horizon == 20


def test_cli_params_prints_lmx2_identity_gate_and_margin(capsys):
    code, out, err = run(capsys, "params", "--set", "boundary_rule=lmx2-v1", "--set", "horizon=200")
    assert (code, err) == (0, "")
    lines = dict(line.split(None, 1) for line in out.splitlines())
    p = Lmx2Params(horizon=200)
    assert lines["boundary_rule"] == "lmx2-v1" and lines["horizon"] == "200"
    assert lines["params_hash"] == p.params_hash
    assert lines["gate"] == "208" and lines["margin"].startswith(f"{p.margin} ")
    code, out, _ = run(capsys, "params", "--preset", "lmx2-default", "--format", "json")
    doc = json.loads(out)
    assert (doc["params_hash"], doc["gate"], doc["margin"]) == (Lmx2Params().params_hash, 208, 464)
    assert "docs/contract/lmx2-v1.md#locality" in doc["margin_formula"]


@pytest.mark.parametrize("command", ["params", "chunk", "compare"])
def test_every_command_takes_the_lmx2_rule_and_refuses_foreign_fields(capsys, tmp_path, command):
    doc = tmp_path / "d.txt"
    doc.write_text("Some words. And a sentence more.\n\nA paragraph.", encoding="utf-8")
    files = {"params": [], "chunk": [str(doc)], "compare": [str(doc), str(doc)]}[command]
    code, out, err = run(capsys, command, *files, "--set", "boundary_rule=lmx2-v1", "--set", "horizon=300",
                         "--format", "json")
    assert (code, err) == (0, "")
    assert json.loads(out)["params"] == Lmx2Params(horizon=300).to_dict()
    code, out, err = run(capsys, command, *files, "--set", "boundary_rule=lmx2-v1", "--set", "window_words=4")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("steadlith: error: window_words: a tttd-v1 field, not a field of lmx2-v1")


def test_a_parameter_form_can_be_built_from_the_rule_alone():
    from steadlith_core.chunking.rules import FIELDS_BY_RULE, default_params, is_int_field, parse_value

    assert FIELDS_BY_RULE["lmx2-v1"] == ("token_counter", "min_tokens", "max_tokens", "horizon", "fill_horizon",
                                         "key_tokens", "boundary_preference")
    assert FIELDS_BY_RULE["tttd-v1"][:2] == ("window_words", "polynomial")
    assert [n for n in FIELDS_BY_RULE["lmx2-v1"] if is_int_field(n)] == ["min_tokens", "max_tokens", "horizon",
                                                                        "fill_horizon", "key_tokens"]
    for rule, names in FIELDS_BY_RULE.items():
        p = default_params(rule)
        typed = {n: parse_value(n, f"{getattr(p, n):#x}" if is_int_field(n) else f" {getattr(p, n)} ") for n in names}
        assert params_from_mapping({"boundary_rule": rule, **typed}) == p
    with pytest.raises(ParameterError) as info:
        parse_value("horizon", "12.5")
    assert info.value.field == "horizon"
