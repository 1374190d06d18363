"""Question sets and corpus folders: what loads, and every problem as one line naming
the file and the row or line (and the question, for a reference off its corpus)."""

from __future__ import annotations

import csv
import json

import pytest

from steadlith_core.errors import SteadlithError
from steadlith_core.retrieval import RetrievalDataError, load_corpora, load_questions

pytestmark = pytest.mark.kernel_independent  # file reading only: no chunker runs here

ALPHA = "Alpha text. The cat sat on the mat.\r\nSecond line here.\n"


@pytest.fixture
def corpora_dir(tmp_path):
    folder = tmp_path / "corpora"
    folder.mkdir()
    (folder / "alpha.md").write_bytes(ALPHA.encode())
    (folder / "beta.txt").write_text("Beta words only.", encoding="utf-8")
    (folder / ".hidden").write_text("ignored", encoding="utf-8")
    return folder


def ref(text, part):
    start = text.index(part)
    return {"content": part, "start_index": start, "end_index": start + len(part)}


def write_csv(path, rows, header=("question", "references", "corpus_id")):
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def test_corpora_read_with_universal_newlines_as_python_open_does(corpora_dir):
    corpora = load_corpora(corpora_dir)
    assert list(corpora) == ["alpha", "beta"]
    assert corpora["alpha"] == ALPHA.replace("\r\n", "\n")


def test_csv_and_jsonl_give_the_same_questions(corpora_dir, tmp_path):
    corpora = load_corpora(corpora_dir)
    alpha = corpora["alpha"]
    refs = [ref(alpha, "The cat sat on the mat."), ref(alpha, "Second line")]
    path_csv = write_csv(tmp_path / "q.csv", [["Where did the cat sit?", json.dumps(refs), "alpha"]])
    path_jsonl = tmp_path / "q.jsonl"
    path_jsonl.write_text(json.dumps({"question": "Where did the cat sit?", "references": refs,
                                      "corpus_id": "alpha"}) + "\n\n", encoding="utf-8")
    a, b = load_questions(path_csv, corpora), load_questions(path_jsonl, corpora)
    assert a.questions == b.questions
    (q,) = a.questions
    assert [(r.start, r.end) for r in q.references] == [(12, 35), (36, 47)]


def test_a_reference_off_its_corpus_names_file_row_and_question(corpora_dir, tmp_path):
    corpora = load_corpora(corpora_dir)
    good = ref(corpora["alpha"], "cat")
    bad = {**good, "start_index": good["start_index"] + 1, "end_index": good["end_index"] + 1}
    path = write_csv(tmp_path / "q.csv", [["First?", json.dumps([good]), "alpha"],
                                          ["Which animal?", json.dumps([good, bad]), "alpha"]])
    with pytest.raises(RetrievalDataError) as e:
        load_questions(path, corpora)
    message = str(e.value)
    assert "\n" not in message and isinstance(e.value, SteadlithError)
    assert f"{path}: row 2 (line 3): question 2 ('Which animal?'): reference 2 [17, 20) does not match 'alpha'" \
        in message


@pytest.mark.parametrize("rows, expected", [
    ([["Q?", "[{not json", "alpha"]], "row 1 (line 2): references are not JSON"),
    ([["Q?", "[]", "alpha"]], "references must be a non-empty JSON list"),
    ([["Q?", json.dumps([{"content": "x", "start_index": 0, "end_index": 1}]), "gamma"]],
     "row 1 (line 2): unknown corpus id 'gamma' (corpora: alpha, beta)"),
    ([["Q?", json.dumps([{"start_index": 5, "end_index": 999}]), "beta"]], "[5, 999) is not a non-empty range"),
    ([], ": no questions"),
])
def test_bad_csv_rows_are_one_line_each(corpora_dir, tmp_path, rows, expected):
    path = write_csv(tmp_path / "q.csv", rows)
    with pytest.raises(RetrievalDataError) as e:
        load_questions(path, load_corpora(corpora_dir))
    assert expected in str(e.value) and "\n" not in str(e.value)


def test_a_csv_without_its_columns_or_with_a_broken_quote_is_one_line(corpora_dir, tmp_path):
    corpora = load_corpora(corpora_dir)
    path = write_csv(tmp_path / "q.csv", [["Q?", "alpha"]], header=("question", "corpus"))
    with pytest.raises(RetrievalDataError, match=r"row 0 \(header\): missing column\(s\) references, corpus_id"):
        load_questions(path, corpora)
    path.write_text('question,references,corpus_id\n"Q?,"[]",alpha\n', encoding="utf-8")
    with pytest.raises(RetrievalDataError, match="not CSV|expected 3 fields"):
        load_questions(path, corpora)


def test_bad_jsonl_lines_name_their_line(corpora_dir, tmp_path):
    corpora = load_corpora(corpora_dir)
    path = tmp_path / "q.jsonl"
    good = json.dumps({"question": "Q?", "references": [ref(corpora["beta"], "Beta")], "corpus_id": "beta"})
    path.write_text(good + "\n{broken\n", encoding="utf-8")
    with pytest.raises(RetrievalDataError, match=r"q\.jsonl: line 2: not JSON"):
        load_questions(path, corpora)
    path.write_text(good + "\n" + json.dumps({"question": "Q?"}) + "\n", encoding="utf-8")
    with pytest.raises(RetrievalDataError, match=r"line 2: expected an object with question, references, corpus_id"):
        load_questions(path, corpora)


def test_corpus_folder_problems_are_one_line(tmp_path):
    with pytest.raises(RetrievalDataError, match="not a folder of corpora"):
        load_corpora(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(RetrievalDataError, match="no corpus files"):
        load_corpora(tmp_path / "empty")
    folder = tmp_path / "two"
    folder.mkdir()
    (folder / "a.md").write_text("x", encoding="utf-8")
    (folder / "a.txt").write_text("y", encoding="utf-8")
    with pytest.raises(RetrievalDataError, match="corpus id 'a' also belongs to a.md"):
        load_corpora(folder)
    (folder / "a.txt").write_bytes(b"\xff\xfe")
    with pytest.raises(RetrievalDataError):
        load_corpora(folder)
