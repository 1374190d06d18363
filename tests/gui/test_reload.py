"""A loaded file that changes on disk: reloaded when the pane is unmodified (with a
message), asked first when it was edited (and the edits kept on "no"). Files are
replaced the way editors save them (a new file renamed over the old one), twice, so the
watch must follow the new file."""

from __future__ import annotations

import os

import pytest

from compare_helpers import SMALL, small_pair
from gui_helpers import load_files, type_into

TIMEOUT = 10_000


def replace_file(path, text: str) -> None:
    tmp = path.with_name(path.name + ".new")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


@pytest.fixture()
def loaded(qtbot, window, tmp_path):
    a, b = small_pair(900, seed=5)
    pa, pb = tmp_path / "a.md", tmp_path / "b.md"
    pa.write_text(a, encoding="utf-8")
    pb.write_text(b, encoding="utf-8")
    window.session.set_params(SMALL, show=True)
    load_files(qtbot, window, pa, pb)
    assert sorted(window.watcher.files()) == sorted([str(pa), str(pb)])
    window.outcomes = []
    window.disk_change_handled.connect(lambda side, outcome: window.outcomes.append((side, outcome)))
    return window, pa, pb, a, b


def is_b(side, _outcome):
    return side == "B"


def test_an_unmodified_pane_reloads_with_a_message(qtbot, loaded):
    window, pa, pb, a, b = loaded
    for n in (1, 2):  # the second change proves the watch followed the replaced file
        new = f"Version {n} of B, rewritten on disk.\n\n" + b
        with qtbot.waitSignals([window.disk_change_handled, window.analysis_ready], timeout=TIMEOUT,
                               check_params_cbs=[is_b, None]):
            replace_file(pb, new)
        assert window.outcomes == [("B", "reloaded")] * n
        assert window.pane_b.toPlainText() == new and window.session.result.b.text == new
        assert window.message_bar.text() == "B reloaded: changed on disk" and window.message_bar.level == "info"
        assert window.session.documents()[0].text == a  # A untouched


def test_an_edited_pane_asks_and_keeps_the_edits_on_no(qtbot, loaded):
    window, pa, pb, a, b = loaded
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        type_into(qtbot, window.pane_b, 0, "my edit ")
    edited = window.pane_b.toPlainText()
    asked = []
    window.confirm_discard = lambda question: asked.append(question) or False
    with qtbot.waitSignal(window.disk_change_handled, timeout=TIMEOUT, check_params_cb=is_b) as blocker:
        replace_file(pb, "Changed elsewhere.\n" + b)
    assert blocker.args == ["B", "kept"]
    assert len(asked) == 1 and "changed on disk" in asked[0] and "discard your edits" in asked[0]
    assert window.pane_b.toPlainText() == edited and window.pane_b.modified
    assert "your edits are kept" in window.message_bar.text()

    window.confirm_discard = lambda question: asked.append(question) or True
    new = "Changed again.\n" + b
    with qtbot.waitSignals([window.disk_change_handled, window.analysis_ready], timeout=TIMEOUT,
                           check_params_cbs=[is_b, None]):
        replace_file(pb, new)
    assert window.outcomes == [("B", "kept"), ("B", "reloaded")]
    assert len(asked) == 2 and window.pane_b.toPlainText() == new and not window.pane_b.modified


def test_our_own_save_is_not_a_change(qtbot, loaded):
    window, pa, pb, a, b = loaded
    with qtbot.waitSignal(window.analysis_ready, timeout=TIMEOUT):
        type_into(qtbot, window.pane_b, 0, "saved edit ")
    text = window.pane_b.toPlainText()
    with qtbot.waitSignal(window.disk_change_handled, timeout=TIMEOUT, check_params_cb=is_b) as blocker:
        assert window.exports.save_as("B", pb)
    assert blocker.args == ["B", "unchanged"]  # the file holds what is shown: no reload, no message
    assert window.pane_b.toPlainText() == text and window.pane_b.document().isUndoAvailable()


def test_a_file_removed_from_disk_keeps_the_text(qtbot, loaded):
    window, pa, pb, a, b = loaded
    with qtbot.waitSignal(window.disk_change_handled, timeout=TIMEOUT) as blocker:
        os.remove(pa)
    assert blocker.args == ["A", "missing"]
    assert window.session.documents()[0].text == a and "removed from disk" in window.message_bar.text()
