"""Running a target: in rounds of Hypothesis examples until a time budget or an example
budget is spent. A defect stops the run with Hypothesis's shrunk example."""

from __future__ import annotations

import time

from hypothesis import HealthCheck, Phase, given, settings

from .contract import watchdog
from .target import Target

HANG_SECONDS = 10.0  # one example of any target answers well within this on a loaded machine
ROUND = 50  # examples per Hypothesis round of a timed run


def run(target: Target, *, seconds: float | None = None, max_examples: int = ROUND, hang: float = HANG_SECONDS) -> int:
    """Run `target` for `seconds` (rounds of ROUND examples, each with a fresh seed) or,
    with seconds None, one round of `max_examples`. Returns the examples run; raises
    the first defect (an AssertionError or the unexpected exception)."""
    why_not = target.available()
    if why_not:
        raise RuntimeError(f"{target.name}: cannot run: {why_not}")
    count = 0
    with target.context() as ctx:
        def one(value) -> None:
            nonlocal count
            count += 1
            with watchdog(hang):
                target.check(ctx, value)

        examples = ROUND if seconds is not None else max_examples
        test = settings(max_examples=examples, deadline=None, database=None, derandomize=False,
                        phases=(Phase.explicit, Phase.generate, Phase.shrink),
                        suppress_health_check=list(HealthCheck))(given(target.strategy)(one))
        stop = time.monotonic() + (seconds or 0)
        while True:
            test()
            if seconds is None or time.monotonic() >= stop:
                return count
