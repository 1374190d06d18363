"""GUI tests: offscreen Qt, pytest-qt's qtbot, waiting on signals (never sleeping)."""

import os

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before any QApplication exists

import pytest
from PySide6.QtCore import QThreadPool

from gui_helpers import make_window


@pytest.fixture
def window(qtbot):
    w = make_window(qtbot)
    yield w
    QThreadPool.globalInstance().waitForDone(10_000)
