"""Both rules on one pair: each rule's own margin, compare_rules, `compare --rules`."""

from __future__ import annotations

import json

import pytest

from steadlith_core import Analysis, ChunkerParams, Lmx2Params, ParameterError, chunk, compare, render_report
from steadlith_core.comparison.analysis import compare_rules
from steadlith_core.bench.examples import phase_shift_counterexample
from steadlith_core.report.export import rules_comparison_json
from cli_helpers import run

LMX2_SMALL = Lmx2Params(min_tokens=8, max_tokens=40, horizon=10, fill_horizon=8, key_tokens=6)


@pytest.fixture()
def pair(tmp_path):
    text_a, text_b, params = phase_shift_counterexample()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text_a, encoding="utf-8")
    b.write_text(text_b, encoding="utf-8")
    # the counterexample's tttd-v1 fields, as --set strings for --rules (no boundary_rule)
    sets = [x for k, v in params.to_dict().items() if k != "boundary_rule" for x in ("--set", f"{k}={v}")]
    return str(a), str(b), sets


def test_each_rule_is_checked_at_its_own_margin():
    text_a, text_b, tttd = phase_shift_counterexample()
    c = compare(chunk(text_a, LMX2_SMALL), chunk(text_b, LMX2_SMALL))
    assert c.margin == c.summary.margin == LMX2_SMALL.margin == 8 + 16 + 10 + 6
    assert c.summary.margin_formula == "fill_horizon + gate + horizon + key_tokens (docs/contract/lmx2-v1.md#locality)"
    assert c.baseline.summary.margin == LMX2_SMALL.margin  # the baseline is held to the same bar
    t = compare(chunk(text_a, tttd), chunk(text_b, tttd))
    assert t.margin == 40 + 4 + 0 and "docs/contract/tttd-v1.md#locality" in t.summary.margin_formula
    assert c.to_dict()["margin_formula"] == LMX2_SMALL.margin_formula


def test_compare_rules_answers_the_counterexample():
    """tttd-v1 breaks locality on the counterexample; lmx2-v1 on the same pair holds and
    reuses all but the chunks next to the insertion."""
    text_a, text_b, tttd = phase_shift_counterexample()
    got = compare_rules(text_a, text_b, {"tttd-v1": tttd, "lmx2-v1": LMX2_SMALL})
    assert list(got) == ["tttd-v1", "lmx2-v1"]
    assert not got["tttd-v1"].locality_held and got["tttd-v1"].summary.shifted_chunks_b == 12
    lmx2 = got["lmx2-v1"]
    assert lmx2.locality_held and lmx2.checked_ranges == 1
    assert (lmx2.summary.reused_chunks, lmx2.summary.chunks_b) == (33, 35)
    assert lmx2.a.boundary_rule == lmx2.b.boundary_rule == "lmx2-v1"
    # the same through an Analysis (the GUI keeps one) and with the params as a list
    again = Analysis().compare_rules(text_a, text_b, [tttd, LMX2_SMALL])
    assert {r: c.summary for r, c in again.items()} == {r: c.summary for r, c in got.items()}


def test_compare_rules_refuses_mismatched_or_repeated_rules():
    with pytest.raises(ParameterError):
        compare_rules("a b", "a c", {"tttd-v1": LMX2_SMALL})
    with pytest.raises(ParameterError):
        compare_rules("a b", "a c", [ChunkerParams(), ChunkerParams(min_tokens=5)])


def test_cli_rules_side_by_side_text(capsys, pair):
    a, b, sets = pair
    code, out, err = run(capsys, "compare", a, b, "--rules", "tttd-v1,lmx2-v1", *sets, "--set", "horizon=10",
                         "--set", "fill_horizon=8", "--set", "key_tokens=6")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    header = next(line for line in lines if "tttd-v1" in line and "lmx2-v1" in line)
    assert header.split() == ["tttd-v1", "lmx2-v1", "fixed-tokens/1", "(40)"]
    row = {line[:22].strip(): line[22:].split() for line in lines if line[:22].strip()}
    assert row["reused chunks"][:4] == ["6", "(31.6%)", "33", "(94.3%)"]
    assert row["locality"][:2] == ["NOT", "HELD"] and row["locality"][2] == "held"
    assert row["margin"][:2] == ["44", "40"]
    assert any(line.startswith("lmx2-v1") and "docs/contract/lmx2-v1.md#locality" in line for line in lines)


