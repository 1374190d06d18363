"""The `.steadlith` workspace file (steadlith_gui.model.workspace): pure Python, no Qt used."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from dataclasses import replace

import pytest

from steadlith_core import ChunkerParams
from steadlith_gui.model.workspace import DEFAULT_VIEW, DocumentRef, Workspace, WorkspaceError, save_workspace
from steadlith_gui.model.workspace_documents import resolve_documents
from steadlith_gui.model.workspace_loading import load_workspace

PARAMS = ChunkerParams(min_tokens=32, max_tokens=256, snap_mode="paragraph-sentence/1", snap_window_words=12)
EDITED = "First line\r\nsecond line 🚀 naïve\r\n\r\n<b>not html</b> \"quoted\"\n"


@pytest.fixture()
def folder(tmp_path):
    d = tmp_path / "review"
    (d / "docs").mkdir(parents=True)
    (d / "docs" / "v1.md").write_text("Version one of the document.\n", encoding="utf-8")
    (d / "docs" / "v2.md").write_text("Version two of the document.\n", encoding="utf-8")
    return d


def workspace(folder) -> Workspace:
    return Workspace(
        {"a": DocumentRef.from_file(folder / "docs" / "v1.md"),
         "b": DocumentRef.edited(folder / "docs" / "v2.md", EDITED)},
        PARAMS,
        {"sync_scroll": False, "theme": "dark", "edit_b": True, "future_option": [1, {"x": 2}]},
    )


def test_round_trip_is_equal(folder):
    ws = workspace(folder)
    path = folder / "review.steadlith"
    save_workspace(ws, path)
    loaded = load_workspace(path)
    assert loaded == ws
    assert loaded.documents["b"].text == EDITED  # \r\n and emoji kept exactly
    assert loaded.params == PARAMS and loaded.params.snap_window_words == 12
    assert loaded.view == {**DEFAULT_VIEW, "sync_scroll": False, "theme": "dark", "edit_b": True,
                           "future_option": [1, {"x": 2}]}  # unknown keys survive
    # what is on disk: relative paths, text only for the edited document, the hash
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "steadlith-workspace" and data["version"] == 1
    assert data["documents"]["a"] == {"path": "docs/v1.md", "name": "v1.md", "modified": False}
    assert data["documents"]["b"]["path"] == "docs/v2.md" and data["documents"]["b"]["text"] == EDITED
    assert data["params_hash"] == PARAMS.params_hash


def test_pasted_text_and_empty_side(folder):
    ws = Workspace({"a": DocumentRef.pasted("pasted 🚀\r\ntext", "clipboard"), "b": None})
    path = folder / "p.steadlith"
    save_workspace(ws, path)
    loaded = load_workspace(path)
    assert loaded == ws and loaded.documents["b"] is None
    assert resolve_documents(loaded) == {"a": ("pasted 🚀\r\ntext", "clipboard", None)}


def test_relative_paths_follow_the_moved_folder(folder, tmp_path):
    save_workspace(workspace(folder), folder / "review.steadlith")
    moved = tmp_path / "elsewhere" / "moved-review"
    shutil.move(str(folder), str(moved))
    loaded = load_workspace(moved / "review.steadlith")
    assert loaded.documents["a"].path == str(moved / "docs" / "v1.md")
    docs = resolve_documents(loaded)
    assert docs["a"] == ("Version one of the document.\n", "v1.md", str(moved / "docs" / "v1.md"))
    assert docs["b"][0] == EDITED  # embedded text wins over the file


def test_paths_outside_the_folder_are_absolute(folder, tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text("Outside.\n", encoding="utf-8")
    ws = Workspace({"a": DocumentRef.from_file(outside), "b": None})
    save_workspace(ws, folder / "w.steadlith")
    data = json.loads((folder / "w.steadlith").read_text(encoding="utf-8"))
    assert data["documents"]["a"]["path"] == str(outside)
    assert resolve_documents(load_workspace(folder / "w.steadlith"))["a"][0] == "Outside.\n"


def _valid(folder) -> dict:
    path = folder / "base.steadlith"
    save_workspace(workspace(folder), path)
    return json.loads(path.read_text(encoding="utf-8"))


def _edit(data: dict, dotted: str, value) -> dict:
    keys = dotted.split(".")
    target = data
    for k in keys[:-1]:
        target = target[k]
    if value is _DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return data


_DELETE = object()


@pytest.mark.parametrize(
    "change, where, message",
    [
        (("format", "something-else"), "format", "not a Steadlith workspace (format is 'something-else'"),
        (("format", _DELETE), "format", "format is None"),
        (("version", 2), "version", "unsupported workspace version 2 (saved by a newer Steadlith Inspector)"),
        (("version", "1"), "version", "must be an integer, not a string"),
        (("documents", []), "documents", "must be an object, not an array"),
        (("documents.c", None), "documents.c", "unknown document side"),
        (("documents.a", "v1.md"), "documents.a", "must be an object or null, not a string"),
        (("documents.b.path", 7), "documents.b.path", "must be a string or null, not a number (7)"),
        (("documents.b.text", ["x"]), "documents.b.text", "must be a string, not an array"),
        (("documents.a.path", None), "documents.a", "needs a path or a text"),
        (("documents.a.name", False), "documents.a.name", "must be a string, not a boolean"),
        (("documents.a.modified", "yes"), "documents.a.modified", "must be true or false"),
        (("params.min_tokens", 0), "params.min_tokens", "must be >= 1"),
        (("params.max_tokens", 1.5), "params.max_tokens", "must be an integer, not float"),
        (("params.nope", 1), "params.nope", "unknown parameter name"),
        (("params_hash", "0" * 32), "params_hash", "disagrees with the parameters"),
        (("view.theme", "neon"), "view.theme", "must be one of system, light, dark"),
        (("view.sync_scroll", 1), "view.sync_scroll", "must be true or false, not a number (1)"),
        (("view.legend", "yes"), "view.legend", "must be true or false, not a string"),
        (("view.chunk_filter", []), "view.chunk_filter", "must be an object, not an array"),
        (("view.chunk_filter", {"text": 5}), "view.chunk_filter.text", "must be a string, not a number (5)"),
    ],
)
def test_malformed_workspaces_are_rejected_naming_the_problem(folder, change, where, message):
    path = folder / "bad.steadlith"
    path.write_text(json.dumps(_edit(_valid(folder), *change)), encoding="utf-8")
    with pytest.raises(WorkspaceError) as e:
        load_workspace(path)
    assert e.value.where == where
    assert str(e.value).startswith(f"{path}: {where}: ")
    assert message in str(e.value)


def test_params_hash_mismatch_after_a_hand_edit(folder):
    """Changing a parameter without its hash is caught (the hash is checked, not trusted)."""
    data = _edit(_valid(folder), "params.max_tokens", 300)
    path = folder / "edited.steadlith"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(WorkspaceError, match="params_hash: .* disagrees with the parameters"):
        load_workspace(path)
    del data["params_hash"]  # no hash at all: a hand-written workspace is fine
    path.write_text(json.dumps(data), encoding="utf-8")
    assert load_workspace(path).params.max_tokens == 300


@pytest.mark.parametrize(
    "content, message",
    [
        ('{"format": "steadlith-workspace",\n  "version": 1,\n  "documents": {,}}', "not valid JSON: "
         "Expecting property name enclosed in double quotes at line 3, column 17"),
        ("", "not valid JSON: Expecting value at line 1, column 1"),
        ("[1, 2]", "not a Steadlith workspace (the top level is an array, expected an object)"),
        (b"\xff\xfe{}", "not valid UTF-8"),
    ],
)
def test_unreadable_files_are_rejected(folder, content, message):
    path = folder / "broken.steadlith"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(WorkspaceError) as e:
        load_workspace(path)
    assert str(e.value).startswith(f"{path}: ") and message in str(e.value)


def test_missing_workspace_file(folder):
    with pytest.raises(WorkspaceError, match="no such file"):
        load_workspace(folder / "nothing.steadlith")


def test_missing_document_file_fails_resolution_as_a_whole(folder):
    ws = workspace(folder)
    save_workspace(ws, folder / "review.steadlith")
    (folder / "docs" / "v1.md").unlink()
    loaded = load_workspace(folder / "review.steadlith")  # the file itself is fine
    with pytest.raises(WorkspaceError) as e:
        resolve_documents(loaded)
    assert e.value.where == "documents.a.path"
    assert str(e.value) == f"{folder / 'docs' / 'v1.md'}: documents.a.path: cannot open document A: no such file"


def test_saving_keeps_the_old_file_when_it_cannot_write(folder, monkeypatch):
    import os

    path = folder / "review.steadlith"
    save_workspace(workspace(folder), path)
    before = path.read_bytes()
    monkeypatch.setattr(os, "replace", lambda *_: (_ for _ in ()).throw(OSError(5, "I/O error")))
    with pytest.raises(Exception, match="cannot write: I/O error"):
        save_workspace(replace(workspace(folder), params=ChunkerParams()), path)
    assert path.read_bytes() == before


def test_documents_need_a_path_or_text():
    with pytest.raises(ValueError):
        DocumentRef(None, None, "nothing")
    with pytest.raises(ValueError):
        Workspace({"c": None})


WORKSPACE_PROBE = r"""
import sys
from steadlith_core import ChunkerParams
from steadlith_gui.model.workspace import DocumentRef, Workspace, save_workspace
from steadlith_gui.model.workspace_documents import resolve_documents
from steadlith_gui.model.workspace_loading import load_workspace

