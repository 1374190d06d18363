"""Each fuzz target for a few examples inside the suite (python -m tests.fuzz runs them
for a time budget): any input is a valid result or the project's one-line error."""

from __future__ import annotations

import pytest

from .runner import run
from .targets import TARGETS

pytestmark = pytest.mark.kernel_independent  # the kernel targets run both kernels themselves


@pytest.mark.parametrize("name", list(TARGETS))
def test_fuzz_target(name):
    target = TARGETS[name]
    if target.available():
        pytest.skip(target.available())
    assert run(target, max_examples=25) >= 1
