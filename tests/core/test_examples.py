"""The shipped examples and what they show: the counterexample answered by lmx2-v1,
and the tool-library pair of real prose where the rules part ways at defaults."""

from __future__ import annotations

from pathlib import Path

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.comparison.analysis import compare_rules
from steadlith_core.bench.examples import (TOOL_LIBRARY_INSERTION, phase_shift_answer, phase_shift_counterexample,
                                           tool_library_example, tool_library_text)


def test_the_counterexample_holds_under_lmx2():
    both = phase_shift_answer()
    tttd, lmx2 = both["tttd-v1"], both["lmx2-v1"]
    _, _, params = phase_shift_counterexample()
    assert tttd.a.params == params and not tttd.locality_held and tttd.summary.shifted_chunks_b == 12
    assert lmx2.locality_held and lmx2.checked_ranges == 1 and lmx2.margin == 40
    assert (lmx2.summary.reused_chunks, lmx2.summary.chunks_b, lmx2.summary.chunks_to_embed) == (33, 35, 2)
    assert lmx2.summary.tokens_to_embed < tttd.summary.tokens_to_embed / 5


def test_tool_library_breaks_tttd_and_lmx2_holds_at_defaults():
    text_a, text_b, params = tool_library_example()
    assert params == {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params()}
    assert text_b.replace(TOOL_LIBRARY_INSERTION, "", 1) == text_a
    both = compare_rules(text_a, text_b, params)
    t, m = both["tttd-v1"].summary, both["lmx2-v1"].summary
    assert (t.violations, t.shifted_chunks_b, t.longest_resync_tokens, t.margin) == (1, 2, 742, 528)
    assert not t.locality_held and t.longest_resync_tokens > t.margin
    assert m.locality_held and m.violations == 0 and m.checked_ranges == 2 and m.shifted_chunks_b == 0
    assert (m.reused_chunks, m.chunks_b) == (19, 20)


def test_the_tool_library_text_is_shipped_as_package_data():
    """Read through importlib.resources from the installed package, and declared as
    package data so a wheel carries it (a non-editable install has no source tree)."""
    text = tool_library_text()
    assert text.startswith("# Running a Neighbourhood Tool Library") and len(text) > 16_000
    core = Path(__file__).resolve().parents[2] / "core"
    assert '"data/*.md"' in (core / "pyproject.toml").read_text(encoding="utf-8")
    assert "original" in (core / "steadlith_core" / "data" / "NOTICE").read_text(encoding="utf-8")
