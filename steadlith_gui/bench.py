"""Parameter-change latency of the inspector on a 1 MB pair.

    python -m steadlith_gui.bench [--chars 1000000] [--changes 15] [--edits 10]

Offscreen, it opens the main window, loads generate_prose(chars) as A and a copy
with a few small edits as B, waits for the first analysis, then applies parameter
changes (min_tokens, max_tokens, masks) one at a time. Each is timed from the
set_params call until analysis_ready has been emitted AND both panes and the docks
have repainted (pending events processed, then a synchronous repaint). Prints the
median and max in milliseconds. Target: median <= 150 ms.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time


def edited_copy(text: str, edits: int) -> str:
    """`text` with `edits` small edits spread evenly: a word inserted after a space."""
    step = len(text) // (edits + 1)
    pieces, last = [], 0
    for k in range(1, edits + 1):
        at = text.find(" ", k * step)
        if at < 0:
            break
        pieces.append(text[last : at + 1])
        pieces.append(f"edit{k} ")
        last = at + 1
    pieces.append(text[last:])
    return "".join(pieces)


def parameter_changes(n: int):
    from steadlith_core import ChunkerParams

    base = ChunkerParams()
    variants = [
        dict(min_tokens=80), dict(min_tokens=120), dict(max_tokens=400), dict(max_tokens=640),
        dict(primary_mask=0x3F, primary_remainder=0x3F), dict(primary_mask=0xFF, primary_remainder=0xFF),
        dict(backup_mask=0x1F, backup_remainder=0x1F), dict(backup_mask=0x7F, backup_remainder=0x7F),
        dict(min_tokens=64, max_tokens=384), dict(min_tokens=100, max_tokens=700),
        dict(primary_mask=0x1F, primary_remainder=0x1F, backup_mask=0xF, backup_remainder=0xF),
        dict(min_tokens=90), dict(max_tokens=500), dict(primary_remainder=0x3B), dict(min_tokens=110, max_tokens=520),
    ]
    out = []
    for i in range(n):
        v = dict(variants[i % len(variants)])
        if i >= len(variants):
            v["min_tokens"] = v.get("min_tokens", base.min_tokens) + i  # keep every change distinct
        out.append(base.with_changes(**v))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m steadlith_gui.bench", description=__doc__.splitlines()[0])
    ap.add_argument("--chars", type=int, default=1_000_000)
    ap.add_argument("--changes", type=int, default=15)
    ap.add_argument("--edits", type=int, default=10)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication
    from steadlith_core.examples import generate_prose

    from .main_window import MainWindow
    from .palette import LIGHT

    app = QApplication.instance() or QApplication([sys.argv[0]])
    window = MainWindow(theme=LIGHT)
    window.resize(1500, 950)
    window.show()
    app.processEvents()

    def wait_ready(action) -> float:
        """Run action(), wait for analysis_ready and the repaint; seconds elapsed."""
        loop = QEventLoop()
        got = []
        window.analysis_ready.connect(loop.quit)
        window.analysis_ready.connect(got.append)
        timer = QTimer(singleShot=True)
        timer.timeout.connect(loop.quit)
        timer.start(120_000)
        t0 = time.perf_counter()
        action()
        if not got:
            loop.exec()
        app.processEvents()  # deliver the update requests: the panes and docks paint
        for w in (window.pane_a.viewport(), window.pane_b.viewport(), window.diagnostics):
            w.repaint()
        elapsed = time.perf_counter() - t0
        window.analysis_ready.disconnect(loop.quit)
        window.analysis_ready.disconnect(got.append)
        if not got:
            raise SystemExit("bench: no analysis result within 120 s")
        return elapsed

    text_a = generate_prose(args.chars, seed=args.seed)
    text_b = edited_copy(text_a, args.edits)
    first = wait_ready(lambda: window.load_texts(text_a, text_b))
    r = window.result
    print(f"documents: A {len(text_a):,} chars, B {len(text_b):,} chars ({args.edits} edits); "
          f"{r.a.word_count:,} / {r.b.word_count:,} words")
    print(f"first load + analysis: {first * 1000:.0f} ms ({len(r.a.chunks)} / {len(r.b.chunks)} chunks)")

    times = []
    for params in parameter_changes(args.changes):
        t = wait_ready(lambda p=params: window.set_params(p))
        assert window.result.params == params
        times.append(t * 1000)
        print(f"  min={params.min_tokens:<4} max={params.max_tokens:<4} primary={params.primary_mask:#x}/"
              f"{params.primary_remainder:#x} backup={params.backup_mask:#x}: {t * 1000:6.1f} ms "
              f"({len(window.result.a.chunks)} / {len(window.result.b.chunks)} chunks; worker "
              f"{window.result.ms_total:.1f} ms)")
    median, worst = statistics.median(times), max(times)
    print(f"parameter change -> result on screen, {len(times)} changes: median {median:.1f} ms, max {worst:.1f} ms"
          f"  (target: median <= 150 ms) [{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}]")
    window.close()
    return 0 if median <= 150 else 1


if __name__ == "__main__":
    sys.exit(main())
