"""A dock's background job as the dock shows it, without Qt: one run at a time, its
phase, progress and error, the request running and the one whose outcome is shown.

The Locality lab, Retrieval and Sweep docks run their job the same way (a
workers.jobs.ProgressJob reports progress, the outcome, a failure or a cancel); each keeps
what its outcome means in a subclass (`_take`), and the dock re-renders on `changed`.
"""

from __future__ import annotations

from typing import Any

from psygnal import Signal

IDLE, RUNNING, DONE, CANCELLED, FAILED = "idle", "running", "done", "cancelled", "failed"


class JobState:
    """`changed` is emitted after every change (the dock re-renders from the state)."""

    changed = Signal()

    def __init__(self) -> None:
        self.phase = IDLE
        self.progress = (0, 0)  # (done, total); total 0 while it is not known yet
        self.error: str | None = None
        self.pending: Any = None  # the request of the run going on
        self.shown: Any = None  # the request the shown outcome answers

    @property
    def running(self) -> bool:
        return self.phase == RUNNING

    def start(self, request: Any, total: int = 0) -> None:
        self.pending = request
        self.phase = RUNNING
        self.progress = (0, total)
        self.error = None
        self._started()
        self.changed.emit()

    def progressed(self, done: int, total: int) -> None:
        if self.phase == RUNNING:
            self.progress = (done, total)
            self.changed.emit()

    def finish(self, outcome: Any) -> None:
        self.shown, self.pending = self.pending, None
        self.phase = DONE
        self._take(outcome)
        self.changed.emit()

    def cancel(self) -> None:
        self.pending = None
        self.phase = CANCELLED
        self.changed.emit()

    def fail(self, message: str) -> None:
        self.pending = None
        self.phase = FAILED
        self.error = message
        self.changed.emit()

    def _started(self) -> None:
        """A run started (before `changed`): what the outcome shown becomes meanwhile."""

    def _take(self, outcome: Any) -> None:
        """The run's outcome arrived (before `changed`); `shown` is its request now."""
