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

`Document.id` is `chunk_id(source, chunk_hash, occurrence)` (see `steadlith_core.chunking.identity.chunk_id`): a
UUID from the XXH3-128 of the source, the chunk hash and the occurrence number among
equal hashes of that source (counted across every document of one call that names it,
such as a loader's pages), so ids are stable for unchanged chunks, unique within a source
and never shared by two sources. The source is `metadata["source"]`
(`source_key=` picks another key), else the source Document's id; with neither the
chunks get no id (the store assigns one). `index()` replaces ids with its own record
hashes; the ids matter to `vector_store.add_documents(docs)`, which upserts by them.

Sizes are the contract's, in its token counter: `chunk_size=N` is `max_tokens=N`;
content-defined chunks do not overlap (`chunk_overlap` must be 0), and a
`length_function` is refused with what to use instead. A model's tokenizer counts
through the contract's tokenizer counters (docs/contract/tokens.md#tokenizers), offline:

    SteadlithTextSplitter.from_tiktoken_encoder(encoding_name="cl100k_base", chunk_size=512)
    SteadlithTextSplitter.from_huggingface_tokenizer("models/bge-small/tokenizer.json", chunk_size=512)

Both count per word (docs/contract/tokens.md#per-word), so a chunk read whole by the
model can pass chunk_size by a few tokens (docs/contract/tokens.md#overshoot).
"""

from __future__ import annotations

import copy
import os
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from langchain_core.documents import Document
from langchain_text_splitters import TextSplitter

from ..chunking.chunks import AnyParams
from ..chunking.pipeline import Pipeline
from ..chunking.presets import preset
from ..chunking.rules import parse_assignments
from ..chunking.model_tokens import HF_PREFIX, TIKTOKEN_ENCODINGS, TIKTOKEN_PREFIX, saved_tokenizer
from ..chunking.tokens import known_counters
from ..chunking.identity import chunk_ids
from ._common import params_of, refuse_clash, spans

_COUNTER_HINT = (
    "Steadlith counts tokens with the contract's token counter, which is part of the params hash: "
    "give token_counter=... (known: {known}, or a tokenizer: hf:PATH/tokenizer.json, tiktoken:cl100k_base, "
    "tiktoken:o200k_base) with max_tokens=N (or chunk_size=N), or use from_tiktoken_encoder(...) / "
    "from_huggingface_tokenizer(...)")


def _hint() -> str:
    return _COUNTER_HINT.format(known=", ".join(known_counters()))


def _with_counter(kwargs: dict[str, Any], spec: str) -> dict[str, Any]:
    if kwargs.get("token_counter", spec) != spec:
        raise TypeError(f"token_counter={kwargs['token_counter']!r} and a tokenizer constructor name two counters: "
                        "give one")
    if "params" in kwargs:
        raise TypeError("a tokenizer constructor takes contract fields by keyword (max_tokens=..., or chunk_size=...), "
                        "not params: the tokenizer is the params' token_counter")
    return {**kwargs, "token_counter": spec}


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
    def from_tiktoken_encoder(cls, encoding_name: str = "cl100k_base", model_name: str | None = None,
                              allowed_special: Any = None, disallowed_special: Any = "all",
                              **kwargs: Any) -> "SteadlithTextSplitter":
        """Sizes in an OpenAI encoding's tokens, counted per word (token_counter
        "tiktoken:NAME"), from rank files a package ships: nothing is downloaded.
        `model_name` picks the model's encoding (tiktoken's own table). Special-token
        text is counted as ordinary text, as the model reads a document: only
        LangChain's defaults of `allowed_special`/`disallowed_special` are taken."""
        if model_name is not None:
            import tiktoken.model

            try:
                encoding_name = tiktoken.model.encoding_name_for_model(model_name)
            except KeyError:
                raise ValueError(f"model_name={model_name!r}: tiktoken knows no encoding for it; give "
                                 f"encoding_name= one of {', '.join(TIKTOKEN_ENCODINGS)}") from None
        if encoding_name not in TIKTOKEN_ENCODINGS:
            raise ValueError(f"encoding_name={encoding_name!r}: Steadlith counts with "
                             f"{', '.join(TIKTOKEN_ENCODINGS)} (rank files shipped offline)")
        if allowed_special not in (None, set(), frozenset()) or disallowed_special not in ("all", (), set(), None):
            raise ValueError("allowed_special / disallowed_special do not apply: a document's text that spells a "
                             "special token is counted as ordinary text, never as the special token")
        return cls(**_with_counter(kwargs, TIKTOKEN_PREFIX + encoding_name))

    @classmethod
    def from_huggingface_tokenizer(cls, tokenizer: Any, cache_dir: str | os.PathLike[str] | None = None,
                                   **kwargs: Any) -> "SteadlithTextSplitter":
        """Sizes in a Hugging Face tokenizer's tokens, counted per word (token_counter
        "hf:PATH"). `tokenizer` is the path of a tokenizer.json (or of the folder holding
        one), or a loaded tokenizer (a `tokenizers.Tokenizer`, or a transformers fast
        tokenizer): that one is saved once, by the hash of its content, to
        `cache_dir/tokenizers/` (default $STEADLITH_CACHE_DIR, else ~/.cache/steadlith) so
        that the parameters name a file every worker process can load."""
        if isinstance(tokenizer, (str, os.PathLike)):
            spec = HF_PREFIX + os.fspath(tokenizer)
        else:
            spec = HF_PREFIX + str(saved_tokenizer(tokenizer, Path(cache_dir) if cache_dir is not None else None))
        return cls(**_with_counter(kwargs, spec))

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
        # occurrences are counted per source across the whole call: a loader's pages
        # share one source, and equal chunks on two pages must not share an id
        seen: dict[str, dict[str, int]] = {}
        for i, (text, base) in enumerate(zip(texts, metadatas)):
            base = base or {}
            refuse_clash(base)
            chunks = list(spans(self._pipeline, text, self.params, position=self.add_chunk_position))
            source = base.get(self.source_key)
            if source is None and ids is not None:
                source = ids[i]
            doc_ids = (chunk_ids(str(source), [m["steadlith_chunk_hash"] for _, m, *_ in chunks],
                                 seen.setdefault(str(source), {})) if source is not None
                       else [None] * len(chunks))
            for (piece, meta, start, _), doc_id in zip(chunks, doc_ids):
                metadata = copy.deepcopy(base)
                metadata.update(meta)
                if self._add_start_index:
                    metadata["start_index"] = start
                out.append(Document(id=doc_id, page_content=piece, metadata=metadata))
        return out
