"""Analysis off the GUI thread: generations, stale results dropped, latest wins."""

import threading
import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel
from steadlith_core import ChunkerParams, chunk
from steadlith_core.bench.examples import generate_prose

from gui_helpers import load_texts
from steadlith_gui.model.documents import prepare_document
from steadlith_gui.workers import analysis
from steadlith_gui.workers.analysis import analyze
from steadlith_gui.workers.worker import Analyzer

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
            window.session.set_params(p, show=True)
    qtbot.waitUntil(lambda: not window.analyzer.busy, timeout=20_000)
    assert [r.params for r in shown] == [burst[-1]]
    assert window.session.result.a.params == burst[-1] and window.session.result.b.params == burst[-1]
    assert window.findChild(QLabel, "paramsHash").text() == burst[-1].params_hash
    assert window.analyzer.dropped_count == dropped_before + 1  # the first of the burst, still running
    assert window.session.result.generation == window.analyzer.generation


def test_gui_thread_keeps_turning_while_a_large_pair_is_analysed(qtbot, window, monkeypatch):
    """While a 1 MB pair is chunked and compared, the GUI thread keeps running its event
    loop: the analysis, once done, holds its result until a timer on the GUI thread has
    ticked TICKS more times. Run on the GUI thread, it would block those very ticks and
    give up after HOLD_S; on the pool the ticks come at once. No wall-clock threshold:
    a busy machine delays the ticks, it cannot stop them."""
    TICKS, HOLD_S = 5, 30
    real_analyze = analysis._analyze
    ticks = []
    ticked = threading.Condition()
    held = []  # per analysis: (thread it ran on, ticks seen while it held its result)

    def tick():
        with ticked:
            ticks.append(time.perf_counter())
            ticked.notify_all()

    def held_analyze(*args, **kwargs):
        result = real_analyze(*args, **kwargs)
        with ticked:
            seen = len(ticks)
            ticked.wait_for(lambda: len(ticks) >= seen + TICKS, timeout=HOLD_S)
            held.append((threading.get_ident(), len(ticks) - seen))
        return result

    monkeypatch.setattr(analysis, "_analyze", held_analyze)
    big = generate_prose(1_000_000, seed=7)
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(tick)
    timer.start()
    shown = []
    window.analysis_ready.connect(shown.append)
    window.documents_ctl.load_texts(big, big + "One more sentence.\n")
    qtbot.waitUntil(lambda: bool(held), timeout=120_000)
    thread, seen = held[0]
    assert thread != threading.main_thread().ident, "the analysis ran on the GUI thread"
    assert seen >= TICKS, f"the GUI thread ticked {seen} times in {HOLD_S} s while the analysis held its result"
    qtbot.waitUntil(lambda: bool(shown), timeout=120_000)
    timer.stop()
    assert shown[0].a.word_count > 100_000 and shown[0].comparison is not None


def test_the_worker_makes_both_sides_diagnostics_so_the_views_only_read_them(qtbot):
    """A Chunking makes its diagnostics when first read; the views read them in the GUI
    thread, so the worker reads them first."""
    analyzer = Analyzer()
    a, b = prepare_document("A", TEXT), prepare_document("B", TEXT + " One more sentence.")
    received = []
    analyzer.result_ready.connect(received.append)
    with qtbot.waitSignal(analyzer.result_ready, timeout=20_000):
        analyzer.submit(a, b, ChunkerParams())
    result = received[0]
    for side in (result.a, result.b):
        assert "diagnostics" in side.__dict__
        assert side.diagnostics.chunk_count == len(side.chunks)
