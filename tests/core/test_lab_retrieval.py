"""`steadlith lab FILE --retrieval QUESTIONS`: every chunker's retrieval scores at the
lab's own parameters, beside its cost, in text, JSON and the HTML report; the figures
`steadlith retrieval` reports for the same chunkers; each distinct chunking chunked once;
errors as sweep's."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import run
from html_tables import Page
from retrieval_helpers import write_benchmark
from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.bench.examples import tool_library_text
from steadlith_core.lab import run_lab
from steadlith_core.report.comparison import render_lab_report
from steadlith_core.report.scatter import pareto
from steadlith_core.retrieval import BM25Retriever, ChunkingSpec
from steadlith_core.retrieval.beside import evaluate_named, load_benchmark, spec_for

pytestmark = pytest.mark.kernel_independent  # the layers above the chunker: no numpy re-run

SIZES = ["--set", "min_tokens=8", "--set", "max_tokens=40"]
METRICS = ("recall", "precision", "precision_omega", "iou")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    root = tmp_path_factory.mktemp("lab-retrieval")
    folder, questions = write_benchmark(root / "bench")
    notes = root / "notes.md"
    notes.write_text(tool_library_text(), encoding="utf-8")
    return str(notes), folder, questions


def _pm(stat: dict) -> str:
    return f"{100 * stat['mean']:.1f} ± {100 * stat['std']:.1f}"


def test_the_labs_figures_are_what_steadlith_retrieval_reports_for_the_same_chunkers(capsys, inputs):
    notes, folder, questions = inputs
    code, out, err = run(capsys, "lab", notes, "--edits", "8", "--rules", "tttd-v1,lmx2-v1,fixed", *SIZES,
                         "--chunker", "fixed-tokens:chunk_size=30", "--retrieval", questions, "--top-k", "3",
                         "--format", "json")
    assert code == 0, err
    lab = json.loads(out)["retrieval"]
    assert lab["retriever"] == "bm25" and lab["top_k"] == 3 and lab["questions"] == 8
    assert list(lab["chunkers"]) == ["tttd-v1", "lmx2-v1", "fixed", "fixed-tokens:chunk_size=30"]
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1,lmx2-v1,fixed",
                         *SIZES, "--chunker", "fixed-tokens:chunk_size=30", "--top-k", "3", "--format", "json")
    assert code == 0, err
    alone = json.loads(out)["chunkings"]
    for mine, theirs in zip(lab["chunkers"].values(), alone):
        assert mine["scores"] == theirs["scores"], theirs["name"]
        assert mine["per_corpus"] == theirs["per_corpus"]
        assert (mine["chunks"], mine["mean_chunk_tokens"]) == (theirs["chunks"], theirs["mean_chunk_tokens"])
        assert mine["references_cut"] == theirs["diagnostics"]["references_cut"]
    # the baseline at the size the lab gives it (tttd-v1's max_tokens), as `retrieval` gives it
    assert lab["chunkers"]["fixed"]["settings"]["max_tokens"] == 40
    # not vacuous: the chunkers score apart, so scores handed to the wrong name would show
    assert len({json.dumps(c["scores"]) for c in lab["chunkers"].values()}) == 4


def test_the_text_table_shows_the_scores_in_the_chunkers_columns(capsys, inputs):
    notes, folder, questions = inputs
    args = ["lab", notes, "--edits", "8", "--rules", "tttd-v1,lmx2-v1", *SIZES, "--retrieval", questions,
            "--retrieval-corpora", folder]
    code, out, err = run(capsys, *args)
    assert code == 0 and err == ""
    assert "retrieval (bm25, top 5; 8 questions over 2 corpora; % mean ± sd)" in out
    _, data, _ = run(capsys, *args, "--format", "json")
    chunkers = json.loads(data)["retrieval"]["chunkers"]
    for label, metric in (("recall", "recall"), ("precision_Ω", "precision_omega"), ("IoU", "iou")):
        line = next(x for x in out.splitlines() if x.startswith(f"  {label} "))
        cells = re.split(r"\s{2,}", line.strip())[1:]
        assert cells == [_pm(c["scores"][metric]) for c in chunkers.values()], line


def test_the_html_report_has_the_table_and_the_scatter_of_churn_against_recall(capsys, inputs, tmp_path):
    notes, folder, questions = inputs
    page_path = tmp_path / "lab.html"
    code, out, err = run(capsys, "lab", notes, "--edits", "8", "--rules", "tttd-v1,lmx2-v1,fixed", *SIZES,
                         "--retrieval", questions, "--format", "json", "--html", str(page_path))
    assert code == 0, err
    data = json.loads(out)
    text = page_path.read_text(encoding="utf-8")
    page = Page(text)
    assert page.errors == [] and not re.search(r"<script", text, re.IGNORECASE)
    rows = page.table("Retrieval (bm25, top 5) beside the cost per edit")
    assert rows[0][:2] == ["chunker", "mean tokens to re-embed per edit"]
    for row, (name, c) in zip(rows[1:], data["retrieval"]["chunkers"].items()):
        assert row[0] == name
        assert row[4:8] == [_pm(c["scores"][m]) for m in METRICS]
        cost = data["rules"][name]["tokens_to_embed"]["mean"]
        assert row[1] == (f"{cost:,.1f}" if cost != int(cost) else f"{int(cost):,}")
    assert 'aria-label="tokens re-embedded per edit (mean) against recall (%), one point per chunker"' in text
    # one marker per chunker, each with its tip, and the legend's three
    assert len(re.findall(r"<title>[^<]*tokens re-embedded per edit \(mean\), recall", text)) == 3


def test_one_chunker_gets_the_table_without_a_scatter(capsys, inputs, tmp_path):
    notes, _, questions = inputs
    page_path = tmp_path / "lab.html"
    code, _, err = run(capsys, "lab", notes, "--edits", "4", "--rules", "lmx2-v1", *SIZES, "--retrieval", questions,
                       "--html", str(page_path))
    assert code == 0, err
    text = page_path.read_text(encoding="utf-8")
    assert [r[0] for r in Page(text).table("Retrieval (bm25, top 5)")] == ["chunker", "lmx2-v1"]
    assert "one point per chunker" not in text


def test_each_distinct_chunking_is_chunked_once(inputs, monkeypatch):
    """Two names for one chunking (a splitter given its default size, and that size)
    share one chunking and one ranking of the corpora."""
    _, folder, questions = inputs
    texts, question_set = load_benchmark(questions, folder)
    calls = []
    original = ChunkingSpec.chunk_corpus

    def counted(self, corpus_id, text):
        calls.append((self.name, corpus_id))
        return original(self, corpus_id, text)

    monkeypatch.setattr(ChunkingSpec, "chunk_corpus", counted)
    from steadlith_core.comparison.external import SplitterChunker

    specs = {name: spec_for(name, params) for name, params in {
        "tttd-v1": ChunkerParams(min_tokens=8, max_tokens=40), "lmx2-v1": Lmx2Params(min_tokens=8, max_tokens=40),
        "fixed-tokens": SplitterChunker("fixed-tokens", 30), "fixed-tokens:chunk_size=30":
            SplitterChunker("fixed-tokens", 30), "again": ChunkerParams(min_tokens=8, max_tokens=40)}.items()}
    beside = evaluate_named(specs, texts, question_set, BM25Retriever(), 5)
    assert len(calls) == 3 * len(texts) and len(set(calls)) == len(calls)
    assert len(beside.run.results) == 3 and list(beside.results) == list(specs)
    assert beside.results["again"] is beside.results["tttd-v1"]
    assert beside.results["fixed-tokens:chunk_size=30"] is beside.results["fixed-tokens"]


@pytest.mark.parametrize("argv, expected", [
    (["--retrieval", "missing.jsonl"], "missing.jsonl: no such question file"),
    (["--top-k", "3"], "--top-k: goes with --retrieval QUESTIONS"),
    (["--retrieval-corpora", "."], "--retrieval-corpora: goes with --retrieval QUESTIONS"),
    (["--retrieval", "QUESTIONS", "--top-k", "0"], "--top-k: must be >= 1, got 0"),
    (["--retrieval", "BAD"], "bad.jsonl"),
    (["--retrieval", "QUESTIONS", "--retrieval-corpora", "NOWHERE"], "not a folder of corpora"),
])
def test_errors_are_one_line_exit_2_and_the_sweeps(capsys, inputs, tmp_path, argv, expected):
    notes, folder, questions = inputs
    bad = Path(questions).parent / "bad.jsonl"  # beside the corpora: only its corpus id is wrong
    bad.write_text('{"question": "q", "references": [], "corpus_id": "nowhere"}\n', encoding="utf-8")
    swap = {"QUESTIONS": questions, "BAD": str(bad), "NOWHERE": str(tmp_path / "nowhere")}
    argv = [swap.get(a, a) for a in argv]
    code, out, err = run(capsys, "lab", notes, "--edits", "4", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and expected in err, err
    sweep = run(capsys, "sweep", "--versions", notes, notes, "--grid", "max_tokens=600", "--jobs", "1", *argv)
    assert sweep == (2, "", err)


def test_the_retriever_goes_with_questions(capsys, inputs):
    notes, _, questions = inputs
    code, out, err = run(capsys, "lab", notes, "--edits", "4", "--retriever", "dense")
    assert code == 2 and out == "" and "--retriever: goes with --retrieval QUESTIONS" in err
    code, out, err = run(capsys, "lab", notes, "--edits", "4", "--retrieval", questions, "--retriever", "tfidf")
    assert code == 2 and out == "" and "unknown retriever 'tfidf'" in err


def test_without_questions_the_lab_has_no_retrieval(capsys, inputs, tmp_path):
    notes, _, _ = inputs
    page_path = tmp_path / "lab.html"
    code, out, _ = run(capsys, "lab", notes, "--edits", "4", "--format", "json", "--html", str(page_path))
    assert code == 0 and "retrieval" not in json.loads(out)
    assert "Retrieval at the same parameters" not in page_path.read_text(encoding="utf-8")


def test_the_front_is_the_chunkers_no_other_beats_on_cost_and_recall():
    # (tokens re-embedded, recall): the second costs more for less; the third and fourth
    # tie the first on one objective and win on the other
    assert pareto([(100, 0.8), (150, 0.7), (100, 0.9), (90, 0.8), (90, 0.8)]) == [False, False, True, True, True]


def test_hostile_chunker_and_corpus_names_are_text(inputs):
    notes, folder, questions = inputs
    texts, question_set = load_benchmark(questions, folder)
    name = "say \"hi\" & <b>bye</b>"
    rules = {name: ChunkerParams(min_tokens=8, max_tokens=40), "lmx2-v1": Lmx2Params(min_tokens=8, max_tokens=40)}
    lab = run_lab(tool_library_text(), rules, edits=3, seed=1)
    beside = evaluate_named({n: spec_for(n, p) for n, p in rules.items()}, texts, question_set, BM25Retriever(), 5)
    page = render_lab_report(lab, "<script>x</script>.md", retrieval=beside)
    assert "<b>bye" not in page and "<script" not in page
    assert "say &quot;hi&quot; &amp; &lt;b&gt;bye&lt;/b&gt;" in page
    assert Page(page).errors == []


class _LastFirst:
    """A retriever by the protocol alone: the last chunks first."""

    name = "last-first"

    def rank(self, chunk_texts, chunk_hashes, questions, top_k):
        return [list(range(len(chunk_texts) - 1, -1, -1))[:top_k] for _ in questions]


def test_the_retriever_named_is_the_one_that_ranks(capsys, inputs, monkeypatch):
    from steadlith_core.retrieval import retrievers

    monkeypatch.setitem(retrievers._RETRIEVERS, "last-first", _LastFirst)
    notes, folder, questions = inputs
    args = ["lab", notes, "--edits", "4", "--rules", "tttd-v1", *SIZES, "--retrieval", questions, "--top-k", "1",
            "--format", "json"]
    code, out, err = run(capsys, *args, "--retriever", "last-first")
    assert code == 0, err
    last = json.loads(out)["retrieval"]
    code, out, _ = run(capsys, *args)
    bm25 = json.loads(out)["retrieval"]
    assert last["retriever"] == "last-first" and bm25["retriever"] == "bm25"
    # the last chunk (of harbor) answers no garden question: half the questions recall nothing
    mine, theirs = last["chunkers"]["tttd-v1"], bm25["chunkers"]["tttd-v1"]
    assert mine["scores"]["recall"]["mean"] < theirs["scores"]["recall"]["mean"]
    assert mine["per_corpus"]["garden"]["recall"]["mean"] == 0


def test_the_comparison_report_carries_the_labs_retrieval_figures(inputs):
    from steadlith_core import compare, chunk, render_report

    _, folder, questions = inputs
    texts, question_set = load_benchmark(questions, folder)
    text = tool_library_text()
    rules = {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params()}
    lab = run_lab(text, rules, edits=3, seed=1)
    beside = evaluate_named({n: spec_for(n, p) for n, p in rules.items()}, texts, question_set, BM25Retriever(), 5)
    comparison = compare(chunk(text), chunk(text.replace("the", "a", 1)))
    page = render_report(comparison, "a.md", "b.md", lab=lab, lab_retrieval=beside)
    rows = Page(page).table("Retrieval (bm25, top 5)")
    assert [r[0] for r in rows] == ["chunker", "tttd-v1", "lmx2-v1"]
    assert rows[1][4] == f"{100 * beside.results['tttd-v1'].overall.recall.mean:.1f} ± " \
                         f"{100 * beside.results['tttd-v1'].overall.recall.std:.1f}"
    assert "Retrieval at the same parameters" not in render_report(comparison, "a.md", "b.md", lab=lab)
