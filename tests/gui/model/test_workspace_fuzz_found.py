"""Workspace files the fuzz target (tests/fuzz, `workspace`) found to end in a traceback
instead of a WorkspaceError naming the field."""

from __future__ import annotations

import json

import pytest

from steadlith_gui.model.workspace import FORMAT, VERSION, WorkspaceError
from steadlith_gui.model.workspace_loading import load_workspace


@pytest.mark.parametrize("source", [[], {"a": 1}, ["pair"]])
def test_a_sweep_source_that_is_a_list_or_an_object_is_refused_by_name(tmp_path, source):
    path = tmp_path / "w.steadlith"
    path.write_text(json.dumps({"format": FORMAT, "version": VERSION, "sweep": {"source": source}}), encoding="utf-8")
    with pytest.raises(WorkspaceError, match=r"sweep\.source.*must be one of"):
        load_workspace(path)
