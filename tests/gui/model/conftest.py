"""The inspector's model tests: plain Python over steadlith_gui.model, no QApplication.

The GUI tests' session fixtures (the GUI-thread collector, which needs a QApplication,
and the hermetic QSettings) are replaced by nothing here; test_session runs this whole
folder once more in a fresh interpreter without pytest-qt and checks that Qt was never
loaded."""

import pytest


@pytest.fixture(autouse=True, scope="session")
def gui_thread_gc():
    """No GUI thread to collect in: the model's tests start no QApplication."""
    return None


@pytest.fixture(autouse=True)
def hermetic_settings():
    """The model reads and writes no QSettings."""
    return None
