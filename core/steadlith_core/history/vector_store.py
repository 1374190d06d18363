"""The vector store `steadlith sync` writes: Qdrant's local mode (`qdrant-client` with
`path=`), in-process, no server. The only module that imports qdrant_client (extra `qdrant`).

Why Qdrant's local mode: it installs small (qdrant-client, grpcio, protobuf, portalocker:
about 30 MB beside the core's other extras, where LanceDB brings pyarrow and its own
Rust build, about 350 MB), and a store made here is the same collection a Qdrant server
serves (`QdrantClient(url=...)`), so an index can move to one without a format change.
Its limits: every point is held in memory while the store is open, and Qdrant advises a
server past about 20,000 points.

Why a crash cannot corrupt it: local mode keeps each collection's points in SQLite and
commits every point written or deleted on its own, so a process killed at any moment
leaves each point wholly in or wholly out. A point's id is the chunk's stable id, so
writing it again replaces it: there is nothing to duplicate. The store itself is created
in a temporary folder beside PATH and renamed into place, so a half-created store is
never found at PATH.

What the store records of itself, in the collection's metadata: the embedding model id,
the vectors' dimension and the chunker parameters (their hash, rule and fields). A sync
with another model or other parameters would mix vectors or chunks that do not belong
together; `open_store` refuses it.
"""

from __future__ import annotations

import os
import shutil
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

import numpy as np

from ..errors import SteadlithError, import_extra

COLLECTION = "steadlith_chunks"
STORE_SCHEMA = "steadlith-store/1"
META_FILE = "meta.json"  # Qdrant local mode's own list of collections
# What a point carries: only what the chunk's id fixes. Offsets are left out: an edit
# moves every later chunk of its document without changing its id, so stored offsets
# would go stale (or each edit would rewrite every later point).
PAYLOAD_KEYS = ("source", "chunk_hash", "params_hash", "embedding_model", "tokens", "text")
_SCROLL = 1024

if TYPE_CHECKING:  # at run time through import_extra, which names the extra when it is missing
    import qdrant_client


class StoreError(SteadlithError, ValueError):
    """A store that cannot be used as asked: one line naming it and why."""


def qdrant() -> "qdrant_client":
    return import_extra("qdrant_client", "qdrant", "steadlith sync", StoreError)


@dataclass(frozen=True)
class StoreIdentity:
    """What every vector and chunk of one store must share."""

    embedding_model: str
    params_hash: str
    boundary_rule: str
    params: dict
    repository_roots: tuple[str, ...] = ()

    def metadata(self, dimension: int) -> dict:
        return {"schema": STORE_SCHEMA, "embedding_model": self.embedding_model, "dimension": dimension,
                "params_hash": self.params_hash, "boundary_rule": self.boundary_rule, "params": self.params,
                "repository_roots": list(self.repository_roots)}


@dataclass(frozen=True)
class StoredChunk:
    id: str
    source: str
    chunk_hash: str
    params_hash: str
    embedding_model: str


def _fresh_hint(path: str) -> str:
    return f"sync into another --store, or delete {path} to start fresh"


