"""Analysis off the GUI thread: generations, stale results dropped, latest wins."""

import threading

from PySide6.QtWidgets import QLabel
from steadlith_core import ChunkerParams, chunk
from steadlith_core.examples import generate_prose

from gui_helpers import load_texts
from steadlith_gui.models import prepare_document
from steadlith_gui.worker import Analyzer, analyze

TEXT = generate_prose(20_000, seed=5)


def test_stale_result_is_dropped_and_latest_shown(qtbot):
    gate = threading.Event()
    ran = []

    def slow_first(request, pipeline):
        ran.append(request.generation)
        if request.generation == 1:
            assert gate.wait(10)
        return analyze(request, pipeline)

    analyzer = Analyzer(analyze_fn=slow_first)
    doc = prepare_document("A", TEXT)
    received, dropped = [], []
    analyzer.result_ready.connect(received.append)
    analyzer.dropped.connect(dropped.append)
    p1, p2, p3 = (ChunkerParams(min_tokens=m) for m in (40, 60, 80))

    g1 = analyzer.submit(doc, None, p1)
    g2 = analyzer.submit(doc, None, p2)
    g3 = analyzer.submit(doc, None, p3)
    assert (g1, g2, g3) == (1, 2, 3)
    with qtbot.waitSignal(analyzer.result_ready, timeout=20_000):
        gate.set()
    qtbot.waitUntil(lambda: not analyzer.busy, timeout=20_000)

    assert [r.generation for r in received] == [g3]
    assert received[0].params == p3
    assert [c.hash for c in received[0].a.chunks] == [c.hash for c in chunk(TEXT, p3).chunks]
    assert dropped == [g1]  # finished after newer requests: dropped
    assert ran == [g1, g3]  # g2 was replaced while waiting and never ran


def test_burst_of_parameter_changes_shows_only_the_last(qtbot, window):
    load_texts(qtbot, window, TEXT, generate_prose(20_000, seed=6))
    shown = []
    window.analysis_ready.connect(shown.append)
    burst = [ChunkerParams(min_tokens=m, max_tokens=400 + m) for m in (30, 50, 70, 90, 110)]
    dropped_before = window.analyzer.dropped_count
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000, check_params_cb=lambda r: r.params == burst[-1]):
        for p in burst:
            window.set_params(p)
    qtbot.waitUntil(lambda: not window.analyzer.busy, timeout=20_000)
    assert [r.params for r in shown] == [burst[-1]]
    assert window.result.a.params == burst[-1] and window.result.b.params == burst[-1]
    assert window.findChild(QLabel, "paramsHash").text() == burst[-1].params_hash
    assert window.analyzer.dropped_count == dropped_before + 1  # the first of the burst, still running
    assert window.result.generation == window.analyzer.generation


def test_gui_thread_stays_responsive_during_a_large_load(qtbot, window):
    """While a 1 MB pair is read and chunked, the event loop keeps turning."""
    from PySide6.QtCore import QTimer

    ticks = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    big = generate_prose(1_000_000, seed=7)
    result = load_texts(qtbot, window, big, big + "One more sentence.\n")
    timer.stop()
    assert result.a.word_count > 100_000
    assert ticks, "the GUI thread never got to run a timer while the analysis ran"
