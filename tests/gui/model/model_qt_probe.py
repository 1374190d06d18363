"""A pytest plugin for the model tests' second run (test_session starts it in a fresh
interpreter with neither pytest-qt nor the GUI conftest): after every test, no PySide6
module may have been loaded."""

import os
import sys

import pytest

ALONE = "STEADLITH_SESSION_ALONE"  # set by test_session for that run


@pytest.fixture(autouse=True)
def no_qt_when_alone():
    yield
    if os.environ.get(ALONE):
        loaded = sorted(m for m in sys.modules if m.split(".")[0] == "PySide6")
        assert not loaded, f"a model test loaded Qt: {loaded[:5]}"
