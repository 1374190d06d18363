"""A progress bar on stderr for the command's long runs (lab, audit, sweep).

tqdm draws it: rate, ETA and a terminal-width bar for free, and it stays silent when
stderr is not a terminal (CI logs, pipes), so output files and tests see no bar text.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Iterator

from ..progress import Progress


@contextmanager
def progress_bar(description: str, unit: str, *, enabled: bool | None = None) -> Iterator[Progress]:
    """Yield a `Progress` callback drawing a bar labelled `description` counting `unit`s.

    `enabled=None` shows the bar only when stderr is a terminal."""
    from tqdm import tqdm  # imported here: only the long-running commands need it

    if enabled is None:
        enabled = sys.stderr.isatty()
    bar = tqdm(desc=description, unit=unit, disable=not enabled, file=sys.stderr, dynamic_ncols=True,
               leave=False)

    def update(done: int, total: int) -> None:
        if bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield update
    finally:
        bar.close()
