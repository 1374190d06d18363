"""Hypothesis profiles: `ci` (default) and `thorough` (HYPOTHESIS_PROFILE=thorough)."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile("ci", max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("thorough", max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "bench: a quick smoke run of `steadlith bench` (--repeat 1, small file); timings not asserted"
    )
