"""The Sweep dock is part of a workspace: the grid typed, the external splitters checked
and what to replay come back in a fresh window; older workspaces open with the dock's
defaults; a bad entry is refused naming its field."""

from __future__ import annotations

import json

import pytest

from gui_helpers import load_texts, make_window
from steadlith_gui.model.sweep_state import DEFAULT_GRID, FOLDER, PAIR, SweepSettings
from steadlith_gui.model.workspace import Workspace, WorkspaceError, workspace_to_dict
from steadlith_gui.model.workspace_loading import load_workspace, workspace_from_dict

GRID = "min_tokens=40,80\nmax_tokens=300,600"


def set_up_dock(window, folder) -> None:
    view = window.sweep_view
    view.set_grid_text(GRID)
    view.external_actions["fixed-tokens"].trigger()  # as a click in the External menu does
    view.source_box.setCurrentIndex(view.source_box.findData(FOLDER))
    view.set_folder(str(folder))


def dock_as_shown(window) -> tuple:
    view = window.sweep_view
    return view.grid_text(), view.chunkers(), view.source(), view.folder(), view.folder_edit.isVisibleTo(view)


def test_the_window_saves_and_reopens_the_sweep_dock(qtbot, window, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    load_texts(qtbot, window, "alpha beta.\n", "alpha beta gamma.\n")
    set_up_dock(window, docs)
    path = tmp_path / "sweep.steadlith"
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000):
        window.workspaces.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["sweep"]["folder"] == "docs"  # relative, like documents

    fresh = make_window(qtbot)
    fresh.show()
    assert dock_as_shown(fresh)[:3] == ("\n".join(DEFAULT_GRID), (), PAIR)
    with qtbot.waitSignal(fresh.workspace_opened, timeout=60_000):
        fresh.workspaces.open(path)
    assert dock_as_shown(fresh) == (GRID, ("fixed-tokens",), FOLDER, str(docs), True)
    assert fresh.sweep_view.external_button.text() == "External: fixed-tokens"


def test_a_workspace_saved_before_the_dock_was_kept_opens_with_its_defaults(qtbot, window, tmp_path):
    data = workspace_to_dict(Workspace({"a": None, "b": None}), tmp_path)
    del data["sweep"]
    assert workspace_from_dict(data, tmp_path).sweep == SweepSettings()

    set_up_dock(window, tmp_path)  # what the window shows before: replaced by the workspace's (none: defaults)
    old = tmp_path / "old.steadlith"
    old.write_text(json.dumps(data), encoding="utf-8")
    with qtbot.waitSignal(window.workspace_opened, timeout=60_000):
        window.workspaces.open(old)
    assert dock_as_shown(window)[:3] == ("\n".join(DEFAULT_GRID), (), PAIR)


@pytest.mark.parametrize("sweep, where", [
    ({"source": "cluster"}, "sweep.source"),
    ({"chunkers": ["word2vec"]}, "sweep.chunkers"),
    ({"grid": "min_tokens=32"}, "sweep.grid"),
    ({"folder": 7}, "sweep.folder"),
    ([], "sweep"),
])
def test_a_bad_sweep_entry_is_refused_naming_the_field(tmp_path, sweep, where):
    data = workspace_to_dict(Workspace({"a": None, "b": None}), tmp_path)
    data["sweep"] = sweep
    path = tmp_path / "ws.steadlith"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(WorkspaceError) as e:
        load_workspace(path)
    assert e.value.where == where and str(e.value).startswith(f"{path}: {where}: ")
