"""The window's peak memory on a pair, as a multiple of the pair's size: what the loader's
budget for the window (loader.COMMAND_MEMORY["window"]) is measured with.

    python -m steadlith_gui.tools.window_memory [--mb 20 50] [--rules tttd-v1 lmx2-v1] [--kernel c numpy]

For each size, rule and text kernel, a fresh interpreter opens the main window offscreen,
shows the rule in the panes, loads a pair of files from disk as A and B (real Markdown:
the checkout's, bench.chunking.markdown_corpus repeated to the size, and a copy with 10
scattered word edits, as `steadlith bench --memory` makes them) and waits until the
analysis is complete (the panes, the churn panel under every rule, the baseline), then
prints the process's high-water mark (VmHWM). The same run on a one-paragraph pair is
the baseline (the interpreter, Qt, the window); what is left, over the bytes of both
files, is the figure. A run is a measurement, not a test: the load average is printed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

_PROBE = r"""
import os, sys
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
from PySide6.QtCore import QEventLoop, QTimer
from PySide6.QtWidgets import QApplication
from steadlith_core.kernel.allocator import keep_freed_memory
from steadlith_gui.main_window import MainWindow
from steadlith_gui.workers.gui_thread_gc import collect_in_gui_thread

def peak_kb():
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))

path_a, path_b, rule = sys.argv[1:4]
app = QApplication(["steadlith-gui"])
keep_freed_memory()  # as the app does at start
collect_in_gui_thread()
window = MainWindow(None)
window.confirm_discard = lambda question: True
window.session.set_rule(rule)
window.resize(1400, 900)
window.show()
loop = QEventLoop()
outcome = []
window.analysis_ready.connect(lambda result: (outcome.append(result), loop.quit()))
window.load_failed.connect(lambda message: (print(message, file=sys.stderr), loop.quit()))
QTimer.singleShot(0, lambda: window.documents_ctl.load_files(path_a, path_b, remember=False))
QTimer.singleShot(1800_000, loop.quit)
loop.exec()
if not outcome or outcome[0].a is None or outcome[0].b is None:
    sys.exit("no analysis of the pair")
print(peak_kb(), outcome[0].a.boundary_rule, len(outcome[0].rules or {}))
"""


def _peak(path_a: str, path_b: str, rule: str, kernel_name: str) -> tuple[int, str]:
    from steadlith_core.bench.memory import _env

    r = subprocess.run([sys.executable, "-c", _PROBE, path_a, path_b, rule], capture_output=True, text=True,
                       env=_env(kernel_name))
    if r.returncode != 0:
        raise SystemExit(f"the window failed on {path_a} and {path_b}: {r.stderr.strip()[-600:]}")
    kb, shown, rules = r.stdout.split()[-3:]
    return int(kb), f"{shown}, {rules} rules compared"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m steadlith_gui.tools.window_memory", description=__doc__.split("\n")[0])
    ap.add_argument("--mb", type=float, nargs="+", default=[20.0, 50.0], help="the pair's size in MB (both files)")
    ap.add_argument("--rules", nargs="+", default=["tttd-v1", "lmx2-v1"])
    ap.add_argument("--kernel", nargs="+", default=["c"], choices=["c", "numpy"])
    args = ap.parse_args(argv)

    from steadlith_core.bench.chunking import load_average, markdown_corpus
    from steadlith_core.bench.examples import scattered_edits
    from steadlith_core.bench.memory import repeated_to
    from steadlith_core.chunking.loader import COMMAND_MEMORY

    print(f"load average  {' '.join(map(str, load_average()))} (at the start)", flush=True)
    corpus = markdown_corpus()[0]
    with tempfile.TemporaryDirectory(prefix="steadlith-window-memory-") as tmp:
        small_a, small_b = os.path.join(tmp, "small-a.md"), os.path.join(tmp, "small-b.md")
        for path, text in ((small_a, corpus[:2000]), (small_b, corpus[:2000] + " edit")):
            with open(path, "w", encoding="utf-8", newline="") as f:
                f.write(text)
        for kernel_name in args.kernel:
            base = {rule: _peak(small_a, small_b, rule, kernel_name)[0] for rule in args.rules}
            for mb in args.mb:
                text = repeated_to(corpus, int(mb * 1e6 / 2))
                path_a, path_b = os.path.join(tmp, "a.md"), os.path.join(tmp, "b.md")
                with open(path_a, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
                with open(path_b, "w", encoding="utf-8", newline="") as f:
                    f.write(scattered_edits(text, 10))
                size = os.path.getsize(path_a) + os.path.getsize(path_b)
                for rule in args.rules:
                    peak, what = _peak(path_a, path_b, rule, kernel_name)
                    per_byte = (peak - base[rule]) * 1024 / size
                    print(f"{kernel_name:6} {rule:8} pair {size / 1e6:6.1f} MB  peak {peak / 1024:8.1f} MiB  "
                          f"baseline {base[rule] / 1024:6.1f} MiB  {per_byte:5.1f} bytes per byte of the pair  "
                          f"({what}; budget {COMMAND_MEMORY[kernel_name].get('window', {}).get(rule, '-')})",
                          flush=True)
    print(f"load average  {' '.join(map(str, load_average()))} (at the end)", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
