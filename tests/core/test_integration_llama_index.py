"""The steadlith chunker as a LlamaIndex node parser (extra `llama-index`), offline."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document  # noqa: E402
from llama_index.core.ingestion import IngestionPipeline  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship  # noqa: E402

from steadlith_core import ChunkerParams, Lmx2Params, ParameterError, chunk, compare  # noqa: E402
from steadlith_core.integrations._common import chunk_id  # noqa: E402
from steadlith_core.integrations.llama_index import SteadlithNodeParser  # noqa: E402

from integration_helpers import EmbeddingCache, demo_pair, no_network  # noqa: E402,F401

METADATA = {"steadlith_chunk_hash", "steadlith_params_hash", "steadlith_boundary_rule", "steadlith_tokens"}
SMALL = Lmx2Params(min_tokens=16, max_tokens=64, horizon=16, fill_horizon=16, key_tokens=8)


def test_nodes_carry_the_core_chunks_with_document_scoped_ids_and_exact_offsets(no_network):
    text, _ = demo_pair()
    parser = SteadlithNodeParser.from_defaults(boundary_rule="lmx2-v1", min_tokens=48, max_tokens=256)
    nodes = parser.get_nodes_from_documents([Document(text=text, id_="v1.md", metadata={"source": "v1.md"})])
    expected = chunk(text, parser.params)
    assert len(nodes) == len(expected.chunks) > 5
    for node, c in zip(nodes, expected.chunks):
        assert METADATA <= node.metadata.keys() and node.metadata["source"] == "v1.md"
        assert node.metadata["steadlith_chunk_hash"] == c.hash
        assert node.node_id == chunk_id("v1.md", c.hash, 1) and node.ref_doc_id == "v1.md"
        assert node.text == text[node.start_char_idx:node.end_char_idx] == text[c.start:c.end]
        assert node.metadata["steadlith_boundary_rule"] == "lmx2-v1"
    assert NodeRelationship.NEXT in nodes[0].relationships and NodeRelationship.SOURCE in nodes[0].relationships
    # bookkeeping stays out of what the embedding model reads
    assert "steadlith_chunk_hash" not in nodes[0].get_content(metadata_mode=MetadataMode.EMBED)
    assert "v1.md" in nodes[0].get_content(metadata_mode=MetadataMode.EMBED)


def test_repeated_text_gets_distinct_ids_and_its_own_offsets():
    block = " ".join(f"Sentence number {i} talks about topic {i % 7}." for i in range(60))
    text = block + "\n\n" + block  # a strictly local rule cuts the second copy like the first
    nodes = SteadlithNodeParser(SMALL).get_nodes_from_documents([Document(text=text)])
    hashes = [n.metadata["steadlith_chunk_hash"] for n in nodes]
    repeated = [h for h in set(hashes) if hashes.count(h) > 1]
    assert repeated, "the test needs a chunk that occurs twice"
    assert len({n.node_id for n in nodes}) == len(nodes)
    h = repeated[0]
    twice = [n for n in nodes if n.metadata["steadlith_chunk_hash"] == h]
    doc_id = twice[0].ref_doc_id
    assert [n.node_id for n in twice] == [chunk_id(doc_id, h, 1), chunk_id(doc_id, h, 2)]
    bare = SteadlithNodeParser(SMALL, id_per_document=False).get_nodes_from_documents([Document(text=text)])
    assert [n.node_id for n in bare if n.metadata["steadlith_chunk_hash"] == h] == [h, f"{h}-2"]
    assert twice[1].start_char_idx > len(block)  # not re-found at the first copy
    assert all(n.text == text[n.start_char_idx:n.end_char_idx] for n in nodes)


def test_node_ids_are_scoped_to_their_document_by_default():
    docs = [Document(text="One short paragraph to index.", id_=name) for name in ("doc-7", "doc-8")]
    a, b = SteadlithNodeParser.from_defaults().get_nodes_from_documents(docs)
    assert a.metadata["steadlith_chunk_hash"] == b.metadata["steadlith_chunk_hash"]
    assert a.node_id == chunk_id("doc-7", a.metadata["steadlith_chunk_hash"], 1) != b.node_id


def test_user_metadata_is_kept_and_a_chunk_is_not_split_again():
    text, _ = demo_pair()
    user = {"kind": "manual", "chunk_hash": "mine", "start": 3}
    nodes = SteadlithNodeParser(add_chunk_position=True).get_nodes_from_documents([Document(text=text, metadata=user)])
    assert all({k: n.metadata[k] for k in user} == user for n in nodes)
    assert nodes[2].metadata["steadlith_start"] == nodes[2].start_char_idx
    with pytest.raises(ValueError, match="steadlith_chunk_hash"):
        SteadlithNodeParser().get_nodes_from_documents([Document(text=nodes[0].text, metadata=nodes[0].metadata)])


def test_constructors_and_serialization():
    assert SteadlithNodeParser().params == ChunkerParams()
    assert SteadlithNodeParser.from_preset("lmx2 Default").params.boundary_rule == "lmx2-v1"
    assert SteadlithNodeParser.from_assignments(["max_tokens=300"]).params == ChunkerParams(max_tokens=300)
    parser = SteadlithNodeParser(SMALL)
    again = SteadlithNodeParser(**{k: v for k, v in parser.to_dict().items() if k in ("chunker_params",)})
    assert again.params == SMALL
    with pytest.raises(ParameterError, match="max_tokens"):
        SteadlithNodeParser.from_defaults(max_tokens=1)


def test_a_cache_keyed_on_chunk_hash_embeds_only_the_changed_chunks_of_a_new_version(no_network):
    text_a, text_b = demo_pair()
    params = Lmx2Params()
    pipeline = IngestionPipeline(transformations=[SteadlithNodeParser(params)])
    cache = EmbeddingCache("model-x")
    nodes_a = pipeline.run(documents=[Document(text=text_a)])
    first = {n.metadata["steadlith_chunk_hash"]: cache.embed(n.metadata["steadlith_chunk_hash"], n.text) for n in nodes_a}
    cache.embedded.clear()
    nodes_b = pipeline.run(documents=[Document(text=text_b)])
    vectors_b = [cache.embed(n.metadata["steadlith_chunk_hash"], n.text) for n in nodes_b]

    s = compare(chunk(text_a, params), chunk(text_b, params)).summary
    assert len(cache.embedded) == s.chunks_to_embed - s.unaligned_hash_hits_b == 5  # of 17 B chunks
    assert [v for n, v in zip(nodes_b, vectors_b) if n.node_id in first] == [first[n.node_id] for n in nodes_b
                                                                           if n.node_id in first]
    # node ids are stable across versions of one document: a store upserting by id keeps the unchanged ones
    pipeline = IngestionPipeline(transformations=[SteadlithNodeParser(params)], disable_cache=True)
    nodes_a = pipeline.run(documents=[Document(text=text_a, id_="guide.md")])
    nodes_b = pipeline.run(documents=[Document(text=text_b, id_="guide.md")])
    assert len({n.node_id for n in nodes_a} & {n.node_id for n in nodes_b}) == 12


def test_offsets_stay_exact_where_llama_index_would_re_find_text_inside_the_previous_node():
    # one word repeated: chunks "la", "la", "la la", "la", ... (cuts from the masks and
    # max_tokens); searching for the fourth "la" after the third node's start finds the
    # copy inside "la la", where LlamaIndex's own offset pass would put it
    text = "la " * 12
    params = ChunkerParams(token_counter="words/1", min_tokens=1, max_tokens=2, primary_mask=1, primary_remainder=0,
                           backup_mask=1, backup_remainder=0)
    nodes = SteadlithNodeParser(params).get_nodes_from_documents([Document(text=text)])
    expected = chunk(text, params).chunks
    assert [(n.start_char_idx, n.end_char_idx) for n in nodes] == [(c.start, c.end) for c in expected]
    assert (nodes[3].start_char_idx, nodes[3].text) == (12, "la")


# -- inside IngestionPipeline with a docstore and a vector store ------------------------

from typing import List  # noqa: E402

from llama_index.core import MockEmbedding  # noqa: E402
from llama_index.core.ingestion import DocstoreStrategy  # noqa: E402
from llama_index.core.node_parser import SentenceSplitter  # noqa: E402
from llama_index.core.storage.docstore import SimpleDocumentStore  # noqa: E402
from llama_index.core.storage.kvstore import SimpleKVStore  # noqa: E402
from llama_index.core.vector_stores import SimpleVectorStore  # noqa: E402
from pydantic import Field  # noqa: E402
import xxhash  # noqa: E402

from steadlith_core.integrations.llama_index import SteadlithEmbeddingCache  # noqa: E402

from integration_helpers import one_word_edit, tool_library  # noqa: E402


class CountingEmbedding(MockEmbedding):
    """A real LlamaIndex embedding model that records every text it embeds; vectors
    differ by text, so a vector served for the wrong text shows."""

    embedded: List[str] = Field(default_factory=list)

    def _get_text_embedding(self, text: str) -> List[float]:
        self.embedded.append(text)
        digest = xxhash.xxh3_128_digest(text.encode())
        return [b / 255 for b in digest[:self.embed_dim]]


def ingestion(parser, embed_model, cached: bool = True, store=None):
    """(pipeline, vector store): the recipe of docs/guide/pipelines-in-practice.md."""
    vector_store = SimpleVectorStore()
    step = SteadlithEmbeddingCache(embed_model, store=store) if cached else embed_model
    pipeline = IngestionPipeline(transformations=[parser, step], docstore=SimpleDocumentStore(),
                                 vector_store=vector_store, docstore_strategy=DocstoreStrategy.UPSERTS_AND_DELETE,
                                 disable_cache=True)
    return pipeline, vector_store


def stored(vector_store) -> dict[str, str]:
    """node id -> ref doc id of every vector in the store."""
    return dict(vector_store.data.text_id_to_ref_doc_id)


def two_documents(text_a: str | None = None) -> list[Document]:
    guide, _ = demo_pair()
    return [Document(text=text_a or tool_library(), id_="tool-library.md"), Document(text=guide, id_="guide.md")]


def reembedded_after_one_word_edit(parser, cached: bool = True) -> tuple[int, int, int]:
    """(nodes of the edited document, texts embedded for the first run, texts embedded
    again after a one-word edit of it, the other document unchanged)."""
    model = CountingEmbedding(embed_dim=8)
    pipeline, vector_store = ingestion(parser, model, cached)
    pipeline.run(documents=two_documents())
    nodes = sum(ref == "tool-library.md" for ref in stored(vector_store).values())
    first = len(model.embedded)
    model.embedded.clear()
    pipeline.run(documents=two_documents(one_word_edit(tool_library())))
    return nodes, first, len(model.embedded)


@pytest.mark.parametrize("params", [ChunkerParams(), Lmx2Params()], ids=["tttd-v1", "lmx2-v1"])
def test_a_one_word_edit_re_embeds_only_the_edited_node(params, no_network):
    nodes, first, again = reembedded_after_one_word_edit(SteadlithNodeParser(params))
    assert nodes >= 15 and first > nodes
    assert again == 1


def test_without_the_cache_the_docstore_re_embeds_the_whole_edited_document():
    """LlamaIndex's docstore works per document: the measurement the docs page quotes."""
    nodes, _, again = reembedded_after_one_word_edit(SteadlithNodeParser(Lmx2Params()), cached=False)
    assert again == nodes == 20
    sentence_nodes, _, sentence_again = reembedded_after_one_word_edit(SentenceSplitter(), cached=False)
    assert sentence_again == sentence_nodes == 5
    # the cache serves any parser's unchanged nodes
    assert reembedded_after_one_word_edit(SentenceSplitter())[2] == 1


