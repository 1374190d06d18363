"""How many processes a sweep runs on by default, without loading the sweep itself (the
command's help names the figure)."""

from __future__ import annotations

import os


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