path = sys.argv[1]
save_workspace(Workspace({"a": DocumentRef.pasted("Alpha.", "a.txt"), "b": None}, ChunkerParams()), path)
assert resolve_documents(load_workspace(path))["a"][0] == "Alpha."
print(sorted(m for m in sys.modules if m.split(".")[0] in ("PySide6", "shiboken6", "PyQt5", "PyQt6")))
"""


def test_workspace_files_are_saved_and_read_without_loading_qt(tmp_path):
    """Saving, loading and resolving a workspace runs in a fresh interpreter that never
    imports Qt (the window maps its state to a Workspace and back)."""
    proc = subprocess.run([sys.executable, "-c", WORKSPACE_PROBE, str(tmp_path / "w.steadlith")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_a_workspace_pair_is_held_to_the_windows_budget(tmp_path, monkeypatch):
    """A workspace opens in the window: its documents together are held to the window's
    own budget (loader.COMMAND_MEMORY["window"]), and the side that passes it is named."""
    from steadlith_core.chunking import loader

    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text("x" * 600, encoding="utf-8")
    b.write_text("y" * 600, encoding="utf-8")
    ws = Workspace({"a": DocumentRef.from_file(a), "b": DocumentRef.from_file(b)})
    assert set(resolve_documents(ws)) == {"a", "b"}
    monkeypatch.setattr(loader, "MEMORY_BUDGET", 1000 * loader.memory_per_input_byte("window"))
    with pytest.raises(WorkspaceError, match=r"cannot open document B: too large"):
        resolve_documents(ws)
