"""The Why? section's state without Qt: the words an explanation names in both versions,
which region a chunk belongs to, and an answer dropped once another was asked for or the
result changed."""

import pytest
from steadlith_core.bench.examples import phase_shift_answer
from steadlith_core.comparison.causes import explain_comparison

from steadlith_gui.model.history_state import PER_WORD, WORDS, HistoryState, HistoryTarget
from steadlith_gui.model.why_state import (A_CUT, COMPUTING, CREATED, FALLBACK, RESYNC, SHOWN, STALE, WhyState,
                                           region_of_chunk, word_marks)


@pytest.fixture(scope="module")
def answer():
    return phase_shift_answer()


def test_marks_name_the_created_candidate_the_fallback_and_the_resync_point(answer):
    c = answer["tttd-v1"]
    x = explain_comparison(c, 0)[0]
    marks = {(m.side, m.role): m.word for m in word_marks(x)}
    created = x.created[0]
    assert marks[("B", CREATED)] == created.b_word
    assert marks[("B", FALLBACK)] == x.decision_b.cut_word - 1
    assert marks[("A", A_CUT)] == x.decision_a.cut_word - 1
    assert marks[("A", RESYNC)] == x.resync_a_word - 1 and marks[("B", RESYNC)] == x.resync_b_word - 1


def test_region_of_chunk_finds_the_region_on_either_side(answer):
    c = answer["tttd-v1"]
    r = c.phase_shift_regions[0]
    assert region_of_chunk(c, "B", r.b_chunks[0]) == 0 and region_of_chunk(c, "A", r.a_chunks[1] - 1) == 0
    assert region_of_chunk(c, "B", r.b_chunks[1]) is None
    assert region_of_chunk(None, "B", 0) is None


def test_an_answer_for_a_region_no_longer_asked_for_is_dropped(answer):
    c = answer["tttd-v1"]
    x = explain_comparison(c, 0)[0]
    state = WhyState()
    first = state.request(c, 0)
    assert state.status == COMPUTING and state.request(c, 0) is None  # already under way
    state.invalidate()
    assert state.status == STALE and not state.accept(first, x) and state.marks == ()
    second = state.request(c, 0)
    assert state.accept(second, x) and state.status == SHOWN
    assert x.text in state.text and "tttd-v1" in state.text and state.marks


def test_history_rows_sort_by_tokens_per_changed_word():
    from steadlith_core.history.audit_costs import FileCost
    from steadlith_core.history.repository import CommitInfo

    state = HistoryState()
    commits = [CommitInfo(f"{n:040x}", f"{n:07x}", f"edit {n}", "me", 1_700_000_000 - n, None, "doc.md")
               for n in range(3)]
    state.set_history(HistoryTarget("repo", "doc.md"), commits)
    # (tokens, words changed): a big edit that cost much, a small edit that cost much, a cheap one
    costs = [(900, 300), (400, 2), (20, 10)]
    state.costs = {c.commit: {"tttd-v1": FileCost(c.commit, "doc.md", "tttd-v1", t, 1, 0.5, 0, 0, (),
                                                  words_changed_a=w, words_changed_b=w)}
                   for c, (t, w) in zip(commits, costs)}
    assert [state.words_changed(r) for r in range(3)] == [300, 2, 10]
    assert state.cost_per_word(1) == 200.0
    assert state.sorted_rows(PER_WORD) == [1, 0, 2]
    assert state.sorted_rows(PER_WORD, descending=False) == [2, 0, 1]
    assert state.sorted_rows(WORDS) == [0, 2, 1]
    assert state.sorted_rows("log", descending=True) == [0, 1, 2]