def test_cli_rules_json_carries_one_summary_per_rule(capsys, pair):
    a, b, sets = pair
    code, out, _ = run(capsys, "compare", a, b, "--rules", "lmx2-v1,tttd-v1", *sets, "--preset",
                       "lmx2-small-chunks", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "steadlith-compare-rules/1"
    assert [r["boundary_rule"] for r in doc["rules"]] == ["lmx2-v1", "tttd-v1"]
    lmx2, tttd = doc["rules"]
    assert lmx2["params"] == LMX2_SMALL.to_dict() and lmx2["locality_held"] and lmx2["margin"] == 40
    assert tttd["params"]["window_words"] == 4 and not tttd["locality_held"] and tttd["summary"]["violations"] > 0
    for r in doc["rules"]:
        assert {"reused_chunks", "tokens_to_embed", "shifted_chunks_b", "paragraph_cut_share_b",
                "sentence_cut_share_b", "mean_chunk_tokens_b", "margin_formula"} <= set(r["summary"])
    assert [x["strategy"] for x in doc["baselines"]] == ["fixed-tokens/1"]  # both rules use max_tokens 40


def test_fail_on_violation_with_rules_fails_when_any_rule_fails(capsys, pair):
    a, b, sets = pair
    both = ["--set", "horizon=10", "--set", "fill_horizon=8", "--set", "key_tokens=6"]
    code, _, _ = run(capsys, "compare", a, b, "--rules", "tttd-v1,lmx2-v1", *sets, *both, "--fail-on-violation")
    assert code == 1
    code, _, _ = run(capsys, "compare", a, b, "--rules", "lmx2-v1", "--set", "min_tokens=8", "--set",
                     "max_tokens=40", *both, "--fail-on-violation")
    assert code == 0


@pytest.mark.parametrize("args,field", [
    (["--set", "colour=3"], "colour"),
    (["--set", "boundary_rule=lmx2-v1"], "boundary_rule"),
    (["--rules", "tttd-v1", "--set", "horizon=64"], "horizon"),
    (["--rules", "tttd-v1,lmx9"], "boundary_rule"),
    (["--rules", "tttd-v1", "--preset", "lmx2-default"], "--preset"),
])
def test_rules_errors_are_one_line_exit_2(capsys, pair, args, field):
    a, b, _ = pair
    if "--rules" not in args:
        args = ["--rules", "tttd-v1,lmx2-v1", *args]
    code, out, err = run(capsys, "compare", a, b, *args)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith(f"steadlith: error: {field}")


def test_report_of_both_rules_has_the_side_by_side_table(pair, tmp_path, capsys):
    a, b, sets = pair
    out = tmp_path / "r.html"
    code, _, _ = run(capsys, "compare", a, b, "--rules", "tttd-v1,lmx2-v1", *sets, "--set", "horizon=10",
                     "--set", "fill_horizon=8", "--set", "key_tokens=6", "--html", str(out))
    html = out.read_text(encoding="utf-8")
    assert code == 0 and '<section id="rules">' in html
    table = html[html.index('<section id="rules">'):html.index("</section>", html.index('<section id="rules">'))]
    assert table.count("<th>tttd-v1<br>") == 1 and table.count("<th>lmx2-v1<br>") == 1
    assert "✗ not held" in table and "✓ held" in table
    assert "<script" not in html.lower()


def test_report_of_an_lmx2_comparison_names_its_rule_and_kinds():
    text_a, text_b, _ = phase_shift_counterexample()
    c = compare(chunk(text_a, LMX2_SMALL), chunk(text_b, LMX2_SMALL))
    html = render_report(c, "a", "b")
    assert "lmx2-v1" in html and "poly64-fmix-xxh3_64-word/1" in html and "cdc-lmx2" in html
    assert 'class="mk mk-fill"' in html and ".mk-fill" in html and "rabin-gf2" not in html
    assert "fill_horizon + gate + horizon + key_tokens" in html
    assert '<section id="rules">' not in html
    assert rules_comparison_json({"lmx2-v1": c})["rules"][0]["margin"] == LMX2_SMALL.margin
