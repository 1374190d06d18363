"""The three docks' runs share one lifecycle (model/job_state.py): a run starts, reports
progress, and ends done, cancelled or failed; progress after the end changes nothing,
and every change is announced. Qt-free: no QApplication."""

import pytest

from steadlith_gui.model.job_state import CANCELLED, DONE, FAILED, IDLE, RUNNING
from steadlith_gui.model.lab_state import LabRequest, LabState
from steadlith_gui.model.retrieval_state import RetrievalOutcome, RetrievalRequest, RetrievalState
from steadlith_gui.model.sweep_state import SweepOutcome, SweepState


def lab():
    return LabState(), LabRequest("Some text of A.", "a.txt", (("fixed", None),), 40, 1), "a LabResult"


def retrieval():
    state = RetrievalState()
    state.set_paths("q.csv", "corpora")
    request = RetrievalRequest("q.csv", "corpora", 5, (("tttd-v1", None),))
    return state, request, RetrievalOutcome((), None, 3, 0.5)


def sweep():
    return SweepState(), "2 sets over A → B", SweepOutcome((), (), ())


@pytest.fixture(params=[lab, retrieval, sweep], ids=["lab", "retrieval", "sweep"])
def job(request):
    return request.param()


def test_a_run_goes_from_start_to_its_outcome(job):
    state, request, outcome = job
    seen = []
    state.changed.connect(lambda: seen.append(state.phase))
    assert state.phase == IDLE and state.shown is None
    state.start(request)
    assert state.running and state.pending is request and state.error is None
    state.progressed(3, 10)
    assert state.progress == (3, 10)
    state.finish(outcome)
    assert state.phase == DONE and state.shown is request and state.pending is None
    assert seen == [RUNNING, RUNNING, DONE]


@pytest.mark.parametrize("end", ["cancel", "fail"])
def test_a_cancelled_or_failed_run_leaves_no_run_going_and_ignores_late_progress(job, end):
    state, request, _outcome = job
    state.start(request)
    if end == "cancel":
        state.cancel()
        assert state.phase == CANCELLED and state.error is None
    else:
        state.fail("no such file")
        assert state.phase == FAILED and "no such file" in state.error
    assert state.pending is None and not state.running
    progress = state.progress
    state.progressed(9, 10)
    assert state.progress == progress and state.phase != RUNNING


def test_a_new_run_clears_the_last_error(job):
    state, request, _outcome = job
    state.start(request)
    state.fail("disk full")
    state.start(request)
    assert state.running and state.error is None


def test_the_sweep_dock_says_what_its_run_is_doing():
    state, request, outcome = sweep()
    state.start(request)
    assert state.status == "Sweeping 2 sets over A → B…"
    state.fail("no commit")
    assert state.status == "The sweep failed: no commit"
    state.start(request)
    state.cancel()
    assert state.status == "Sweep cancelled."
    state.start(request)
    state.finish(outcome)
    assert state.status == state.summary() and state.outcome is outcome
