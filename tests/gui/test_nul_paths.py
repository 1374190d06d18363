"""A NUL byte in a path, from the window or inside a workspace, is a clear message,
never "Unexpected error" with a traceback."""

from __future__ import annotations

import json


def test_loading_a_path_with_a_nul_byte(qtbot, window, tmp_path, capsys):
    with qtbot.waitSignal(window.load_failed, timeout=10_000) as blocker:
        window.documents_ctl.load_files(str(tmp_path / "notes\0.md"), None)
    message = blocker.args[0]
    assert "Unexpected" not in message
    assert "the path holds a NUL character" in message
    assert "\\x00" in window.message_bar.text()  # shown as an escape, not swallowed
    assert "Traceback" not in capsys.readouterr().err


def test_opening_a_workspace_by_a_path_with_a_nul_byte(qtbot, window, tmp_path, capsys):
    with qtbot.waitSignal(window.workspace_failed, timeout=10_000) as blocker:
        window.workspaces.open(str(tmp_path / "review\0.steadlith"))
    assert "Unexpected" not in blocker.args[0] and "NUL character" in blocker.args[0]
    assert "Traceback" not in capsys.readouterr().err


def test_a_workspace_naming_a_path_with_a_nul_byte(qtbot, window, tmp_path, capsys):
    ws = tmp_path / "review.steadlith"
    ws.write_text(json.dumps({"format": "steadlith-workspace", "version": 1,
                              "documents": {"a": {"path": "v1\u0000.md"}}}), encoding="utf-8")
    with qtbot.waitSignal(window.workspace_failed, timeout=10_000) as blocker:
        window.workspaces.open(ws)
    assert "documents.a.path: holds a NUL character" in blocker.args[0]
    assert "Traceback" not in capsys.readouterr().err
