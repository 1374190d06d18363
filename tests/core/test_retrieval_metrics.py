"""The retrieval metrics on hand-made ranges with known answers, against a model over
sets of code points, and BM25's ranking (deterministic, ties to the earlier chunk)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core.retrieval import BM25Retriever, bm25_tokens, precision_omega, retrieval_scores
from steadlith_core.retrieval.metrics import subtract, union

pytestmark = pytest.mark.kernel_independent  # ranges and BM25 only: no chunker runs here


def test_overlapping_references_count_the_shared_part_once_above_and_twice_below():
    # references [0, 10) and [5, 15) overlap by 5; one chunk [0, 20) covers both
    recall, precision, iou = retrieval_scores([(0, 10), (5, 15)], [("a", 0, 20)], "a")
    assert recall == pytest.approx(15 / 20)  # union 15 over the summed reference lengths 20
    assert precision == pytest.approx(15 / 20)
    assert iou == pytest.approx(15 / 20)  # nothing left uncovered


def test_a_chunk_over_two_references_covers_both_and_leaves_their_outer_parts():
    recall, precision, iou = retrieval_scores([(10, 20), (30, 40)], [("a", 15, 35)], "a")
    assert recall == pytest.approx(10 / 20)
    assert precision == pytest.approx(10 / 20)
    assert iou == pytest.approx(10 / (20 + 10))  # uncovered [10, 15) and [35, 40)


def test_a_chunk_of_another_corpus_ranked_first_counts_only_in_the_retrieved_length():
    retrieved = [("b", 10, 20), ("a", 10, 20)]
    recall, precision, iou = retrieval_scores([(10, 20)], retrieved, "a")
    assert recall == 1.0
    assert precision == pytest.approx(0.5)
    assert iou == pytest.approx(0.5)


def test_two_overlapping_retrieved_chunks_count_covered_code_points_once_and_length_twice():
    recall, precision, _ = retrieval_scores([(0, 10)], [("a", 0, 8), ("a", 4, 12)], "a")
    assert recall == 1.0
    assert precision == pytest.approx(10 / (8 + 8))


def test_nothing_retrieved_scores_zero():
    assert retrieval_scores([(0, 10)], [], "a") == (0.0, 0.0, 0.0)


def test_precision_omega_is_the_iou_of_every_chunk_meeting_a_reference():
    # [0, 12) and [12, 30) meet [10, 20); [30, 50) does not
    assert precision_omega([(10, 20)], [(0, 12), (12, 30), (30, 50)]) == pytest.approx(10 / 30)


def test_precision_omega_counts_a_chunk_that_only_touches_a_reference():
    # as in Chroma's code: [0, 10) and [20, 40) meet [10, 20) in an empty range, yet
    # their whole length joins the denominator
    assert precision_omega([(10, 20)], [(0, 10), (10, 20), (20, 40)]) == pytest.approx(10 / 40)


def test_precision_omega_adds_uncovered_reference_parts_to_its_denominator():
    assert precision_omega([(10, 20)], [(0, 15)]) == pytest.approx(5 / 20)
    assert precision_omega([(10, 20)], [(30, 40)]) == 0.0


def test_union_merges_touching_ranges_and_subtract_splits_around_a_cut():
    assert union([(5, 8), (0, 5), (10, 12)]) == [(0, 8), (10, 12)]
    assert subtract([(0, 10), (20, 30)], (4, 6)) == [(0, 4), (6, 10), (20, 30)]
    assert subtract([(0, 10)], (0, 10)) == []


ranges = st.tuples(st.integers(0, 60), st.integers(1, 20)).map(lambda t: (t[0], t[0] + t[1]))


def _disjoint(refs):
    out, last = [], -1
    for s, e in sorted(refs):
        if s > last:
            out.append((s, e))
            last = e
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(ranges, min_size=1, max_size=4), st.lists(ranges, max_size=6),
       st.lists(st.sampled_from("ab"), min_size=6, max_size=6))
def test_scores_equal_a_model_over_sets_of_code_points(refs, chunks, corpora):
    refs = _disjoint(refs)  # the model's sets cannot tell overlapping references apart
    retrieved = [(c, s, e) for c, (s, e) in zip(corpora, chunks)]
    covered = set().union(*(range(s, e) for c, s, e in retrieved if c == "a")) if retrieved else set()
    ref_points = set().union(*(range(s, e) for s, e in refs))
    hit = ref_points & covered
    ref_total = sum(e - s for s, e in refs)
    length = sum(e - s for _, s, e in retrieved)
    recall, precision, iou = retrieval_scores(refs, retrieved, "a")
    assert recall == pytest.approx(len(hit) / ref_total)
    assert precision == pytest.approx(len(hit) / length if length else 0.0)
    assert iou == pytest.approx(len(hit) / (length + len(ref_points - covered)) if length or ref_points - covered
                                else 0.0)

    same = [(s, e) for c, s, e in retrieved if c == "a"]
    meeting = [(s, e) for s, e in same if any(s <= re and e >= rs for rs, re in refs)]
    points = set().union(*(range(s, e) for s, e in meeting)) if meeting else set()
    expected = len(hit) / len(points | (ref_points - covered)) if meeting else 0.0
    assert precision_omega(refs, same) == pytest.approx(expected)


def test_bm25_tokens_are_fixed():
    assert bm25_tokens("The Cat's 2 hats, and THE dog-house!") == ["cat", "hats", "dog", "house"]


def test_bm25_ranks_the_matching_chunk_first_and_breaks_ties_by_chunk_order():
    texts = ["apples and pears", "nothing here at all", "pears pears pears", "nothing here at all", "other words"]
    hashes = [str(i) for i in range(len(texts))]
    bm25 = BM25Retriever()
    first = bm25.rank(texts, hashes, ["pears", "zebra", "nothing"], 3)
    assert first[0][0] == 2 and first[0][1] == 0
    assert first[1] == [0, 1, 2]  # no word matches: every score ties
    assert first[2][:2] == [1, 3]  # equal texts: the earlier chunk first
    assert bm25.rank(texts, hashes, ["pears", "zebra", "nothing"], 3) == first
    assert bm25.rank(texts, hashes, ["pears"], 50) == [[2, 0, 1, 3, 4]]  # k past the chunks: all of them


# -- a scored chunking: which chunks precision_Ω reads, and the diagnostics ---------------

from steadlith_core.retrieval import (ChunkingSpec, ChunkSet, Question, QuestionSet, Reference, RetrievalChunk,
                                      cut_place, score_chunk_set)

TEXT = "One two three. Four five six.\n\nSeven eight nine ten eleven. Twelve."


def _chunk_set(ranges, corpus="a"):
    chunks = tuple(RetrievalChunk(corpus, s, e, TEXT[s:e], str(i), 1) for i, (s, e) in enumerate(ranges))
    return ChunkSet(ChunkingSpec("hand", "external", None), chunks, 0.0)


def test_precision_omega_reads_every_chunk_of_the_corpus_that_meets_a_reference_touching_ones_too():
    chunk_set = _chunk_set([(0, 8), (8, 14), (15, 29), (31, 60), (61, 68)])
    questions = QuestionSet("q", (Question(0, "three four?", "a", (Reference(8, 15),)),))
    result = score_chunk_set(chunk_set, questions, {"a": TEXT}, [[3]])
    (q,) = result.questions
    # [0, 8) touches the reference's start, [15, 29) its end, [8, 14) lies inside it
    assert q.omega_chunks == ((0, 8), (8, 14), (15, 29))
    assert q.scores.precision_omega == pytest.approx(6 / 29)
    assert q.scores.recall == 0.0 and result.diagnostics.questions_hit == 0.0


def test_overlapping_chunks_before_a_reference_are_still_found():
    # [0, 40) starts first but reaches past the short chunks after it
    chunk_set = _chunk_set([(0, 40), (5, 10), (10, 14)])
    questions = QuestionSet("q", (Question(0, "q", "a", (Reference(31, 36),)),))
    (q,) = score_chunk_set(chunk_set, questions, {"a": TEXT}, [[0]]).questions
    assert q.omega_chunks == ((0, 40),)
    assert q.scores.recall == 1.0


def test_a_reference_is_cut_unless_one_chunk_holds_it_whitespace_edges_aside():
    chunk_set = _chunk_set([(0, 14), (15, 29), (31, 60), (61, 68)])
    refs = (Reference(4, 14), Reference(4, 20), Reference(15, 31))  # the last ends in "\n\n"
    questions = QuestionSet("q", (Question(0, "q", "a", refs),))
    d = score_chunk_set(chunk_set, questions, {"a": TEXT}, [[0]]).diagnostics
    assert (d.references, d.references_cut) == (3, 1)
    assert d.ref_recall_cut == pytest.approx(10 / 15)  # [4, 14) of [4, 19), its trailing space aside
    assert d.ref_recall_whole == pytest.approx((1.0 + 0.0) / 2)
    assert d.cuts == {"paragraph": 1 / 3, "line": 0.0, "sentence": 2 / 3, "inside sentence": 0.0,
                      "inside word": 0.0}


def test_cut_places():
    assert cut_place(TEXT, 29) == "paragraph"
    assert cut_place(TEXT, 31) == "paragraph"  # a chunk that kept the blank line
    assert cut_place(TEXT, 14) == "sentence"
    assert cut_place(TEXT, 7) == "inside sentence"
    assert cut_place(TEXT, 5) == "inside word"
    assert cut_place("a line\nnext", 6) == "line"
    assert cut_place('He said "stop." Then', 15) == "sentence"
    assert cut_place(TEXT, len(TEXT)) == "paragraph"


def test_a_budget_takes_ranked_chunks_until_it_is_spent_cutting_the_last():
    from steadlith_core.retrieval.evaluate import within_budget

    chunks = _chunk_set([(0, 14), (15, 29), (31, 60), (61, 68)]).chunks
    assert within_budget(chunks, [2, 0, 1], 35) == (("a", 31, 60), ("a", 0, 6))
    assert within_budget(chunks, [3, 1], 100) == (("a", 61, 68), ("a", 15, 29))  # the ranking runs out first
    assert within_budget(chunks, [1, 0], 14) == (("a", 15, 29),)
