"""The steadlith chunker as a LangChain TextSplitter (extra `langchain`)."""

from __future__ import annotations

import pytest

pytest.importorskip("langchain_text_splitters")

from langchain_core.documents import Document  # noqa: E402

from steadlith_core import ChunkerParams, Lmx2Params, ParameterError, chunk, compare  # noqa: E402
from steadlith_core.integrations.langchain import SteadlithTextSplitter  # noqa: E402

from integration_helpers import EmbeddingCache, demo_pair, no_network  # noqa: E402,F401

METADATA = {"chunk_hash", "params_hash", "boundary_rule", "kind", "boundary", "start", "end"}


def test_documents_carry_the_chunks_of_the_core_with_exact_offsets(no_network):
    text, _ = demo_pair()
    params = Lmx2Params(min_tokens=48, max_tokens=256)
    docs = SteadlithTextSplitter(params).split_documents([Document(page_content=text, metadata={"source": "v1.md"})])
    expected = chunk(text, params)
    assert len(docs) == len(expected.chunks) > 5
    for doc, c in zip(docs, expected.chunks):
        assert METADATA <= doc.metadata.keys()
        assert doc.metadata["source"] == "v1.md"  # the source document's metadata is kept
        assert doc.page_content == text[doc.metadata["start"]:doc.metadata["end"]]
        assert (doc.metadata["chunk_hash"], doc.metadata["kind"], doc.metadata["boundary"]) == (c.hash, c.kind, c.boundary)
        assert doc.metadata["params_hash"] == params.params_hash
        assert doc.metadata["boundary_rule"] == "lmx2-v1"


def test_constructor_fields_presets_and_assignments_select_the_rule():
    assert SteadlithTextSplitter().params == ChunkerParams()
    by_field = SteadlithTextSplitter(boundary_rule="lmx2-v1", min_tokens=64, max_tokens=384)
    assert by_field.params == Lmx2Params(min_tokens=64, max_tokens=384)
    assert SteadlithTextSplitter.from_preset("lmx2 Default").params.boundary_rule == "lmx2-v1"
    assert SteadlithTextSplitter.from_assignments(["max_tokens=300"]).params == ChunkerParams(max_tokens=300)
    assert SteadlithTextSplitter.from_params(by_field.params).params_hash == by_field.params_hash
    with pytest.raises(ParameterError, match="min_tokens"):
        SteadlithTextSplitter(min_tokens=0)
    with pytest.raises(ParameterError, match="chunk_size"):  # LangChain's size is not a contract field
        SteadlithTextSplitter(chunk_size=500)


def test_split_text_create_documents_and_start_index_agree():
    text, _ = demo_pair()
    splitter = SteadlithTextSplitter(add_start_index=True)
    docs = splitter.create_documents([text])
    assert splitter.split_text(text) == [d.page_content for d in docs]
    assert all(d.metadata["start_index"] == d.metadata["start"] for d in docs)
    assert splitter.transform_documents([Document(page_content=text)])[3].page_content == docs[3].page_content


def test_a_cache_keyed_on_chunk_hash_embeds_only_the_changed_chunks_of_a_new_version(no_network):
    text_a, text_b = demo_pair()
    splitter = SteadlithTextSplitter()
    cache = EmbeddingCache("model-x")
    first = {d.metadata["chunk_hash"]: cache.embed(d.metadata["chunk_hash"], d.page_content)
             for d in splitter.create_documents([text_a])}
    cache.embedded.clear()
    docs_b = splitter.create_documents([text_b])
    vectors_b = [cache.embed(d.metadata["chunk_hash"], d.page_content) for d in docs_b]

    s = compare(chunk(text_a), chunk(text_b)).summary
    assert len(cache.embedded) == s.chunks_to_embed - s.unaligned_hash_hits_b == 7  # of 16 B chunks
    # unchanged chunks got the vector computed for version A
    for d, v in zip(docs_b, vectors_b):
        if d.metadata["chunk_hash"] in first:
            assert v == first[d.metadata["chunk_hash"]]
    # another model shares no entry: the model id is outside the hash, in the key
    other = EmbeddingCache("model-y")
    other.vectors = cache.vectors
    for d in docs_b:
        other.embed(d.metadata["chunk_hash"], d.page_content)
    assert len(other.embedded) == len(docs_b)
