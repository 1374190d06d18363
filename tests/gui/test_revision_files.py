"""A pane showing a file at a git revision, as files go: the name Save as… offers, and
File → Recent files."""

import os

from gui_helpers import load_pair
from PySide6.QtWidgets import QFileDialog

from steadlith_gui.app import document_arg


def offered_by_save_as(window, side, monkeypatch, answer=""):
    """The path Save as… proposes for `side` (the dialog then answers `answer`)."""
    offered = []

    def ask(parent, title, start, filters):
        offered.append(start)
        return answer, ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    window.exports.save_as(side)
    return offered[0]


def test_save_as_offers_a_revisions_base_name_in_the_folder_last_saved_to(qtbot, window, history, monkeypatch,
                                                                          tmp_path):
    root, repo, ids, _texts = history
    monkeypatch.chdir(root)
    load_pair(qtbot, window, document_arg("doc.md@HEAD~1"), document_arg("doc.md@HEAD"))
    short_a, short_b = repo[ids[-2]].short_id, repo[ids[-1]].short_id
    # nothing saved yet: beside the file in the working tree, named with its commit
    first = offered_by_save_as(window, "B", monkeypatch)
    assert first == os.path.join(str(root), f"doc@{short_b}.md")

    kept = tmp_path / "kept"
    kept.mkdir()
    with qtbot.waitSignal(window.saved, timeout=10_000):
        offered_by_save_as(window, "B", monkeypatch, answer=str(kept / f"doc@{short_b}.md"))
    assert offered_by_save_as(window, "A", monkeypatch) == str(kept / f"doc@{short_a}.md")
    # B is now that file: it offers itself
    assert offered_by_save_as(window, "B", monkeypatch) == str(kept / f"doc@{short_b}.md")


# -- File → Recent files ------------------------------------------------------------------------


def revision(root, commit):
    return {"repo": str(root), "path": "doc.md", "commit": commit}


def recent_labels(window):
    return [a.text() for a in window.recent_menu.actions() if a.text() and not a.isSeparator()][:-1]


def test_revisions_opened_are_recent_and_reopen_from_there(qtbot, window, history, monkeypatch, tmp_path):
    root, repo, ids, texts = history
    monkeypatch.chdir(root)
    load_pair(qtbot, window, document_arg("doc.md@HEAD~1"), document_arg("doc.md@HEAD"))
    entry = window.recent_menu.entries()[0]
    assert entry == {"a": revision(root, ids[-2]), "b": revision(root, ids[-1])}
    assert recent_labels(window)[0] == f"&1  doc.md@{ids[-2][:7]} ↔ doc.md@{ids[-1][:7]}"

    plain = tmp_path / "mine.md"
    plain.write_text("Words of my own, enough of them to chunk.\n", encoding="utf-8")
    load_pair(qtbot, window, str(plain), str(plain))
    assert window.recent_menu.entries()[1] == entry

    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        window.recent_menu.choose(entry)
    assert [d.text for d in window.session.documents()] == [texts[ids[-2]], texts[ids[-1]]]
    assert window.session.identity("B")[0].startswith(f"doc.md @ {repo[ids[-1]].short_id} — ")
    assert window.recent_menu.entries()[0] == entry


def test_a_pair_from_the_history_or_open_revisions_is_recent(qtbot, window, history):
    root, repo, ids, texts = history
    window.revisions.ask = lambda dialog: True  # the default pair: the file's last change
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        window.revisions.open(str(root / "doc.md"))
    assert window.recent_menu.entries()[0] == {"a": revision(root, ids[-2]), "b": revision(root, ids[-1])}


def test_a_recent_revision_that_no_longer_resolves_is_one_line_and_leaves_the_list(qtbot, window, history,
                                                                                  monkeypatch):
    root, repo, ids, texts = history
    monkeypatch.chdir(root)
    load_pair(qtbot, window, document_arg("doc.md@HEAD~1"), document_arg("doc.md@HEAD"))
    gone = {"a": None, "b": revision(root, "0123456789" * 4)}  # a commit the repository lacks (a rewritten history)
    window.recent_menu.add(gone)
    assert window.recent_menu.entries()[0] == gone
    with qtbot.waitSignal(window.load_failed, timeout=30_000) as blocker:
        window.recent_menu.choose(gone)
    message = blocker.args[0]
    assert message.startswith("Cannot load B:") and "0123456" in message and len(message.splitlines()) <= 2
    assert gone not in window.recent_menu.entries()
    assert window.session.documents()[1].text == texts[ids[-1]]  # B still shows what it showed
    assert window.recent_menu.entries()[0] == {"a": revision(root, ids[-2]), "b": revision(root, ids[-1])}


def test_a_hand_edited_revision_entry_is_ignored_not_an_error():
    import json

    from steadlith_gui.controllers.settings import K_RECENT, AppSettings
    good = {"a": None, "b": {"repo": "/r", "path": "doc.md", "commit": "ab" * 20}}
    settings = AppSettings.memory()
    settings.store[K_RECENT] = json.dumps([
        {"a": None, "b": {"repo": "/r", "path": "doc.md", "commit": "HEAD; rm -rf"}},
        {"a": None, "b": {"repo": "/r", "path": "doc.md"}},
        {"a": {"repo": 3, "path": "doc.md", "commit": "ab" * 20}, "b": None},
        good])
    assert settings.recent() == [good]
