"""Many edits keep no old analyses alive. Every analysed edit makes a new result (both
chunkings, the comparisons under every rule, the layouts, the word map); once a newer one
is shown the old one must go. PySide sometimes keeps the Python wrapper of an
auto-deleted QRunnable for good, so a worker's runnable must not keep its function: the
function's closure holds a whole analysis, and the window's memory would grow with every
edit (python -m steadlith_gui.tools.edit_memory draws the curve; docs/guide/speed.md#gui-edit-memory)."""

from __future__ import annotations

import gc
import weakref

from gui_helpers import load_texts
from PySide6.QtTest import QTest

from steadlith_gui.workers.worker import _Signals, _Task

EDITS = 30
TEXT = "A sentence of words that goes on. Another one follows here, longer still.\n\n" * 30


class _Payload:
    """Stands for what an analysis's closure holds (weak-referenceable)."""


def test_a_finished_runnable_keeps_nothing_of_its_function(qtbot):
    signals = _Signals()
    payload = _Payload()
    alive = weakref.ref(payload)
    got = []
    signals.done.connect(lambda key, value: got.append(value))
    task = _Task(1, lambda held=payload: "value", signals)
    task.setAutoDelete(False)  # run here, not on the pool: the wrapper stays ours to look at
    del payload
    task.run()
    gc.collect()
    assert got == ["value"]
    assert task.fn is None and alive() is None  # a wrapper PySide leaves behind holds nothing large


def test_a_failed_runnable_keeps_nothing_of_its_function(qtbot):
    signals = _Signals()
    payload = _Payload()
    alive = weakref.ref(payload)
    failed = []
    signals.failed.connect(lambda key, message: failed.append(message))

    def boom(held=payload):
        raise ValueError("no")

    task = _Task(1, boom, signals)
    task.setAutoDelete(False)
    del payload, boom
    task.run()
    gc.collect()
    assert failed and alive() is None


def _live(kind) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is kind)


def test_many_analysed_edits_keep_a_bounded_number_of_analyses(qtbot, window):
    from steadlith_core.chunking.chunks import Chunking
    from steadlith_gui.model.viewmodel import AnalysisResult

    load_texts(qtbot, window, TEXT, TEXT)
    pane = window.panes["B"]
    for i in range(1, EDITS + 1):
        cursor = pane.textCursor()
        cursor.setPosition((i * 97) % (len(TEXT) - 1))
        pane.setTextCursor(cursor)
        with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
            QTest.keyClicks(pane, "x")
            window.editing.pause.flush()  # the typing pause runs out now
    assert pane.toPlainText().count("x") == EDITS
    # the shown result and what its second phase and the caches hold: a handful, not one per edit
    # (not one per edit, whatever keeps a reference to a result)
    assert _live(AnalysisResult) <= 4
    assert _live(Chunking) <= 8
