"""An index update plan: what a vector store must upsert and delete to go from the chunks
of OLD to the chunks of NEW (`steadlith plan OLD NEW`).

OLD and NEW are each a file, a directory, a quoted glob, `PATH@REV` or `REPO@REV:GLOB`
(what batch chunking reads). A document's *source* is its path relative to what was
named: below a directory, the path under it; in a revision, the path in the repository;
a single file, its name. So `docs/` against `docs-new/`, or `.@v1:'docs/**/*.md'` against
`.@HEAD:'docs/**/*.md'`, pair each file with its own later version.

Each chunk's id is `chunking.identity.chunk_id(source, chunk hash, occurrence)`, the id
the LangChain and LlamaIndex adapters give it: an unchanged chunk keeps its id, and no two
documents share one. The plan is then set arithmetic on ids: an id only in NEW is an
upsert (its text must be embedded), an id only in OLD a delete, an id in both stays.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Iterator

from ..chunking.chunks import AnyParams
from ..chunking.identity import chunk_ids
from ..chunking.pipeline import Pipeline
from ..errors import SteadlithError
from ..chunking.loader import load_text
from .batch import Document, expand_inputs
from .repository import decode_blob, open_repository

UPSERT, DELETE = "upsert", "delete"


@dataclass(frozen=True)
class PlannedChunk:
    source: str
    id: str
    chunk_hash: str
    start: int
    end: int
    tokens: int
    text: str


@dataclass(frozen=True)
class Plan:
    upserts: tuple[PlannedChunk, ...]
    deletes: tuple[PlannedChunk, ...]
    unchanged: int
    sources_old: int
    sources_new: int

    @property
    def tokens_to_embed(self) -> int:
        return sum(c.tokens for c in self.upserts)

    def records(self) -> Iterator[dict]:
        """The plan as JSON-able records: deletes first (a store that upserts by id then
        never holds both a stale and a fresh copy of a source's text), then upserts."""
        for c in self.deletes:
            yield {"op": DELETE, "id": c.id, "source": c.source, "chunk_hash": c.chunk_hash}
        for c in self.upserts:
            yield {"op": UPSERT, "id": c.id, "source": c.source, "chunk_hash": c.chunk_hash, "start": c.start,
                   "end": c.end, "tokens": c.tokens, "text": c.text}

    def summary(self) -> str:
        return (f"plan: {len(self.upserts)} upserts ({self.tokens_to_embed} tokens to embed), "
                f"{len(self.deletes)} deletes, {self.unchanged} unchanged; "
                f"{self.sources_old} {'source' if self.sources_old == 1 else 'sources'} before, {self.sources_new} after")


def _source(doc: Document, arg: str) -> str:
    """The name a document's chunks are keyed by (see the module docstring)."""
    if doc.repo is not None:
        return doc.path
    if os.path.isdir(arg):
        return os.path.relpath(doc.path, arg).replace(os.sep, "/")
    return os.path.basename(doc.path)


def load_chunks(arg: str, params: AnyParams, pipeline: Pipeline,
                revisions: set[tuple[str, str]] | None = None) -> dict[str, list[PlannedChunk]]:
    """Each document's chunks, by source, with their ids. `revisions` collects the
    (repository, commit) pairs the documents were read from."""
    docs, failed = expand_inputs([arg])
    if failed:
        raise SteadlithError(failed[0].error)
    out: dict[str, list[PlannedChunk]] = {}
    for doc in docs:
        if revisions is not None and doc.repo is not None:
            revisions.add((doc.repo, doc.commit))
        source = _source(doc, arg)
        if source in out:
            raise SteadlithError(f"{arg}: two documents would both be keyed {source!r}")
        text = load_text(doc.path) if doc.repo is None else decode_blob(open_repository(doc.repo)[doc.blob], doc.name)
        result = pipeline.chunk(text, params)
        hashes = [c.hash for c in result.chunks]
        out[source] = [PlannedChunk(source, i, c.hash, c.start, c.end, c.tokens, text[c.start:c.end])
                       for i, c in zip(chunk_ids(source, hashes), result.chunks)]
    return out


def make_plan(old: str, new: str, params: AnyParams) -> Plan:
    pipeline = Pipeline(2)
    before, after = load_chunks(old, params, pipeline), load_chunks(new, params, pipeline)
    old_ids = {c.id for chunks in before.values() for c in chunks}
    new_ids = {c.id for chunks in after.values() for c in chunks}
    upserts = tuple(c for s in sorted(after) for c in after[s] if c.id not in old_ids)
    deletes = tuple(c for s in sorted(before) for c in before[s] if c.id not in new_ids)
    return Plan(upserts, deletes, len(old_ids & new_ids), len(before), len(after))

