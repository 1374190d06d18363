"""A hostile or corrupted workspace is refused with a clear WorkspaceError naming the
field, never a traceback and never a 10 MB message: bounded strings, numbers too long
to read, NUL bytes in paths. Hypothesis feeds the parser arbitrary JSON. No Qt used."""

from __future__ import annotations

import json

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from steadlith_gui.model.workspace import OTHER_STRING_LIMIT, STRING_LIMITS, Workspace, WorkspaceError
from steadlith_gui.model.workspace_loading import load_workspace, workspace_from_dict

MESSAGE_LIMIT = 400  # a message fits a message bar, whatever the file holds


def valid() -> dict:
    return {"format": "steadlith-workspace", "version": 1,
            "documents": {"a": {"path": "v1.md", "name": "v1.md"}, "b": {"text": "pasted", "name": "pasted"}},
            "params": {"min_tokens": 64, "max_tokens": 512}, "view": {"theme": "dark"}}


def refused(data, folder="/tmp") -> WorkspaceError:
    with pytest.raises(WorkspaceError) as info:
        workspace_from_dict(data, folder, "ws.steadlith")
    message = str(info.value)
    assert len(message) < MESSAGE_LIMIT and "\n" not in message
    return info.value


@pytest.mark.parametrize("where, value, limit", [
    ("documents.a.name", "n" * 10_000_000, STRING_LIMITS["name"]),
    ("documents.a.path", "p" * 5000, STRING_LIMITS["path"]),
    ("view.theme", "t" * 5000, OTHER_STRING_LIMIT),
    ("view.chunk_filter.text", "f" * 5000, OTHER_STRING_LIMIT),
    ("view.from_a_newer_version", "x" * 5000, OTHER_STRING_LIMIT),
    ("params.token_counter", "c" * 100_000, OTHER_STRING_LIMIT),
    ("params.snap_mode", "s" * 100_000, OTHER_STRING_LIMIT),
    ("params_hash", "h" * 100_000, OTHER_STRING_LIMIT),
    ("format", "f" * 100_000, None),
])
def test_every_string_field_is_bounded(where, value, limit):
    data = valid()
    *parents, key = where.split(".")
    node = data
    for part in parents:
        node = node.setdefault(part, {})
    node[key] = value
    error = refused(data)
    assert error.where == where
    if limit is not None:
        assert error.reason == f"too long: {len(value):,} characters, at most {limit:,}"


def test_an_embedded_text_may_be_long():
    data = valid()
    data["documents"]["b"]["text"] = "word " * 1_000_000
    assert isinstance(workspace_from_dict(data, "/tmp"), Workspace)


def test_a_nul_byte_in_a_document_path_is_refused_by_field():
    data = valid()
    data["documents"]["a"]["path"] = "docs/v1\0.md"
    error = refused(data)
    assert (error.where, error.reason) == ("documents.a.path", "holds a NUL character, which no file name can contain")


@pytest.mark.parametrize("field", ["version", "params.max_tokens", "view.from_a_newer_version"])
def test_integers_of_more_than_4300_digits_are_a_clear_error(tmp_path, field):
    path = tmp_path / "huge.steadlith"
    text = json.dumps(valid())
    placeholder = '"__HUGE__"'
    data = valid()
    *parents, key = field.split(".")
    node = data
    for part in parents:
        node = node[part]
    node[key] = "__HUGE__"
    text = json.dumps(data).replace(placeholder, "9" * 5000)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(WorkspaceError) as info:
        load_workspace(path)
    assert str(info.value).startswith(f"{path}: holds a number too long to read")
    assert len(str(info.value)) < MESSAGE_LIMIT


@pytest.mark.parametrize("value", [10**4000, -(10**4000)], ids=["huge", "minus-huge"])
def test_long_integers_in_fields_are_shown_short(value):
    data = valid()
    data["version"] = value
    assert refused(data).where == "version"
    data = valid()
    data["params"]["max_tokens"] = value
    assert refused(data).where == "params.max_tokens"


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=5),
    max_leaves=25,
)
FIELDS = st.sampled_from(["format", "version", "documents", "documents.a", "documents.a.path", "documents.a.name",
                          "documents.a.text", "documents.a.modified", "documents.c", "params", "params.max_tokens",
                          "params.polynomial", "params.snap_mode", "params_hash", "view", "view.theme",
                          "view.chunk_filter", "view.chunk_filter.status", "view.legend"])


@given(JSON)
@example({"format": "steadlith-workspace", "version": True})
@example({"format": "steadlith-workspace", "version": 1, "documents": {"a": {"path": "\0"}}})
def test_any_json_is_a_workspace_or_a_clear_error(data):
    try:
        workspace_from_dict(data, "/tmp", "ws.steadlith")
    except WorkspaceError as e:
        assert len(str(e)) < MESSAGE_LIMIT


@given(FIELDS, JSON)
def test_a_valid_workspace_with_one_field_replaced_is_a_workspace_or_a_clear_error(field, value):
    data = valid()
    *parents, key = field.split(".")
    node = data
    for part in parents:
        if not isinstance(node.get(part), dict):
            node[part] = {}
        node = node[part]
    node[key] = value
    try:
        ws = workspace_from_dict(data, "/tmp", "ws.steadlith")
    except WorkspaceError as e:
        assert len(str(e)) < MESSAGE_LIMIT
    else:
        assert set(ws.documents) == {"a", "b"}


@given(st.binary(max_size=200) | st.text(max_size=200).map(lambda s: s.encode("utf-8")))
def test_any_file_content_is_a_workspace_or_a_clear_error(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("fuzz") / "ws.steadlith"
    path.write_bytes(content)
    try:
        load_workspace(path)
    except WorkspaceError as e:
        assert str(e).startswith(str(path))
