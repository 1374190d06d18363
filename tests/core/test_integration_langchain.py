"""The steadlith chunker as a LangChain TextSplitter (extra `langchain`), and inside
LangChain's own indexing pipeline: `index()` with a SQL record manager on SQLite, an
in-memory vector store and a counting embedding (no mock of LangChain itself)."""

from __future__ import annotations

import warnings

import pytest

pytest.importorskip("langchain_text_splitters")

from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import DeterministicFakeEmbedding  # noqa: E402
from langchain_core.indexing import index  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore  # noqa: E402
from langchain_text_splitters import RecursiveCharacterTextSplitter  # noqa: E402

from steadlith_core import ChunkerParams, Lmx2Params, ParameterError, chunk, compare  # noqa: E402
from steadlith_core.integrations.langchain import SteadlithTextSplitter  # noqa: E402

from integration_helpers import (EmbeddingCache, demo_pair, no_network, one_word_edit,  # noqa: E402,F401
                                 tool_library)

METADATA = {"steadlith_chunk_hash", "steadlith_params_hash", "steadlith_boundary_rule", "steadlith_tokens"}
POSITION = {"steadlith_start", "steadlith_end", "steadlith_chunk_index", "steadlith_kind", "steadlith_boundary"}


def test_documents_carry_the_chunks_of_the_core_with_exact_offsets(no_network):
    text, _ = demo_pair()
    params = Lmx2Params(min_tokens=48, max_tokens=256)
    splitter = SteadlithTextSplitter(params, add_chunk_position=True)
    docs = splitter.split_documents([Document(page_content=text, metadata={"source": "v1.md"})])
    expected = chunk(text, params)
    assert len(docs) == len(expected.chunks) > 5
    for doc, c in zip(docs, expected.chunks):
        assert doc.metadata.keys() == METADATA | POSITION | {"source"}
        assert doc.metadata["source"] == "v1.md"  # the source document's metadata is kept
        assert doc.page_content == text[doc.metadata["steadlith_start"]:doc.metadata["steadlith_end"]]
        m = doc.metadata
        assert (m["steadlith_chunk_hash"], m["steadlith_kind"], m["steadlith_boundary"]) == (c.hash, c.kind, c.boundary)
        assert m["steadlith_params_hash"] == params.params_hash and m["steadlith_boundary_rule"] == "lmx2-v1"
    # by default only what the chunk's text and the parameters determine
    plain = SteadlithTextSplitter(params).split_documents([Document(page_content=text, metadata={"source": "v1.md"})])
    assert all(d.metadata.keys() == METADATA | {"source"} for d in plain)


def test_user_metadata_is_never_overwritten_and_our_keys_are_never_taken_over():
    text, _ = demo_pair()
    user = {"source": "v1.md", "kind": "manual", "boundary": "chapter", "start": 7, "chunk_hash": "mine", "tokens": -1}
    docs = SteadlithTextSplitter(add_chunk_position=True).create_documents([text], [user])
    assert all({k: d.metadata[k] for k in user} == user for d in docs)
    with pytest.raises(ValueError, match="steadlith_chunk_hash"):
        SteadlithTextSplitter().split_documents(docs[:1])  # a chunk split again


def test_langchain_constructor_arguments():
    assert SteadlithTextSplitter().params == ChunkerParams()
    by_field = SteadlithTextSplitter(boundary_rule="lmx2-v1", min_tokens=64, max_tokens=384)
    assert by_field.params == Lmx2Params(min_tokens=64, max_tokens=384)
    assert SteadlithTextSplitter.from_preset("lmx2 Default").params.boundary_rule == "lmx2-v1"
    assert SteadlithTextSplitter.from_assignments(["max_tokens=300"]).params == ChunkerParams(max_tokens=300)
    assert SteadlithTextSplitter.from_params(by_field.params).params_hash == by_field.params_hash
    with pytest.raises(ParameterError, match="min_tokens"):
        SteadlithTextSplitter(min_tokens=0)
    # LangChain's size is max_tokens, in the contract's counter
    assert SteadlithTextSplitter(chunk_size=500).params == ChunkerParams(max_tokens=500)
    assert SteadlithTextSplitter(chunk_size=500, chunk_overlap=0).params == ChunkerParams(max_tokens=500)
    assert SteadlithTextSplitter(chunk_size=384, boundary_rule="lmx2-v1").params == Lmx2Params(max_tokens=384)
    assert SteadlithTextSplitter(chunk_size=500)._chunk_size == 500
    with pytest.raises(TypeError, match="chunk_size or max_tokens"):
        SteadlithTextSplitter(chunk_size=500, max_tokens=400)
    with pytest.raises(ValueError, match="do not overlap"):
        SteadlithTextSplitter(chunk_size=500, chunk_overlap=50)
    with pytest.raises(ValueError, match="token_counter=.*chars4/1.*hf:PATH.*from_tiktoken_encoder"):
        SteadlithTextSplitter(length_function=len)
    # the tokenizer constructors: tests/core/test_langchain_tokenizers.py
    with pytest.raises(ValueError, match="strip_whitespace"):
        SteadlithTextSplitter(strip_whitespace=True)


