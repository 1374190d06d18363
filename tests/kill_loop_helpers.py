"""Kill loops: a child process writes a file over and over, is killed with SIGKILL at a
random moment, and the test looks at what it left. Shared by the core and GUI tests.

The child is forked from the test process (everything is imported already), so a kill
costs milliseconds, not an interpreter's start: dozens of kills fit in a few seconds."""

from __future__ import annotations

import os
import random
import signal
import time
import traceback
from pathlib import Path
from typing import Callable

import pytest

needs_fork = pytest.mark.skipif(not hasattr(os, "fork"), reason="the kill loop forks (POSIX)")


def kill_loop(write_forever: Callable[[], None], after_kill: Callable[[int], None], *, kills: int = 15,
              max_delay: float = 0.15, seed: int = 0) -> None:
    """`kills` times: fork a child running write_forever(), SIGKILL it after a random
    delay of up to `max_delay` seconds, then call after_kill(i) to check what is on disk.
    A child that stops by itself (an exception in the writer) fails the loop."""
    rng = random.Random(seed)
    for i in range(kills):
        pid = os.fork()
        if pid == 0:  # the child: write until killed, never return into pytest
            try:
                write_forever()
            except BaseException:
                traceback.print_exc()
            finally:
                os._exit(3)
        time.sleep(rng.uniform(0.0, max_delay))
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
            f"the writer stopped by itself (status {status}) instead of being killed")
        after_kill(i)


def leftovers(folder: Path, *keep: str) -> list[str]:
    """Names in `folder` other than `keep`: temporaries a killed write left behind."""
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


# A write names its file only for the rename, the next system call (O_TMPFILE on Linux):
# a kill landing exactly between the two leaves a temporary, which the next write to the
# same target removes. Rare, so a loop may see it at most this often; a writer that
# keeps a named temporary while it writes would leave one at most kills.
MAX_STRAYS = 2


class Strays:
    """Temporaries found after kills: never another file, rarely a temporary at all."""

    def __init__(self, folder: Path, *keep: str):
        self.folder, self.keep, self.found = folder, keep, []

    def check(self, i: int) -> None:
        left = leftovers(self.folder, *self.keep)
        assert all(".steadlith-tmp-" in name for name in left), f"kill {i}: files left behind: {left}"
        if left:
            self.found.append((i, left))

    def assert_rare_and_cleaned(self, write_once: Callable[[], None]) -> None:
        assert len(self.found) <= MAX_STRAYS, f"temporaries left after {len(self.found)} kills: {self.found}"
        write_once()  # the next write removes what a killed one left
        assert leftovers(self.folder, *self.keep) == []
