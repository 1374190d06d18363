"""What both adapters share: parameters from keyword fields, and each chunk's metadata."""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..chunking.chunks import AnyParams, Chunk, Chunking
from ..chunking.pipeline import Pipeline
from ..chunking.rules import params_from_mapping


def params_of(params: AnyParams | None, fields: Mapping[str, Any]) -> AnyParams:
    """`params` itself, or the rule's parameters from contract fields given by keyword
    (`boundary_rule="lmx2-v1", min_tokens=64`), validated: a bad field raises
    ParameterError naming it."""
    if params is not None and fields:
        raise TypeError("give either params or contract fields by keyword, not both")
    return params if params is not None else params_from_mapping(dict(fields))


def chunk_metadata(result: Chunking, c: Chunk) -> dict[str, Any]:
    """The metadata every chunk carries. An embedding cache keys on chunk_hash and the
    embedding model's id beside it: the model is not part of the hash (docs/contract/identity.md#chunk-hash)."""
    return {
        "chunk_hash": c.hash,
        "params_hash": result.params_hash,
        "boundary_rule": result.boundary_rule,
        "kind": c.kind,
        "boundary": c.boundary,
        "start": c.start,
        "end": c.end,
        "chunk_index": c.index,
        "tokens": c.tokens,
    }


def spans(pipeline: Pipeline, text: str, params: AnyParams) -> Iterable[tuple[str, dict[str, Any]]]:
    """(span text exactly as in the document, metadata) for each chunk of `text`."""
    result = pipeline.chunk(text, params)
    for c in result.chunks:
        yield text[c.start:c.end], chunk_metadata(result, c)
