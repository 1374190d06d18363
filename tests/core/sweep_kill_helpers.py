"""A sweep source whose pool worker is killed (SIGKILL, as the out-of-memory killer or
a user does) when a task first reads the version keys, which only run_task does: a real
worker death in the middle of the task phase, where it happens, without timing.
Imported by the pool's workers, so it lives in a module of its own (like git_history.py)."""

from __future__ import annotations

import multiprocessing
import os
import signal
from dataclasses import dataclass

from steadlith_core.sweep.tasks import RepoFileSource, VersionsSource


@dataclass(frozen=True)
class KillingVersions(VersionsSource):
    """`marker`: a path; the first worker to read the keys creates it and dies. With
    `always`, every worker that reads them dies."""

    marker: str = ""
    always: bool = False

    def __getattribute__(self, name: str):
        if name == "keys" and multiprocessing.parent_process() is not None:
            try:
                os.close(os.open(object.__getattribute__(self, "marker"), os.O_CREAT | os.O_EXCL))
                first = True
            except FileExistsError:
                first = False
            if first or object.__getattribute__(self, "always"):
                os.kill(os.getpid(), signal.SIGKILL)
        return object.__getattribute__(self, name)


@dataclass(frozen=True)
class KillingRepoFile(RepoFileSource):
    """A repository file whose pool worker dies (SIGKILL) when a batch first reads its
    commits to walk the history, the first time only (`marker`, as KillingVersions)."""

    marker: str = ""

    def __getattribute__(self, name: str):
        if name == "commits" and multiprocessing.parent_process() is not None:
            try:
                os.close(os.open(object.__getattribute__(self, "marker"), os.O_CREAT | os.O_EXCL))
                os.kill(os.getpid(), signal.SIGKILL)
            except FileExistsError:
                pass
        return object.__getattribute__(self, name)
