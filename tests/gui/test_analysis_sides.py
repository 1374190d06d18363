"""The worker chunks A and B at once (side A in its own thread, the pipeline locking each
document rather than every run), with the same result as one after the other; the same
text on both sides stays one document; a newer change still stops a completion."""

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from steadlith_core import Analysis, ChunkerParams, Lmx2Params
from steadlith_core.bench.examples import generate_prose
from steadlith_core.chunking import pipeline as core_pipeline
from steadlith_core.progress import Cancelled

from steadlith_gui.model.documents import prepare_document
from steadlith_gui.workers import worker
from steadlith_gui.workers.analysis import AnalysisRequest, analyze, complete
from steadlith_gui.workers.worker import Analyzer

TEXT_A = generate_prose(40_000, seed=21)
TEXT_B = TEXT_A[:15_000] + " a sentence put in here. " + TEXT_A[15_000:]
PARAMS = Lmx2Params()


@pytest.fixture
def sides():
    pool = ThreadPoolExecutor(1)
    yield pool
    pool.shutdown()


def watch_runs(monkeypatch, meet: threading.Barrier | None = None) -> list:
    """Wrap lmx2-v1's run: record (thread, document) of each run, check that no document
    is run by two threads at once, and with `meet`, make each run wait for another."""
    real, runs, inside, lock = core_pipeline.RULES[Lmx2Params], [], set(), threading.Lock()

    def run(doc, p):
        with lock:
            assert id(doc) not in inside, "one document run by two threads at once"
            inside.add(id(doc))
            runs.append((threading.get_ident(), id(doc)))
        try:
            if meet is not None:
                meet.wait()  # broken (an error) unless the other side's run is under way too
            return real(doc, p)
        finally:
            with lock:
                inside.discard(id(doc))

    monkeypatch.setitem(core_pipeline.RULES, Lmx2Params, run)
    return runs


def summary(result):
    return (result.a.columns.hashes, result.b.columns.hashes, result.layout_a.ends.tolist(),
            result.layout_b.ends.tolist(), result.comparison.summary, result.links.status,
            result.links.pairs.tolist())


def test_both_sides_are_in_the_pipeline_at_once_and_give_the_serial_result(monkeypatch, sides):
    request = AnalysisRequest(1, prepare_document("A", TEXT_A), prepare_document("B", TEXT_B), PARAMS)
    serial = analyze(request, Analysis(pause_gc=True))
    runs = watch_runs(monkeypatch, threading.Barrier(2, timeout=10))
    result = analyze(request, Analysis(pause_gc=True), sides=sides)
    assert len(runs) == 2 and runs[0][0] != runs[1][0] and runs[0][1] != runs[1][1]  # two threads, two documents
    assert summary(result) == summary(serial)
    assert np.array_equal(result.a.columns.starts, serial.a.columns.starts)
    assert result.cpu_first_ms > 0


def test_the_same_text_on_both_sides_is_one_document(monkeypatch, sides):
    request = AnalysisRequest(1, prepare_document("A", TEXT_A), prepare_document("B", TEXT_A), PARAMS)
    runs = watch_runs(monkeypatch)
    analysis = Analysis(pause_gc=True)
    result = analyze(request, analysis, sides=sides)
    assert len(analysis.pipeline._docs) == 1  # scanned and held once, whichever side came first
    assert len({doc for _, doc in runs}) == 1
    assert result.a.columns.hashes == result.b.columns.hashes


def test_a_failing_side_waits_for_the_other_and_is_reported(monkeypatch, sides):
    request = AnalysisRequest(1, prepare_document("A", TEXT_A), prepare_document("B", TEXT_B), PARAMS)
    analysis = Analysis(pause_gc=True)
    real, finished = analysis.chunk, []

    def chunk(text, params):
        if text is request.doc_b.text:
            raise MemoryError
        chunking = real(text, params)
        finished.append(text)
        return chunking

    monkeypatch.setattr(analysis, "chunk", chunk)
    with pytest.raises(Exception, match="memory"):
        analyze(request, analysis, sides=sides)
    assert finished == [request.doc_a.text]  # side A ended before the analysis did


def test_a_newer_change_stops_the_running_completion(qtbot, monkeypatch):
    started, outcomes = threading.Event(), []

    def held_complete(request, result, pipeline, others, cancel):
        if not started.is_set():  # the first completion waits for the newer change to stop it
            started.set()
            cancel.wait(10)
        try:
            full = complete(request, result, pipeline, others, cancel)
        except Cancelled:
            outcomes.append(("cancelled", request.params))
            raise
        outcomes.append(("complete", request.params))
        return full

    monkeypatch.setattr(worker, "complete", held_complete)
    analyzer = Analyzer()
    doc_a, doc_b = prepare_document("A", TEXT_A), prepare_document("B", TEXT_B)
    others = {"tttd-v1": ChunkerParams()}
    received = []
    analyzer.result_ready.connect(received.append)
    analyzer.submit(doc_a, doc_b, PARAMS, others)
    qtbot.waitUntil(started.is_set, timeout=20_000)
    newer = Lmx2Params(max_tokens=400)
    analyzer.submit(doc_a, doc_b, newer, others)
    qtbot.waitUntil(lambda: not analyzer.busy and outcomes[-1:] == [("complete", newer)], timeout=20_000)
    assert outcomes == [("cancelled", PARAMS), ("complete", newer)]
    last = received[-1]
    assert last.params == newer and not last.pending
    serial = analyze(AnalysisRequest(9, doc_a, doc_b, newer, others), Analysis())
    assert summary(last) == summary(serial) and set(last.rules) == {"lmx2-v1", "tttd-v1"}
