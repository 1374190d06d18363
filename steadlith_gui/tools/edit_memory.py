"""What the window keeps over many edits: small edits typed into pane B, each analysed,
with the memory sampled every --step edits.

    python -m steadlith_gui.tools.edit_memory [FILE] [--edits 3000] [--step 500] [--top 8]

Offscreen, it opens the main window, loads FILE (default: the checkout's docs/index.md)
as both A and B, then types one character at a time into B (QTest, at a spread of
positions) and lets the editing pause run out at once, waiting for each analysis to be
on screen (analysis_ready). At every step it prints the process's resident memory, the C
heap (glibc's mallinfo2: in use and free), the Python memory tracemalloc traces, and
with --top the allocation sites that grew most since the first sample: memory that
grows without levelling off is kept somewhere. The load average is printed at the start
and the end; a run is a measurement, not a test.
"""

from __future__ import annotations

import argparse
import ctypes
import gc
import os
import sys
import time
import tracemalloc
from pathlib import Path


class _MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks",
                                                     "fsmblks", "uordblks", "fordblks", "keepcost")]


def _heap() -> str:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _MallInfo2
        m = libc.mallinfo2()
    except (OSError, AttributeError):  # not glibc
        return "C heap n/a"
    return f"C heap in use {m.uordblks / 2**20:.1f} MB, free {m.fordblks / 2**20:.1f} MB"


def _rss_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:")) / 1024
    except (OSError, StopIteration):
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _site(stat) -> str:
    frames = list(stat.traceback)[::-1][:3]  # the newest frames first
    return " <- ".join(f"{Path(fr.filename).name}:{fr.lineno}" for fr in frames)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m steadlith_gui.tools.edit_memory", description=__doc__.split("\n")[0])
    ap.add_argument("file", nargs="?", help="the document to edit (default: docs/index.md of the checkout)")
    ap.add_argument("--edits", type=int, default=3000)
    ap.add_argument("--step", type=int, default=500)
    ap.add_argument("--top", type=int, default=0, help="print the N allocation sites that grew most at each step")
    args = ap.parse_args(argv)
    if args.edits < 1 or args.step < 1 or args.top < 0:
        ap.error("--edits and --step must be >= 1, --top >= 0")
    path = Path(args.file) if args.file else Path(__file__).resolve().parents[2] / "docs" / "index.md"
    text = path.read_text(encoding="utf-8")

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QEventLoop, QRect, QTimer
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from steadlith_core.bench.chunking import load_average
    from steadlith_core.kernel.allocator import keep_freed_memory
    from steadlith_gui.main_window import MainWindow
    from steadlith_gui.workers.gui_thread_gc import collect_in_gui_thread

    app = QApplication(["steadlith-gui"])
    keep_freed_memory()  # as the app does at start
    collect_in_gui_thread()
    window = MainWindow(None)
    window.confirm_discard = lambda question: True
    window.dock_layout.fit_to_screen(QRect(0, 0, 1920, 1080))
    window.resize(1400, 900)
    window.show()

    def until_ready(start) -> None:
        loop = QEventLoop()
        window.analysis_ready.connect(loop.quit)
        QTimer.singleShot(0, start)
        QTimer.singleShot(60_000, loop.quit)
        loop.exec()
        window.analysis_ready.disconnect(loop.quit)

    print(f"load average  {' '.join(map(str, load_average()))} (at the start)", flush=True)
    until_ready(lambda: window.documents_ctl.load_texts(text, text))
    pane = window.panes["B"]
    tracemalloc.start(args.top and 8 or 1)
    gc.collect()
    first = tracemalloc.take_snapshot() if args.top else None
    print(f"edits {0:>6}  RSS {_rss_mb():7.1f} MB  {_heap()}  Python 0.0 MB   ({len(text):,} characters)", flush=True)
    started = time.monotonic()
    for i in range(1, args.edits + 1):
        def edit(i=i) -> None:
            cursor = pane.textCursor()
            cursor.setPosition((i * 7919) % max(1, pane.document().characterCount() - 1))
            pane.setTextCursor(cursor)
            QTest.keyClicks(pane, "x" if i % 3 else " ")
            window.editing.pause.flush()  # the typing pause runs out now: the analysis is asked for

        until_ready(edit)
        if i % args.step == 0:
            gc.collect()
            app.processEvents()
            traced = tracemalloc.get_traced_memory()[0] / 2**20
            print(f"edits {i:>6}  RSS {_rss_mb():7.1f} MB  {_heap()}  Python {traced:.1f} MB   "
                  f"({time.monotonic() - started:.0f} s)", flush=True)
            if first is not None:
                for stat in tracemalloc.take_snapshot().compare_to(first, "traceback")[:args.top]:
                    print(f"    {stat.size_diff / 1024:8.1f} KiB {stat.count_diff:+7d} blocks  {_site(stat)}")
    print(f"load average  {' '.join(map(str, load_average()))} (at the end)", flush=True)
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
