"""`steadlith bench --startup`: how long the command takes to start, for `--version`
and `params`, each run in a fresh process (median of N wall times, with the load
average before and after, since a busy machine slows every start alike)."""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = (("--version",), ("params",))


def _load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not available here
        return []


def command_prefix() -> list[str]:
    """The installed console script beside this interpreter (what a user runs), or
    `python -m steadlith_core` when there is none."""
    script = Path(sys.executable).with_name("steadlith")
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("steadlith")
    return [found] if found else [sys.executable, "-m", "steadlith_core"]


def bench_startup(repeat: int) -> dict:
    prefix = command_prefix()
    report: dict = {"command": " ".join(prefix), "runs": repeat, "load_average_start": _load_average(), "starts": []}
    for args in COMMANDS:
        argv = [*prefix, *args]
        subprocess.run(argv, capture_output=True, check=True)  # one unmeasured run warms the file cache
        times = []
        for _ in range(repeat):
            started = time.perf_counter()
            subprocess.run(argv, capture_output=True, check=True)
            times.append(1000 * (time.perf_counter() - started))
        report["starts"].append({"args": " ".join(args), "median_ms": round(statistics.median(times), 1),
                                 "min_ms": round(min(times), 1), "max_ms": round(max(times), 1)})
    report["load_average_end"] = _load_average()
    return report


def format_startup(report: dict) -> str:
    lines = [f"start-up of {report['command']} (wall time of a fresh process, {report['runs']} runs each)"]
    for s in report["starts"]:
        lines.append(f"  steadlith {s['args']:<10} median {s['median_ms']:7.1f} ms   min {s['min_ms']:7.1f} ms   "
                     f"max {s['max_ms']:7.1f} ms")
    lines.append(f"load average  {' '.join(map(str, report['load_average_start']))} at the start, "
                 f"{' '.join(map(str, report['load_average_end']))} at the end (1, 5, 15 min)")
    return "\n".join(lines)
