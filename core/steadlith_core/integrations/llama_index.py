"""The steadlith chunker as a LlamaIndex node parser (extra `llama-index`).

    from steadlith_core.integrations.llama_index import SteadlithNodeParser

    parser = SteadlithNodeParser.from_defaults(boundary_rule="lmx2-v1", max_tokens=384)
    nodes = parser.get_nodes_from_documents(documents)
    nodes[0].node_id == nodes[0].metadata["steadlith_chunk_hash"]   # unless the text repeats

Each node's text is the chunk's span of the document exactly, with `start_char_idx` /
`end_char_idx` set and the same metadata as the LangChain splitter
(`steadlith_chunk_hash`, `steadlith_params_hash`, `steadlith_boundary_rule`,
`steadlith_tokens`). The node id is the chunk hash, so an unchanged chunk keeps its id across
versions and a store that upserts by id skips it; a hash repeated within one document
gets `-2`, `-3`, ... appended, in order. With `id_per_document=True` the id is
`{ref_doc_id}:{chunk_hash}` instead, for stores where one node must belong to one
document.

Offline: this parser needs neither a tokenizer nor NLTK data (token counts are the
contract's counter); importing llama-index-core reads only the data it ships.
"""

from __future__ import annotations

from typing import Any, Iterable, List, Sequence

from llama_index.core.node_parser import NodeParser
from llama_index.core.schema import BaseNode, NodeRelationship, TextNode
from pydantic import PrivateAttr

from ..chunking.chunks import AnyParams
from ..chunking.pipeline import Pipeline
from ..chunking.presets import preset
from ..chunking.rules import params_from_mapping, parse_assignments
from ._common import params_of, spans


class SteadlithNodeParser(NodeParser):
    """A LlamaIndex NodeParser cutting with tttd-v1 or lmx2-v1.

    `chunker_params` holds the contract's parameters as a plain mapping (what
    `params.to_dict()` gives), so the parser serializes like any other."""

    chunker_params: dict = {}
    id_per_document: bool = False
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
    def from_defaults(cls, params: AnyParams | None = None, *, id_per_document: bool = False,
                      include_metadata: bool = True, include_prev_next_rel: bool = True,
                      **fields: Any) -> "SteadlithNodeParser":
        """Parameters as an object, or contract fields by keyword (tttd-v1's defaults
        when neither is given)."""
        return cls(params_of(params, fields), id_per_document=id_per_document,
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
            text = node.get_content()
            source = node.as_related_node_info()
            seen: dict[str, int] = {}
            for piece, meta, start, end in spans(self._pipeline, text, self._params):
                h = meta["steadlith_chunk_hash"]
                seen[h] = seen.get(h, 0) + 1
                node_id = h if seen[h] == 1 else f"{h}-{seen[h]}"
                if self.id_per_document:
                    node_id = f"{node.node_id}:{node_id}"
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
