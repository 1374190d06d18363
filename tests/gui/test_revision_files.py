"""A pane showing a file at a git revision, as files go: the name Save as… offers, and
File → Recent files."""

import os

import pytest
from git_helpers import doc_history
from PySide6.QtWidgets import QFileDialog

from steadlith_gui.app import document_arg


@pytest.fixture
def history(tmp_path):
    repo, ids, texts = doc_history(tmp_path / "repo")
    return tmp_path / "repo", repo, ids, texts


def load_pair(qtbot, window, a, b):
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        window.load_files(a, b)


def offered_by_save_as(window, side, monkeypatch, answer=""):
    """The path Save as… proposes for `side` (the dialog then answers `answer`)."""
    offered = []

    def ask(parent, title, start, filters):
        offered.append(start)
        return answer, ""

    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    window.save_as(side)
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

