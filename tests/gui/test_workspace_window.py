"""Workspaces in the window: save what is shown (files, edits, pasted text, parameters,
view options), reopen it exactly in a fresh window, and refuse a malformed file
without changing anything."""

from __future__ import annotations

import json

import pytest
from PySide6.QtWidgets import QFileDialog
from steadlith_core import ChunkerParams

from compare_helpers import SMALL, small_pair
from gui_helpers import load_files, load_texts, make_window, type_into
from steadlith_gui.model.workspace_loading import load_workspace

EDITED_PARAMS = SMALL.with_changes(max_tokens=48, snap_mode="paragraph-sentence/1", snap_window_words=6)


def save(qtbot, window, path):
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000):
        window.workspaces.save(path)


def open_in(qtbot, window, path):
    with qtbot.waitSignals([window.workspace_opened, window.analysis_ready], timeout=20_000):
        window.workspaces.open(path)


@pytest.fixture()
def files(tmp_path):
    a, b = small_pair(1500, seed=9)
    pa, pb = tmp_path / "v1.md", tmp_path / "v2.md"
    pa.write_text(a, encoding="utf-8")
    pb.write_text(b, encoding="utf-8")
    return pa, pb


def test_round_trip_restores_texts_parameters_and_view(qtbot, window, tmp_path, files):
    pa, pb = files
    window.session.set_params(SMALL, show=True)
    load_files(qtbot, window, pa, pb)
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        window.session.set_params(EDITED_PARAMS, show=True)
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        type_into(qtbot, window.pane_b, 10, "inserted words ")
    window.act["syntax"].setChecked(False)
    window.act["sync"].setChecked(False)
    window.act["edit_a"].setChecked(True)
    window.act["legend"].setChecked(False)
    window.table.filter_edit.setText("backup")
    window.table.status_combo.setCurrentIndex(window.table.status_combo.findData("shifted"))
    path = tmp_path / "review.steadlith"
    save(qtbot, window, path)
    assert window.session.workspace_path == str(path) and "review.steadlith" in window.windowTitle()
    stored = load_workspace(path)
    assert stored.documents["a"].path == str(pa) and stored.documents["a"].text is None  # a file: its path
    assert stored.documents["b"].modified and "inserted words" in stored.documents["b"].text  # edited: its text

    fresh = make_window(qtbot)
    open_in(qtbot, fresh, path)
    assert fresh.pane_a.toPlainText() == window.pane_a.toPlainText()
    assert fresh.pane_b.toPlainText() == window.pane_b.toPlainText()
    assert fresh.pane_b.modified and not fresh.pane_a.modified  # the edit is still an edit
    assert fresh.session.params.params_hash == EDITED_PARAMS.params_hash
    assert fresh.session.result.params.params_hash == EDITED_PARAMS.params_hash  # and the analysis used them
    assert fresh.session.view.as_dict() == window.session.view.as_dict()
    assert not fresh.act["syntax"].isChecked() and not fresh.act["sync"].isChecked() and fresh.pane_a.editable
    assert fresh.table.proxy.rowCount() == window.table.proxy.rowCount()  # the table filter too
    assert "review.steadlith" in fresh.windowTitle()
    assert fresh.session.comparison.status_b == window.session.comparison.status_b


def test_pasted_text_keeps_its_exact_characters(qtbot, window, tmp_path):
    a, b = small_pair()
    a = a.replace("\n", "\r\n") + " 🚀 naïve"
    window.session.set_params(SMALL, show=True)
    load_texts(qtbot, window, a, b, name_a="clipboard A", name_b="clipboard B")
    path = tmp_path / "pasted.steadlith"
    save(qtbot, window, path)
    fresh = make_window(qtbot)
    open_in(qtbot, fresh, path)
    doc_a, doc_b = fresh.session.documents()
    assert doc_a.text == a and doc_a.path is None and doc_a.name == "clipboard A"  # \r\n and emoji kept
    assert doc_b.text == b and not fresh.pane_a.modified


def test_a_malformed_workspace_changes_nothing(qtbot, window, tmp_path, files):
    pa, pb = files
    window.session.set_params(SMALL, show=True)
    load_files(qtbot, window, pa, pb)
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        type_into(qtbot, window.pane_b, 5, "mine ")
    good = tmp_path / "good.steadlith"
    save(qtbot, window, good)
    window.confirm_discard = lambda question: True  # opening over the edits is allowed: the file decides
    before = (window.session.documents(), window.session.result, window.session.params, window.session.view.as_dict(),
              window.pane_b.toPlainText(), window.windowTitle())
    data = json.loads(good.read_text(encoding="utf-8"))
    cases = {
        "hash.steadlith": {**data, "params": {**data["params"], "max_tokens": 300}},  # hash disagrees
        "theme.steadlith": {**data, "view": {**data["view"], "theme": "neon"}},
        "missing-doc.steadlith": {**data, "documents": {**data["documents"], "a": {"path": "gone.md"}}},
    }
    for name, content in cases.items():
        (tmp_path / name).write_text(json.dumps(content), encoding="utf-8")
    (tmp_path / "syntax.steadlith").write_text("{not json", encoding="utf-8")
    expected = {"hash.steadlith": "params_hash", "theme.steadlith": "view.theme",
                "missing-doc.steadlith": "documents.a.path", "syntax.steadlith": "not valid JSON"}
    for name, needle in expected.items():
        with qtbot.waitSignal(window.workspace_failed, timeout=10_000) as blocker:
            window.workspaces.open(tmp_path / name)
        assert needle in blocker.args[0]
        assert needle in window.message_bar.text() and "Nothing was changed" in window.message_bar.text()
        after = (window.session.documents(), window.session.result, window.session.params, window.session.view.as_dict(),
                 window.pane_b.toPlainText(), window.windowTitle())
        assert after[0][0] is before[0][0] and after[0][1] is before[0][1]  # the same documents
        assert after[1] is before[1] and after[2:] == before[2:]  # the same result, params, view, text


def test_opening_over_edits_asks_first(qtbot, window, tmp_path, files):
    pa, pb = files
    window.session.set_params(SMALL, show=True)
    load_files(qtbot, window, pa, pb)
    path = tmp_path / "w.steadlith"
    save(qtbot, window, path)
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000):
        type_into(qtbot, window.pane_b, 5, "keep me ")
    asked = []
    window.confirm_discard = lambda question: asked.append(question) or False
    assert window.workspaces.open(path) is None  # refused: nothing read, nothing changed
    assert asked and "unsaved edits" in asked[0] and "keep me" in window.pane_b.toPlainText()
    window.confirm_discard = lambda question: True
    open_in(qtbot, window, path)
    assert "keep me" not in window.pane_b.toPlainText() and not window.pane_b.modified


def test_save_workspace_asks_for_a_file_the_first_time(qtbot, window, tmp_path, files, monkeypatch):
    pa, pb = files
    load_files(qtbot, window, pa, pb)
    asked = []

    def ask(parent, title, start, filters):
        asked.append(start)
        return str(tmp_path / "named"), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000) as blocker:
        window.act["save_workspace"].trigger()
    assert asked[0].endswith("v1-vs-v2.steadlith")
    assert blocker.args == [str(tmp_path / "named.steadlith")]  # the suffix is added
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000) as blocker:
        window.act["save_workspace"].trigger()  # now saved in place, not asked again
    assert len(asked) == 1 and blocker.args == [str(tmp_path / "named.steadlith")]
    assert load_workspace(tmp_path / "named.steadlith").params == ChunkerParams()
