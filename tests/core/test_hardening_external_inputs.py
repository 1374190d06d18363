"""Another library's splitter and another pipeline's files are outside our control: a
splitter that fails on its setting, a spans or question file with a huge integer, deep
nesting, or no end at all each end in one line naming the file and line, never a
library traceback, a RecursionError or a hang."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from cli_helpers import run

from steadlith_core.comparison.external import ExternalChunkError, SplitterChunker, read_spans_jsonl
from steadlith_core.jsonl import JsonlError, Limits, nesting_depth, read_jsonl
from steadlith_core.retrieval.data import RetrievalDataError, load_questions

TEXT = "A sentence of words. Another one follows here.\n\nA second paragraph, with more words in it.\n"


@pytest.fixture
def docs(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT.replace("second", "third"), encoding="utf-8")
    return a, b


@pytest.mark.parametrize("size", [1, 2])
@pytest.mark.parametrize("command", ["compare", "lab", "sweep"])
def test_a_splitter_that_fails_on_its_setting_is_one_line(capsys, docs, command, size):
    pytest.importorskip("chonkie")
    a, b = docs
    spec = f"chonkie-recursive:chunk_size={size}"
    argv = {"compare": ["compare", str(a), str(b), "--chunker", spec],
            "lab": ["lab", str(a), "--chunker", spec, "--edits", "2"],
            "sweep": ["sweep", "--versions", str(a), str(b), "--chunker", spec, "--jobs", "1"]}[command]
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert err.startswith(f"steadlith: error: chonkie-recursive(chunk_size={size}): chonkie failed on this text: ")
    assert len(err.splitlines()) == 1 and "Traceback" not in err


def test_any_exception_of_the_library_becomes_an_external_chunk_error(monkeypatch):
    from steadlith_core.comparison import external

    def broken(c, text):
        raise ValueError("a\nmulti-line\nreason")

    monkeypatch.setitem(external.SPLITTERS, "semchunk", broken)
    with pytest.raises(ExternalChunkError, match=r"^semchunk\(chunk_size=8, chunk_overlap=0\): semchunk failed on "
                                                 r"this text: ValueError: a multi-line reason$"):
        SplitterChunker("semchunk", 8).chunk(TEXT)


def _spans(tmp_path, line: str):
    path = tmp_path / "spans.jsonl"
    path.write_text('{"start": 0, "end": 5}\n' + line + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("line,problem", [
    ('{"start": 5, "end": 1' + "0" * 5000 + "}", "not JSON (an integer of 5001 digits"),
    ("[" * 50_000 + "]" * 50_000, "nested 50000 deep (at most 4)"),
    ('{"start": 5, "end": NaN}', "not JSON (NaN is not a JSON number)"),
])
def test_a_spans_line_out_of_bounds_is_one_line_naming_it(tmp_path, line, problem):
    path = _spans(tmp_path, line)
    with pytest.raises(ExternalChunkError) as e:
        read_spans_jsonl(path, TEXT)
    assert str(e.value).startswith(f"jsonl:spans.jsonl: {path}:2: {problem}")
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/urandom"])
def test_a_spans_file_that_never_ends_is_refused_not_read_for_ever(tmp_path, docs, device):
    """A real process with a timeout: reading without a bound fails the test, not hangs it."""
    a, b = docs
    r = subprocess.run([sys.executable, "-m", "steadlith_core.cli.main", "compare", str(a), str(b),
                        "--chunker", f"jsonl:{device},{device}"], capture_output=True, text=True, timeout=20)
    assert r.returncode == 2 and len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"steadlith: error: jsonl(") and f"{device}:1: " in r.stderr
    assert ("longer than 16 MiB" if device == "/dev/zero" else "not UTF-8") in r.stderr


def test_the_total_size_is_bounded_when_every_line_is_short():
    stream = io.BytesIO(b"{}\n" * 1000)
    with pytest.raises(JsonlError, match=r"^line 342: the file passes"):
        list(read_jsonl(stream, Limits(max_bytes=1024)))


def test_the_depth_scan_skips_brackets_inside_strings():
    assert nesting_depth(b'{"a": "[[[[{{{{\\"]]]", "b": [[1]]}') == 3
    assert nesting_depth(b"17") == 0


@pytest.mark.parametrize("record,problem", [
    ({"question": "Q?", "corpus_id": "alpha", "references": [{"start_index": 10**30, "end_index": 1}]},
     "line 2: not JSON (an integer of 31 digits"),
    ({"question": "Q?", "corpus_id": "alpha", "references": "[" * 3000 + "]" * 3000},
     "line 2: references are nested 3000 deep (at most 6)"),
])
def test_a_question_line_out_of_bounds_names_its_line(tmp_path, record, problem):
    good = {"question": "Which?", "corpus_id": "alpha", "references": [{"start_index": 0, "end_index": 4}]}
    path = tmp_path / "q.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(RetrievalDataError) as e:
        load_questions(path, {"alpha": TEXT})
    assert str(e.value).startswith(f"{path}: {problem}")


def test_a_deeply_nested_question_line_is_refused_before_parsing(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_text("[" * 100_000 + "]" * 100_000 + "\n", encoding="utf-8")
    with pytest.raises(RetrievalDataError, match=r"q\.jsonl: line 1: nested 100000 deep \(at most 6\)$"):
        load_questions(path, {"alpha": TEXT})
