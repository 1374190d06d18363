"""`steadlith retrieval … --html PATH`: a self-contained page whose figures are the JSON
run's, which shows hostile names as text, and whose lost write is an error."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from cli_helpers import run
from html_tables import Page
from retrieval_helpers import write_benchmark

pytestmark = pytest.mark.kernel_independent  # the layer above the chunker: no numpy re-run

SIZES = ["--set", "min_tokens=8", "--set", "max_tokens=40"]
HOSTILE = "<b onclick='x()'>&harbor"


@pytest.fixture(scope="module")
def bench(tmp_path_factory):
    return write_benchmark(tmp_path_factory.mktemp("retrieval-html"))


def _pm(stat: dict) -> str:
    return f"{100 * stat['mean']:.1f} ± {100 * stat['std']:.1f}"


def test_the_page_holds_the_json_runs_figures_per_chunking_and_corpus(capsys, bench, tmp_path):
    folder, questions = bench
    page_path = tmp_path / "run.html"
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1,lmx2-v1,fixed",
                         "--chunker", "fixed-tokens:chunk_size=30", *SIZES, "--top-k", "3", "--per-corpus",
                         "--format", "json", "--html", str(page_path))
    assert code == 0, err
    data = json.loads(out)
    text = page_path.read_text(encoding="utf-8")
    page = Page(text)
    assert page.errors == []
    assert "Content-Security-Policy" in text and not re.search(r"<script|src=|href=\"http", text, re.IGNORECASE)
    rows = page.table("Retrieval scores (bm25, top 3)")
    assert rows[0] == ["chunking / corpus", "chunks", "mean tokens", "mean chars", "recall", "precision",
                       "precision_Ω", "IoU"]
    expected = []
    for c in data["chunkings"]:
        s = c["scores"]
        expected.append([c["name"], f"{c['chunks']:,}", f"{c['mean_chunk_tokens']:.0f}",
                         f"{c['mean_chunk_chars']:.0f}",
                         *(_pm(s[m]) for m in ("recall", "precision", "precision_omega", "iou"))])
        for cid, p in c["per_corpus"].items():
            d = c["diagnostics"]["per_corpus"][cid]
            expected.append([cid, f"{d['chunks']:,}", "", f"{d['mean_chars']:.0f}",
                             *(_pm(p[m]) for m in ("recall", "precision", "precision_omega", "iou"))])
    assert rows[1:] == expected
    # not vacuous: the chunkings score differently, so a row swapped or misread shows
    assert len({tuple(r[4:]) for r in rows[1:]}) > 4
    cut = page.table("References, hits and sizes")
    assert [r[1] for r in cut[1::3]] == [
        f"{c['diagnostics']['references_cut']} of {c['diagnostics']['references']} "
        f"({100 * c['diagnostics']['cut_share']:.1f}%)" for c in data["chunkings"]]
    places = page.table("Where cuts fall")
    assert places[1][1:] == [f"{100 * data['chunkings'][0]['diagnostics']['cuts'][p]:.1f}%"
                             for p in ("paragraph", "line", "sentence", "inside sentence", "inside word")]
    params = page.table("What each row ran")
    assert "max_tokens=40" in params[1][2] and params[3][1] == "fixed-size baseline"


def test_without_per_corpus_there_is_a_row_per_chunking_and_timing_when_asked(capsys, bench, tmp_path):
    folder, questions = bench
    path = tmp_path / "run.html"
    code, out, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1", *SIZES,
                       "--budget", "300", "--timing", "--html", str(path))
    assert code == 0 and "tttd-v1" in out  # the text table still goes to stdout
    page = Page(path.read_text(encoding="utf-8"))
    assert [r[0] for r in page.table("Retrieval scores (bm25, 300 code points")] == ["chunking", "tttd-v1"]
    assert page.table("Wall seconds")[1][0] == "tttd-v1"


def test_a_hostile_corpus_name_is_shown_as_text(capsys, bench, tmp_path):
    folder, questions = bench
    corpora = tmp_path / "corpora"
    corpora.mkdir()
    for f in Path(folder).iterdir():
        name = f"{HOSTILE}.md" if f.stem == "harbor" else f.name
        (corpora / name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    hostile_questions = tmp_path / "questions.jsonl"
    lines = [json.loads(line) for line in Path(questions).read_text(encoding="utf-8").splitlines()]
    hostile_questions.write_text("".join(json.dumps({**q, "corpus_id": HOSTILE if q["corpus_id"] == "harbor"
                                                     else q["corpus_id"]}) + "\n" for q in lines), encoding="utf-8")
    path = tmp_path / "run.html"
    code, _, err = run(capsys, "retrieval", str(corpora), "--questions", str(hostile_questions), "--rules", "tttd-v1",
                       *SIZES, "--per-corpus", "--html", str(path))
    assert code == 0, err
    text = path.read_text(encoding="utf-8")
    assert "<b onclick" not in text
    assert "&lt;b onclick=&#x27;x()&#x27;&gt;&amp;harbor" in text
    page = Page(text)
    assert page.errors == []
    assert [r[0] for r in page.table("Retrieval scores")][1:] == ["tttd-v1", "garden", HOSTILE]


def test_a_page_that_cannot_be_written_is_one_line_and_nothing_else(capsys, bench, tmp_path):
    folder, questions = bench
    code, out, err = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1", *SIZES,
                         "--html", str(tmp_path / "no-such-folder" / "run.html"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no-such-folder" in err