def test_bytes_and_mismatched_metadatas_are_refused():
    text = "Zürich, São Paulo and Kraków share one paragraph. " * 40
    with pytest.raises(TypeError, match="decode bytes first"):
        SteadlithTextSplitter().split_text(text.encode("utf-8"))
    with pytest.raises(TypeError, match="decode bytes first"):
        SteadlithTextSplitter().create_documents([text.encode("utf-8")])
    with pytest.raises(ValueError, match="3 texts but 1 metadatas"):
        SteadlithTextSplitter().create_documents([text, text, text], [{"source": "a"}])
    with pytest.raises(ValueError, match="1 texts but 2 metadatas"):
        SteadlithTextSplitter().create_documents([text], [{}, {}])


def test_split_text_create_documents_and_start_index_agree():
    text, _ = demo_pair()
    splitter = SteadlithTextSplitter(add_start_index=True)
    docs = splitter.create_documents([text])
    assert splitter.split_text(text) == [d.page_content for d in docs]
    assert all(text[d.metadata["start_index"]:].startswith(d.page_content) for d in docs)
    assert docs[3].metadata["start_index"] == chunk(text).chunks[3].start
    assert splitter.transform_documents([Document(page_content=text)])[3].page_content == docs[3].page_content


def test_ids_are_stable_unique_in_a_document_and_never_shared_by_two():
    text_a, text_b = demo_pair()
    splitter = SteadlithTextSplitter()
    a = splitter.split_documents([Document(page_content=text_a, metadata={"source": "guide.md"})])
    b = splitter.split_documents([Document(page_content=text_b, metadata={"source": "guide.md"})])
    ids_a = {d.metadata["steadlith_chunk_hash"]: d.id for d in a}
    kept = [d for d in b if d.metadata["steadlith_chunk_hash"] in ids_a]
    assert len(kept) >= 5 and all(d.id == ids_a[d.metadata["steadlith_chunk_hash"]] for d in kept)
    # the same text under another source: the same hashes, other ids
    other = splitter.split_documents([Document(page_content=text_a, metadata={"source": "copy.md"})])
    assert [d.metadata["steadlith_chunk_hash"] for d in other] == [d.metadata["steadlith_chunk_hash"] for d in a]
    assert not {d.id for d in other} & {d.id for d in a}
    # no source key: the source Document's id, then no id at all
    by_id = splitter.split_documents([Document(page_content=text_a, id="guide.md")])
    assert [d.id for d in by_id] == [d.id for d in a]
    assert {d.id for d in splitter.create_documents([text_a])} == {None}
    assert splitter.split_documents([Document(page_content=text_a, metadata={"path": "guide.md"})])[0].id is None
    assert (SteadlithTextSplitter(source_key="path").split_documents(
        [Document(page_content=text_a, metadata={"path": "guide.md"})])[0].id == a[0].id)


def test_a_chunk_repeated_in_one_document_gets_distinct_deterministic_ids():
    block = " ".join(f"Sentence number {i} talks about topic {i % 7}." for i in range(60))
    text = block + "\n\n" + block
    small = Lmx2Params(min_tokens=16, max_tokens=64, horizon=16, fill_horizon=16, key_tokens=8)
    splitter = SteadlithTextSplitter(small)
    docs = splitter.split_documents([Document(page_content=text, metadata={"source": "twice.md"})])
    hashes = [d.metadata["steadlith_chunk_hash"] for d in docs]
    assert len(set(hashes)) < len(hashes), "the test needs a chunk that occurs twice"
    assert len({d.id for d in docs}) == len(docs)
    again = splitter.split_documents([Document(page_content=text, metadata={"source": "twice.md"})])
    assert [d.id for d in again] == [d.id for d in docs]


