"""The recovery file of unsaved edits (model.recovery), without Qt: what a window keeps,
what a crashed one left, and what is never offered."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from steadlith_gui.model.recovery import RecoveryStore, Unsaved, read_recovery


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_a_window_keeps_its_unsaved_text_and_a_clean_close_removes_it(tmp_path):
    store = RecoveryStore(tmp_path)
    store.save(1, {"B": Unsaved("guide.md", "/docs/guide.md", "typed ✓ text")})
    got = read_recovery(store.file)
    assert got.sides["B"] == Unsaved("guide.md", "/docs/guide.md", "typed ✓ text")
    assert store.left_behind() == []  # this window is alive: nothing to offer
    store.save(2, {})
    assert not store.file.exists()  # saved or reverted: nothing unsaved
    store.save(3, {"A": Unsaved("A (text)", None, "x")})
    store.clear()
    assert not store.file.exists()


def test_an_older_save_finishing_late_never_overwrites_a_newer_one(tmp_path):
    store = RecoveryStore(tmp_path)
    store.save(5, {"B": Unsaved("b", None, "newer")})
    store.save(4, {"B": Unsaved("b", None, "older")})
    assert read_recovery(store.file).sides["B"].text == "newer"


def test_what_a_dead_window_left_is_offered_newest_first_and_restoring_adopts_it(tmp_path):
    old = RecoveryStore(tmp_path, pid=_dead_pid())
    old.save(1, {"A": Unsaved("a.md", None, "first crash")})
    newer = RecoveryStore(tmp_path, pid=_dead_pid())
    newer.save(1, {"B": Unsaved("b.md", None, "second crash")})
    mine = RecoveryStore(tmp_path)
    found = mine.left_behind()
    assert [r.sides for r in found] == [{"B": Unsaved("b.md", None, "second crash")},
                                        {"A": Unsaved("a.md", None, "first crash")}]
    mine.adopt(found[0])
    assert read_recovery(mine.file).sides["B"].text == "second crash"
    mine.discard(found[1])
    assert mine.left_behind() == [] and sorted(os.listdir(tmp_path)) == [mine.file.name]


def test_a_damaged_or_foreign_file_is_never_offered_and_never_deleted(tmp_path):
    dead = _dead_pid()
    for n, text in enumerate(["{", json.dumps({"format": "other"}), json.dumps([1]), "[" * 100_000,
                              json.dumps({"format": "steadlith-unsaved-edits", "version": 1, "saved": 0,
                                          "sides": {"C": {"name": "x", "path": None, "text": "t"}}})]):
        (tmp_path / f"unsaved-{dead + n * 100_000}.json").write_text(text, encoding="utf-8")
    assert RecoveryStore(tmp_path).left_behind() == []
    assert len(os.listdir(tmp_path)) == 5


def test_a_folder_that_cannot_be_made_is_one_export_error(tmp_path):
    """The worker that saves reports an ExportError to the window; any other error would
    escape it unreported."""
    import pytest
    from steadlith_core.errors import ExportError

    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the folder should be", encoding="utf-8")
    store = RecoveryStore(blocker / "recovery")
    with pytest.raises(ExportError, match="recovery: cannot keep unsaved edits here: Not a directory"):
        store.save(1, {"B": Unsaved("guide.md", None, "typed")})
