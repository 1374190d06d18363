"""What both adapters share: parameters from keyword fields and each chunk's metadata.
(The ids a vector store keys the chunks by are `chunking.identity.chunk_ids`, which
`steadlith plan` uses too.)

Metadata keys are namespaced (`steadlith_chunk_hash`, ...) so that they never overwrite
a key of the user's own (`kind`, `source`, ...); a source document that already carries
one of them (say, a chunk split again) is refused with one ValueError naming the keys.

By default a chunk carries only what its hash and the parameters determine, so an
unchanged chunk of a new version has exactly the metadata it had: a framework that
hashes content *and* metadata (LangChain's `index()`) then sees the same record and
skips it. Where the chunk sits and how it was cut (offsets, index, kind, boundary class)
change when its neighbours change and are added only on request.
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from ..chunking.chunks import AnyParams, Chunk, Chunking
from ..chunking.pipeline import Pipeline
from ..chunking.rules import params_from_mapping

PREFIX = "steadlith_"
# determined by the chunk's text and the parameters: the same for an unchanged chunk
STABLE_KEYS = ("steadlith_chunk_hash", "steadlith_params_hash", "steadlith_boundary_rule", "steadlith_tokens")
# where and how this version cut it: opt-in (add_chunk_position=True)
POSITION_KEYS = ("steadlith_start", "steadlith_end", "steadlith_chunk_index", "steadlith_kind", "steadlith_boundary")


def params_of(params: AnyParams | None, fields: Mapping[str, Any]) -> AnyParams:
    """`params` itself, or the rule's parameters from contract fields given by keyword
    (`boundary_rule="lmx2-v1", min_tokens=64`), validated: a bad field raises
    ParameterError naming it."""
    if params is not None and fields:
        raise TypeError("give either params or contract fields by keyword, not both")
    return params if params is not None else params_from_mapping(dict(fields))


def chunk_metadata(result: Chunking, c: Chunk, *, position: bool = False) -> dict[str, Any]:
    """The metadata a chunk carries. An embedding cache keys on steadlith_chunk_hash and
    the embedding model's id beside it: the model is not part of the hash (docs/contract/identity.md#chunk-hash).
    `position` adds the offsets (code points), the index and how the chunk was cut."""
    meta: dict[str, Any] = {
        "steadlith_chunk_hash": c.hash,
        "steadlith_params_hash": result.params_hash,
        "steadlith_boundary_rule": result.boundary_rule,
        "steadlith_tokens": c.tokens,
    }
    if position:
        meta.update(steadlith_start=c.start, steadlith_end=c.end, steadlith_chunk_index=c.index,
                    steadlith_kind=c.kind, steadlith_boundary=c.boundary)
    return meta


def refuse_clash(metadata: Mapping[str, Any]) -> None:
    """A source whose metadata already has one of our keys is refused, not overwritten."""
    clash = sorted(k for k in metadata if isinstance(k, str) and k.startswith(PREFIX))
    if clash:
        raise ValueError(f"the source document's metadata already has {', '.join(clash)}: keys starting with "
                         f"{PREFIX!r} are the chunker's own (is this document a chunk already?); rename or drop them")


def spans(pipeline: Pipeline, text: str, params: AnyParams, *,
          position: bool = False) -> Iterable[tuple[str, dict[str, Any], int, int]]:
    """(span text exactly as in the document, metadata, start, end) for each chunk of
    `text`; start and end in code points."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, not {type(text).__name__}: decode bytes first "
                        f"(offsets and spans are in code points of the decoded text)")
    result = pipeline.chunk(text, params)
    for c in result.chunks:
        yield text[c.start:c.end], chunk_metadata(result, c, position=position), c.start, c.end
