"""Exports (steadlith_core.report.export): chunks as JSON Lines, the comparison as JSON (one
schema with `steadlith compare --format json`), and atomic writes."""

from __future__ import annotations

import json
import os

import pytest

from steadlith_core import ChunkerParams, SteadlithError, chunk, chunk_hash, compare
from steadlith_core.cli.main import main
from steadlith_core.bench.examples import generate_prose, phase_shift_counterexample
from steadlith_core.report.export import chunk_record, chunks_jsonl, comparison_json, to_json_text, write_text_atomic
from steadlith_core.errors import ExportError

PARAMS = ChunkerParams(min_tokens=8, max_tokens=40, window_words=4)
TEXT = "Ünïcode 🚀 rocket\r\n\r\nA line with \"quotes\" and a\ttab.\n" + generate_prose(3000, seed=12)


def test_jsonl_round_trips_every_chunk():
    result = chunk(TEXT, PARAMS)
    out = chunks_jsonl(result)
    assert out.endswith("\n") and "\\u" not in out.split("\n")[0]  # UTF-8, not escapes
    lines = out.splitlines()
    assert len(lines) == len(result.chunks) >= 5
    for line, c in zip(lines, result.chunks):
        record = json.loads(line)
        assert list(record) == [*chunk_record(c), "text", "params_hash"]
        assert record == {**chunk_record(c), "text": c.text, "params_hash": result.params_hash}
        assert record["hash"] == c.hash == chunk_hash(record["text"], record["params_hash"])
    assert json.loads(lines[0])["text"].startswith("Ünïcode 🚀 rocket\n\nA line")  # canonical text


def test_jsonl_of_nothing_is_empty():
    assert chunks_jsonl(chunk("", PARAMS)) == ""


def test_cli_chunk_jsonl_prints_the_same(capsys, tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_bytes(TEXT.encode("utf-8"))
    sets = ["--set", "min_tokens=8", "--set", "max_tokens=40", "--set", "window_words=4"]
    assert main(["chunk", str(doc), *sets, "--format", "jsonl"]) == 0
    assert capsys.readouterr().out == chunks_jsonl(chunk(TEXT, PARAMS))


def test_comparison_json_is_what_the_cli_prints(capsys, tmp_path):
    text_a, text_b, params = phase_shift_counterexample()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text_a, encoding="utf-8")
    b.write_text(text_b, encoding="utf-8")
    sets = [x for k, v in params.to_dict().items() for x in ("--set", f"{k}={v}")]
    assert main(["compare", str(a), str(b), *sets, "--format", "json"]) == 0
    out = capsys.readouterr().out
    expected = comparison_json(compare(chunk(text_a, params), chunk(text_b, params)), str(a), str(b))
    assert out == to_json_text(expected)  # byte for byte
    d = json.loads(out)
    assert d == expected and d["schema"] == "steadlith-compare/1"
    assert list(d)[:2] == ["files", "schema"] and d["files"] == {"a": str(a), "b": str(b)}


def test_comparison_json_without_names():
    c = compare(chunk("One two three.", PARAMS), chunk("One two four.", PARAMS))
    d = comparison_json(c)
    assert d["files"] == {"a": None, "b": None}
    assert json.loads(to_json_text(d)) == d


def test_write_text_atomic_writes_exact_bytes_and_replaces(tmp_path):
    target = tmp_path / "out.json"
    target.write_text("old", encoding="utf-8")
    write_text_atomic(target, "line 1\r\nemoji 🚀\n")
    assert target.read_bytes() == "line 1\r\nemoji 🚀\n".encode("utf-8")  # no newline translation
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temp(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    target.write_text("the previous report", encoding="utf-8")

    def broken_replace(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ExportError) as e:
        write_text_atomic(target, "the new report")
    assert str(e.value) == f"{target}: cannot write: No space left on device"
    assert isinstance(e.value, SteadlithError)
    assert target.read_text(encoding="utf-8") == "the previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["report.html"]


@pytest.mark.parametrize(
    "where, reason",
    [("no-such-folder/out.jsonl", "does not exist"), (".", "is a directory, not a file")],
)
def test_unwritable_targets_raise_a_clear_export_error(tmp_path, where, reason):
    target = tmp_path / where
    with pytest.raises(ExportError) as e:
        write_text_atomic(target, "x")
    assert str(e.value).startswith(f"{target}: ") and reason in str(e.value)
    assert e.value.path == str(target)


def test_text_that_cannot_be_utf8_is_an_export_error(tmp_path):
    with pytest.raises(ExportError, match="cannot encode as UTF-8"):
        write_text_atomic(tmp_path / "x.txt", "lone \ud800 surrogate")
    assert list(tmp_path.iterdir()) == []
