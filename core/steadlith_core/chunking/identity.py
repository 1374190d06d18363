"""Chunk identity (docs/contract/identity.md)."""

from __future__ import annotations

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
