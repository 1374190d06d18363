"""`steadlith sync NEW --store PATH`: make a vector store hold exactly NEW's chunks, each
with its vector, embedding only chunks whose vector is not in the embedding cache.

The store is the truth. Every run reads the ids the store holds, chunks NEW, and does
the difference: deletes the ids NEW lacks, upserts NEW's chunks the store lacks. No
journal says how far an earlier run got, so there is none to lose or to trust: a run
killed at any point leaves some deletes and upserts done (each point is written or
deleted whole, history.vector_store), and the next run finds what is left to do. A run
with nothing left changes nothing and embeds nothing.

Ids are the plan's (history.plan, chunking.identity.chunk_id): an unchanged chunk keeps
its id, so it is neither deleted nor embedded again. Vectors go through the embedding
cache keyed by (model id, chunk hash): a chunk embedded before, by an earlier run that
was killed before writing it or for another store, is taken from the cache.

With a plan (`--plan PLAN.jsonl` from `steadlith plan OLD NEW`, or `--from OLD`), the
run applies that plan and nothing else: the plan must be one of NEW (its upserts are
NEW's chunks, its deletes are not), and what the store lacks or holds beyond NEW must be
among the plan's operations (the store is at OLD, or between OLD and NEW after an
interrupted run). A store elsewhere, or a plan of another repository, is refused before
anything is written.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from typing import Optional

import numpy as np

from ..chunking.chunks import AnyParams
from ..errors import SteadlithError
from ..progress import Progress, report
from ..retrieval.embedders import Embedder
from .plan import DELETE, UPSERT, PlannedChunk, load_chunks, make_plan
from .vector_store import (
    ChunkStore,
    StoreIdentity,
    check_store_path,
    create_store,
    open_store,
    payload_of,
)

CHUNK_KIND = "chunk"
BATCH = 64  # chunks embedded and written together: what a kill can cost in embedding


class PlanError(SteadlithError, ValueError):
    """A plan that does not fit NEW or the store: one line naming the plan and why."""


@dataclass(frozen=True)
class SyncResult:
    store: str
    embedded: int
    reused: int
    deleted: int
    upserted: int
    unchanged: int
    chunks: int
    sources: int

    def summary(self) -> str:
        return (f"sync: embedded {self.embedded}, reused {self.reused}, deleted {self.deleted}, "
                f"upserted {self.upserted}, {self.unchanged} unchanged; {self.store} holds {self.chunks} "
                f"chunks of {self.sources} {'source' if self.sources == 1 else 'sources'}")

    def to_dict(self) -> dict:
        return {"schema": "steadlith-sync/1", "store": self.store, "embedded": self.embedded, "reused": self.reused,
                "deleted": self.deleted, "upserted": self.upserted, "unchanged": self.unchanged,
                "chunks": self.chunks, "sources": self.sources}


def read_plan(path: str) -> tuple[dict[str, str], dict[str, str]]:
    """(upserts, deletes) of a plan file as `steadlith plan` writes it, each {id: chunk
    hash}. A line that is not an operation is one error naming the file and line."""
    upserts: dict[str, str] = {}
    deletes: dict[str, str] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as e:
                    raise PlanError(f"{path}:{number}: not JSON ({e.msg})") from None
                if not isinstance(record, dict) or record.get("op") not in (UPSERT, DELETE) \
                        or not isinstance(record.get("id"), str) or not isinstance(record.get("chunk_hash"), str):
                    raise PlanError(f"{path}:{number}: not a plan operation (an object with op upsert or delete, "
                                    "id and chunk_hash, as `steadlith plan` writes)")
                (upserts if record["op"] == UPSERT else deletes)[record["id"]] = record["chunk_hash"]
    except OSError as e:
        raise PlanError(f"{path}: cannot read the plan: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise PlanError(f"{path}: the plan is not UTF-8 text") from None
    return upserts, deletes


def check_plan(name: str, upserts: dict[str, str], deletes: dict[str, str], target: dict[str, PlannedChunk],
               to_upsert: list[PlannedChunk], to_delete: list[str]) -> None:
    """Refuse a plan that is not one of NEW, or a store it does not lead to NEW."""
    for chunk_id, chunk_hash in upserts.items():
        chunk = target.get(chunk_id)
        if chunk is None or chunk.chunk_hash != chunk_hash:
            raise PlanError(f"{name}: upserts chunk {chunk_id}, which is not a chunk of NEW: a plan of another "
                            "repository, revision, folder or parameters")
    for chunk_id in deletes:
        if chunk_id in target:
            raise PlanError(f"{name}: deletes chunk {chunk_id} ({target[chunk_id].source}), which NEW still has: "
                            "a plan of another target")
    unplanned_upserts = [c for c in to_upsert if c.id not in upserts]
    unplanned_deletes = [i for i in to_delete if i not in deletes]
    if unplanned_upserts or unplanned_deletes:
        raise PlanError(f"{name}: the store is not at the plan's OLD: it lacks {len(unplanned_upserts)} of NEW's "
                        f"chunks and holds {len(unplanned_deletes)} others that the plan does not name; "
                        "sync without a plan to bring it to NEW whatever it holds")


def repository_roots(revisions: set[tuple[str, str]]) -> tuple[str, ...]:
    """The root commits of the repositories a target's documents were read from (empty
    for files on disk): what tells one repository from another wherever it is cloned."""
    import pygit2

    from .repository import open_repository

    roots: set[str] = set()
    for repo_path, commit in sorted(revisions):
        repo = open_repository(repo_path)
        # each commit is read here, not by libgit2's revision walker, which releases the
        # GIL while the repository's loose objects are read by Python code (see
        # repository.first_parent_walk)
        seen: set[str] = set()
        todo = [pygit2.Oid(hex=commit)]
        while todo:
            oid = todo.pop()
            if str(oid) in seen:
                continue
            seen.add(str(oid))
            parents = repo[oid].peel(pygit2.Commit).parent_ids
            if not parents:
                roots.add(str(oid))
            todo.extend(parents)
    return tuple(sorted(roots))


def sync(target_arg: str, store_path: str, embedder: Embedder, params: AnyParams, cache_dir: str, *,
         plan_path: Optional[str] = None, from_arg: Optional[str] = None,
         progress: Optional[Progress] = None) -> SyncResult:
    """Bring the store at `store_path` to `target_arg`'s chunks (see the module doc).
    Everything that can be refused is checked before the first write."""
    from ..chunking.pipeline import Pipeline
    from ..retrieval.embedding_cache import EmbeddingCache

    exists = check_store_path(store_path)
    revisions: set[tuple[str, str]] = set()
    target_docs = load_chunks(target_arg, params, Pipeline(2), revisions)
    identity = StoreIdentity(embedder.model_id, params.params_hash, params.boundary_rule, params.to_dict(),
                             repository_roots(revisions))
    target = {c.id: c for chunks in target_docs.values() for c in chunks}
    store: Optional[ChunkStore] = open_store(store_path, identity) if exists else None
    try:
        held = store.chunks() if store is not None else {}
        stale = [i for i, c in held.items() if i in target and (c.chunk_hash != target[i].chunk_hash
                                                                   or c.params_hash != identity.params_hash)]
        to_delete = [i for i in held if i not in target]
        to_upsert = [c for i, c in target.items() if i not in held or i in stale]
        if plan_path is not None or from_arg is not None:
            if plan_path is not None:
                upserts, deletes = read_plan(plan_path)
                name = plan_path
            else:
                plan = make_plan(from_arg, target_arg, params)
                upserts = {c.id: c.chunk_hash for c in plan.upserts}
                deletes = {c.id: c.chunk_hash for c in plan.deletes}
                name = f"the plan from {from_arg}"
            check_plan(name, upserts, deletes, target, to_upsert, to_delete)
        unchanged = len(target) - len(to_upsert)
        embedded = 0
        total = len(to_delete) + len(to_upsert)
        # the cache is opened before the first delete: a cache that cannot be used is
        # refused while the store is still untouched
        cache = EmbeddingCache(cache_dir) if to_upsert else None
        try:
            report(progress, 0, total)
            if store is not None:
                step = BATCH * 16
                for start in range(0, len(to_delete), step):
                    store.delete(to_delete[start:start + step])
                    report(progress, min(start + step, len(to_delete)), total)
            for start in range(0, len(to_upsert), BATCH):
                batch = to_upsert[start:start + BATCH]
                vectors, counts = cache.embed_through(identity.embedding_model, CHUNK_KIND,
                                                      [c.chunk_hash for c in batch], [c.text for c in batch],
                                                      embedder.embed)
                embedded += counts.embedded
                if store is None:
                    store = create_store(store_path, identity, int(vectors.shape[1]))
                store.upsert([payload_of(c.id, c.source, c.chunk_hash, identity, c.tokens, c.text)
                              for c in batch], np.asarray(vectors, dtype=np.float32))
                report(progress, len(to_delete) + start + len(batch), total)
        finally:
            if cache is not None:
                cache.close()
        # reused: upserted chunks whose vector the model did not compute in this run (from
        # the cache, or shared with an equal chunk of another document), so that embedded
        # and reused add up to upserted
        reused = len(to_upsert) - embedded
        return SyncResult(store_path, embedded, reused, len(to_delete), len(to_upsert), unchanged, len(target),
                          len(target_docs))
    finally:
        if store is not None:
            store.close()


def store_points(store_path: str) -> dict[str, tuple[dict, np.ndarray]]:
    """Every point of the store at PATH (payload, vector) by id, whatever it was made for."""
    from .vector_store import COLLECTION, open_client

    if not os.path.isdir(store_path):
        return {}
    client = open_client(store_path)
    try:
        if not client.collection_exists(COLLECTION):
            return {}
        info = client.get_collection(COLLECTION)
        store = ChunkStore(store_path, client, None, info.config.params.vectors.size)
        return store.points()
    finally:
        client.close()
