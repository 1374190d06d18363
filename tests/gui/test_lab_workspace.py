"""The locality lab dock is part of a workspace: the edits and seed chosen come back in a
fresh window (and its next run draws with them); older workspaces open with the dock's
defaults; a bad entry is refused naming its field, and the window keeps what it shows."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from gui_helpers import load_texts, make_window
from steadlith_gui.model.lab_state import DEFAULT_EDITS, DEFAULT_SEED, LabSettings
from steadlith_gui.model.workspace import Workspace, WorkspaceError, workspace_to_dict
from steadlith_gui.model.workspace_loading import load_workspace, workspace_from_dict

EDITS, SEED = 37, 4242
TEXT_A = "The quick brown fox jumps over the lazy dog. " * 40


def choose(qtbot, window, edits: int, seed: int) -> None:
    """Type the edits and seed into the dock's boxes, as the user does."""
    for box, value in ((window.lab_view.edits, edits), (window.lab_view.seed, seed)):
        box.selectAll()
        qtbot.keyClicks(box, str(value))
        qtbot.keyClick(box, Qt.Key.Key_Tab)


def dock_as_shown(window) -> tuple[int, int]:
    return window.lab_view.edits.value(), window.lab_view.seed.value()


def test_the_window_saves_and_reopens_the_lab_dock(qtbot, window, tmp_path):
    load_texts(qtbot, window, TEXT_A, TEXT_A + "More.\n")
    choose(qtbot, window, EDITS, SEED)
    assert dock_as_shown(window) == (EDITS, SEED)
    path = tmp_path / "lab.steadlith"
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000):
        window.workspaces.save(path)
    assert json.loads(path.read_text(encoding="utf-8"))["lab"] == {"edits": EDITS, "seed": SEED}

    fresh = make_window(qtbot)
    fresh.show()
    assert dock_as_shown(fresh) == (DEFAULT_EDITS, DEFAULT_SEED)
    with qtbot.waitSignal(fresh.workspace_opened, timeout=60_000):
        fresh.workspaces.open(path)
    assert dock_as_shown(fresh) == (EDITS, SEED)
    with qtbot.waitSignal(fresh.lab.job.finished, timeout=60_000):
        qtbot.mouseClick(fresh.lab_view.run_button, Qt.MouseButton.LeftButton)
    assert (fresh.lab.state.shown.edits, fresh.lab.state.shown.seed) == (EDITS, SEED)
    assert fresh.lab.state.result.seed == SEED and len(fresh.lab.state.result.edits) == EDITS


def test_a_workspace_saved_before_the_lab_was_kept_opens_with_its_defaults(qtbot, window, tmp_path):
    data = workspace_to_dict(Workspace({"a": None, "b": None}), tmp_path)
    del data["lab"]
    assert workspace_from_dict(data, tmp_path).lab == LabSettings()
    assert workspace_from_dict({**data, "lab": {"seed": 9}}, tmp_path).lab == LabSettings(DEFAULT_EDITS, 9)

    choose(qtbot, window, EDITS, SEED)  # what the window shows before: replaced by the workspace's (none: defaults)
    old = tmp_path / "old.steadlith"
    old.write_text(json.dumps(data), encoding="utf-8")
    with qtbot.waitSignal(window.workspace_opened, timeout=60_000):
        window.workspaces.open(old)
    assert dock_as_shown(window) == (DEFAULT_EDITS, DEFAULT_SEED)


BAD_ENTRIES = [
    ({"seed": -1}, "lab.seed"),
    ({"seed": 2**31}, "lab.seed"),
    ({"seed": "7"}, "lab.seed"),
    ({"edits": 0}, "lab.edits"),
    ({"edits": 100_001}, "lab.edits"),
    ({"edits": True}, "lab.edits"),
    ({"edits": 12.5}, "lab.edits"),
    ([], "lab"),
]


@pytest.mark.parametrize("lab, where", BAD_ENTRIES)
def test_a_bad_lab_entry_is_refused_naming_the_field(tmp_path, lab, where):
    data = workspace_to_dict(Workspace({"a": None, "b": None}), tmp_path)
    data["lab"] = lab
    path = tmp_path / "ws.steadlith"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(WorkspaceError) as e:
        load_workspace(path)
    assert e.value.where == where and str(e.value).startswith(f"{path}: {where}: ")


def test_the_window_refuses_a_bad_lab_entry_and_keeps_what_it_shows(qtbot, window, tmp_path):
    load_texts(qtbot, window, TEXT_A, TEXT_A + "More.\n")
    choose(qtbot, window, EDITS, SEED)
    path = tmp_path / "bad.steadlith"
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000):
        window.workspaces.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["lab"]["seed"] = -5
    data["documents"]["b"] = {"text": "something else entirely", "name": "other"}
    path.write_text(json.dumps(data), encoding="utf-8")
    choose(qtbot, window, 12, 34)
    before = window.session.documents()

    with qtbot.waitSignal(window.workspace_failed, timeout=10_000) as blocker:
        window.workspaces.open(path)
    message = window.message_bar.text()
    assert "lab.seed" in blocker.args[0] and "lab.seed" in message and "Nothing was changed" in message
    assert "Traceback" not in message
    assert window.session.documents()[1] is before[1] and window.pane_b.toPlainText() == TEXT_A + "More.\n"
    assert dock_as_shown(window) == (12, 34)
