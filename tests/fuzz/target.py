"""A fuzz target: what to generate, what to check, and what it needs set up once per run."""

from __future__ import annotations

import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, ContextManager, Iterator

from hypothesis import strategies as st


@contextmanager
def temporary_folder() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="steadlith-fuzz-") as d:
        yield Path(d)


@dataclass(frozen=True)
class Target:
    name: str
    what: str  # one line for --list
    strategy: st.SearchStrategy[Any]
    check: Callable[[Any, Any], None]  # check(context, value): raises AssertionError (or anything) on a defect
    context: Callable[[], ContextManager[Any]] = temporary_folder
    available: Callable[[], str] = lambda: ""  # why the target cannot run here ("" when it can)
