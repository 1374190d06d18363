"""A vacuous locality verdict is not a pass (issue 15, defect 7).

When an edit leaves no shared range of 2 x margin tokens, the locality check tests
nothing: the CLI, the JSON and the report say "nothing to check" in a neutral style,
never the "held" a reviewer would read as evidence.
"""

from __future__ import annotations

import json

import pytest

from steadlith_core import ChunkerParams, chunk, compare, render_report
from steadlith_core.comparison.measurement import HELD, NOTHING_TO_CHECK, VIOLATED
from steadlith_core.bench.examples import generate_prose, phase_shift_counterexample
from steadlith_core.report.comparison import locality_verdict
from cli_helpers import run


def rewrite_pair() -> tuple[str, str]:
    """A heavy rewrite: two unrelated texts, far shorter than 2 x the default margin."""
    return generate_prose(300, seed=1), generate_prose(300, seed=2)


@pytest.fixture()
def rewrite_files(tmp_path):
    a, b = rewrite_pair()
    pa, pb = tmp_path / "a.md", tmp_path / "b.md"
    pa.write_text(a, encoding="utf-8")
    pb.write_text(b, encoding="utf-8")
    return str(pa), str(pb)


def test_the_three_verdicts():
    a, b = rewrite_pair()
    p = ChunkerParams()
    rewrite = compare(chunk(a, p), chunk(b, p))
    assert rewrite.checked_ranges == 0 and rewrite.verdict == NOTHING_TO_CHECK
    assert rewrite.locality_held  # kept for compatibility: no violation was found
    text_a, text_b, params = phase_shift_counterexample()
    assert compare(chunk(text_a, params), chunk(text_b, params)).verdict == VIOLATED
    same = generate_prose(4000, seed=5)
    small = ChunkerParams(min_tokens=8, max_tokens=40, window_words=4)
    assert compare(chunk(same, small), chunk(same, small)).verdict == HELD


def test_cli_text_says_nothing_to_check(capsys, rewrite_files):
    code, out, err = run(capsys, "compare", *rewrite_files, "--fail-on-violation")
    assert code == 0 and err == ""
    last = out.rstrip().splitlines()[-1]
    assert last.startswith("verdict    locality: nothing to check") and "held" not in last


def test_cli_json_carries_the_verdict(capsys, rewrite_files):
    code, out, _ = run(capsys, "compare", *rewrite_files, "--format", "json")
    doc = json.loads(out)
    assert code == 0
    assert doc["locality_verdict"] == "nothing to check" and doc["locality_held"] is True


def test_cli_rules_text_and_json_say_nothing_to_check(capsys, rewrite_files):
    code, out, _ = run(capsys, "compare", *rewrite_files, "--rules", "tttd-v1,lmx2-v1")
    locality = next(line for line in out.splitlines() if line.startswith("locality "))  # 2 rules + baseline
    assert code == 0 and locality.count("nothing to check") == 3 and "held" not in locality
    code, out, _ = run(capsys, "compare", *rewrite_files, "--rules", "tttd-v1,lmx2-v1", "--format", "json")
    assert [r["locality_verdict"] for r in json.loads(out)["rules"]] == ["nothing to check"] * 2


def test_report_banner_is_neutral_not_a_pass():
    a, b = rewrite_pair()
    p = ChunkerParams()
    c = compare(chunk(a, p), chunk(b, p))
    page = render_report(c, "a.md", "b.md")
    banner = next(line for line in page.splitlines() if 'id="verdict"' in line)
    assert 'class="verdict unchecked"' in banner and "✓" not in banner and "held" not in banner
    assert "nothing to check" in locality_verdict(c) and locality_verdict(c) in banner
