"""Defects the fuzz targets (tests/fuzz) found, pinned: each input once gave a traceback
instead of the project's one-line error."""

from __future__ import annotations

import pytest

from steadlith_core.errors import SteadlithError
from steadlith_core.retrieval import RetrievalDataError, load_questions
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.journal import Journal
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.tasks import batch_pairs

pytestmark = pytest.mark.kernel_independent  # file parsing above the chunker


@pytest.fixture
def plan():
    return SweepPlan(batch_pairs([("1", "One two three.", "One two four.")], chars_per_task=40),
                     build_grid(["min_tokens=2,3", "max_tokens=12"]).sets)


def _journal(tmp_path, plan, body: bytes) -> str:
    path = tmp_path / "journal.jsonl"
    Journal(str(path), plan).close()
    path.write_bytes(path.read_bytes() + body)
    return str(path)


@pytest.mark.parametrize("body, says", [
    (b"[" * 100_000 + b"\n", "line 2: nested 100000 deep"),
    (b"\xff\xfe\n", "line 2: not UTF-8"),
    (b'{"source": Infinity, "set": 0}\n', "line 2: not JSON (Infinity"),
    (b"null\n", "line 2: a result must be an object"),
])
def test_a_damaged_journal_line_is_one_error_naming_the_line(tmp_path, plan, body, says):
    path = _journal(tmp_path, plan, body)
    with pytest.raises(SteadlithError) as e:
        Journal(path, plan, resume=True)
    assert says in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("header", [b"null\n", b"[1]\n", b"\xff\n"])
def test_a_journal_whose_header_is_not_an_object_is_refused(tmp_path, plan, header):
    path = tmp_path / "journal.jsonl"
    path.write_bytes(header)
    with pytest.raises(SteadlithError, match="line 1|not a sweep journal"):
        Journal(str(path), plan, resume=True)


CORPORA = {"guide": "The quick brown fox jumps over the lazy dog."}


@pytest.mark.parametrize("name, data, says", [
    ("q.csv", "question,references,corpus_id\nq," + "[" * 100_000 + ",guide\n", "references are nested 100000 deep"),
    ("q.jsonl", "[" * 100_000, "line 1: nested 100000 deep"),
    ("q.jsonl", '{"question": "q", "corpus_id": "guide", "references": ' + "1" * 5000 + "}",
     "line 1: not JSON (an integer of 5000 digits"),
    ("q.jsonl", '{"question": "q", "corpus_id": "guide", "references": "' + "[" * 100_000 + '"}',
     "references are nested 100000 deep"),
])
def test_question_files_that_break_the_json_parser_are_one_error(tmp_path, name, data, says):
    path = tmp_path / name
    path.write_text(data, encoding="utf-8")
    with pytest.raises(RetrievalDataError) as e:
        load_questions(path, CORPORA)
    assert says in str(e.value) and len(str(e.value)) < 300


def test_compiled_segmentation_of_totals_near_int64_max_cuts_where_segment_py_does():
    """A chunk starting past 2^62 tokens with max_tokens 2^62: base + max_tokens passed
    INT64_MAX in C (undefined; it wrapped, and every word became a hard cut)."""
    import numpy as np

    from steadlith_core.kernel import select
    from steadlith_core.kernel.segment import segment as python_segment

    if "c" not in select.KERNELS:
        pytest.skip("the compiled kernel is not built")
    cum = np.array([0, 2**62, 2**62 + 1, 2**62 + 2], dtype=np.int64)
    for lo, hi in [(1, 2**62), (2**62, 2**62), (1, 2**63 - 1), (2**63 - 1, 2**63 - 1)]:
        with select.using("c"):
            got = select.segment(cum, [], [], lo, hi)
        assert got == python_segment(cum, [], [], lo, hi)
        # and below the wrapper's clamping
        _, starts, ends, kinds = select._kernel.segment(cum, np.array([], np.int64), np.array([], np.int64), lo, hi)
        assert [(c.start_word, c.end_word) for c in got] == list(zip(np.frombuffer(starts, np.int64).tolist(),
                                                                         np.frombuffer(ends, np.int64).tolist()))
