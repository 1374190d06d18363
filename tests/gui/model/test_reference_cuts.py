"""Reference excerpts in a document and the cuts that split them (model/reference_cuts.py):
hand-made chunk ranges and references with known answers, no Qt."""

import numpy as np
from steadlith_core.retrieval import Question, QuestionSet, Reference

from steadlith_gui.model.reference_cuts import (CorpusReferences, ReferenceIndex, match_corpus, merged_runs,
                                                split_cuts, split_summary, step_target)

#             0         1         2         3         4         5
#             0123456789012345678901234567890123456789012345678901234
TEXT = "Alpha beta gamma. Delta epsilon zeta. Eta theta iota kappa."
# three chunks: [0, 17) "Alpha beta gamma.", [18, 37) "Delta epsilon zeta.", [38, 59) "Eta theta iota kappa."
STARTS, ENDS = [0, 18, 38], [17, 37, 59]


def refs(*pairs):
    return CorpusReferences.of(pairs)


def cuts(*pairs):
    r = refs(*pairs)
    return split_cuts(r.starts, r.ends, STARTS, ENDS).tolist()


def test_a_reference_across_a_cut_splits_it_and_one_inside_a_chunk_does_not():
    assert cuts((6, 24)) == [0]  # "beta gamma. Delta": the cut after chunk 0
    assert cuts((18, 37)) == []  # exactly chunk 1
    assert cuts((6, 16)) == []  # inside chunk 0
    assert cuts((6, 45)) == [0, 1]  # across both cuts
    assert cuts((6, 24), (30, 45)) == [0, 1]


def test_the_whitespace_between_chunks_belongs_to_neither():
    assert cuts((0, 18)) == []  # "Alpha beta gamma. ": ends in the space before chunk 1
    assert cuts((17, 37)) == []  # starts in that space, is chunk 1 otherwise
    assert cuts((0, 19)) == [0]  # takes a letter of chunk 1
    assert cuts((16, 18)) == [] and cuts((16, 19)) == [0]


def test_overlapping_and_repeated_references():
    # a short reference inside a long one starting earlier: the long one decides
    assert cuts((0, 30), (2, 5)) == [0]
    # repeated (two questions with one reference) counts once; the index keeps one copy
    r = refs((6, 24), (6, 24), (40, 50))
    assert len(r) == 2 and split_cuts(r.starts, r.ends, STARTS, ENDS).tolist() == [0]
    # a later reference ending before an earlier one's end: the reach of all started so far counts
    assert cuts((1, 57), (20, 21)) == [0, 1]


def test_no_cut_after_the_last_chunk_and_no_chunks():
    assert cuts((40, 59)) == []
    assert split_cuts(np.array([0]), np.array([5]), [0], [59]).tolist() == []
    assert split_cuts(np.zeros(0, np.int64), np.zeros(0, np.int64), STARTS, ENDS).tolist() == []


def test_merged_runs_join_overlapping_and_touching_references():
    s, e = merged_runs(np.array([0, 3, 10, 12, 20]), np.array([5, 8, 12, 15, 21]))
    assert s.tolist() == [0, 10, 20] and e.tolist() == [8, 15, 21]


def test_a_document_matches_a_corpus_by_its_exact_text():
    corpora = {"greek": TEXT, "other": "something else"}
    assert match_corpus(TEXT, corpora) == "greek"
    assert match_corpus(TEXT + " ", corpora) is None  # one character more: the offsets would not hold
    assert match_corpus(TEXT.replace("beta", "bete"), corpora) is None  # same length, other text


def question(i, cid, *pairs):
    return Question(i, f"q{i}", cid, tuple(Reference(s, e) for s, e in pairs))


def test_the_index_gives_a_side_its_references_and_splitting_cuts():
    qs = QuestionSet("q.jsonl", (question(0, "greek", (6, 24)), question(1, "greek", (40, 50), (18, 37)),
                                 question(2, "other", (0, 4))))
    index = ReferenceIndex.of(qs, {"greek": TEXT, "other": "something else"})
    side = index.side(TEXT, STARTS, ENDS)
    assert side.corpus_id == "greek" and side.split_count == 1 and side.splitting.tolist() == [0]
    assert side.references.run_starts.tolist() == [6, 40] and side.references.run_ends.tolist() == [37, 50]
    assert index.side("not a corpus", STARTS, ENDS) is None
    assert index.side(None, STARTS, ENDS) is None
    line = split_summary({"A": side, "B": None}, "F9")
    assert line == "References split: A 1 cut (3 refs in greek) · B –  (F9: next)"
    assert split_summary({"A": None, "B": None}, "F9") is None


def test_stepping_goes_to_the_next_cut_after_the_caret_or_the_last_before_it():
    positions = np.array([17, 37])
    assert step_target(positions, 0, 1) == 0
    assert step_target(positions, 17, 1) == 1  # on a cut: the next one
    assert step_target(positions, 37, 1) is None  # no wrap
    assert step_target(positions, 37, -1) == 0
    assert step_target(positions, 17, -1) is None
    assert step_target(positions, 50, -1) == 1
    assert step_target(np.zeros(0, np.int64), 5, 1) is None