def test_the_vector_store_holds_the_new_version_with_the_right_vectors():
    model = CountingEmbedding(embed_dim=8)
    pipeline, vector_store = ingestion(SteadlithNodeParser(Lmx2Params()), model)
    pipeline.run(documents=two_documents())
    edited = one_word_edit(tool_library())
    pipeline.run(documents=two_documents(edited))
    expected = SteadlithNodeParser(Lmx2Params()).get_nodes_from_documents(two_documents(edited))
    assert stored(vector_store) == {n.node_id: n.ref_doc_id for n in expected}
    fresh = CountingEmbedding(embed_dim=8)
    for n in expected:  # each vector is the one of its own text, cached or not
        assert vector_store.get(n.node_id) == fresh._get_text_embedding(n.get_content(metadata_mode="embed"))


def test_deleting_a_document_removes_exactly_its_nodes_though_the_other_shares_its_chunks():
    text = tool_library()
    model = CountingEmbedding(embed_dim=8)
    pipeline, vector_store = ingestion(SteadlithNodeParser(Lmx2Params()), model)
    # all chunk hashes but one shared (identical documents meet a LlamaIndex bug: see below)
    docs = [Document(text=text, id_="a.md"), Document(text=one_word_edit(text), id_="b.md")]
    pipeline.run(documents=docs)
    per_doc = sum(ref == "a.md" for ref in stored(vector_store).values())
    assert per_doc >= 15 and len(stored(vector_store)) == 2 * per_doc  # no id collides
    assert len(model.embedded) == per_doc + 1  # the other texts of b.md came from the cache
    model.embedded.clear()
    pipeline.run(documents=docs[1:])  # a.md is gone
    assert sorted(stored(vector_store).values()) == ["b.md"] * per_doc
    assert model.embedded == []


