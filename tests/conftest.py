"""Hypothesis profiles for every test: `ci` (default) and `thorough` (HYPOTHESIS_PROFILE=thorough).

Here rather than in tests/core: a profile loaded there reached the GUI tests only when
both folders ran together, so `pytest tests/gui` alone ran them with Hypothesis's 200 ms
deadline, which a busy machine exceeds."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
