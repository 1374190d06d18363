"""A workspace that reads files outside its folder shows their real paths and asks
before reading any; a headless run needs --trust-workspace; a file shown under another
name is named by its real path."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from steadlith_gui.model.workspace import DocumentRef, Workspace, save_workspace
from steadlith_gui.model.workspace_documents import outside_documents


@pytest.fixture()
def layout(tmp_path):
    """review/ holds the workspace and one document; secret.txt lies beside the folder."""
    review = tmp_path / "review"
    review.mkdir()
    (review / "v1.md").write_text("Version one of the notes, in the folder.\n", encoding="utf-8")
    secret = tmp_path / "secret.txt"
    secret.write_text("private key material, never to be shown\n", encoding="utf-8")
    return review, secret


def hostile(review, secret):
    """B is the secret, reached by ../ and shown under a harmless name."""
    ws = review / "review.steadlith"
    save_workspace(Workspace({"a": DocumentRef.from_file(review / "v1.md"),
                              "b": DocumentRef(str(secret), None, "v2.md")}), ws)
    return ws


def test_outside_documents_resolves_dotdot_and_links(layout):
    review, secret = layout
    (review / "link.md").symlink_to(secret)
    ws = Workspace({"a": DocumentRef.from_file(review / "v1.md"), "b": DocumentRef.from_file(review / "link.md")})
    assert outside_documents(ws, review) == [("b", str(secret))]  # the link's target, not the link
    ws = Workspace({"a": DocumentRef.from_file(review / ".." / "secret.txt"), "b": None})
    assert outside_documents(ws, review) == [("a", str(secret))]
    ws = Workspace({"a": DocumentRef.from_file(review / "v1.md"), "b": DocumentRef.pasted("text", "p")})
    assert outside_documents(ws, review) == []


def test_the_window_asks_with_the_real_paths_and_reads_nothing_on_no(qtbot, window, layout):
    review, secret = layout
    ws = hostile(review, secret)
    asked = []
    window.workspaces.ask_trust = lambda need: asked.append(need) or False
    with qtbot.waitSignal(window.workspace_failed, timeout=10_000) as blocker:
        window.workspaces.open(ws)
    assert [o for n in asked for o in n.outside] == [("b", str(secret))]
    assert str(secret) in blocker.args[0]
    assert window.session.documents() == (None, None)  # nothing read, nothing shown
    assert "private key" not in window.pane_b.toPlainText()


def test_on_yes_it_opens_and_names_the_real_file(qtbot, window, layout):
    review, secret = layout
    ws = hostile(review, secret)
    window.workspaces.ask_trust = lambda need: True
    with qtbot.waitSignals([window.workspace_opened, window.analysis_ready], timeout=20_000):
        window.workspaces.open(ws)
    assert "private key" in window.pane_b.toPlainText()
    message = window.message_bar.text()
    assert f"B {secret} as “v2.md”" in message  # the real path beside the chosen name


def test_a_workspace_inside_its_folder_opens_without_asking(qtbot, window, layout):
    review, _ = layout
    ws = review / "plain.steadlith"
    save_workspace(Workspace({"a": DocumentRef.from_file(review / "v1.md"), "b": None}), ws)
    window.workspaces.ask_trust = lambda need: pytest.fail("asked about a workspace that stays in its folder")
    with qtbot.waitSignal(window.workspace_opened, timeout=20_000):
        window.workspaces.open(ws)
    assert "Version one" in window.pane_a.toPlainText()


def test_headless_runs_need_the_flag(layout, tmp_path):
    review, secret = layout
    ws = hostile(review, secret)
    out = tmp_path / "report.html"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    gui = [sys.executable, "-m", "steadlith_gui", "--open-workspace", str(ws), "--export-report", str(out)]
    r = subprocess.run(gui, env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and not out.exists()
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr
    assert str(secret) in r.stderr and "--trust-workspace" in r.stderr
    r = subprocess.run([*gui, "--trust-workspace"], env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "private key material" in out.read_text(encoding="utf-8")


def test_the_question_shows_the_real_paths_as_plain_text(qtbot, window, tmp_path):
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel

    from steadlith_gui.controllers.workspace_controller import TrustNeeded

    secret = str(tmp_path / '<img src="x.png"><b>ok</b>')
    box, read = window.workspaces.trust_box(TrustNeeded(str(tmp_path / "w.steadlith"), [("b", secret)]))
    qtbot.addWidget(box)
    labels = [lab for lab in box.findChildren(QLabel) if "outside its folder" in lab.text()]
    assert len(labels) == 1 and labels[0].textFormat() == Qt.TextFormat.PlainText
    assert f"B: \u2068{secret}\u2069" in labels[0].text()
    assert box.defaultButton() is not read  # Enter does not read them