def test_upserts_and_delete_misses_a_removed_document_identical_to_another():
    """What the docs page warns about (LlamaIndex issue #23002): the docstore's
    hash -> id map keeps one id per content, so removing the first of two identical
    documents deletes nothing. If this fails, LlamaIndex has fixed it: update
    docs/guide/pipelines-in-practice.md."""
    text = tool_library()
    pipeline, vector_store = ingestion(SteadlithNodeParser(Lmx2Params()), CountingEmbedding(embed_dim=8))
    docs = [Document(text=text, id_="a.md"), Document(text=text, id_="b.md")]
    pipeline.run(documents=docs)
    pipeline.run(documents=docs[1:])
    assert sorted(set(stored(vector_store).values())) == ["a.md", "b.md"]


def test_bare_hash_ids_collide_across_documents():
    """Why ids are per document by default: with the bare chunk hash, deleting one of
    two documents that share chunks takes the other's vectors."""
    text = tool_library()
    pipeline, vector_store = ingestion(SteadlithNodeParser(Lmx2Params(), id_per_document=False),
                                       CountingEmbedding(embed_dim=8))
    pipeline.run(documents=[Document(text=text, id_="a.md"), Document(text=text, id_="b.md")])
    pipeline.run(documents=[Document(text=text, id_="a.md")])
    assert len(stored(vector_store)) == 0


