"""Long work in the window: progress arrives, Cancel stops it, a newer run replaces an older."""

import threading

import pytest
from PySide6.QtCore import QCoreApplication

from steadlith_core.errors import ParameterError
from steadlith_gui.workers.jobs import ProgressJob


def counting(n, gate=None):
    def fn(progress):
        for i in range(1, n + 1):
            if gate is not None:
                gate.wait(5)
            progress(i, n)
        return f"counted {n}"
    return fn


def test_a_run_reports_progress_then_its_value(qtbot):
    job = ProgressJob(interval=0)
    seen = []
    job.progressed.connect(lambda done, total: seen.append((done, total)))
    with qtbot.waitSignal(job.finished, timeout=5000) as finished:
        job.start(counting(5))
    assert finished.args == ["counted 5"]
    assert seen[-1] == (5, 5) and len(seen) == 5
    assert not job.running


def test_cancel_stops_the_run_and_no_value_arrives(qtbot):
    job = ProgressJob(interval=0)
    gate = threading.Event()
    values = []
    job.finished.connect(values.append)
    job.start(counting(1000, gate))
    with qtbot.waitSignal(job.cancelled, timeout=5000):
        job.cancel()
        gate.set()
    assert job.shutdown(5000)  # the run has ended: anything it sent is queued by now
    QCoreApplication.processEvents()
    assert values == [] and not job.running


def test_starting_again_drops_the_older_run(qtbot):
    job = ProgressJob(interval=0)
    gate = threading.Event()
    values, cancels = [], []
    job.finished.connect(values.append)
    job.cancelled.connect(lambda: cancels.append(1))
    job.start(counting(1000, gate))
    with qtbot.waitSignal(job.finished, timeout=5000):
        job.start(counting(3))
        gate.set()
    assert job.shutdown(5000)  # both runs have ended: anything they sent is queued by now
    QCoreApplication.processEvents()
    assert values == ["counted 3"] and cancels == []


def test_a_core_error_is_one_line(qtbot):
    job = ProgressJob()

    def bad(progress):
        raise ParameterError("min_tokens", "must be at most max_tokens")

    with qtbot.waitSignal(job.failed, timeout=5000) as failed:
        job.start(bad)
    assert failed.args == ["min_tokens: must be at most max_tokens"]


def test_progress_is_throttled(qtbot):
    job = ProgressJob(interval=10)  # one signal per 10 s, plus the last
    seen = []
    job.progressed.connect(lambda done, total: seen.append(done))
    with qtbot.waitSignal(job.finished, timeout=5000):
        job.start(counting(10_000))
    assert seen[-1] == 10_000 and len(seen) <= 3


@pytest.mark.parametrize("job_of", [lambda w: w.history_ctl.replay, lambda w: w.sweep_ctl.job, lambda w: w.lab.job],
                         ids=["history", "sweep", "lab"])
def test_closing_the_window_stops_a_running_job_before_the_window_goes(qtbot, job_of):
    """Each dock's job has a thread pool of its own. A run left going when the window
    closed outlived it, and dropping the last reference to the job in the run's own
    thread made that pool wait on itself: the process hung (seen with the numpy
    kernel's slower history replays)."""
    from gui_helpers import make_window

    window = make_window(qtbot)
    job = job_of(window)
    started, ended, give_up = threading.Event(), threading.Event(), threading.Event()

    def endless(progress):
        started.set()
        try:
            while not give_up.wait(0.01):  # until cancelled: progress raises Cancelled then
                progress(0, 1)
        finally:
            ended.set()

    job.start(endless)
    try:
        assert started.wait(5)
        window.close()
        assert ended.is_set(), "the run was still going after the window closed"
        assert job._pool.activeThreadCount() == 0
    finally:
        give_up.set()  # (a failed check must not leave the run going)
        job._pool.waitForDone(5000)
