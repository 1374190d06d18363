"""The steadlith chunker as a LlamaIndex node parser, and an embedding step that embeds
only the nodes it has not seen (extra `llama-index`).

    from llama_index.core.ingestion import DocstoreStrategy, IngestionPipeline
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from llama_index.core.storage.kvstore import SimpleKVStore
    from steadlith_core.integrations.llama_index import SteadlithEmbeddingCache, SteadlithNodeParser

    pipeline = IngestionPipeline(
        transformations=[SteadlithNodeParser.from_defaults(boundary_rule="lmx2-v1", max_tokens=384),
                         SteadlithEmbeddingCache(embed_model, store=SimpleKVStore())],
        docstore=SimpleDocumentStore(), vector_store=vector_store,
        docstore_strategy=DocstoreStrategy.UPSERTS_AND_DELETE)
    pipeline.run(documents=SimpleDirectoryReader("docs", filename_as_id=True).load_data())

Why the embedding step: LlamaIndex's docstore works per document. When a document's hash
changes, `IngestionPipeline` deletes all of its nodes from the vector store and runs every
transformation on the whole new version, so a plain embedding model re-embeds every node
of an edited document. `SteadlithEmbeddingCache` sits where the embedding model would and
asks the model only for texts it has no vector for (keyed by the model id and the exact
text the model reads), so the unchanged chunks of an edited document cost nothing.

Each node's text is the chunk's span of the document exactly, with `start_char_idx` /
`end_char_idx` set; its metadata adds `steadlith_chunk_hash`, `steadlith_params_hash`,
`steadlith_boundary_rule` and `steadlith_tokens` (with `add_chunk_position=True` also
`steadlith_start`, `steadlith_end`, `steadlith_chunk_index`, `steadlith_kind`,
`steadlith_boundary`), kept out of the text the embedding model and the LLM see. A
document already carrying a `steadlith_*` key is refused (ValueError).

Node ids (`id_per_document=True`, the default) are `chunk_id(document id, chunk hash,
occurrence)` (see `_common.chunk_id`): a UUID that is stable for an unchanged chunk of a
document, unique within it (equal hashes are numbered in order) and never shared by two
documents, so deleting one document never takes another's vectors. Give documents
stable ids (`filename_as_id=True`, or `Document(id_=path)`): a random id makes every
node id new. `id_per_document=False` gives the bare chunk hash (`-2`, `-3`, ... for a
repeat), which two documents sharing a chunk collide on: only for a store holding one
document.

Offline: the parser needs neither a tokenizer nor NLTK data (token counts are the
contract's counter); importing llama-index-core reads only the data it ships.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Sequence

import xxhash
from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import BaseNode, MetadataMode, NodeRelationship, TextNode, TransformComponent
from llama_index.core.storage.kvstore import SimpleKVStore
from llama_index.core.storage.kvstore.types import BaseKVStore
from pydantic import PrivateAttr

from ..chunking.chunks import AnyParams
from ..chunking.pipeline import Pipeline
from ..chunking.presets import preset
from ..chunking.rules import params_from_mapping, parse_assignments
from ._common import chunk_ids, params_of, refuse_clash, spans


class SteadlithNodeParser(NodeParser):
    """A LlamaIndex NodeParser cutting with tttd-v1 or lmx2-v1.

    `chunker_params` holds the contract's parameters as a plain mapping (what
    `params.to_dict()` gives), so the parser serializes like any other."""

    chunker_params: dict = {}
    id_per_document: bool = True
    add_chunk_position: bool = False
    _params: Any = PrivateAttr()
    _pipeline: Pipeline = PrivateAttr()

    def __init__(self, params: AnyParams | None = None, **data: Any) -> None:
        if params is not None:
            data["chunker_params"] = params.to_dict()
        super().__init__(**data)
        # validated here: a bad field raises ParameterError naming it
        self._params = params if params is not None else params_from_mapping(self.chunker_params)
        self.chunker_params = self._params.to_dict()
        self._pipeline = Pipeline()

    @classmethod
    def from_defaults(cls, params: AnyParams | None = None, *, id_per_document: bool = True,
                      add_chunk_position: bool = False, include_metadata: bool = True,
                      include_prev_next_rel: bool = True, **fields: Any) -> "SteadlithNodeParser":
        """Parameters as an object, or contract fields by keyword (tttd-v1's defaults
        when neither is given)."""
        return cls(params_of(params, fields), id_per_document=id_per_document, add_chunk_position=add_chunk_position,
                   include_metadata=include_metadata, include_prev_next_rel=include_prev_next_rel)

    @classmethod
    def from_preset(cls, name: str, **kwargs: Any) -> "SteadlithNodeParser":
        return cls.from_defaults(preset(name), **kwargs)

    @classmethod
    def from_assignments(cls, items: Iterable[str], **kwargs: Any) -> "SteadlithNodeParser":
        return cls.from_defaults(parse_assignments(items), **kwargs)

    @classmethod
    def class_name(cls) -> str:
        return "SteadlithNodeParser"

    @property
    def params(self) -> AnyParams:
        return self._params

    def _parse_nodes(self, nodes: Sequence[BaseNode], show_progress: bool = False, **kwargs: Any) -> List[BaseNode]:
        out: List[BaseNode] = []
        for node in nodes:
            refuse_clash(node.metadata)
            text = node.get_content()
            source = node.as_related_node_info()
            chunks = list(spans(self._pipeline, text, self._params, position=self.add_chunk_position))
            hashes = [meta["steadlith_chunk_hash"] for _, meta, _, _ in chunks]
            if self.id_per_document:
                ids = chunk_ids(node.node_id, hashes)
            else:
                seen: dict[str, int] = {}
                ids = []
                for h in hashes:
                    seen[h] = seen.get(h, 0) + 1
                    ids.append(h if seen[h] == 1 else f"{h}-{seen[h]}")
            for (piece, meta, start, end), node_id in zip(chunks, ids):
                out.append(TextNode(
                    id_=node_id, text=piece, metadata=meta,
                    start_char_idx=start, end_char_idx=end,
                    # bookkeeping, not content: kept out of the text an embedding model or LLM sees
                    excluded_embed_metadata_keys=[*node.excluded_embed_metadata_keys, *meta],
                    excluded_llm_metadata_keys=[*node.excluded_llm_metadata_keys, *meta],
                    relationships={NodeRelationship.SOURCE: source},
                ))
        return out

    def _postprocess_parsed_nodes(self, nodes: List[BaseNode], parent_doc_map: dict) -> List[BaseNode]:
        # The base class re-finds each node's text in its document to set the offsets,
        # which can land on an earlier copy of repeated text; ours are exact: keep them.
        offsets = [(n.start_char_idx, n.end_char_idx) for n in nodes]
        nodes = super()._postprocess_parsed_nodes(nodes, parent_doc_map)
        for n, (start, end) in zip(nodes, offsets):
            n.start_char_idx, n.end_char_idx = start, end
        return nodes


class SteadlithEmbeddingCache(TransformComponent):
    """An IngestionPipeline step in the embedding model's place: each node gets the
    vector of the text the model reads (`get_content(MetadataMode.EMBED)`), from
    `store` when it has one, else from `embed_model`, in one batch for all the misses.

    The key is `model_id` and the XXH3-128 of that text, so a node whose chunk and
    embedded metadata are unchanged costs no embedding, and a chunk shared by two files
    whose file names are embedded gets a vector each. `model_id` defaults to the model's
    class and `model_name`; give one that names the version and dimensions when
    `model_name` does not. `store` is any LlamaIndex key-value store (in memory by
    default); persist it beside the docstore (`SimpleKVStore.persist(path)`) or the next
    process embeds everything again. Entries are never removed: a deleted chunk's vector
    stays until you drop the collection."""

    embed_model: BaseEmbedding
    model_id: str = ""
    collection: str = "steadlith_embeddings"
    _store: BaseKVStore = PrivateAttr()

    def __init__(self, embed_model: BaseEmbedding, *, store: BaseKVStore | None = None, model_id: str | None = None,
                 collection: str = "steadlith_embeddings") -> None:
        if not isinstance(embed_model, BaseEmbedding):
            raise TypeError(f"embed_model must be a LlamaIndex BaseEmbedding, not {type(embed_model).__name__}")
        model_id = model_id or f"{type(embed_model).__name__}:{embed_model.model_name}"
        super().__init__(embed_model=embed_model, model_id=model_id, collection=collection)
        self._store = store if store is not None else SimpleKVStore()

    @classmethod
    def class_name(cls) -> str:
        return "SteadlithEmbeddingCache"

    @property
    def store(self) -> BaseKVStore:
        return self._store

    def key(self, text: str) -> str:
        return xxhash.xxh3_128_hexdigest(f"{self.model_id}\0{text}".encode("utf-8", "surrogatepass"))

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        todo: dict[str, list[BaseNode]] = {}
        texts: dict[str, str] = {}
        for node in nodes:
            text = node.get_content(metadata_mode=MetadataMode.EMBED)
            key = self.key(text)
            hit = self._store.get(key, collection=self.collection)
            if hit is not None:
                node.embedding = list(hit["embedding"])
            else:
                todo.setdefault(key, []).append(node)
                texts[key] = text
        if todo:
            keys = list(todo)
            vectors = self.embed_model.get_text_embedding_batch([texts[k] for k in keys],
                                                                show_progress=kwargs.get("show_progress", False))
            self._store.put_all([(k, {"embedding": v}) for k, v in zip(keys, vectors)], collection=self.collection)
            for k, v in zip(keys, vectors):
                for node in todo[k]:
                    node.embedding = list(v)
        return nodes
