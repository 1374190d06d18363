"""Fuzz targets for every parser of outside input, and the compiled kernel's entry points.

Each target feeds Hypothesis-generated input (bytes of any kind, mutated valid files,
numbers at the limits of their type) to one entry point and checks its contract: a valid
result, or the project's own error type with a one-line message; never another exception,
never a hang (a watchdog turns one into a failure). The kernel targets also check that
the compiled and the numpy kernels agree wherever the input is valid.

Run for a time budget (test-only: the package lives under tests/, outside every wheel):

    python -m tests.fuzz --seconds 60                 # every target, 60 s shared
    python -m tests.fuzz --seconds 30 --target journal
    python -m tests.fuzz --list

tests/fuzz/test_fuzz_targets.py runs each target for a few examples inside the suite.
"""
