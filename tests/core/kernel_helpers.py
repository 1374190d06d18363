"""Shared by the tests of the kernels' two ways of reading token positions."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator

from steadlith_core.kernel import select as kernel


@contextmanager
def dense_layout(on: bool) -> Iterator[None]:
    """Make the kernels lay token positions out densely (on) or search them (off),
    whatever their span: both ways must give the same answers."""
    old = kernel.DENSE_SPAN_SLACK
    kernel.DENSE_SPAN_SLACK = 10**9 if on else -(10**9)
    try:
        yield
    finally:
        kernel.DENSE_SPAN_SLACK = old
