"""Presets and the "has words" check live in the core, so the inspector and the
`steadlith` command offer the same named parameter sets and refuse the same texts."""

from __future__ import annotations

import json

from hypothesis import given, strategies as st

from steadlith_core import PRESETS, ChunkerParams, chunk, has_words, normalize, preset
from steadlith_core.chunking.normalize import WHITESPACE
from cli_helpers import run


def test_cli_preset_gives_that_preset_and_set_applies_on_top(capsys):
    code, out, _ = run(capsys, "params", "--preset", "small-chunks", "--format", "json")
    assert code == 0
    assert json.loads(out)["params_hash"] == PRESETS["Small chunks"].params_hash != ChunkerParams().params_hash
    code, out, _ = run(capsys, "params", "--preset", "Small chunks", "--set", "max_tokens=48", "--format", "json")
    shown = json.loads(out)
    assert shown["params_hash"] == PRESETS["Small chunks"].with_changes(max_tokens=48).params_hash
    assert shown["params"]["window_words"] == PRESETS["Small chunks"].window_words


def test_cli_preset_changes_how_a_file_is_chunked(capsys, tmp_path):
    path = tmp_path / "doc.txt"
    text = "One sentence after another. " * 60 + "\n\nA paragraph. And another one here."
    path.write_text(text, encoding="utf-8")
    code, out, _ = run(capsys, "chunk", str(path), "--preset", "small_chunks", "--format", "json")
    assert code == 0
    got = [c["hash"] for c in json.loads(out)["chunks"]]
    assert got == [c.hash for c in chunk(text, PRESETS["Small chunks"]).chunks]
    assert got != [c.hash for c in chunk(text).chunks]


def test_an_unknown_preset_is_one_line_naming_the_known_ones(capsys):
    code, out, err = run(capsys, "params", "--preset", "tiny")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "'tiny'" in err and all(name in err for name in PRESETS)


def test_preset_names_are_forgiving_about_case_and_separators():
    assert preset("SNAPPING-ON") is PRESETS["Snapping on"]
    assert PRESETS["Snapping on"].snapping


@given(st.text(alphabet=[chr(c) for c in WHITESPACE] + ["a", "\u00e9", "\U0001F680", "."], max_size=12))
def test_has_words_says_whether_normalization_finds_a_word(text):
    assert has_words(text) == (len(normalize(text)) > 0)
