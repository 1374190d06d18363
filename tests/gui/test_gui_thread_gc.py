"""Cycles holding Qt objects are collected in the GUI thread, never in a worker that
happens to allocate past the collector's threshold (gui_thread_gc)."""

from __future__ import annotations

import gc
import threading
import weakref

from PySide6.QtCore import QObject


class _Cycle:
    def __init__(self, seen: list):
        self.me = self  # garbage only the cyclic collector frees
        self.qobject = QObject()
        weakref.finalize(self, lambda: seen.append(threading.current_thread().name))


def test_a_cycle_with_a_qobject_is_collected_in_the_gui_thread_while_a_worker_allocates(qtbot):
    assert not gc.isenabled(), "automatic collection is off: the GUI thread's timer collects"
    seen: list[str] = []
    _Cycle(seen)  # dropped at once: a cycle for the collector

    kept = []

    def allocate():  # far past the generation-0 threshold, as a replay's objects are
        for k in range(200_000):
            kept.append([k])

    worker = threading.Thread(target=allocate, name="worker")
    worker.start()
    worker.join()
    qtbot.waitUntil(lambda: bool(seen), timeout=5000)
    assert seen == [threading.main_thread().name]
