"""`steadlith sweep … --retrieval QUESTIONS`: churn and retrieval side by side for every
parameter set, the front drawn on tokens re-embedded against recall."""

from __future__ import annotations

import json

import pytest

from cli_helpers import run
from retrieval_helpers import write_benchmark
from steadlith_core.sweep.results import SetRow, mark_front

pytestmark = pytest.mark.kernel_independent  # the layer above the chunker: no numpy re-run

OLD = " ".join(f"Paragraph {i} says the ferry leaves at seven and the gate opens at noon." for i in range(40))
NEW = OLD.replace("Paragraph 20 says", "Paragraph 20 now says")
GRID = ["--grid", "min_tokens=8,12", "--grid", "max_tokens=40"]


@pytest.fixture
def inputs(tmp_path):
    folder, questions = write_benchmark(tmp_path / "bench")
    old, new = tmp_path / "old.md", tmp_path / "new.md"
    old.write_text(OLD, encoding="utf-8")
    new.write_text(NEW, encoding="utf-8")
    return str(old), str(new), folder, questions


def test_every_set_gets_the_recall_steadlith_retrieval_measures_for_its_parameters(capsys, inputs):
    old, new, folder, questions = inputs
    code, out, err = run(capsys, "sweep", "--pair", old, new, *GRID, "--jobs", "1", "--retrieval", questions,
                         "--format", "json")
    assert code == 0, err
    sets = json.loads(out)["sets"]
    assert len(sets) == 2 and all(s["recall"] is not None and s["retrieval_top_k"] == 5 for s in sets)
    for s in sets:
        min_tokens = s["label"].split("min_tokens=")[1].split()[0]
        code, alone, _ = run(capsys, "retrieval", folder, "--questions", questions, "--rules", "tttd-v1",
                             "--set", f"min_tokens={min_tokens}", "--set", "max_tokens=40", "--format", "json")
        overall = json.loads(alone)["chunkings"][0]["scores"]
        assert s["recall"] == pytest.approx(overall["recall"]["mean"])
        assert s["iou"] == pytest.approx(overall["iou"]["mean"])


def test_the_text_table_shows_retrieval_beside_churn(capsys, inputs):
    old, new, folder, questions = inputs
    code, out, err = run(capsys, "sweep", "--pair", old, new, *GRID, "--jobs", "1", "--retrieval", questions,
                         "--retrieval-corpora", folder, "--top-k", "2")
    assert code == 0, err
    header = next(line for line in out.splitlines() if line.lstrip().startswith("set "))
    assert header.index("tokens re-embedded") < header.index("recall") < header.index("IoU")
    assert "fewest tokens re-embedded for its recall; retrieval: BM25, top 2" in out


def test_without_questions_the_table_has_no_retrieval_columns(capsys, inputs):
    old, new, _, _ = inputs
    code, out, _ = run(capsys, "sweep", "--pair", old, new, *GRID, "--jobs", "1")
    assert code == 0
    assert "recall" not in out and "its mean chunk size" in out


def test_a_bad_question_file_is_one_line_before_any_task_runs(capsys, inputs, tmp_path):
    old, new, folder, _ = inputs
    bad = tmp_path / "bench" / "bad.jsonl"
    bad.write_text('{"question": "q", "references": [], "corpus_id": "nowhere"}\n', encoding="utf-8")
    code, out, err = run(capsys, "sweep", "--pair", old, new, *GRID, "--jobs", "1", "--retrieval", str(bad))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "bad.jsonl" in err


def test_corpora_without_questions_is_refused(capsys, inputs):
    old, new, folder, _ = inputs
    code, _, err = run(capsys, "sweep", "--pair", old, new, *GRID, "--retrieval-corpora", folder)
    assert code == 2 and "--retrieval" in err


def _row(index: int, tokens: int, mean: float, recall: float | None) -> SetRow:
    return SetRow(set=index, label=f"set {index}", boundary_rule="tttd-v1", params_hash="h", tasks_done=1,
                  tasks_total=1, units=1, tokens_to_embed=tokens, mean_tokens_per_unit=tokens,
                  p95_tokens_per_unit=tokens, chunks_to_embed=1, chunks=1, mean_chunk_tokens=mean,
                  p90_chunk_tokens=int(mean), paragraph_cut_share=None, sentence_cut_share=None, violations=0,
                  phase_shift_regions=0, recall=recall)


def test_with_recall_the_front_trades_tokens_against_recall_not_chunk_size():
    # set 1 is cheaper than set 0 with larger chunks: on size alone it dominates; but
    # set 0 recalls more, so with recall both are on the front, and set 2 (dearer and
    # recalling less than set 0) is on neither
    rows = [_row(0, 100, 50.0, 0.9), _row(1, 80, 60.0, 0.7), _row(2, 120, 70.0, 0.8)]
    by_size = [r.pareto for r in mark_front([SetRow(**{**r.__dict__, "recall": None}) for r in rows])]
    by_recall = [r.pareto for r in mark_front(rows)]
    assert by_size == [False, True, True]
    assert by_recall == [True, True, False]


def test_top_k_without_retrieval_is_refused(capsys, inputs):
    old, new, _, _ = inputs
    code, _, err = run(capsys, "sweep", "--pair", old, new, *GRID, "--top-k", "3")
    assert code == 2 and "--top-k" in err and "--retrieval" in err


def test_the_html_scatter_plots_tokens_against_recall(capsys, inputs, tmp_path):
    old, new, _, questions = inputs
    page = tmp_path / "sweep.html"
    code, _, err = run(capsys, "sweep", "--pair", old, new, *GRID, "--jobs", "1", "--retrieval", questions,
                       "--html", str(page))
    assert code == 0, err
    html = page.read_text(encoding="utf-8")
    assert ">recall (%)</text>" in html and "tokens re-embedded against recall (%)" in html
    assert "<th>recall</th>" in html and ", recall " in html
    code, _, _ = run(capsys, "sweep", "--pair", old, new, *GRID, "--jobs", "1", "--html", str(page))
    assert ">mean chunk size (tokens)</text>" in page.read_text(encoding="utf-8")
