"""The external chunkers chosen in the churn panel are part of a workspace: saved,
reopened in a fresh window, and absent from older workspaces without harm."""

from __future__ import annotations

import json

import pytest

from gui_helpers import load_files, make_window
from steadlith_gui.model.external_choice import ExternalChoice
from steadlith_gui.model.workspace import Workspace, WorkspaceError, workspace_to_dict
from steadlith_gui.model.workspace_documents import outside_documents
from steadlith_gui.model.workspace_loading import load_workspace, workspace_from_dict
from test_external_churn import choose, demo_pair


@pytest.fixture()
def files(tmp_path):
    a, b = demo_pair()
    pa, pb = tmp_path / "v1.md", tmp_path / "v2.md"
    pa.write_text(a, encoding="utf-8")
    pb.write_text(b, encoding="utf-8")
    return pa, pb


def test_the_choice_round_trips_with_span_files_relative_to_the_workspace(tmp_path):
    spans = (str(tmp_path / "spans" / "a.jsonl"), str(tmp_path / "spans" / "b.jsonl"))
    choice = ExternalChoice(("semchunk", "jsonl"), "own", 300, spans, "jsonl")
    data = workspace_to_dict(Workspace({"a": None, "b": None}, external=choice), tmp_path)
    assert data["external"]["jsonl"] == {"a": "spans/a.jsonl", "b": "spans/b.jsonl"}
    moved = tmp_path / "moved"
    back = workspace_from_dict(json.loads(json.dumps(data)), moved)
    assert back.external == ExternalChoice(("semchunk", "jsonl"), "own", 300,
                                           (str(moved / "spans" / "a.jsonl"), str(moved / "spans" / "b.jsonl")), "jsonl")


def test_a_workspace_without_external_chunkers_opens_as_before(tmp_path):
    data = workspace_to_dict(Workspace({"a": None, "b": None}), tmp_path)
    del data["external"]
    assert workspace_from_dict(data, tmp_path).external == ExternalChoice()


@pytest.mark.parametrize("external, where", [
    ({"sizing": "biggest"}, "external.sizing"),
    ({"chunkers": ["word2vec"]}, "external.chunkers"),
    ({"chunkers": ["jsonl"]}, "external.jsonl"),
    ({"chunk_size": 0}, "external.chunk_size"),
    ({"chunkers": ["semchunk"], "shown": "chonkie-recursive"}, "external.shown"),
    ([], "external"),
])
def test_a_bad_choice_is_refused_naming_the_field(tmp_path, external, where):
    data = workspace_to_dict(Workspace({"a": None, "b": None}), tmp_path)
    data["external"] = external
    with pytest.raises(WorkspaceError) as e:
        workspace_from_dict(data, tmp_path, "ws.steadlith")
    assert e.value.where == where and str(e.value).startswith(f"ws.steadlith: {where}: ")


def test_span_files_outside_the_folder_need_trust_like_documents(tmp_path):
    inside = tmp_path / "ws"
    choice = ExternalChoice(("jsonl",), jsonl=(str(inside / "a.jsonl"), str(tmp_path / "elsewhere.jsonl")))
    ws = Workspace({"a": None, "b": None}, external=choice)
    assert outside_documents(ws, inside) == [("spans b", str((tmp_path / "elsewhere.jsonl").resolve()))]


def test_the_window_saves_and_reopens_the_columns(qtbot, window, tmp_path, files):
    load_files(qtbot, window, *files)
    choose(qtbot, window, "fixed-tokens")
    path = tmp_path / "pair.steadlith"
    with qtbot.waitSignal(window.workspace_saved, timeout=10_000):
        window.workspaces.save(path)
    assert load_workspace(path).external.chunkers == ("fixed-tokens",)
    fresh = make_window(qtbot)
    with qtbot.waitSignal(fresh.workspace_opened, timeout=60_000):
        fresh.workspaces.open(path)
    qtbot.waitUntil(lambda: fresh.session.result is not None and bool(fresh.session.result.externals), timeout=60_000)
    assert fresh.session.external == window.session.external
    assert fresh.churn.external_keys == ("fixed-tokens",)
    assert fresh.churn.value("fixed-tokens", "reused_chunks") == window.churn.value("fixed-tokens", "reused_chunks")
