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
            # Qt parts, and plain ones with a constructor of their own (the chrome parts)
            found += [obj for _name, obj in inspect.getmembers(module, inspect.isclass)
                      if obj.__module__ == module.__name__ and (issubclass(obj, QObject) or "__init__" in vars(obj))]
    return found


def takes_the_window(cls: type) -> bool:
    """A parameter named for the window, or annotated with its class."""
    return any(name == "window" or "MainWindow" in str(p.annotation)
               for name, p in inspect.signature(cls.__init__).parameters.items())


def test_the_parts_are_found():
    names = {cls.__name__ for cls in parts()}
    assert {"ThemeController", "NavigationController", "DocumentController", "WorkspaceController",
            "ExportController", "ReloadOnChange", "ResultPresenter", "HistoryController", "LabController",
            "SweepDock", "PaneHeaders", "StatusLine", "WindowTitle", "ChurnColumns"} <= names


@pytest.mark.parametrize("cls", parts(), ids=lambda cls: cls.__name__)
def test_a_part_takes_its_collaborators_not_the_window(cls):
    assert not takes_the_window(cls), f"{cls.__name__}.__init__ takes the window; give it what it uses"


def test_only_the_window_assigns_its_attributes(qtbot, monkeypatch):
    """The window declares what it holds: every attribute of the window is assigned in
    main_window.py while it is built (actions, docks and layout included), and using it
    (opening the shortcuts table, fitting it to a screen, focusing the documents, loading
    an example) adds none."""
    import sys

    from PySide6.QtCore import QRect

    import steadlith_gui.main_window as main_window
    from steadlith_gui.main_window import MainWindow

    writers: dict[str, set[str]] = {}
    plain = MainWindow.__setattr__

    def recorded(self, name, value):
        writers.setdefault(name, set()).add(sys._getframe(1).f_code.co_filename)
        plain(self, name, value)

    monkeypatch.setattr(MainWindow, "__setattr__", recorded)
    window = MainWindow()
    qtbot.addWidget(window)
    built = set(vars(window))
    window.act["keys"].trigger()
    window.dock_layout.fit_to_screen(QRect(0, 0, 1024, 740))
    window.act["focus_documents"].trigger()
    window.act["focus_documents"].trigger()
    window.act.examples["prose"].trigger()
    qtbot.waitUntil(lambda: window.session.result is not None)
    monkeypatch.undo()
    outside = {name: files for name, files in writers.items() if files != {main_window.__file__}}
    assert not outside, f"window attributes assigned outside main_window.py: {outside}"
    assert set(vars(window)) == built, f"attributes added after the window was built: {set(vars(window)) - built}"
    assert {"act", "docks", "dock_layout", "screen_fit", "shown_label"} <= built
