"""The lab's edit model: what each kind of edit does to the word stream, and that an edit
is a value that re-applies exactly."""

from __future__ import annotations

from collections import Counter

import pytest

from steadlith_core import ChunkerParams, Lmx2Params, chunk
from steadlith_core.bench.examples import tool_library_text
from steadlith_core.lab import EDIT_KINDS, Edit, LabError
from steadlith_core.lab.edits import LabDocument
from steadlith_core.lab.run import build_chunkers
from steadlith_core.lab.stream import EditedStream
from steadlith_core.chunking.normalize import normalize

TEXT = tool_library_text()
DOC = LabDocument(TEXT)
POSITIONS = [0, 1, 57, 400, 1234, DOC.n // 2, DOC.n - 2, DOC.n - 1]


def words(text: str) -> list[tuple[str, bool]]:
    w = normalize(text)
    return list(zip(w.texts, w.para.tolist()))


A = words(TEXT)
TEXTS = [t for t, _ in A]


def paragraphs(ws: list[tuple[str, bool]]) -> list[list[str]]:
    out: list[list[str]] = []
    for i, (t, para) in enumerate(ws):
        if i == 0 or para:
            out.append([])
        out[-1].append(t)
    return out


def contains_run(haystack: list[str], run: list[str]) -> bool:
    k = len(run)
    return any(haystack[i:i + k] == run for i in range(len(haystack) - k + 1))


def inserted_run(a: list[str], b: list[str]) -> tuple[int, list[str]]:
    """Where `b` is `a` with one run inserted: (index, the run)."""
    head = 0
    while head < len(a) and a[head] == b[head]:
        head += 1
    run = b[head:head + len(b) - len(a)]
    assert b[:head] + run + b[head + len(run):] == b and b[:head] + b[head + len(run):] == a
    return head, run


def deleted_run(a: list[str], b: list[str]) -> tuple[int, list[str]]:
    return inserted_run(b, a)


@pytest.mark.parametrize("position", POSITIONS)
def test_fix_word_replaces_one_word_by_another_of_the_document(position):
    b = words(Edit("fix-word", position, 1, 5).apply(TEXT))
    assert len(b) == len(A)
    changed = [i for i, (x, y) in enumerate(zip(A, b)) if x != y]
    assert changed == [position]
    assert b[position][0] in set(TEXTS) and b[position][1] == A[position][1]


@pytest.mark.parametrize("position", POSITIONS)
def test_insert_sentence_inserts_one_of_its_sentences_at_a_sentence_start(position):
    b = [t for t, _ in words(Edit("insert-sentence", position, 1, 8).apply(TEXT))]
    at, run = inserted_run(TEXTS, b)
    sentences = {tuple(TEXTS[s:min(e, s + 80)]) for s, e in map(DOC.sentence, DOC.sentence_starts)}
    assert run and tuple(run) in sentences  # a whole sentence of the document (at most 80 words)
    assert at == DOC.sentence(position)[0]  # before the sentence holding the position


@pytest.mark.parametrize("position", POSITIONS)
def test_delete_sentence_removes_the_sentence_holding_the_word(position):
    b = [t for t, _ in words(Edit("delete-sentence", position).apply(TEXT))]
    at, run = deleted_run(TEXTS, b)
    s, e = DOC.sentence(position)
    if (s, e) == (0, DOC.n):
        return
    assert (at, at + len(run)) == (s, e) or run == TEXTS[s:e]


@pytest.mark.parametrize("position", POSITIONS)
def test_insert_paragraph_adds_a_copy_of_one_before_the_paragraph_holding_the_word(position):
    edited = words(Edit("insert-paragraph", position, 1, 3).apply(TEXT))
    pa, pb = paragraphs(A), paragraphs(edited)
    assert len(pb) == len(pa) + 1
    i = next(k for k, p in enumerate(pb) if k >= len(pa) or p != pa[k])
    assert pb[:i] + pb[i + 1:] == pa and pb[i] in pa
    start, _ = DOC.paragraph(position)
    assert sum(len(p) for p in pa[:i]) == start


@pytest.mark.parametrize("position", POSITIONS)
def test_delete_paragraph_removes_the_paragraph_holding_the_word(position):
    pa, pb = paragraphs(A), paragraphs(words(Edit("delete-paragraph", position).apply(TEXT)))
    start, end = DOC.paragraph(position)
    i = next(k for k, p in enumerate(pa) if sum(len(q) for q in pa[:k]) == start)
    assert pb == pa[:i] + pa[i + 1:]
    assert len(pa[i]) == end - start


@pytest.mark.parametrize("position", POSITIONS)
def test_split_and_merge_keep_every_word_and_move_one_paragraph_break(position):
    for kind, more in (("split-paragraph", 1), ("merge-paragraphs", -1)):
        b = words(Edit(kind, position).apply(TEXT))
        assert [t for t, _ in b] == TEXTS
        flips = [i for i, (x, y) in enumerate(zip(A, b)) if x[1] != y[1]]
        if kind == "split-paragraph" and DOC.paragraph(position)[1] - DOC.paragraph(position)[0] < 2:
            assert flips == []
            continue
        assert len(flips) == 1
        assert b[flips[0]][1] == (more > 0)
        if kind == "split-paragraph":
            s, e = DOC.paragraph(position)
            inside = [c for c in DOC.sentence_starts if s < c < e]
            assert s < flips[0] < e and (flips[0] in inside or not inside)  # at a sentence start if it has one


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("seed", [0, 1])
def test_move_paragraph_moves_one_paragraph_whole(position, seed):
    edit = Edit("move-paragraph", position, 3, seed)
    pa, pb = paragraphs(A), paragraphs(words(edit.apply(TEXT)))
    assert Counter(map(tuple, pa)) == Counter(map(tuple, pb))
    assert pa != pb
    start, end = DOC.paragraph(position)
    moved = TEXTS[start:end]
    i = next(k for k, p in enumerate(pa) if p == moved)
    j = next(k for k, p in enumerate(pb) if p == moved and pb[:k] + pb[k + 1:] == pa[:i] + pa[i + 1:])
    assert 1 <= abs(j - i) <= 3


@pytest.mark.parametrize("position", POSITIONS)
def test_rewrap_changes_line_breaks_but_no_word_and_no_paragraph(position):
    edit = Edit("rewrap-paragraph", position, 1, 9)
    edited = edit.apply(TEXT)
    assert words(edited) == A
    s, e = DOC.paragraph(position)
    if e - s > 12:
        assert edited != TEXT


def test_rewrap_changes_no_chunk_under_either_rule():
    """The issue's check: re-wrapping a paragraph's lines leaves every chunk's cut and
    hash alone, and the lab says nothing is to be re-embedded."""
    params = {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params(), "fixed": None}
    chunkers = build_chunkers(DOC, params)
    rewrapped = 0
    for position in range(0, DOC.n, 97):
        edit = Edit("rewrap-paragraph", position, 1, position)
        edited = edit.apply(TEXT)
        rewrapped += edited != TEXT
        for p in (ChunkerParams(), Lmx2Params()):
            assert [c.hash for c in chunk(edited, p).chunks] == [c.hash for c in chunk(TEXT, p).chunks]
        stream = EditedStream(DOC, edit.splices(DOC))
        for c in chunkers:
            outcome = c.outcome(edit, stream)
            assert (outcome.tokens_to_embed, outcome.chunks_to_embed, outcome.reach) == (0, 0, 0)
            assert outcome.words_changed is False
            assert outcome == c.outcome_from_scratch(edit, stream)
    assert rewrapped >= 20


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("length", [1, 7, 40])
def test_insert_words_inserts_a_run_of_the_documents_words(position, length):
    b = [t for t, _ in words(Edit("insert-words", position, length, 4).apply(TEXT))]
    at, run = inserted_run(TEXTS, b)
    assert len(run) == length and contains_run(TEXTS, run)
    assert TEXTS[position] in b[at:at + length + 1]


@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("length", [1, 7, 40])
def test_delete_words_removes_that_many_words_from_the_position(position, length):
    b = [t for t, _ in words(Edit("delete-words", position, length).apply(TEXT))]
    expected = TEXTS[:position] + TEXTS[position + length:]
    assert b == (expected if expected else TEXTS[:1])


def test_every_kind_is_covered_here():
    assert set(EDIT_KINDS) == {"fix-word", "insert-sentence", "delete-sentence", "insert-paragraph",
                               "delete-paragraph", "split-paragraph", "merge-paragraphs", "move-paragraph",
                               "rewrap-paragraph", "insert-words", "delete-words"}


@pytest.mark.parametrize("kind", EDIT_KINDS)
def test_an_edit_is_a_value_that_reapplies_exactly_and_describes_itself(kind):
    edit = Edit(kind, 777, 5, 12345)
    assert edit.apply(TEXT) == Edit(kind, 777, 5, 12345).apply(TEXT)
    assert edit == Edit(kind, 777, 5, 12345) and hash(edit) == hash(Edit(kind, 777, 5, 12345))
    line = edit.describe()
    assert "\n" not in line and kind in line and "777" in line
    assert edit.to_dict()["description"] == line


def test_positions_wrap_and_a_deletion_never_empties_a_document():
    assert Edit("fix-word", DOC.n + 3, 1, 2).apply(TEXT) == Edit("fix-word", 3, 1, 2).apply(TEXT)
    one = "Only one paragraph here."
    for kind in ("delete-paragraph", "delete-sentence", "delete-words"):
        assert normalize(Edit(kind, 0, 10).apply(one)).texts == ("Only",)


@pytest.mark.parametrize("bad", [dict(kind="shuffle"), dict(position=-1), dict(length=1.5), dict(seed="x")])
def test_a_bad_edit_is_a_clear_error(bad):
    fields = {"kind": "fix-word", "position": 0, "length": 1, "seed": 0, **bad}
    with pytest.raises(LabError):
        Edit(**fields)


def test_the_documents_word_offsets_cost_8_bytes_a_word():
    """The lab keeps one document's words for every edit; their offsets are read as
    Python ints but stored as machine ints (a list of int objects held about 72 bytes a
    word for the two). tracemalloc counts what construction keeps, not the process's size."""
    import tracemalloc

    text = tool_library_text() * 4
    tracemalloc.start()
    try:
        doc = LabDocument(text)
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert doc.n > 10_000
    assert held / doc.n < 64, f"{held / doc.n:.0f} bytes a word"
    assert type(doc.starts[3]) is int and doc.text[doc.starts[3]:doc.ends[3]] == doc.word(3)
