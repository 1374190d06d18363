"""`steadlith retrieval` end to end on a tiny corpus folder the test writes: the table,
JSON whose ranges give every score back, CSV, one-line errors, Ctrl+C."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from steadlith_core.cli import retrieval as cli_retrieval
from steadlith_core.retrieval import recompute
from cli_helpers import run
from retrieval_helpers import write_benchmark

pytestmark = pytest.mark.kernel_independent  # checks the layer above the chunker, not its cuts: no numpy re-run

SIZES = ["--set", "min_tokens=8", "--set", "max_tokens=40"]


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return write_benchmark(tmp_path_factory.mktemp("retrieval"))


def test_text_has_a_row_per_chunking_and_the_diagnostics(capsys, bench):
    folder, questions = bench
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1,lmx2-v1,fixed",
                         "--chunker", "fixed-tokens:chunk_size=30", "--chunker", "tttd-v1:snap_mode=paragraph-sentence/1,"
                         "snap_window_words=4", *SIZES, "--per-corpus", "--timing")
    assert code == 0 and err == ""
    assert "8 questions over 2 corpora" in out and "retriever bm25, top 5" in out
    for row in ("tttd-v1 ", "lmx2-v1 ", "fixed(40)", "fixed-tokens(chunk_size=30)",
                "tttd-v1:snap_mode=paragraph-sentence/1,snap_window_words=4", "  garden", "  harbor"):
        assert row in out, row
    assert "refs cut" in out and "where cuts fall" in out and "load average" in out


def test_one_question_over_one_corpus_is_counted_in_the_singular(capsys, bench, tmp_path):
    folder, questions = bench
    one = tmp_path / "corpora"
    one.mkdir()
    (one / "garden.md").write_text((Path(folder) / "garden.md").read_text(encoding="utf-8"), encoding="utf-8")
    first = tmp_path / "one.jsonl"
    first.write_text(Path(questions).read_text(encoding="utf-8").splitlines()[0] + "\n", encoding="utf-8")
    code, out, _ = run(capsys, "retrieval", str(one), "--questions", str(first), "--rules", "tttd-v1", *SIZES)
    assert code == 0 and out.startswith("retrieval  1 question over 1 corpus (")


def test_json_carries_ranges_that_give_every_score_back(capsys, bench, tmp_path):
    folder, questions = bench
    path = tmp_path / "run.json"
    code, out, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1,fixed",
                       *SIZES, "--top-k", "2", "--format", "json", "--json", str(path))
    assert code == 0
    data = json.loads(out)
    assert json.loads(path.read_text(encoding="utf-8")) == data
    assert data["top_k"] == 2 and len(data["questions"]) == 8
    for chunking, again in zip(data["chunkings"], recompute(data)):
        assert again["scores"] == chunking["scores"]
        assert again["per_corpus"] == chunking["per_corpus"]
        for x, y in zip(chunking["questions"], again["questions"]):
            assert len(x["retrieved"]) == 2
            assert {k: x[k] for k in y} == y
    # not vacuous: a question's top chunk holds its reference, and recall says so
    assert sum(q["recall"] == 1.0 for q in data["chunkings"][0]["questions"]) >= 3


def test_recompute_notices_a_changed_range(capsys, bench):
    folder, questions = bench
    _, out, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1", *SIZES,
                    "--format", "json")
    data = json.loads(out)
    chunk = data["chunkings"][0]["questions"][0]["retrieved"][0]
    chunk[2] += 5
    assert recompute(data)[0]["scores"] != data["chunkings"][0]["scores"]


def test_csv_has_a_header_and_a_row_per_chunking_and_corpus(capsys, bench):
    folder, questions = bench
    code, out, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1,lmx2-v1", *SIZES,
                       "--format", "csv", "--per-corpus")
    assert code == 0
    rows = out.strip().splitlines()
    assert rows[0].startswith("chunking,corpus,questions,chunks,mean_chunk_tokens")
    assert len(rows) == 1 + 2 * 3


@pytest.mark.parametrize("argv, expected", [
    (["--questions", "missing.jsonl"], "missing.jsonl: no such question file"),
    (["--rules", "tttd-v2"], "--rules: unknown chunker 'tttd-v2'"),
    (["--retriever", "tfidf"], "unknown retriever 'tfidf'; known: bm25, dense"),
    (["--top-k", "0"], "--top-k: must be >= 1"),
    (["--chunker", "nosuch"], "unknown chunker 'nosuch'"),
    (["--set", "horizon=5", "--rules", "tttd-v1"], "horizon: not a field of tttd-v1"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, bench, argv, expected):
    folder, questions = bench
    args = ["retrieval", folder, "--questions", questions, *argv]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and expected in err, err


def test_a_question_off_its_corpus_is_one_line_naming_it(capsys, bench, tmp_path):
    folder, _ = bench
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps({"question": "Q?", "references": [{"content": "nope", "start_index": 0,
                                                                  "end_index": 4}], "corpus_id": "harbor"}) + "\n",
                    encoding="utf-8")
    code, _, err = run(capsys, "retrieval", folder, "--questions", str(path))
    assert code == 2 and "line 1: question 1 ('Q?'): reference 1 [0, 4) does not match 'harbor'" in err


def test_ctrl_c_is_one_line_and_status_130(capsys, bench, monkeypatch):
    folder, questions = bench

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli_retrieval, "evaluate", interrupted)
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions)
    assert code == 130 and out == "" and err.strip() == "steadlith: interrupted"


def test_match_size_fits_an_unsized_splitter_to_the_first_rule(capsys, bench):
    folder, questions = bench
    code, out, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1", *SIZES,
                       "--chunker", "fixed-tokens", "--chunker", "fixed-tokens:chunk_size=7", "--match-size",
                       "--format", "json")
    assert code == 0
    rule, fitted, given = json.loads(out)["chunkings"]
    assert fitted["settings"]["chunk_size"] not in (40, 7) and given["settings"]["chunk_size"] == 7
    assert abs(fitted["mean_chunk_tokens"] - rule["mean_chunk_tokens"]) < 0.2 * rule["mean_chunk_tokens"]
    code, _, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "",
                       "--chunker", "fixed-tokens", "--match-size")
    assert code == 2 and "--match-size: needs a rule to match" in err


def test_a_budget_hands_every_question_the_same_text(capsys, bench):
    folder, questions = bench
    code, out, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1,lmx2-v1", *SIZES,
                       "--budget", "300", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["budget"] == 300 and data["top_k"] is None
    for chunking, again in zip(data["chunkings"], recompute(data)):
        assert chunking["diagnostics"]["retrieved_chars_per_question"] == 300
        assert all(sum(e - s for _, s, e in q["retrieved"]) == 300 for q in chunking["questions"])
        assert again["scores"] == chunking["scores"]
    code, _, err = run(capsys, "retrieval", folder, "--questions", questions, "--budget", "0")
    assert code == 2 and "--budget: must be >= 1 code point" in err


class _LastFirst:
    """A retriever by the protocol alone: the last chunks first."""

    name = "last-first"

    def rank(self, chunk_texts, chunk_hashes, questions, top_k):
        assert len(chunk_hashes) == len(chunk_texts)
        return [list(range(len(chunk_texts) - 1, -1, -1))[:top_k] for _ in questions]


class _Broken(_LastFirst):
    name = "broken"

    def rank(self, chunk_texts, chunk_hashes, questions, top_k):
        return [[0, 0] for _ in questions]


def test_any_retriever_of_the_protocol_plugs_in_and_a_broken_one_is_one_line(capsys, bench, monkeypatch):
    from steadlith_core.retrieval import retrievers

    monkeypatch.setitem(retrievers._RETRIEVERS, "last-first", _LastFirst)
    monkeypatch.setitem(retrievers._RETRIEVERS, "broken", _Broken)
    folder, questions = bench
    code, out, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1", *SIZES,
                       "--retriever", "last-first", "--top-k", "1", "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert data["retriever"] == "last-first"
    last = max((q["retrieved"][0] for q in data["chunkings"][0]["questions"]), key=lambda r: (r[0], r[1]))
    assert all(q["retrieved"] == [last] for q in data["chunkings"][0]["questions"])  # harbor sorts after garden
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--retriever", "broken")
    assert code == 2 and out == ""
    assert "retriever broken: question 1: expected at most 5 distinct chunk indices" in err


def _minilm_installed() -> bool:
    try:
        from steadlith_core.retrieval import minilm
        minilm._installed_source()
    except Exception:
        return False
    return True


@pytest.mark.skipif(not _minilm_installed(), reason="all-MiniLM-L6-v2's weights are not installed")
def test_dense_retrieval_embeds_only_texts_it_has_not_seen(bench, capsys, tmp_path, monkeypatch):
    """`--retriever dense` through its on-disk cache: a first run embeds every distinct
    chunk text; a second at another min_tokens embeds only the texts that run cut anew
    and reuses the rest, which a cache keyed by chunk hash (it covers the parameters)
    could not."""
    folder, questions = bench
    monkeypatch.setenv("STEADLITH_EMBEDDING_CACHE", str(tmp_path / "cache"))
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1",
                         "--retriever", "dense", "--format", "json", *SIZES)
    assert code == 0, err
    first = json.loads(out)["chunkings"][0]
    assert first["reused"] == 0 and first["embedded"] > 0
    recompute(json.loads(out))  # scores still follow from the ranges alone

    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1",
                         "--retriever", "dense", "--format", "json", "--set", "min_tokens=12",
                         "--set", "max_tokens=40")
    assert code == 0, err
    second = json.loads(out)["chunkings"][0]
    assert second["reused"] > 0, second
    assert second["embedded"] + second["reused"] <= second["chunks"]
    assert second["embedded"] < first["embedded"]

    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1",
                         "--retriever", "dense", *SIZES)
    assert code == 0, err
    assert f"embedded 0, reused {first['embedded']}" in out


def test_a_budget_and_a_top_k_together_are_refused(capsys, bench):
    folder, questions = bench
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--budget", "500", "--top-k", "3")
    assert code == 2 and out == "" and "--top-k" in err and err.count("\n") == 1