def check_store_path(path: str) -> bool:
    """Whether PATH holds a store (True) or may become one (False: missing, or an empty
    folder, with a writable parent). Anything else is a StoreError. Writes nothing."""
    if os.path.isdir(path):
        entries = os.listdir(path)
        if not entries:
            if not os.access(path, os.W_OK | os.X_OK):
                raise StoreError(f"{path}: the store folder is not writable")
            return False
        if META_FILE not in entries:
            raise StoreError(f"{path}: not a Steadlith store (a folder with other files in it); "
                             "give a new or empty folder")
        if not os.access(path, os.W_OK | os.X_OK):
            raise StoreError(f"{path}: the store is not writable")
        return True
    if os.path.lexists(path):
        raise StoreError(f"{path}: not a folder; the store is a folder (give a new or empty one)")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise StoreError(f"{path}: cannot create the store: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise StoreError(f"{path}: cannot create the store: {parent} is not writable")
    return False


class ChunkStore:
    """One open store: its chunks by id, deletes and upserts. Use as a context manager:
    Qdrant's local mode locks the folder while it is open."""

    def __init__(self, path: str, client: "qdrant_client.QdrantClient", identity: StoreIdentity, dimension: int):
        self.path = path
        self._client = client
        self.identity = identity
        self.dimension = dimension

    def __enter__(self) -> "ChunkStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._client.close()

    def chunks(self) -> dict[str, StoredChunk]:
        """Every chunk in the store, by id: what a sync diffs against its target."""
        out: dict[str, StoredChunk] = {}
        offset = None
        keys = ["source", "chunk_hash", "params_hash", "embedding_model"]
        while True:
            points, offset = self._client.scroll(COLLECTION, limit=_SCROLL, offset=offset, with_payload=keys,
                                                 with_vectors=False)
            for p in points:
                payload = p.payload or {}
                out[str(p.id)] = StoredChunk(str(p.id), str(payload.get("source", "")),
                                             str(payload.get("chunk_hash", "")), str(payload.get("params_hash", "")),
                                             str(payload.get("embedding_model", "")))
            if offset is None:
                return out

    def points(self) -> dict[str, tuple[dict, np.ndarray]]:
        """Every point's payload and vector, by id (for tests and inspection)."""
        out = {}
        offset = None
        while True:
            points, offset = self._client.scroll(COLLECTION, limit=_SCROLL, offset=offset, with_payload=True,
                                                 with_vectors=True)
            for p in points:
                out[str(p.id)] = (dict(p.payload or {}), np.asarray(p.vector, dtype=np.float32))
            if offset is None:
                return out

    def delete(self, ids: Sequence[str]) -> None:
        if ids:
            models = qdrant().models
            self._client.delete(COLLECTION, points_selector=models.PointIdsList(points=list(ids)), wait=True)

    def upsert(self, payloads: Sequence[dict], vectors: np.ndarray) -> None:
        """Write each payload (it carries `id` and PAYLOAD_KEYS) with its vector."""
        if not payloads:
            return
        if vectors.shape != (len(payloads), self.dimension):
            raise StoreError(f"{self.path}: {vectors.shape[0]} vectors of dimension {vectors.shape[1]} for "
                             f"{len(payloads)} chunks; the store holds dimension {self.dimension}")
        models = qdrant().models
        points = [models.PointStruct(id=p["id"], vector=v.tolist(), payload={k: p[k] for k in PAYLOAD_KEYS})
                  for p, v in zip(payloads, vectors)]
        self._client.upsert(COLLECTION, points=points, wait=True)


def open_client(path: str) -> "qdrant_client.QdrantClient":
    module = qdrant()
    try:
        return module.QdrantClient(path=path)
    except RuntimeError as e:
        if "already accessed" in str(e):
            raise StoreError(f"{path}: the store is open in another process (one sync at a time)") from None
        raise StoreError(f"{path}: cannot open the store: {e}") from None
    except Exception as e:  # noqa: BLE001 - what a damaged folder makes the library raise: JSON, SQLite, pickle
        raise StoreError(f"{path}: cannot open the store (not a Qdrant local store, or damaged): "
                         f"{e.__class__.__name__}: {str(e).splitlines()[0] if str(e) else ''}") from None


def open_store(path: str, identity: StoreIdentity) -> ChunkStore:
    """The store at PATH, which must exist (check_store_path said True) and have been made
    for `identity`'s model and parameters, and, when both name one, the same repository."""
    client = open_client(path)
    try:
        if not client.collection_exists(COLLECTION):
            raise StoreError(f"{path}: a Qdrant store without the collection {COLLECTION}: not a Steadlith store; "
                             "give a new or empty folder")
        info = client.get_collection(COLLECTION)
        meta = dict(getattr(info.config, "metadata", None) or {})
        if meta.get("schema") != STORE_SCHEMA:
            raise StoreError(f"{path}: not a Steadlith store of this version (schema {meta.get('schema')!r}); "
                             + _fresh_hint(path))
        if meta.get("embedding_model") != identity.embedding_model:
            raise StoreError(f"{path}: the store holds vectors of {meta.get('embedding_model')}, not of "
                             f"{identity.embedding_model}; " + _fresh_hint(path))
        if meta.get("params_hash") != identity.params_hash:
            raise StoreError(f"{path}: the store holds chunks cut with other parameters ({meta.get('boundary_rule')}, "
                             f"params hash {str(meta.get('params_hash'))[:16]}; this run {identity.boundary_rule}, "
                             f"{identity.params_hash[:16]}); give the same --set/--preset, or " + _fresh_hint(path))
        roots = set(meta.get("repository_roots") or ())
        if roots and identity.repository_roots and not roots & set(identity.repository_roots):
            raise StoreError(f"{path}: the store was synced from another repository (root commit "
                             f"{sorted(roots)[0][:12]}; this one {identity.repository_roots[0][:12]}); "
                             + _fresh_hint(path))
        dimension = meta.get("dimension")
        if type(dimension) is not int or dimension < 1:
            raise StoreError(f"{path}: the store's metadata has no vector dimension; " + _fresh_hint(path))
        return ChunkStore(path, client, identity, dimension)
    except BaseException:
        client.close()
        raise


def _alive(pid: str) -> bool:
    """Whether the process that named a temporary store folder still runs (then the
    folder is its work in progress, not a leftover). On Windows os.kill would end the
    process, so there every such folder counts as alive and stays."""
    if os.name == "nt":
        return True
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except OSError:  # another user's process: alive
        return True
    return True


def create_store(path: str, identity: StoreIdentity, dimension: int) -> ChunkStore:
    """A new empty store at PATH (missing or an empty folder), made whole in a temporary
    folder beside it and renamed into place, then opened."""
    models = qdrant().models
    parent = os.path.dirname(os.path.abspath(path))
    name = os.path.basename(os.path.abspath(path))
    for stale in os.listdir(parent):  # left by a run killed while creating this store
        if stale.startswith(f".{name}.creating-") and not _alive(stale.split("-")[-2]):
            shutil.rmtree(os.path.join(parent, stale), ignore_errors=True)
    # os.mkdir, not mkdtemp: the store gets the folder mode the user's umask gives
    work = os.path.join(parent, f".{name}.creating-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        os.mkdir(work)
    except OSError as e:
        raise StoreError(f"{path}: cannot create the store: {e.strerror or e}") from None
    try:
        client = open_client(work)
        try:
            client.create_collection(COLLECTION, vectors_config=models.VectorParams(
                size=dimension, distance=models.Distance.COSINE), metadata=identity.metadata(dimension))
        finally:
            client.close()
        if os.path.isdir(path):
            os.rmdir(path)  # empty (check_store_path): rename cannot replace a folder on every system
        os.rename(work, path)
    except OSError as e:
        shutil.rmtree(work, ignore_errors=True)
        raise StoreError(f"{path}: cannot create the store: {e.strerror or e}") from None
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return open_store(path, identity)


def payload_of(chunk_id: str, source: str, chunk_hash: str, identity: StoreIdentity, tokens: int,
               text: str) -> dict:
    return {"id": chunk_id, "source": source, "chunk_hash": chunk_hash, "params_hash": identity.params_hash,
            "embedding_model": identity.embedding_model, "tokens": tokens, "text": text}
