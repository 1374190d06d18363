"""What every benchmark measures with: the load average printed beside its figures, a
fresh text object per timed call, and the pipeline as the inspector and the command run it.
"""

from __future__ import annotations

import os

from ..chunking.pipeline import Pipeline


def load_average() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:  # not available here
        return []


def timed_pipeline() -> Pipeline:
    # timed as the inspector and the command run it: with the cyclic GC paused
    return Pipeline(pause_gc=True)


def fresh(x: str | bytes) -> str | bytes:
    """A new object equal to `x`, whose hash was never computed: what a caller with a
    new document hands over."""
    return x[:-1] + x[-1:] if len(x) > 1 else x
