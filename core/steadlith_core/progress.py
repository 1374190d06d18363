"""How long-running work reports progress and is stopped, without knowing who watches.

The lab, the history audit and the sweep run for seconds to hours. Each takes an optional
`progress` callback, called as `progress(done, total)` with counts of its own units
(edits, commits, tasks). The callback is also the way to stop the work: a caller that
wants it stopped raises `Cancelled` from the callback, and the work lets it propagate after
releasing what it holds. The command wraps a tqdm bar (`steadlith_core.cli.progress`); the
window wraps a signal and a cancel flag (`steadlith_gui.jobs`). So the core never imports
either, and nothing polls.
"""

from __future__ import annotations

from typing import Callable, Optional

from .errors import SteadlithError

#: progress(done, total): `done` of `total` units finished; may raise `Cancelled`.
Progress = Callable[[int, int], None]


class Cancelled(SteadlithError):
    """Raised from a progress callback to stop the work that called it."""

    def __init__(self, message: str = "cancelled"):
        super().__init__(message)


def report(progress: Optional[Progress], done: int, total: int) -> None:
    """Call `progress` if there is one: the one line each loop needs."""
    if progress is not None:
        progress(done, total)
