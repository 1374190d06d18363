"""The lab section of the HTML report: in a comparison's report when given, alone from
`steadlith lab --html`, charts as inline SVG that read without colour."""

from __future__ import annotations

import re

import pytest

from steadlith_core import ChunkerParams, Lmx2Params, compare_rules, render_report
from steadlith_core.bench.examples import tool_library_example
from steadlith_core.lab import run_lab
from steadlith_core.report.comparison import render_lab_report
from steadlith_core.report.lab import SERIES, histogram


@pytest.fixture(scope="module")
def lab_and_pair():
    text_a, text_b, params = tool_library_example()
    lab = run_lab(text_a, {**params, "fixed": None}, edits=40, seed=1, hunt_trials=10)
    return lab, text_a, text_b, params


def test_a_comparison_report_gains_the_lab_section_only_when_given(lab_and_pair):
    lab, text_a, text_b, params = lab_and_pair
    comparisons = compare_rules(text_a, text_b, params)
    first = comparisons["tttd-v1"]
    plain = render_report(first, "a.md", "b.md", rules=comparisons)
    with_lab = render_report(first, "a.md", "b.md", rules=comparisons, lab=lab)
    assert 'id="lab"' not in plain and 'href="#lab"' not in plain
    assert with_lab.count('<section id="lab"') == 1 and 'href="#lab"' in with_lab
    assert "<script" not in with_lab.lower()


def test_each_chunker_has_its_own_colour_and_dash_in_both_charts_and_the_legend(lab_and_pair):
    lab = lab_and_pair[0]
    page = render_lab_report(lab, "notes.md")
    for i, name in enumerate(lab.rules):
        colour, dash = SERIES[i]
        curves = re.findall(rf'<polyline fill="none" stroke="{colour}" stroke-width="2" '
                            rf'stroke-dasharray="{dash}" points="[^"]+"><title>{name}</title>', page)
        assert len(curves) == 2, name
        assert f'stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/></svg> {name}</li>' in page
    assert len({dash for _, dash in SERIES[:3]}) == 3  # a second channel besides colour


def test_summary_table_and_worst_edits_show_the_results_numbers(lab_and_pair):
    lab = lab_and_pair[0]
    page = render_lab_report(lab, "notes.md")
    s = lab.rules["tttd-v1"]
    assert f"<td class=\"num\">{int(s.reach['max']):,}</td>" in page
    assert s.worst[0].edit.describe() in page.replace("&#x27;", "'")
    assert page.count("<tr><td>fixed</td>") == 5


def test_histogram_shares_cover_every_value_and_the_largest_lands_in_the_last_bin():
    shares = histogram([0, 1, 5, 10, 10], top=10, bins=5)
    assert shares == [0.4, 0.0, 0.2, 0.0, 0.4]
    assert histogram([9, 1.9], top=10, bins=5) == [0.5, 0.0, 0.0, 0.0, 0.5]  # bins of 2 tokens: [8, 10] holds 9
    assert sum(histogram(list(range(97)), top=96)) == pytest.approx(1.0)


def test_a_name_is_escaped_in_the_standalone_report(lab_and_pair):
    page = render_lab_report(lab_and_pair[0], "<b>x</b>\u202e.md")
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page and "\u202e" not in page


def test_the_charts_scale_follows_the_rules_and_the_baseline_piles_up_in_the_last_bin(lab_and_pair):
    """The fixed-size baseline re-embeds the rest of the document: on its scale the rules
    would fill the first bins only. The scale ends at the rules' largest value (or
    margin) and says that the last bin holds everything beyond."""
    lab = lab_and_pair[0]
    page = render_lab_report(lab, "notes.md")
    rule_top = max(max(o.reach for o in lab.outcomes[n]) for n in ("tttd-v1", "lmx2-v1"))
    rule_top = max(rule_top, lab.rules["tttd-v1"].margin, lab.rules["lmx2-v1"].margin)
    assert lab.rules["fixed"].reach["max"] > rule_top
    assert f'text-anchor="end">{rule_top:,}+</text>' in page
    assert "the last bin holds everything from" in page
