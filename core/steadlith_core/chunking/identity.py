"""Chunk identity (docs/contract/identity.md)."""

from __future__ import annotations

import uuid
from typing import Iterable

import xxhash

from .normalize import NORMALIZER_VERSION
from .params import enc

IDENTITY_SCHEMA_VERSION = "1"
CHUNKER_FAMILY = "cdc-rabin"


def chunk_hash_prefix(params_hash: str, family: str = CHUNKER_FAMILY) -> bytes:
    """Everything a chunk hash commits to except the chunk's own text."""
    return enc(IDENTITY_SCHEMA_VERSION) + enc(NORMALIZER_VERSION) + enc(family) + enc(params_hash)


def chunk_hash(canonical_text: str, params_hash: str, family: str = CHUNKER_FAMILY) -> str:
    return xxhash.xxh3_128_hexdigest(chunk_hash_prefix(params_hash, family) + enc(canonical_text))


# Stable chunk ids: what a vector store keys a chunk by. Not part of the contract's chunk
# hash (which names a chunk's text under its parameters wherever it appears): an id also
# names the document, so that deleting one document never takes another's vectors.


def chunk_id(source: str, chunk_hash: str, occurrence: int) -> str:
    """The id of the `occurrence`-th chunk (from 1) with hash `chunk_hash` in the
    document `source`: the XXH3-128 of `source \\0 chunk_hash \\0 occurrence`, written
    as a UUID (the form every vector store accepts, Qdrant's included). Stable across
    versions of the document for an unchanged chunk; never shared by two documents."""
    key = f"{source}\0{chunk_hash}\0{occurrence}".encode("utf-8", "surrogatepass")
    return str(uuid.UUID(bytes=xxhash.xxh3_128_digest(key)))


def chunk_ids(source: str, hashes: Iterable[str], seen: dict[str, int] | None = None) -> list[str]:
    """chunk_id for each hash in document order: equal hashes in one document are told
    apart by their occurrence number, 1, 2, ... in order. `seen` carries the counts on
    across several texts of one source (the pages a loader made of one file), so that
    equal chunks on two pages still get two ids."""
    seen = {} if seen is None else seen
    out = []
    for h in hashes:
        seen[h] = seen.get(h, 0) + 1
        out.append(chunk_id(source, h, seen[h]))
    return out
