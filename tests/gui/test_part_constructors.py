"""The window composes its parts; each part is given the collaborators it uses (panes,
session, widgets, callables), never the window itself: a part holding the window can
reach every other part through it, an edge no import contract sees."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest
from PySide6.QtCore import QObject

import steadlith_gui.controllers
import steadlith_gui.docks



def parts() -> list[type]:
    found = []
    for package in (steadlith_gui.controllers, steadlith_gui.docks):
        for info in pkgutil.iter_modules(package.__path__):
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            found += [obj for _name, obj in inspect.getmembers(module, inspect.isclass)
                      if issubclass(obj, QObject) and obj.__module__ == module.__name__]
    return found


def takes_the_window(cls: type) -> bool:
    """A parameter named for the window, or annotated with its class."""
    return any(name == "window" or "MainWindow" in str(p.annotation)
               for name, p in inspect.signature(cls.__init__).parameters.items())


def test_the_parts_are_found():
    names = {cls.__name__ for cls in parts()}
    assert {"ThemeController", "NavigationController", "DocumentController", "WorkspaceController",
            "ExportController", "ReloadOnChange", "ResultPresenter", "HistoryController", "LabController",
            "SweepDock"} <= names


@pytest.mark.parametrize("cls", parts(), ids=lambda cls: cls.__name__)
def test_a_part_takes_its_collaborators_not_the_window(cls):
    assert not takes_the_window(cls), f"{cls.__name__}.__init__ takes the window; give it what it uses"
