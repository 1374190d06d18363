"""The cyclic garbage collector runs in the GUI thread only.

Python collects cycles in whichever thread happens to allocate past the threshold. In
the inspector that is often a worker (a history replay, a sweep, the lab), and a cycle
holding Qt wrappers (a closed dialog's menus, a replaced model) is then destroyed off
the GUI thread: its QObject destructors take Qt's locks while the GUI thread, holding the
GIL, waits on them. Seen as a hang of the GUI suite (a replay's collection destroying
a QMenu, the GUI thread in ~QObject) and, earlier, as a segfault in a pool thread.

pyqtgraph's GarbageCollector turns automatic collection off and collects, by the same
generation thresholds, from a timer in the GUI thread. The core's gc_paused keeps the
collector off when a pause ends if it was off when the pause began, so the two agree.

Its full collections walk every tracked object; at start that is the interpreter's and
Qt's own (modules, classes, functions, wrapped methods: ~100,000 objects) and the
window's widgets, which live as long as the process. `freeze_startup` moves them out of
the collector's reach once the window is built (gc.freeze), so a full collection walks
what came after: documents, results, dialogs. Frozen objects are still freed when their
last reference goes; only a cycle among them would never be collected, and what exists
at that point (after a collection of the start's garbage) is what the process keeps to
its end: the one window, its controllers and the imported code.
"""

from __future__ import annotations

import gc

from pyqtgraph.util.garbage_collector import GarbageCollector

INTERVAL_S = 0.5

_collector: GarbageCollector | None = None


def collect_in_gui_thread() -> GarbageCollector:
    """Install the GUI-thread collector (once; a QApplication must exist)."""
    global _collector
    if _collector is None:
        _collector = GarbageCollector(interval=INTERVAL_S)
    return _collector


def freeze_startup() -> int:
    """Collect the start's garbage, then freeze what is left (see the module); returns how
    many objects were frozen. Call it once, when the window is built and before any
    document is loaded."""
    gc.collect()
    gc.freeze()
    return gc.get_freeze_count()
