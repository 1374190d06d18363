"""Cycles holding Qt objects are collected in the GUI thread, never in a worker that
happens to allocate past the collector's threshold (gui_thread_gc). The window's start is
frozen out of the collector (freeze_startup): what existed is no longer walked, what
comes after is collected as before, and the app freezes before it loads any document,
so no document can be kept by it."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import threading
import weakref

from PySide6.QtCore import QObject

from steadlith_gui.workers.gui_thread_gc import freeze_startup


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


class Node:
    def __init__(self):
        self.me = self  # a cycle: only the cyclic collector frees it


def test_what_exists_is_frozen_and_what_comes_after_is_collected():
    before = Node()
    try:
        frozen = freeze_startup()
        assert frozen == gc.get_freeze_count() > 0
        assert not any(o is before for o in gc.get_objects())  # out of every generation: never walked
        after = Node()
        gone = weakref.ref(after)
        assert any(o is after for o in gc.get_objects())
        del after
        gc.collect()
        assert gone() is None  # a cycle made after the freeze is still collected
    finally:
        gc.unfreeze()


PROBE = r"""
import gc, json, sys
from steadlith_gui import app
from steadlith_gui.model.documents import LoadedDocument
from steadlith_gui.workers import gui_thread_gc

real, seen = gui_thread_gc.freeze_startup, []

def freeze():
    seen.append(sum(isinstance(o, LoadedDocument) for o in gc.get_objects()))
    return real()

gui_thread_gc.freeze_startup = freeze
code = app.main(sys.argv[1:])
documents = sum(isinstance(o, LoadedDocument) for o in gc.get_objects())
print(json.dumps([code, seen, gc.get_freeze_count() > 0, documents]))
"""


def test_the_app_freezes_its_start_before_loading_a_document(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("# A\n\nOne paragraph of text.\n")
    b.write_text("# B\n\nOne paragraph of text, edited.\n")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-c", PROBE, str(a), str(b), "--screenshot", str(tmp_path / "w.png")],
                       env=env, capture_output=True, text=True, timeout=120)
    code, seen, frozen, documents = json.loads(r.stdout.strip().splitlines()[-1])
    assert code == 0, r.stderr
    assert seen == [0] and frozen  # frozen once, when no document existed yet
    assert documents >= 2  # the loaded pair: tracked, so collectable
