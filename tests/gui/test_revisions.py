"""Revisions in the window: PATH@REV on the command line, File → Open revisions…, titles,
edits of a revision, workspaces that store revisions, and every error as one line."""

import json
import os
import subprocess
import sys

import pytest
from git_helpers import MESSAGES
from gui_helpers import load_pair, type_into
from steadlith_core.history.repository import resolve_revision

from steadlith_gui.app import document_arg


def test_command_line_revisions_show_the_commits_texts_and_titles(qtbot, window, history, monkeypatch):
    root, repo, ids, texts = history
    monkeypatch.chdir(root)
    a, b = document_arg(f"doc.md@{ids[1][:10]}"), document_arg("doc.md@HEAD")
    load_pair(qtbot, window, a, b)
    doc_a, doc_b = window.session.documents()
    assert (doc_a.text, doc_b.text) == (texts[ids[1]], texts[ids[-1]])
    short_a, short_b = repo[ids[1]].short_id, repo[ids[-1]].short_id
    assert window.session.identity("A") == (f"doc.md @ {short_a} — Revise paragraph five", None)
    assert window.session.identity("B") == (f"doc.md @ {short_b} — Name paragraph fifty-five", None)
    assert f"doc.md @ {short_b} — Name paragraph fifty-five" in window.windowTitle()
    assert f"@\xa0{short_a}" in window.columns["A"].header.toolTip()  # the header may elide it to its width
    assert window.watcher.files() == []  # a revision is not a file on disk: nothing to watch


def test_a_revision_and_a_plain_file_mix(qtbot, window, history, monkeypatch, tmp_path):
    root, repo, ids, texts = history
    monkeypatch.chdir(root)
    plain = tmp_path / "mine.md"
    plain.write_text(texts[ids[-1]] + "\nOne more line of my own words.\n", encoding="utf-8")
    load_pair(qtbot, window, document_arg("doc.md@HEAD~2"), document_arg(str(plain)))
    assert window.session.documents()[0].text == texts[ids[-3]]
    assert window.session.identity("B") == ("mine.md", str(plain))
    assert window.watcher.files() == [str(plain)]


def test_an_existing_file_named_with_an_at_sign_wins(history, monkeypatch):
    root, _repo, _ids, _texts = history
    monkeypatch.chdir(root)
    (root / "notes@HEAD").write_text("a file whose name looks like a revision\n", encoding="utf-8")
    assert document_arg("notes@HEAD") == "notes@HEAD"


def run_gui(*args, cwd):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "steadlith_gui", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("arg, named", [("doc.md@no-such-branch", "'no-such-branch'"),
                                        ("gone.md@HEAD", "no such path in that revision")])
def test_a_bad_revision_is_one_line_and_exit_2(history, arg, named):
    root = history[0]
    out = run_gui(arg, "doc.md@HEAD", "--export-report", "report.html", cwd=root)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("steadlith-gui: error: ") and named in lines[0]
    assert "Traceback" not in out.stderr
    assert not (root / "report.html").exists()


def test_a_binary_blob_is_a_message_bar_line(qtbot, window, history):
    root, repo, ids, _texts = history
    ref = resolve_revision(str(root), "logo.bin", "HEAD")
    with qtbot.waitSignal(window.load_failed, timeout=20_000) as blocker:
        window.documents_ctl.load_files(None, ref)
    message = blocker.args[0]
    assert message.startswith("Cannot load B:") and "logo.bin" in message and len(message.splitlines()) == 1
    assert window.message_bar.isVisible() and "logo.bin" in window.message_bar.text()


def test_an_edited_revision_is_named_an_edited_copy(qtbot, window, history, monkeypatch):
    root, repo, ids, texts = history
    monkeypatch.chdir(root)
    load_pair(qtbot, window, document_arg("doc.md@HEAD~1"), document_arg("doc.md@HEAD"))
    short = repo[ids[-1]].short_id
    type_into(qtbot, window.pane_b, 0, "Edited here. ")
    assert window.session.identity("B") == (f"edited copy of doc.md @ {short}", None)
    assert f"edited copy of doc.md @ {short}" in window.windowTitle()
    assert f"edited copy of doc.md @ {short}".replace(" ", "\xa0") in window.columns["B"].header.toolTip()


# -- File → Open revisions… -------------------------------------------------------------------


def test_open_revisions_defaults_to_the_last_change_of_the_file(qtbot, window, history):
    root, repo, ids, texts = history
    seen = []
    window.revisions.ask = lambda dialog: seen.append([dialog.list_b.item(i).text()[:7]
                                                       for i in range(dialog.list_b.count())]) or True
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        window.revisions.open(str(root / "doc.md"))
    assert seen == [[repo[c].short_id for c in reversed(ids)]]  # newest first
    assert [d.text for d in window.session.documents()] == [texts[ids[-2]], texts[ids[-1]]]


