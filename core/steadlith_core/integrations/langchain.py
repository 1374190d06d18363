"""The steadlith chunker as a LangChain text splitter (extra `langchain`).

    from steadlith_core.integrations.langchain import SteadlithTextSplitter

    splitter = SteadlithTextSplitter(boundary_rule="lmx2-v1", min_tokens=64, max_tokens=384)
    docs = splitter.split_documents(loader.load())
    docs[0].metadata["chunk_hash"]   # key an embedding cache on this (and the model id)

Each Document's page_content is the chunk's span of the source text exactly
(`text[start:end]`); its metadata adds `chunk_hash`, `params_hash`, `boundary_rule`,
`kind`, `boundary`, `start`, `end` (code points), `chunk_index` and `tokens` to the
source document's metadata. Sizes are set by the contract's parameters in its token
counter, not by LangChain's chunk_size / chunk_overlap: content-defined chunks do not
overlap.
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter

from ..chunking.chunks import AnyParams
from ..chunking.pipeline import Pipeline
from ..chunking.presets import preset
from ..chunking.rules import parse_assignments
from ._common import params_of, spans


class SteadlithTextSplitter(TextSplitter):
    """A LangChain TextSplitter cutting with tttd-v1 or lmx2-v1.

    Give the parameters as an object (`params=Lmx2Params(...)`) or as contract fields by
    keyword (`boundary_rule="lmx2-v1", max_tokens=384`); nothing gives tttd-v1's
    defaults. `add_start_index=True` also sets LangChain's usual `start_index`."""

    def __init__(self, params: AnyParams | None = None, *, add_start_index: bool = False,
                 pipeline: Pipeline | None = None, **fields: Any) -> None:
        self.params = params_of(params, fields)
        # chunk_size is only reported (the rule's max_tokens); the rule decides sizes
        super().__init__(chunk_size=self.params.max_tokens, chunk_overlap=0, add_start_index=add_start_index,
                         strip_whitespace=False)
        self._pipeline = pipeline if pipeline is not None else Pipeline()

    @classmethod
    def from_params(cls, params: AnyParams, **kwargs: Any) -> "SteadlithTextSplitter":
        return cls(params, **kwargs)

    @classmethod
    def from_preset(cls, name: str, **kwargs: Any) -> "SteadlithTextSplitter":
        """A named preset of either rule ("Default", "lmx2 Default", ...)."""
        return cls(preset(name), **kwargs)

    @classmethod
    def from_assignments(cls, items: Iterable[str], **kwargs: Any) -> "SteadlithTextSplitter":
        """From `steadlith --set` strings: ["boundary_rule=lmx2-v1", "min_tokens=64"]."""
        return cls(parse_assignments(items), **kwargs)

    @property
    def params_hash(self) -> str:
        return self.params.params_hash

    def split_text(self, text: str) -> list[str]:
        return [piece for piece, _ in spans(self._pipeline, text, self.params)]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        metadatas = metadatas or [{}] * len(texts)
        out = []
        for text, base in zip(texts, metadatas):
            for piece, meta in spans(self._pipeline, text, self.params):
                metadata = copy.deepcopy(base)
                metadata.update(meta)
                if self._add_start_index:
                    metadata["start_index"] = meta["start"]
                out.append(Document(page_content=piece, metadata=metadata))
        return out
