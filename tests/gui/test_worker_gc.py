"""The cyclic GC stays paused from the start of an analysis until its result is on
screen, then runs again: collecting what the analysis allocated (8-20 ms a change on a
10 MB pair, 60-150 ms for an older generation) comes after the window shows the
result, never between the worker and the screen, and never stays off."""

import gc
import threading

import shiboken6
from PySide6.QtCore import QThreadPool
from steadlith_core import ChunkerParams
from steadlith_core.examples import generate_prose

from gui_helpers import load_texts
from steadlith_gui import worker
from steadlith_gui.viewmodel import prepare_document
from steadlith_gui.worker import Analyzer, analyze

TEXT_A = generate_prose(30_000, seed=3)
TEXT_B = TEXT_A[:15_000] + " a few inserted words." + TEXT_A[15_000:]


def test_the_gc_waits_for_the_result_on_screen_then_runs_again(qtbot, window):
    qtbot.waitUntil(gc.isenabled, timeout=worker.GC_HOLD_TIMEOUT_S * 2000)  # earlier tests' windows
    shown = []  # (generation, GC running) of every result shown
    window.result_shown.connect(lambda result: shown.append((result.generation, gc.isenabled())))
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        window.set_params(ChunkerParams(min_tokens=64))
    # each analysis's first result (a second phase, the churn panel's rest, comes later)
    first = {generation: running for generation, running in reversed(shown)}
    assert len(first) == 2 and not any(first.values()), shown
    qtbot.waitUntil(gc.isenabled, timeout=worker.GC_RELEASE_DELAY_MS * 20)


def test_an_analysis_nobody_receives_any_more_leaves_the_gc_running(qtbot):
    """The window (and its analyzer) went while the analysis ran: its result is never
    shown, and the GC must not wait for that."""
    gate, started = threading.Event(), threading.Event()

    def held(request, pipeline):
        started.set()
        assert gate.wait(10)
        return analyze(request, pipeline)

    analyzer = Analyzer(analyze_fn=held)
    analyzer.submit(prepare_document("A", TEXT_A), None, ChunkerParams())
    assert started.wait(10)
    assert not gc.isenabled()  # paused for the analysis
    shiboken6.delete(analyzer)  # as a closed window's child is
    gate.set()
    qtbot.waitUntil(gc.isenabled, timeout=10_000)


def test_a_result_queued_for_a_window_that_closed_leaves_the_gc_running(qtbot):
    """Delivered to nobody: the analyzer went after its result was sent, before the GUI
    thread took it from the queue."""
    analyzer = Analyzer()
    analyzer.submit(prepare_document("A", TEXT_A), None, ChunkerParams())
    QThreadPool.globalInstance().waitForDone(20_000)  # the result is sent and queued, not received
    assert not gc.isenabled()
    shiboken6.delete(analyzer)
    qtbot.waitUntil(gc.isenabled, timeout=worker.GC_HOLD_TIMEOUT_S * 2000)