def test_pages_of_one_source_with_an_equal_chunk_keep_every_page_in_the_store():
    """A loader makes one Document a page, all with the file as source: a page that
    repeats another's text (a blank-page notice) must not replace it in the store."""
    pages = [Document(page_content=text, metadata={"source": "report.pdf", "page": n})
             for n, text in ((3, "This page intentionally left blank."), (7, "This page intentionally left blank."),
                             (8, "The budget for the second year."))]
    docs = SteadlithTextSplitter().split_documents(pages)
    assert len({d.id for d in docs}) == len(docs) == 3
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
    store.add_documents(docs)
    assert sorted(v["metadata"]["page"] for v in store.store.values()) == [3, 7, 8]
    again = SteadlithTextSplitter().split_documents(pages)
    assert [d.id for d in again] == [d.id for d in docs]


def test_ids_make_a_vector_store_upsert_instead_of_duplicating():
    text_a, text_b = demo_pair()
    splitter = SteadlithTextSplitter()
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=8))
    store.add_documents(splitter.split_documents([Document(page_content=text_a, metadata={"source": "g.md"})]))
    docs_a = len(store.store)
    store.add_documents(splitter.split_documents([Document(page_content=text_a, metadata={"source": "g.md"})]))
    assert len(store.store) == docs_a  # the same ids: replaced, not added twice


# -- inside LangChain's index() --------------------------------------------------------


class CountingEmbedding(DeterministicFakeEmbedding):
    """A real LangChain Embeddings whose every embedded text is recorded."""

    embedded: list = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.embedded.extend(texts)
        return super().embed_documents(texts)


@pytest.fixture()
def indexing(tmp_path):
    """(record manager, vector store, embedding) for LangChain's index(), the record
    manager in SQLite."""
    sql = pytest.importorskip("langchain_classic.indexes")
    manager = sql.SQLRecordManager("steadlith", db_url=f"sqlite:///{tmp_path / 'records.db'}")
    manager.create_schema()
    embedding = CountingEmbedding(size=16)
    embedding.embedded = []
    return manager, InMemoryVectorStore(embedding), embedding