def test_open_revisions_loads_the_pair_chosen(qtbot, window, history):
    root, repo, ids, texts = history

    def choose(dialog):
        dialog.list_b.setCurrentRow(1)  # B first: choosing it moves A to the version before it
        dialog.list_a.setCurrentRow(3)  # the oldest
        return True

    window.revisions.ask = choose
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        window.revisions.open(str(root / "doc.md"))
    newest_first = list(reversed(ids))
    assert [d.text for d in window.session.documents()] == [texts[newest_first[3]], texts[newest_first[1]]]
    assert window.session.identity("A")[0] == f"doc.md @ {repo[newest_first[3]].short_id} — {MESSAGES[-4]}"


def test_open_revisions_cancelled_changes_nothing(qtbot, window, history):
    root = history[0]
    window.revisions.ask = lambda dialog: False
    with qtbot.waitSignal(window.revisions.listed, timeout=20_000):
        window.revisions.open(str(root / "doc.md"))
    qtbot.wait(50)
    assert window.session.documents() == (None, None)


@pytest.mark.parametrize("make, named", [
    (lambda tmp: tmp / "plain.md", "not a git repository"),
    (lambda tmp: tmp / "repo" / "untracked.md", "no such path in that revision"),
])
def test_open_revisions_of_a_file_git_does_not_hold_is_a_message(qtbot, window, history, tmp_path, make, named):
    path = make(tmp_path)
    path.write_text("words that git never saw\n", encoding="utf-8")
    window.revisions.ask = lambda dialog: pytest.fail("no dialog for a file without history")
    with qtbot.waitSignal(window.revisions.failed, timeout=20_000) as blocker:
        window.revisions.open(str(path))
    assert named in blocker.args[0]
    assert window.message_bar.isVisible() and named in window.message_bar.text()


# -- workspaces -------------------------------------------------------------------------------


def save_and_reopen(qtbot, window, path, make_window_fn):
    with qtbot.waitSignal(window.workspace_saved, timeout=20_000):
        window.workspaces.save(str(path))
    other = make_window_fn()
    with qtbot.waitSignal(other.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        other.workspaces.open(str(path))
    return other


@pytest.fixture
def second_window(qtbot):
    from gui_helpers import make_window

    return lambda: make_window(qtbot)


def test_a_workspace_stores_revisions_and_reopens_them(qtbot, window, history, monkeypatch, second_window):
    root, repo, ids, texts = history
    monkeypatch.chdir(root)
    load_pair(qtbot, window, document_arg(f"doc.md@{ids[0]}"), document_arg("doc.md@HEAD"))
    type_into(qtbot, window.pane_b, 0, "Edited here. ")
    edited = window.pane_b.current_text()
    ws_path = root / "review.steadlith"
    other = save_and_reopen(qtbot, window, ws_path, second_window)
    data = json.loads(ws_path.read_text(encoding="utf-8"))
    assert data["documents"]["a"]["path"] is None
    assert data["documents"]["a"]["revision"] == {"repo": ".", "path": "doc.md", "commit": ids[0]}
    assert "text" not in data["documents"]["a"]  # read from the repository again
    assert data["documents"]["b"]["revision"]["commit"] == ids[-1] and data["documents"]["b"]["modified"] is True
    doc_a, doc_b = other.session.documents()
    assert (doc_a.text, doc_b.text) == (texts[ids[0]], edited)
    assert other.session.identity("A") == window.session.identity("A")
    assert other.session.identity("B") == (f"edited copy of doc.md @ {repo[ids[-1]].short_id}", None)
    assert doc_a.root.git_ref.commit == ids[0]


def test_a_workspace_with_a_missing_commit_names_it(qtbot, window, history, monkeypatch):
    root, repo, ids, _texts = history
    monkeypatch.chdir(root)
    load_pair(qtbot, window, document_arg(f"doc.md@{ids[0]}"), document_arg("doc.md@HEAD"))
    ws_path = root / "review.steadlith"
    with qtbot.waitSignal(window.workspace_saved, timeout=20_000):
        window.workspaces.save(str(ws_path))
    data = json.loads(ws_path.read_text(encoding="utf-8"))
    data["documents"]["a"]["revision"]["commit"] = "0123456789" * 4
    ws_path.write_text(json.dumps(data), encoding="utf-8")
    shown = window.session.documents()
    with qtbot.waitSignal(window.workspace_failed, timeout=20_000) as blocker:
        window.workspaces.open(str(ws_path))
    message = blocker.args[0]
    assert "documents.a.revision" in message and "0123456789" * 4 in message and "\n" not in message
    assert window.session.documents() == shown  # nothing changed


def test_a_workspace_reading_a_repository_outside_its_folder_asks_first(qtbot, window, history, monkeypatch,
                                                                        tmp_path):
    root, repo, ids, _texts = history
    monkeypatch.chdir(root)
    load_pair(qtbot, window, document_arg(f"doc.md@{ids[0]}"), document_arg("doc.md@HEAD"))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ws_path = elsewhere / "review.steadlith"
    with qtbot.waitSignal(window.workspace_saved, timeout=20_000):
        window.workspaces.save(str(ws_path))
    asked = []
    window.workspaces.ask_trust = lambda need: asked.append(need) or False
    with qtbot.waitSignal(window.workspace_failed, timeout=20_000):
        window.workspaces.open(str(ws_path))
    assert [side for side, _ in asked[0].outside] == ["a", "b"]
    assert asked[0].outside[0][1] == os.path.realpath(root)
