"""`steadlith compare --chunker`: rules, the baseline and external chunkers in one table."""

from __future__ import annotations

import json
import sys

import pytest

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.comparison.external import compare_chunkers, parse_chunker

from integration_helpers import demo_pair
from cli_helpers import run

PARAS_A = ["First paragraph, about to be edited.", "Second paragraph stays.", "Third paragraph stays too."]
PARAS_B = ["First paragraph, edited now.", *PARAS_A[1:]]


@pytest.fixture()
def files(tmp_path):
    text_a, text_b = demo_pair()
    a, b = tmp_path / "v1.md", tmp_path / "v2.md"
    a.write_text(text_a, encoding="utf-8")
    b.write_text(text_b, encoding="utf-8")
    return str(a), str(b), text_a, text_b


def spans_file(path, paragraphs):
    lines, pos = [], 0
    for para in paragraphs:
        lines.append(json.dumps({"start": pos, "end": pos + len(para)}))
        pos += len(para) + 2
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_rules_baseline_and_imported_spans_share_one_table(capsys, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("\n\n".join(PARAS_A), encoding="utf-8")
    b.write_text("\n\n".join(PARAS_B), encoding="utf-8")
    sa, sb = spans_file(tmp_path / "a.jsonl", PARAS_A), spans_file(tmp_path / "b.jsonl", PARAS_B)
    code, out, err = run(capsys, "compare", str(a), str(b), "--chunker", "rules", "--chunker", f"jsonl:{sa},{sb}",
                         "--set", "min_tokens=2", "--set", "max_tokens=8")
    assert (code, err) == (0, "")
    table = out[out.index("chunker"):].splitlines()
    assert [line.split()[0] for line in table[1:]] == ["tttd-v1", "lmx2-v1", "fixed-tokens/1(8)",
                                                       "jsonl(a.jsonl,b.jsonl)"]
    # two of three paragraphs unchanged: the imported chunking reuses exactly those
    assert table[-1].split()[3:6] == ["2", "of", "3"]


def test_json_has_every_row_with_stable_names(capsys, files):
    a, b, text_a, text_b = files
    code, out, _ = run(capsys, "compare", a, b, "--chunker", "tttd-v1", "--chunker", "lmx2-v1", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["schema"] == "steadlith-compare-chunkers/1"
    expected = compare_chunkers(text_a, text_b, [ChunkerParams(), Lmx2Params()])
    assert doc["chunkers"] == [json.loads(json.dumps(r.to_dict())) for r in expected]
    assert [r["family"] for r in doc["chunkers"]] == ["rule", "rule", "baseline"]


@pytest.mark.parametrize("argv, message", [
    (["--chunker", "nope"], "unknown chunker 'nope'"),
    (["--chunker", "rules", "--fail-on-violation"], "--fail-on-violation: not available with --chunker"),
    (["--chunker", "semchunk", "--set", "min_tokens=5"], "no boundary rule to apply it to"),
    (["--match-size"], "--match-size: sizes external chunkers"),
])
def test_bad_chunker_options_are_one_line_and_exit_2(capsys, files, argv, message):
    a, b, *_ = files
    code, out, err = run(capsys, "compare", a, b, *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1


def test_a_span_that_does_not_fit_names_its_file_and_line(capsys, files, tmp_path):
    a, b, text_a, _ = files
    good = tmp_path / "a.jsonl"
    good.write_text(json.dumps({"start": 0, "end": 10}) + "\n", encoding="utf-8")
    bad = tmp_path / "b.jsonl"
    bad.write_text(json.dumps({"start": 0, "end": 10}) + "\n" + json.dumps({"start": 20, "end": 10 ** 7}) + "\n",
                   encoding="utf-8")
    code, out, err = run(capsys, "compare", a, b, "--chunker", f"jsonl:{good},{bad}")
    assert code == 2 and out == ""
    assert f"{bad}:2: [20, 10000000) is not a non-empty range inside the document" in err


def test_a_missing_library_is_named_with_its_extra(capsys, files, monkeypatch):
    a, b, *_ = files
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)
    code, _, err = run(capsys, "compare", a, b, "--chunker", "langchain-recursive")
    assert code == 2
    assert ("langchain-recursive needs the package langchain_text_splitters: pip install 'steadlith-core[langchain]' "
            "(from a checkout: pip install './core[langchain]')") in err


def test_match_size_gives_splitters_the_rules_mean_chunk_size(capsys, files):
    pytest.importorskip("semchunk")
    a, b, text_a, _ = files
    code, out, _ = run(capsys, "compare", a, b, "--chunker", "tttd-v1", "--chunker", "semchunk",
                       "--chunker", "semchunk:chunk_size=100", "--match-size", "--format", "json")
    doc = json.loads(out)
    target = doc["matched_mean_tokens_a"]
    rows = {r["chunker"]: r for r in doc["chunkers"]}
    matched = next(r for name, r in rows.items() if name.startswith("semchunk") and "=100," not in name)
    assert "semchunk(chunk_size=100, chunk_overlap=0)" in rows  # an explicit size is kept
    size = int(matched["chunker"].split("=")[1].split(",")[0])
    mean_a = parse_chunker(f"semchunk:chunk_size={size}").chunk(text_a).mean_chunk_tokens
    assert abs(mean_a - target) < 0.1 * target


def test_the_rules_own_jsonl_output_reads_back_as_spans(capsys, tmp_path):
    """`chunk --format jsonl` writes offsets into the document beside each chunk's
    canonical text; on a document whose whitespace is not canonical (CRLF, runs of
    spaces) the two differ, and reading the output back still gives the rule's churn."""
    text_a, text_b = demo_pair()
    docs = []
    for name, text in (("a.md", text_a), ("b.md", text_b)):
        path = tmp_path / name
        path.write_bytes(text.replace("\n", "\r\n").replace(". ", ".   ").encode("utf-8"))
        docs.append(path)
    spans = []
    for path in docs:
        code, out, err = run(capsys, "chunk", str(path), "--format", "jsonl")
        assert (code, err) == (0, "")
        spans.append(tmp_path / (path.stem + ".jsonl"))
        spans[-1].write_text(out, encoding="utf-8")
    code, out, err = run(capsys, "compare", *map(str, docs), "--chunker", "tttd-v1",
                         "--chunker", f"jsonl:{spans[0]},{spans[1]}", "--format", "json")
    assert (code, err) == (0, "")
    rule, imported = json.loads(out)["chunkers"][0], json.loads(out)["chunkers"][-1]
    assert imported["family"] == "external"
    for field in ("chunks_a", "chunks_b", "reused_chunks", "tokens_b", "reused_tokens"):
        assert imported[field] == rule[field], field
