"""A workspace's display names are data: one that holds a newline or an escape
sequence reaches the message bar escaped, on the bar's one line."""

from __future__ import annotations

import json

from gui_helpers import load_files

HOSTILE = "v1\nFAKE: all chunks reused ✓\x1b[31m"


def test_a_renamed_document_with_a_newline_is_one_escaped_line(qtbot, window, tmp_path):
    pa, pb = tmp_path / "v1.md", tmp_path / "v2.md"
    pa.write_text("Alpha beta gamma delta.\n\nEpsilon zeta eta theta.\n", encoding="utf-8")
    pb.write_text("Alpha beta gamma delta.\n\nEpsilon zeta eta iota.\n", encoding="utf-8")
    load_files(qtbot, window, str(pa), str(pb))
    path = tmp_path / "w.steadlith"
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000):
        window.workspaces.save(str(path))
    data = json.loads(path.read_text(encoding="utf-8"))
    data["documents"]["a"]["name"] = HOSTILE  # as another program (or person) could write it
    path.write_text(json.dumps(data), encoding="utf-8")
    with qtbot.waitSignals([window.workspace_opened, window.analysis_ready], timeout=20_000):
        window.workspaces.open(str(path))
    shown = window.message_bar.text()
    assert shown.startswith("This workspace shows A ")
    assert "\n" not in shown and "\x1b" not in shown
    assert "v1\\nFAKE: all chunks reused ✓\\x1b[31m" in shown
