"""Every parameter value the core accepts works end to end in `steadlith compare`,
including the top of the range (2^64 - 1), where a fixed-size int64 would overflow."""

from __future__ import annotations

import json

import pytest

from steadlith_core import ChunkerParams, chunk, compare
from steadlith_core.comparison.baseline import FixedTokenParams, chunk_fixed
from steadlith_core.cli.main import main

TOP = 2**64 - 1
TEXT = " ".join(f"word{i}" for i in range(300)) + "\n\nA last paragraph. With two sentences.\n"
OTHER = TEXT.replace("word150", "changed")


@pytest.mark.parametrize("max_tokens", [2**31, 2**63 - 1, 2**63, TOP])
def test_baseline_window_past_int64_is_one_chunk(max_tokens):
    """A window larger than any document holds the whole document in one chunk."""
    result = chunk_fixed(TEXT, FixedTokenParams(max_tokens))
    assert len(result.chunks) == 1
    assert result.chunks[0].end_word == result.word_count


@pytest.mark.parametrize("assignments", [
    ["max_tokens=18446744073709551615"],
    ["max_tokens=0x8000000000000000"],
    ["min_tokens=18446744073709551615", "max_tokens=18446744073709551615"],
    ["window_words=18446744073709551615"],
    ["snap_mode=paragraph-sentence/1", "snap_window_words=18446744073709551615"],
])
@pytest.mark.parametrize("fmt", ["text", "json"])
def test_compare_accepts_the_whole_range(tmp_path, capsys, assignments, fmt):
    """What validation accepts, compare runs: text, JSON and the HTML report."""
    a, b, html = tmp_path / "a.txt", tmp_path / "b.txt", tmp_path / "report.html"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(OTHER, encoding="utf-8")
    sets = [x for item in assignments for x in ("--set", item)]
    code = main(["compare", str(a), str(b), *sets, "--format", fmt, "--html", str(html)])
    out, err = capsys.readouterr()
    assert (code, err) == (0, "")
    assert html.stat().st_size > 0
    if fmt == "json":
        data = json.loads(out)
        assert data["baseline"]["summary"]["chunks_b"] >= 1


def test_library_compare_at_the_top_of_the_range():
    params = ChunkerParams(min_tokens=TOP, max_tokens=TOP)
    result = compare(chunk(TEXT, params), chunk(OTHER, params))
    assert result.baseline is not None and result.baseline.summary.chunks_b == 1
