"""Long work in the window (the locality lab, a file's history, a sweep): off the GUI
thread, with progress and a Cancel button.

The core's long functions take a `progress(done, total)` callback and stop when it raises
`Cancelled` (steadlith_core.progress). `ProgressJob.start(fn)` runs `fn(progress)` on its
own one-thread pool — so a minutes-long run never takes a thread the analysis of the
panes needs — and hands back, in the GUI thread, throttled `progressed(done, total)`
signals and then exactly one of `finished(value)`, `failed(message)` or `cancelled()`.

Starting again while a run is going cancels that run; whatever it still reports is
dropped, so a dock never shows a result from a run it no longer asked for.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from PySide6.QtCore import QObject, QThreadPool, Signal
from steadlith_core.progress import Cancelled, Progress

from .worker import PoolRunner

#: Seconds between two progress signals: ~20 updates a second is smooth for a bar and
#: keeps a run of 100,000 tiny units from flooding the GUI thread's event queue.
PROGRESS_INTERVAL = 0.05


class _CancelledRun:
    """What a run returns instead of a value when it was cancelled."""


class ProgressJob(PoolRunner):
    progressed = Signal(int, int)  # done, total
    finished = Signal(object)  # the value fn returned
    failed = Signal(str)  # a one-line message
    cancelled = Signal()

    def __init__(self, parent: QObject | None = None, pool: QThreadPool | None = None,
                 interval: float = PROGRESS_INTERVAL):
        if pool is None:
            pool = QThreadPool(parent)
            pool.setMaxThreadCount(1)
        super().__init__(parent, pool)
        self._interval = interval
        self._current = 0  # key of the run whose signals are delivered
        self._stop: threading.Event | None = None
        self._relay = _ProgressRelay(self)
        self._relay.tick.connect(self._on_tick)

    @property
    def running(self) -> bool:
        return self._stop is not None

    def start(self, fn: Callable[[Progress], Any]) -> int:
        """Run `fn(progress)` in the background; cancels a run still going."""
        self.cancel()
        stop = threading.Event()
        self._stop = stop
        self._key += 1
        key = self._key
        self._current = key
        progress = self._progress_for(key, stop)

        def run() -> Any:
            try:
                return fn(progress)
            except Cancelled:
                return _CancelledRun()

        return self._run(run, key)

    def cancel(self) -> None:
        """Ask the current run to stop at its next progress call; `cancelled` follows."""
        if self._stop is not None:
            self._stop.set()

    def shutdown(self, wait_ms: int) -> bool:
        """Cancel the current run and wait up to `wait_ms` for it to end (the window
        closing): a run left going could outlive the window and drop the last reference
        to this job in its own thread, whose pool would then wait on itself for ever.
        True when no run is left."""
        self.cancel()
        return self._pool.waitForDone(wait_ms)

    def _progress_for(self, key: int, stop: threading.Event) -> Progress:
        last = [0.0]
        relay = self._relay

        def progress(done: int, total: int) -> None:  # worker thread
            if stop.is_set():
                raise Cancelled()
            now = time.monotonic()
            if now - last[0] >= self._interval or done >= total:
                last[0] = now
                try:
                    relay.tick.emit(key, done, total)
                except RuntimeError:  # the window was closed meanwhile
                    stop.set()

        return progress

    def _on_tick(self, key: int, done: int, total: int) -> None:
        if key == self._current and self._stop is not None and not self._stop.is_set():
            self.progressed.emit(done, total)

    def _on_done(self, key: int, value) -> None:
        if key != self._current:
            return
        was_stopped = self._stop is not None and self._stop.is_set()
        self._stop = None
        if isinstance(value, _CancelledRun) or was_stopped:
            self.cancelled.emit()
        else:
            self.finished.emit(value)

    def _on_failed(self, key: int, message: str) -> None:
        if key != self._current:
            return
        self._stop = None
        self.failed.emit(message)


class _ProgressRelay(QObject):
    """Carries progress from the worker thread to the GUI thread (a queued signal)."""

    tick = Signal(int, int, int)  # key, done, total
