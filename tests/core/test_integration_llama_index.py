"""The steadlith chunker as a LlamaIndex node parser (extra `llama-index`), offline."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document  # noqa: E402
from llama_index.core.ingestion import IngestionPipeline  # noqa: E402
from llama_index.core.schema import MetadataMode, NodeRelationship  # noqa: E402

from steadlith_core import ChunkerParams, Lmx2Params, ParameterError, chunk, compare  # noqa: E402
from steadlith_core.integrations.llama_index import SteadlithNodeParser  # noqa: E402

from integration_helpers import EmbeddingCache, demo_pair, no_network  # noqa: E402,F401

METADATA = {"steadlith_chunk_hash", "steadlith_params_hash", "steadlith_boundary_rule", "steadlith_tokens"}
SMALL = Lmx2Params(min_tokens=16, max_tokens=64, horizon=16, fill_horizon=16, key_tokens=8)


def test_nodes_carry_the_core_chunks_with_hash_ids_and_exact_offsets(no_network):
    text, _ = demo_pair()
    parser = SteadlithNodeParser.from_defaults(boundary_rule="lmx2-v1", min_tokens=48, max_tokens=256)
    nodes = parser.get_nodes_from_documents([Document(text=text, metadata={"source": "v1.md"})])
    expected = chunk(text, parser.params)
    assert len(nodes) == len(expected.chunks) > 5
    for node, c in zip(nodes, expected.chunks):
        assert METADATA <= node.metadata.keys() and node.metadata["source"] == "v1.md"
        assert node.node_id == node.metadata["steadlith_chunk_hash"] == c.hash
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
    assert [n.node_id for n in twice] == [h, f"{h}-2"]
    assert twice[1].start_char_idx > len(block)  # not re-found at the first copy
    assert all(n.text == text[n.start_char_idx:n.end_char_idx] for n in nodes)


def test_id_per_document_scopes_ids_to_their_document():
    doc = Document(text="One short paragraph to index.", id_="doc-7")
    node = SteadlithNodeParser.from_defaults(id_per_document=True).get_nodes_from_documents([doc])[0]
    assert node.node_id == f"doc-7:{node.metadata['steadlith_chunk_hash']}"


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
    # node ids are stable across versions: a store upserting by id keeps the unchanged ones
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
