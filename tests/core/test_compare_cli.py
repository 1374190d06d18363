"""`steadlith compare` (and the compare lines of `steadlith bench`)."""

from __future__ import annotations

import json

import pytest

from steadlith_core.cli.main import main
from steadlith_core.bench.examples import generate_prose, phase_shift_counterexample
from cli_helpers import run


@pytest.fixture()
def counterexample(tmp_path):
    text_a, text_b, params = phase_shift_counterexample()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text_a, encoding="utf-8")
    b.write_text(text_b, encoding="utf-8")
    sets = []
    for key, value in params.to_dict().items():
        sets += ["--set", f"{key}={value}"]
    return str(a), str(b), sets


@pytest.fixture()
def prose_pair(tmp_path):
    text = generate_prose(8_000, seed=21)
    a, b = tmp_path / "v1.md", tmp_path / "v2.md"
    a.write_text(text, encoding="utf-8")
    at = text.index(" ", 4000)  # between two words
    b.write_text(text[:at] + " One inserted sentence." + text[at:], encoding="utf-8")
    return str(a), str(b)


def test_text_report_of_the_counterexample(capsys, counterexample):
    a, b, sets = counterexample
    code, out, err = run(capsys, "compare", a, b, *sets)
    assert code == 0 and err == ""
    assert "reused 6 of 19 (31.6%)  shifted 12  edited 1  new 0" in out
    assert "phase shift  1 region, 12 shifted chunks (425 tokens), longest resync 428 tokens (margin 44)" in out
    assert "#1 B chunks 1..12 (words [24, 300), tokens [38, 463)) ~ A chunks 0..11 (words [0, 296))" in out  # the A chunks' own span
    assert "resync at B chunk 13 = A chunk 12, 428 tokens after the edit" in out
    assert "10 violations" in out
    assert "baseline   fixed-tokens/1 (windows of 40 tokens)" in out
    assert out.rstrip().splitlines()[-1].startswith("verdict    LOCALITY NOT HELD")


def test_fail_on_violation_exits_1(capsys, counterexample):
    a, b, sets = counterexample
    code, out, _ = run(capsys, "compare", a, b, *sets, "--fail-on-violation")
    assert code == 1 and "LOCALITY NOT HELD" in out


def test_fail_on_violation_exits_0_when_locality_holds(capsys, prose_pair):
    a, _ = prose_pair
    code, out, _ = run(capsys, "compare", a, a, "--fail-on-violation", "--set", "max_tokens=128",
                       "--set", "min_tokens=16")
    assert code == 0
    assert "verdict    locality held: every chunk inside a long shared range was reused" in out


def test_json_report(capsys, counterexample):
    a, b, sets = counterexample
    code, out, _ = run(capsys, "compare", a, b, *sets, "--format", "json")
    assert code == 0
    d = json.loads(out)
    assert d["files"] == {"a": a, "b": b}
    assert d["summary"]["reused_chunks"] == 6 and d["summary"]["chunks_b"] == 19
    assert d["summary"]["tokens_to_embed"] == 463
    assert d["locality_held"] is False
    assert len(d["violations"]) == 10 and d["violations"][0]["b_chunk"] == 3
    (region,) = d["phase_shift_regions"]
    assert region["b_words"] == [24, 300] and region["resync_distance_tokens"] == 428
    assert region["after_edit"] == {"tag": "insert", "a_start": 17, "a_end": 17, "b_start": 17, "b_end": 21}
    assert d["baseline"]["strategy"] == "fixed-tokens/1"
    assert d["baseline"]["summary"]["chunks_b"] == 17
    assert d["params"]["max_tokens"] == 40 and d["boundary_rule"] == "tttd-v1"
    assert [c["status"] for c in d["chunks_b"]][:4] == ["edited", "shifted", "shifted", "shifted"]


def test_default_parameters_on_a_small_edit(capsys, prose_pair):
    a, b = prose_pair
    code, out, _ = run(capsys, "compare", a, b, "--format", "json")
    d = json.loads(out)
    assert code == 0 and d["params"]["max_tokens"] == 512
    assert d["summary"]["edits"] == 1 and d["summary"]["changed_words_b"] == 3


@pytest.mark.parametrize(
    "args, message",
    [
        (["--set", "min_tokens=0"], "steadlith: error: min_tokens: must be >= 1"),
        (["--set", "nope=1"], "steadlith: error: nope: unknown parameter name"),
    ],
)
def test_parameter_errors_are_one_line_exit_2(capsys, prose_pair, args, message):
    a, b = prose_pair
    code, out, err = run(capsys, "compare", a, b, *args)
    assert code == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_loading_errors_are_one_line_exit_2(capsys, prose_pair, tmp_path):
    a, _ = prose_pair
    code, _, err = run(capsys, "compare", a, str(tmp_path / "missing.md"))
    assert code == 2 and err.startswith("steadlith: error: ") and "missing.md" in err and err.count("\n") == 1
    binary = tmp_path / "binary.bin"
    binary.write_bytes(b"abc\x00def")
    code, _, err = run(capsys, "compare", str(binary), a)
    assert code == 2 and err.startswith("steadlith: error: ") and err.count("\n") == 1


def test_usage_error_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        main(["compare", "only-one-file"])
    assert e.value.code == 2
    assert "steadlith compare: error:" in capsys.readouterr().err


def test_empty_files_compare(capsys, tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code, out, _ = run(capsys, "compare", str(empty), str(empty), "--fail-on-violation")
    assert code == 0 and "reused 0 of 0 (100.0%)" in out


@pytest.mark.bench
def test_bench_reports_the_compare_measurements(capsys, tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_text(generate_prose(20_000, seed=4), encoding="utf-8")
    code, out, _ = run(capsys, "bench", str(doc), "--repeat", "1", "--format", "json")
    assert code == 0
    m = json.loads(out)["compare"]
    for key in ("diff_edited_ms", "diff_unrelated_ms", "compare_edited_ms"):
        assert m[key] > 0
    assert m["diff_edited"]["edits"] >= 5
    code, out, _ = run(capsys, "bench", str(doc), "--repeat", "1")
    assert "word diff     10 scattered edits" in out and "compare       chunk both + compare" in out
