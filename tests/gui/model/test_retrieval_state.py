"""The Retrieval dock's state without Qt: requests, stale marking, and which question set
the panes underline."""

import pytest
from steadlith_core import ChunkerParams

from steadlith_gui.model.reference_cuts import ReferenceIndex
from steadlith_gui.model.job_state import CANCELLED, DONE, FAILED, RUNNING
from steadlith_gui.model.retrieval_state import STALE_NOTE, RetrievalOutcome, RetrievalRow, RetrievalState

RULES = {"tttd-v1": ChunkerParams()}
OTHER = {"tttd-v1": ChunkerParams().with_changes(min_tokens=ChunkerParams().min_tokens + 8)}


def outcome():
    index = ReferenceIndex("q.jsonl", {}, {})
    return RetrievalOutcome((RetrievalRow("tttd-v1", 3, 10.0, 0.5, 0.25, 0.2, 0.4),), index, 2, 0.1)


def test_a_request_needs_both_files():
    state = RetrievalState()
    with pytest.raises(ValueError, match="choose a question file"):
        state.request(RULES)
    state.set_paths("q.jsonl", "")
    with pytest.raises(ValueError, match="folder of corpora"):
        state.request(RULES)
    state.set_paths("q.jsonl", "corpora")
    assert state.request(RULES).rules_dict == RULES


def test_rows_go_stale_when_a_rules_parameters_differ_from_the_measured_ones():
    state = RetrievalState()
    state.set_paths("q.jsonl", "corpora")
    state.start(state.request(RULES))
    assert state.phase == RUNNING
    done = outcome()
    state.finish(done)
    assert state.phase == DONE and state.rows == done.rows and state.references is done.references
    assert state.rows[0].cells() == ("tttd-v1", "3", "10.0", "50.0 %", "25.0 %", "20.0 %", "40.0 %")
    state.check_rules(OTHER)
    assert state.stale and state.status.endswith(f"Stale: {STALE_NOTE}.")
    state.check_rules(RULES)
    assert not state.stale and "Stale" not in state.status


def test_a_run_of_files_no_longer_chosen_does_not_replace_the_underlines():
    state = RetrievalState()
    state.set_paths("q.jsonl", "corpora")
    state.start(state.request(RULES))
    state.set_paths("other.jsonl", "corpora")  # chosen while the run went on
    state.finish(outcome())
    assert state.references is None and state.phase == DONE


def test_cancel_and_failure_leave_no_rows():
    state = RetrievalState()
    state.set_paths("q.jsonl", "corpora")
    state.start(state.request(RULES))
    state.cancel()
    assert state.phase == CANCELLED and state.rows == () and state.status == "Cancelled: that run left no result."
    state.fail("q.jsonl: line 1: not JSON (Expecting value)")
    assert state.phase == FAILED and state.status == "Could not run: q.jsonl: line 1: not JSON (Expecting value)"
