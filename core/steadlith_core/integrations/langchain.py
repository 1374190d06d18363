"""The steadlith chunker as a LangChain text splitter (extra `langchain`).

    from langchain_core.indexing import index
    from steadlith_core.integrations.langchain import SteadlithTextSplitter

    splitter = SteadlithTextSplitter(boundary_rule="lmx2-v1", min_tokens=64, max_tokens=384)
    docs = splitter.split_documents(loader.load())
    index(docs, record_manager, vector_store, cleanup="full")   # or "scoped_full", source_id_key="source"

Each Document's page_content is the chunk's span of the source text exactly; its
metadata is the source document's plus `steadlith_chunk_hash`, `steadlith_params_hash`,
`steadlith_boundary_rule` and `steadlith_tokens`: only what the chunk's text and the
parameters determine, so an unchanged chunk of an edited document is the same record to
`index()` (which hashes content and metadata) and is not embedded again.
`add_chunk_position=True` adds `steadlith_start`, `steadlith_end` (code points),
`steadlith_chunk_index`, `steadlith_kind` and `steadlith_boundary`, and
`add_start_index=True` LangChain's `start_index`: both change with every edit before the
chunk, so with either on `index()` re-embeds every chunk after an edit.

Our keys never overwrite the user's: a source document that already has a
`steadlith_*` key is refused (ValueError).

`Document.id` is `chunk_id(source, chunk_hash, occurrence)` (see `_common.chunk_id`): a
UUID from the XXH3-128 of the source, the chunk hash and the occurrence number among
equal hashes in that document, so ids are stable for unchanged chunks, unique within a
document and never shared across documents. The source is `metadata["source"]`
(`source_key=` picks another key), else the source Document's id; with neither the
chunks get no id (the store assigns one). `index()` replaces ids with its own record
hashes; the ids matter to `vector_store.add_documents(docs)`, which upserts by them.

Sizes are the contract's, in its token counter: `chunk_size=N` is `max_tokens=N`;
content-defined chunks do not overlap (`chunk_overlap` must be 0), and
`length_function` / tokenizer constructors are refused with what to use instead.
"""

from __future__ import annotations

import copy
from typing import Any, Callable, Iterable, Sequence

from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter

from ..chunking.chunks import AnyParams
from ..chunking.pipeline import Pipeline
from ..chunking.presets import preset
from ..chunking.rules import parse_assignments
from ..chunking.tokens import known_counters
from ._common import chunk_ids, params_of, refuse_clash, spans

_COUNTER_HINT = (
    "Steadlith counts tokens with the contract's token counter, which is part of the params hash: "
    "give token_counter=... (known: {known}) with max_tokens=N (or chunk_size=N); for a model's tokenizer "
    "register a per-word counter first: steadlith_core.register_counter(TokenCounter(\"my-tokenizer/1\", "
    "\"...\", per_word=lambda w: len(tokenizer.encode(w)))), then token_counter=\"my-tokenizer/1\"")


def _hint() -> str:
    return _COUNTER_HINT.format(known=", ".join(known_counters()))


class SteadlithTextSplitter(TextSplitter):
    """A LangChain TextSplitter cutting with tttd-v1 or lmx2-v1.

    Give the parameters as an object (`params=Lmx2Params(...)`) or as contract fields by
    keyword (`boundary_rule="lmx2-v1", max_tokens=384`); nothing gives tttd-v1's
    defaults. LangChain's `chunk_size=N` is `max_tokens=N` (tokens of the contract's
    counter, not characters)."""

    def __init__(self, params: AnyParams | None = None, *, add_start_index: bool = False,
                 add_chunk_position: bool = False, source_key: str = "source",
                 pipeline: Pipeline | None = None, chunk_size: int | None = None, chunk_overlap: int = 0,
                 length_function: Callable[[str], int] | None = None, keep_separator: Any = None,
                 strip_whitespace: bool | None = None, **fields: Any) -> None:
        if length_function is not None:
            raise ValueError(f"SteadlithTextSplitter takes no length_function. {_hint()}")
        if chunk_overlap:
            raise ValueError(f"chunk_overlap={chunk_overlap!r}: content-defined chunks do not overlap (an overlap "
                             "would tie each chunk's hash to its neighbour's text); give chunk_overlap=0 or leave it out")
        if keep_separator is not None:
            raise ValueError("SteadlithTextSplitter takes no keep_separator: each chunk is its span of the text exactly, "
                             "separators included")
        if strip_whitespace:
            raise ValueError("strip_whitespace=True is not supported: each chunk is its span of the text exactly "
                             "(page_content == text[start:end]); strip page_content yourself if you must")
        if chunk_size is not None:
            if params is not None or "max_tokens" in fields:
                raise TypeError("give chunk_size or max_tokens (or params), not both: chunk_size is max_tokens")
            fields["max_tokens"] = chunk_size
        self.params = params_of(params, fields)
        self.add_chunk_position = add_chunk_position
        self.source_key = source_key
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

    @classmethod
    def from_tiktoken_encoder(cls, *args: Any, **kwargs: Any) -> "SteadlithTextSplitter":
        raise ValueError(f"SteadlithTextSplitter has no tiktoken length function. {_hint()}")

    @classmethod
    def from_huggingface_tokenizer(cls, *args: Any, **kwargs: Any) -> "SteadlithTextSplitter":
        raise ValueError(f"SteadlithTextSplitter has no Hugging Face length function. {_hint()}")

    @property
    def params_hash(self) -> str:
        return self.params.params_hash

    def split_text(self, text: str) -> list[str]:
        return [piece for piece, *_ in spans(self._pipeline, text, self.params)]

    def create_documents(self, texts: list[str], metadatas: list[dict[Any, Any]] | None = None) -> list[Document]:
        return self._documents(texts, metadatas, None)

    def split_documents(self, documents: Iterable[Document]) -> list[Document]:
        documents = list(documents)
        return self._documents([d.page_content for d in documents], [d.metadata for d in documents],
                               [d.id for d in documents])

    def _documents(self, texts: Sequence[str], metadatas: Sequence[dict[Any, Any]] | None,
                   ids: Sequence[str | None] | None) -> list[Document]:
        if isinstance(texts, (str, bytes)):
            raise TypeError("texts must be a list of str, not one " + type(texts).__name__)
        if metadatas is None:
            metadatas = [{}] * len(texts)
        if len(metadatas) != len(texts):
            raise ValueError(f"{len(texts)} texts but {len(metadatas)} metadatas: give one metadata dict a text "
                             "(or none at all)")
        out = []
        for i, (text, base) in enumerate(zip(texts, metadatas)):
            base = base or {}
            refuse_clash(base)
            chunks = list(spans(self._pipeline, text, self.params, position=self.add_chunk_position))
            source = base.get(self.source_key)
            if source is None and ids is not None:
                source = ids[i]
            doc_ids = (chunk_ids(str(source), [m["steadlith_chunk_hash"] for _, m, *_ in chunks]) if source is not None
                       else [None] * len(chunks))
            for (piece, meta, start, _), doc_id in zip(chunks, doc_ids):
                metadata = copy.deepcopy(base)
                metadata.update(meta)
                if self._add_start_index:
                    metadata["start_index"] = start
                out.append(Document(id=doc_id, page_content=piece, metadata=metadata))
        return out
