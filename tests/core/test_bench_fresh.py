"""The benchmark times what a caller with a new document pays: a fresh text object
every call, real Markdown by default, interleaved rounds."""

import json
import sys

from steadlith_core.bench import chunking as bench
from steadlith_core.bench.corpus import markdown_corpus
from steadlith_core.bench.measure import fresh
from steadlith_core.bench.memory import repeated_to
from steadlith_core.chunking.pipeline import Pipeline


def test_fresh_copies_are_new_objects_equal_to_the_text():
    for x in ("some text here", b"some bytes here"):
        y = fresh(x)
        assert y == x and y is not x


def test_the_default_document_is_markdown_repeated_to_size():
    corpus, what = markdown_corpus()
    assert "#" in corpus and what
    text = repeated_to(corpus, 200_000)
    assert 180_000 <= len(text.encode()) <= 204_000 and text.endswith("\n")  # cut by characters


def test_every_cold_call_gets_a_fresh_object(monkeypatch):
    seen = []
    real = Pipeline.chunk

    def spy(self, text, params=None):
        seen.append(text)
        return real(self, text, params)

    monkeypatch.setattr(Pipeline, "chunk", spy)
    text = "Words to chunk, over and over.\n\n" * 200
    cold = bench.bench_cold({"doc": text}, 2)
    timed = [x for x in seen if x is not text and x != text.encode()]  # the setup call gets the text itself
    assert all(x == text or x == text.encode() for x in seen)
    assert len({id(x) for x in timed}) >= 1 and sum(x is text for x in seen) <= 2
    rows = cold["documents"]["doc"]["rows"]
    assert set(rows) == {f"steadlith {r} {f}" for r in ("tttd-v1", "lmx2-v1") for f in ("str", "bytes")}
    assert "str lmx2-v1 / tttd-v1" in cold["documents"]["doc"]["ratios"]


def test_the_text_report_is_line_oriented_and_names_its_format(capsys, tmp_path):
    from steadlith_core.cli.main import main

    doc = tmp_path / "doc.md"
    doc.write_text("# Title\n\nSome words to chunk, over and over.\n\n" * 300, encoding="utf-8")
    assert main(["bench", str(doc), "--repeat", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"format        {bench.FORMAT}\n")
    assert any(line.startswith("load average") for line in out.splitlines())
    assert sum(line.startswith("cold          this file") for line in out.splitlines()) == 4
    assert main(["bench", str(doc), "--repeat", "1", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["format"] == bench.FORMAT and report["python"] == sys.version.split()[0]


def test_the_bench_runs_under_the_allocator_a_library_caller_has_unless_told(monkeypatch, capsys):
    """chunk() in a program of the user's runs under glibc's own settings: the bench
    times that by default, and the command's kept-memory settings only when asked."""
    from cli_helpers import run
    from steadlith_core.kernel import allocator

    applied = []
    monkeypatch.setattr(allocator, "keep_freed_memory", lambda: applied.append(True) or True)
    assert run(capsys, "bench", "--sizes", "1", "--format", "json")[0] == 0
    assert applied == []
    assert run(capsys, "bench", "--sizes", "1", "--format", "json", "--allocator", "command")[0] == 0
    assert applied == [True]
    assert run(capsys, "params")[0] == 0  # every other command owns its process
    assert applied == [True, True]


def test_the_report_names_its_allocator():
    text = "Words to chunk, over and over.\n\n" * 200
    for state in ("library", "command"):
        out = bench.run_bench(text, "doc", 1, memory=False, as_json=False, with_compare=False, allocator=state)
        line = next(x for x in out.splitlines() if x.startswith("allocator"))
        assert line.split()[1] == state
        assert json.loads(bench.run_bench(text, "doc", 1, memory=False, as_json=True, with_compare=False,
                                          allocator=state))["allocator"] == state


def test_memory_options_that_would_be_ignored_are_refused(capsys, tmp_path):
    from cli_helpers import run

    doc = tmp_path / "doc.md"
    doc.write_text("Some words.\n", encoding="utf-8")
    code, out, err = run(capsys, "bench", str(doc), "--memory-only")
    assert code == 2 and out == "" and err.strip() == ("steadlith: error: --memory-only measures the bench's Markdown "
                                                       "repeated to --memory-mb, not a FILE")
    code, out, err = run(capsys, "bench", "--memory-forms", "bytes")
    assert code == 2 and out == "" and err.strip() == "steadlith: error: --memory-forms goes with --memory-only"


def test_the_memory_rows_name_their_document(monkeypatch):
    monkeypatch.setattr(bench, "bench_memory", lambda corpus, n_bytes, forms: [])
    out = bench.memory_only(3_000_000, as_json=False, forms=("bytes",))
    assert out.splitlines()[0].startswith("document      ") and out.splitlines()[0].endswith(", repeated to 3 MB")
    assert json.loads(bench.memory_only(3_000_000, as_json=True, forms=("bytes",)))["document"].endswith("3 MB")