def index_quietly(docs, manager, store, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # index()'s warning about its default SHA-1 key
        return index(docs, manager, store, **kwargs)


def reembedded_after_one_word_edit(splitter, indexing, versions=None, **kwargs) -> tuple[int, int, dict]:
    """(chunks embedded for the first version, chunks re-embedded for the edited one,
    index()'s result for it), through index() with cleanup="full"; `versions` (text, edited)
    defaults to the tool library and its one-word edit."""
    manager, store, embedding = indexing
    text, new = versions or (tool_library(), one_word_edit(tool_library()))
    index_quietly(splitter.split_documents([Document(page_content=text, metadata={"source": "tool-library.md"})]),
                  manager, store, cleanup="full", **kwargs)
    first = len(embedding.embedded)
    embedding.embedded.clear()
    edited = [Document(page_content=new, metadata={"source": "tool-library.md"})]
    result = index_quietly(splitter.split_documents(edited), manager, store, cleanup="full", **kwargs)
    return first, len(embedding.embedded), result


@pytest.mark.parametrize("params", [ChunkerParams(), Lmx2Params()], ids=["tttd-v1", "lmx2-v1"])
def test_index_re_embeds_only_the_edited_chunk_after_a_one_word_edit(indexing, params, no_network):
    first, again, result = reembedded_after_one_word_edit(SteadlithTextSplitter(params), indexing)
    assert first >= 15
    assert again <= 2 and result["num_added"] == again and result["num_deleted"] == again
    assert result["num_skipped"] == first - again


def test_langchains_own_splitter_on_the_same_edit(indexing):
    """The measurement the docs page quotes beside ours (not a claim about Steadlith)."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=0)
    first, again, _ = reembedded_after_one_word_edit(splitter, indexing)
    assert (first, again) == (21, 1)


@pytest.mark.parametrize(("splitter", "expected"), [
    (SteadlithTextSplitter(Lmx2Params()), (20, 1)),
    (SteadlithTextSplitter(ChunkerParams()), (20, 4)),  # the example where tttd-v1 loses locality
    (RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=0), (21, 2)),
], ids=["lmx2-v1", "tttd-v1", "recursive"])
def test_inserting_a_sentence_through_index(indexing, splitter, expected):
    """The second edit the docs page quotes: one sentence inserted (bench.examples)."""
    from steadlith_core.bench.examples import tool_library_example

    text_a, text_b, _ = tool_library_example()
    first, again, _ = reembedded_after_one_word_edit(splitter, indexing, (text_a, text_b))
    assert (first, again) == expected


def test_positional_metadata_makes_index_re_embed_every_later_chunk(indexing):
    """Why offsets are opt-in: index() hashes metadata, and the offsets of every chunk
    after the edit move."""
    first, again, _ = reembedded_after_one_word_edit(SteadlithTextSplitter(Lmx2Params(), add_start_index=True),
                                                     indexing)
    assert again >= first // 2  # the edit is halfway: every chunk from it on


def test_full_cleanup_deletes_exactly_the_chunks_of_a_removed_document(indexing):
    manager, store, embedding = indexing
    text = tool_library()
    splitter = SteadlithTextSplitter(Lmx2Params())
    keep = splitter.split_documents([Document(page_content=text, metadata={"source": "a.md"})])
    # the same text under another name: every chunk hash is shared, only the source differs
    drop = splitter.split_documents([Document(page_content=text, metadata={"source": "b.md"})])
    result = index_quietly(keep + drop, manager, store, cleanup="full")
    assert result["num_added"] == len(keep) + len(drop) == len(store.store)
    embedding.embedded.clear()
    result = index_quietly(keep, manager, store, cleanup="full")
    assert (result["num_deleted"], result["num_skipped"], result["num_added"]) == (len(drop), len(keep), 0)
    assert embedding.embedded == []
    left = sorted((r["text"], r["metadata"]["source"]) for r in store.store.values())
    assert left == sorted((d.page_content, "a.md") for d in keep)


def test_scoped_full_cleanup_leaves_sources_it_was_not_given(indexing):
    manager, store, embedding = indexing
    text = tool_library()
    splitter = SteadlithTextSplitter(Lmx2Params())
    a = splitter.split_documents([Document(page_content=text, metadata={"source": "a.md"})])
    b = splitter.split_documents([Document(page_content=text, metadata={"source": "b.md"})])
    index_quietly(a + b, manager, store, cleanup="scoped_full", source_id_key="source")
    embedding.embedded.clear()
    edited = splitter.split_documents([Document(page_content=one_word_edit(text), metadata={"source": "a.md"})])
    result = index_quietly(edited, manager, store, cleanup="scoped_full", source_id_key="source")
    assert len(embedding.embedded) == result["num_added"] == result["num_deleted"] <= 2
    assert sum(r["metadata"]["source"] == "b.md" for r in store.store.values()) == len(b)


def test_incremental_cleanup_with_batches_smaller_than_a_document_re_embeds_unchanged_chunks(indexing):
    """What the docs page warns about (LangChain issue #32612): index() runs the
    incremental cleanup inside its batch loop, so the chunks of a document in a later
    batch are deleted and embedded again although nothing changed. If this fails,
    LangChain has fixed it: update docs/guide/pipelines-in-practice.md."""
    manager, store, embedding = indexing
    docs = SteadlithTextSplitter(Lmx2Params()).split_documents(
        [Document(page_content=tool_library(), metadata={"source": "a.md"})])
    kwargs = dict(cleanup="incremental", source_id_key="source", batch_size=5)
    index_quietly(docs, manager, store, **kwargs)
    embedding.embedded.clear()
    result = index_quietly(docs, manager, store, **kwargs)  # nothing changed
    assert result["num_added"] == len(embedding.embedded) == len(docs) - 5


def test_a_cache_keyed_on_chunk_hash_embeds_only_the_changed_chunks_of_a_new_version(no_network):
    text_a, text_b = demo_pair()
    splitter = SteadlithTextSplitter()
    cache = EmbeddingCache("model-x")
    first = {d.metadata["steadlith_chunk_hash"]: cache.embed(d.metadata["steadlith_chunk_hash"], d.page_content)
             for d in splitter.create_documents([text_a])}
    cache.embedded.clear()
    docs_b = splitter.create_documents([text_b])
    vectors_b = [cache.embed(d.metadata["steadlith_chunk_hash"], d.page_content) for d in docs_b]

    s = compare(chunk(text_a), chunk(text_b)).summary
    assert len(cache.embedded) == s.chunks_to_embed - s.unaligned_hash_hits_b == 7  # of 16 B chunks
    for d, v in zip(docs_b, vectors_b):
        if d.metadata["steadlith_chunk_hash"] in first:
            assert v == first[d.metadata["steadlith_chunk_hash"]]
