"""`steadlith plan OLD NEW`: the upserts and deletes, by stable chunk id, that take an
index from OLD's chunks to NEW's; ids as the LangChain and LlamaIndex adapters give them."""

from __future__ import annotations

import json

import pytest

from cli_helpers import run
from git_history import History
from steadlith_core.bench.examples import tool_library_text
from steadlith_core.chunking.identity import chunk_ids
from steadlith_core.chunking.pipeline import chunk
from steadlith_core.chunking.params import ChunkerParams

pytestmark = pytest.mark.kernel_independent  # the layer above the chunker: no numpy re-run

TEXT = tool_library_text()
EDITED = TEXT.replace("passes half", "exceeds half", 1)
OTHER = "A short second document.\n\nIt has two paragraphs of its own."


def records(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines()]


def ids(text: str, source: str) -> list[str]:
    return chunk_ids(source, [c.hash for c in chunk(text, ChunkerParams()).chunks])


@pytest.fixture
def folders(tmp_path):
    old, new = tmp_path / "old", tmp_path / "new"
    (old / "sub").mkdir(parents=True)
    (new / "sub").mkdir(parents=True)
    (old / "sub" / "notes.md").write_text(TEXT, encoding="utf-8")
    (new / "sub" / "notes.md").write_text(EDITED, encoding="utf-8")
    (old / "gone.md").write_text(OTHER, encoding="utf-8")
    return str(old), str(new)


def test_a_one_word_edit_upserts_its_chunk_and_deletes_the_old_one(capsys, folders):
    old, new = folders
    code, out, err = run(capsys, "plan", old, new)
    assert code == 0
    ops = records(out)
    before, after = set(ids(TEXT, "sub/notes.md")), set(ids(EDITED, "sub/notes.md"))
    upserts = {r["id"] for r in ops if r["op"] == "upsert"}
    deletes = {r["id"] for r in ops if r["op"] == "delete"}
    assert upserts == after - before and 1 <= len(upserts) <= 2
    assert deletes == (before - after) | set(ids(OTHER, "gone.md"))
    # applying the plan to an index of OLD gives exactly NEW's ids
    index = (before | set(ids(OTHER, "gone.md"))) - deletes | upserts
    assert index == after
    upsert = next(r for r in ops if r["op"] == "upsert")
    assert EDITED[upsert["start"]:upsert["end"]] == upsert["text"] and upsert["source"] == "sub/notes.md"
    assert err.startswith(f"plan: {len(upserts)} upserts (") and f"{len(deletes)} deletes" in err
    assert err.count("\n") == 1


def test_the_ids_are_the_langchain_adapters_ids_for_the_same_source(capsys, tmp_path):
    documents = pytest.importorskip("langchain_core.documents")
    from steadlith_core.integrations.langchain import SteadlithTextSplitter

    (tmp_path / "a.md").write_text(TEXT, encoding="utf-8")
    (tmp_path / "b.md").write_text(EDITED, encoding="utf-8")
    code, out, _ = run(capsys, "plan", str(tmp_path / "a.md"), str(tmp_path / "b.md"))
    assert code == 0
    splitter = SteadlithTextSplitter()
    chunks = splitter.split_documents([documents.Document(EDITED, metadata={"source": "b.md"})])
    assert {r["id"] for r in records(out) if r["op"] == "upsert"} <= {d.id for d in chunks}


def test_revisions_of_a_repository_pair_each_file_with_its_later_version(capsys, tmp_path):
    history = History(tmp_path / "repo")
    first = history.commit({"docs/notes.md": TEXT, "docs/other.md": OTHER}, "first")
    history.commit({"docs/notes.md": EDITED}, "edit one word")
    repo = str(tmp_path / "repo")
    code, out, err = run(capsys, "plan", f"{repo}@{first}:docs/*.md", f"{repo}@HEAD:docs/*.md", "--format", "text")
    assert code == 0 and err == ""
    unchanged = len(set(ids(TEXT, "docs/notes.md")) & set(ids(EDITED, "docs/notes.md"))) + len(ids(OTHER, "docs/other.md"))
    assert f"{unchanged} unchanged" in out and "2 sources before, 2 after" in out


def test_nothing_changed_is_an_empty_plan(capsys, folders):
    old, _ = folders
    code, out, err = run(capsys, "plan", old, old)
    assert code == 0 and out == "" and err.startswith("plan: 0 upserts (0 tokens to embed), 0 deletes")


@pytest.mark.parametrize("args", [("missing-dir", "{new}"), ("{old}", "{new}@nope:*.md"), ("{old}", "{new}", "--set", "max_tokens=1")])
def test_bad_input_is_one_line_and_exit_2(capsys, folders, args):
    old, new = folders
    code, out, err = run(capsys, "plan", *(a.format(old=old, new=new) for a in args))
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("steadlith: error:")
