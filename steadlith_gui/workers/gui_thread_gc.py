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
"""

from __future__ import annotations

from pyqtgraph.util.garbage_collector import GarbageCollector

INTERVAL_S = 0.5

_collector: GarbageCollector | None = None


def collect_in_gui_thread() -> GarbageCollector:
    """Install the GUI-thread collector (once; a QApplication must exist)."""
    global _collector
    if _collector is None:
        _collector = GarbageCollector(interval=INTERVAL_S)
    return _collector