def test_the_cache_key_is_the_model_and_the_text_the_model_reads():
    text = tool_library()
    store = SimpleKVStore()
    model = CountingEmbedding(embed_dim=8)
    parser = SteadlithNodeParser(Lmx2Params())
    docs = [Document(text=text, id_="a.md", metadata={"file_name": "a.md"}),
            Document(text=text, id_="b.md", metadata={"file_name": "b.md"})]
    nodes = SteadlithEmbeddingCache(model, store=store)(parser.get_nodes_from_documents(docs))
    # the file name is embedded with each chunk: two texts a chunk, two vectors
    assert len(model.embedded) == len(nodes) and "file_name: b.md" in model.embedded[-1]
    assert nodes[0].embedding != nodes[len(nodes) // 2].embedding
    model.embedded.clear()
    other = CountingEmbedding(embed_dim=8, model_name="other-model")
    SteadlithEmbeddingCache(other, store=store)(parser.get_nodes_from_documents(docs))
    assert len(other.embedded) == len(nodes)  # another model shares no entry
    SteadlithEmbeddingCache(model, store=store)(parser.get_nodes_from_documents(docs))
    assert model.embedded == []  # the store, not the component, holds the vectors
    with pytest.raises(TypeError, match="BaseEmbedding"):
        SteadlithEmbeddingCache(lambda t: [0.0])


def test_the_cache_persists_with_the_pipeline(tmp_path):
    model = CountingEmbedding(embed_dim=8)
    store = SimpleKVStore()
    pipeline, _ = ingestion(SteadlithNodeParser(Lmx2Params()), model, store=store)
    pipeline.run(documents=two_documents())
    store.persist(str(tmp_path / "embeddings.json"))
    pipeline.persist(str(tmp_path / "pipeline"))
    model.embedded.clear()
    # a later process: the same stores loaded from disk, the same vector store
    again, vector_store = ingestion(SteadlithNodeParser(Lmx2Params()), model,
                                    store=SimpleKVStore.from_persist_path(str(tmp_path / "embeddings.json")))
    again.run(documents=two_documents(one_word_edit(tool_library())))
    assert len(model.embedded) == 1


def test_the_pipelines_own_cache_hands_one_documents_nodes_to_another_with_the_same_text():
    """Why the recipe turns IngestionPipeline's cache off: it keys a step's output on
    the text and metadata of its input, not on document ids, so a second document with
    the text of an earlier one gets the earlier one's nodes: its ref_doc_id and ids."""
    text, _ = demo_pair()
    pipeline = IngestionPipeline(transformations=[SteadlithNodeParser()])
    pipeline.run(documents=[Document(text=text, id_="old.md")])
    nodes = pipeline.run(documents=[Document(text=text, id_="new.md")])
    assert {n.ref_doc_id for n in nodes} == {"old.md"}
    nodes = IngestionPipeline(transformations=[SteadlithNodeParser()], disable_cache=True).run(
        documents=[Document(text=text, id_="new.md")])
    assert {n.ref_doc_id for n in nodes} == {"new.md"}
