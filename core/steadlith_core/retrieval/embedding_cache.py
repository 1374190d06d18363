"""Embedding vectors kept across runs, keyed by (embedding model id, the caller's key).

The key names what was embedded: the retrieval evaluation passes a hash of each chunk's
text (an embedding depends on the model and the text alone), a pipeline may pass chunk
hashes (docs/contract/identity.md#chunk-hash). The embedding model is in neither, so the
cache key adds the model id (an Embedder's `model_id` pins its weights). A third key part, the kind, keeps question vectors
(keyed by a hash of the question's text) apart from chunk vectors: a model may embed
queries differently.

On disk the cache is one SQLite database in write-ahead-log mode in a directory of its
own. Why SQLite rather than append-only files of our own:
- crash safety is SQLite's transaction: a process killed at any instruction leaves
  each put wholly in or wholly out, and the next open rolls back whatever the log
  holds of an unfinished transaction. Nothing of ours is ever half-written, and there
  is no temporary file to clean up (the `-wal` and `-shm` files beside the database
  are SQLite's own, part of the database while it is in use);
- in WAL mode readers never block the writer nor it them, across processes, and
  writers wait their turn (a busy timeout, not an error);
- eviction is deleting rows: free pages are reused by later puts, so the file stays
  near the bound instead of growing until a compaction.

The bound is `max_bytes` of vector data (the float32 bytes; SQLite's keys, index and
pages add about a tenth for 384-dimension vectors) and optionally `max_entries`. Each
lookup or put stamps the entries it touches with the next tick of a logical clock
kept in the database; after a put that leaves the cache over a bound, the entries with
the oldest stamps are deleted in the same transaction: least recently used first.
Running totals are kept by triggers, inside the same transactions as the rows.

Vectors are stored as little-endian float32 bytes with their dimension; a read checks
the length against the dimension.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from .embedders import EmbeddingError

DATABASE = "embeddings.sqlite"
SCHEMA_VERSION = 1
DEFAULT_MAX_BYTES = 2 << 30  # 2 GiB of vectors: about 1.4 million 384-dimension entries
BUSY_TIMEOUT_S = 60.0
_BATCH = 500  # keys per SQL statement, under every SQLite build's variable limit
_VECTOR = np.dtype("<f4")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS vectors (
    model TEXT NOT NULL,
    kind TEXT NOT NULL,
    key TEXT NOT NULL,
    dim INTEGER NOT NULL,
    vector BLOB NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (model, kind, key)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS vectors_by_use ON vectors (used);
CREATE TABLE IF NOT EXISTS totals (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    entries INTEGER NOT NULL,
    bytes INTEGER NOT NULL,
    clock INTEGER NOT NULL
);
INSERT OR IGNORE INTO totals VALUES (0, 0, 0, 0);
CREATE TRIGGER IF NOT EXISTS vectors_added AFTER INSERT ON vectors BEGIN
    UPDATE totals SET entries = entries + 1, bytes = bytes + length(NEW.vector) WHERE id = 0;
END;
CREATE TRIGGER IF NOT EXISTS vectors_removed AFTER DELETE ON vectors BEGIN
    UPDATE totals SET entries = entries - 1, bytes = bytes - length(OLD.vector) WHERE id = 0;
END;
CREATE TRIGGER IF NOT EXISTS vectors_replaced AFTER UPDATE OF vector ON vectors BEGIN
    UPDATE totals SET bytes = bytes - length(OLD.vector) + length(NEW.vector) WHERE id = 0;
END;
"""


@dataclass(frozen=True)
class EmbedCounts:
    """What one call embedded and what it took from the cache, over distinct keys."""

    embedded: int
    reused: int

    def __str__(self) -> str:
        return f"embedded {self.embedded}, reused {self.reused}"


def _blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype=_VECTOR).tobytes()


class _Cache:
    """What both caches share: `embed_through`, over their own get_many/put_many."""

    def get_many(self, model: str, kind: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        raise NotImplementedError

    def put_many(self, model: str, kind: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        raise NotImplementedError

    def embed_through(self, model: str, kind: str, keys: Sequence[str], texts: Sequence[str],
                      embed: Callable[[list[str]], np.ndarray]) -> tuple[np.ndarray, EmbedCounts]:
        """One float32 row per key: cached rows where (model, kind, key) is present, the
        rest from `embed` over their texts (each distinct key once), which are then
        stored. Every row must have one dimension, cached or new: a cached vector of
        another size means `model` did not pin the model that made it."""
        if len(keys) != len(texts):
            raise EmbeddingError(f"{len(keys)} keys for {len(texts)} texts")
        distinct = list(dict.fromkeys(keys))
        found = self.get_many(model, kind, distinct)
        missing = [k for k in distinct if k not in found]
        if missing:
            first = {}
            for k, t in zip(keys, texts):
                first.setdefault(k, t)
            new = np.asarray(embed([first[k] for k in missing]))
            if new.ndim != 2 or new.shape[0] != len(missing):
                raise EmbeddingError(f"the embedder for {model} returned shape {new.shape} "
                                     f"for {len(missing)} texts")
            new = new.astype(np.float32, copy=False)
            self.put_many(model, kind, zip(missing, new))
            found.update(zip(missing, new))
        dims = {v.shape[0] for v in found.values()}
        if len(dims) > 1:
            raise EmbeddingError(f"the cache holds vectors of dimensions {sorted(dims)} for model {model!r}: "
                                 "its model id does not pin one model; give each model its own id")
        dim = dims.pop() if dims else 0
        out = np.empty((len(keys), dim), np.float32)
        for i, k in enumerate(keys):
            out[i] = found[k]
        return out, EmbedCounts(len(missing), len(distinct) - len(missing))


class MemoryEmbeddingCache(_Cache):
    """The cache of one process: a dict with least-recently-used eviction past
    `max_entries`. What the retriever keeps when given no cache directory."""

    def __init__(self, max_entries: int = 1_000_000):
        if type(max_entries) is not int or max_entries < 1:
            raise EmbeddingError(f"max_entries must be a positive integer, got {max_entries!r}")
        self.max_entries = max_entries
        self._entries: OrderedDict[tuple[str, str, str], np.ndarray] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get_many(self, model: str, kind: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found = {}
        for k in keys:
            v = self._entries.get((model, kind, k))
            if v is not None:
                self._entries.move_to_end((model, kind, k))
                found[k] = v
        return found

    def put_many(self, model: str, kind: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        for k, v in items:
            self._entries[(model, kind, k)] = np.array(v, dtype=np.float32)
            self._entries.move_to_end((model, kind, k))
        while len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)


class EmbeddingCache(_Cache):
    """Vectors on disk under `directory` (created if missing): see the module doc.

    One instance may be shared by threads; processes each open their own. Use as a
    context manager, or call close()."""

    def __init__(self, directory: str | os.PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES,
                 max_entries: int | None = None):
        for name, value in (("max_bytes", max_bytes), ("max_entries", max_entries)):
            if value is not None and (type(value) is not int or value < 1):
                raise EmbeddingError(f"{name} must be a positive integer, got {value!r}")
        self.directory = Path(directory)
        self.max_bytes = max_bytes
        self.max_entries = max_entries
        self.path = self.directory / DATABASE
        where = str(self.directory)
        if self.directory.exists() and not self.directory.is_dir():
            raise EmbeddingError(f"{where}: the embedding cache must be a directory, and this is a file")
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise EmbeddingError(f"{where}: cannot create the embedding cache directory: {e.strerror or e}") from None
        if not os.access(self.directory, os.W_OK | os.X_OK):
            raise EmbeddingError(f"{where}: the embedding cache directory is not writable")
        self._lock = threading.Lock()
        try:
            self._db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None,
                                       check_same_thread=False)
        except sqlite3.Error as e:
            raise EmbeddingError(f"{self.path}: cannot open the embedding cache: {e}") from None
        try:
            self._open()
        except BaseException:
            self._db.close()
            raise

    def _fail(self, e: sqlite3.Error, doing: str) -> EmbeddingError:
        return EmbeddingError(f"{self.path}: cannot {doing} the embedding cache: {e}")

    def _open(self) -> None:
        db = self._db
        try:
            version = db.execute("PRAGMA user_version").fetchone()[0]
            tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if version != SCHEMA_VERSION and (version or tables):
                raise EmbeddingError(f"{self.path}: not an embedding cache of this version "
                                     f"(schema {version}, tables {', '.join(sorted(tables)) or 'none'})")
            if db.execute("PRAGMA journal_mode = WAL").fetchone()[0].lower() != "wal":
                raise EmbeddingError(f"{self.path}: SQLite cannot keep a write-ahead log here "
                                     "(a network file system?): the cache needs one for safe concurrent use")
            # in WAL mode NORMAL loses no committed transaction when a process dies, only
            # possibly the last ones at a power cut, and never tears one
            db.execute("PRAGMA synchronous = NORMAL")
            if version != SCHEMA_VERSION:
                # one transaction, the version stamp included: a process killed while
                # creating leaves an empty database, created again by the next open
                try:
                    db.executescript(f"BEGIN IMMEDIATE;{_SCHEMA}PRAGMA user_version = {SCHEMA_VERSION};COMMIT;")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
        except sqlite3.DatabaseError as e:
            raise self._fail(e, "open") from None

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> "EmbeddingCache":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def totals(self) -> tuple[int, int]:
        """(entries, vector bytes) now in the cache."""
        with self._lock:
            try:
                entries, size = self._db.execute("SELECT entries, bytes FROM totals WHERE id = 0").fetchone()
            except sqlite3.Error as e:
                raise self._fail(e, "read") from None
        return entries, size

    def _tick(self) -> int:
        self._db.execute("UPDATE totals SET clock = clock + 1 WHERE id = 0")
        return self._db.execute("SELECT clock FROM totals WHERE id = 0").fetchone()[0]

    def get_many(self, model: str, kind: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        """The vectors present among `keys`; they become the most recently used."""
        keys = list(dict.fromkeys(keys))
        found: dict[str, np.ndarray] = {}
        with self._lock:
            try:
                for i in range(0, len(keys), _BATCH):
                    part = keys[i:i + _BATCH]
                    rows = self._db.execute(
                        f"SELECT key, dim, vector FROM vectors WHERE model = ? AND kind = ? "
                        f"AND key IN ({','.join('?' * len(part))})", (model, kind, *part))
                    for key, dim, blob in rows:
                        if not isinstance(blob, bytes) or type(dim) is not int or len(blob) != dim * 4:
                            raise EmbeddingError(f"{self.path}: the entry ({model}, {kind}, {key}) is corrupt: "
                                                 f"{len(blob) if isinstance(blob, bytes) else 'no'} bytes "
                                                 f"for dimension {dim}")
                        found[key] = np.frombuffer(blob, dtype=_VECTOR).astype(np.float32)
                if found:
                    self._touch(model, kind, list(found))
            except sqlite3.Error as e:
                raise self._fail(e, "read") from None
        return found

    def _touch(self, model: str, kind: str, keys: list[str]) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            if "readonly" in str(e):  # a cache on read-only media is still read
                return
            raise
        try:
            tick = self._tick()
            for i in range(0, len(keys), _BATCH):
                part = keys[i:i + _BATCH]
                self._db.execute(f"UPDATE vectors SET used = ? WHERE model = ? AND kind = ? "
                                 f"AND key IN ({','.join('?' * len(part))})", (tick, model, kind, *part))
            self._db.execute("COMMIT")
        except sqlite3.OperationalError as e:
            self._db.execute("ROLLBACK")
            if "readonly" not in str(e):
                raise

    def put_many(self, model: str, kind: str, items: Iterable[tuple[str, np.ndarray]]) -> None:
        """Store the vectors (replacing any under the same keys), then evict the least
        recently used entries past the bounds: all in one transaction."""
        rows = []
        for key, vector in items:
            v = np.asarray(vector)
            if v.ndim != 1 or v.shape[0] == 0:
                raise EmbeddingError(f"the vector for ({model}, {kind}, {key}) has shape {v.shape}, "
                                     "not one non-empty row")
            rows.append((model, kind, key, int(v.shape[0]), _blob(v)))
        if not rows:
            return
        with self._lock:
            db = self._db
            try:
                db.execute("BEGIN IMMEDIATE")
                try:
                    tick = self._tick()
                    # an upsert, not INSERT OR REPLACE: REPLACE's implicit delete fires no
                    # trigger, and the totals would drift
                    db.executemany("INSERT INTO vectors (model, kind, key, dim, vector, used) "
                                   "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (model, kind, key) DO UPDATE "
                                   "SET dim = excluded.dim, vector = excluded.vector, used = excluded.used",
                                   [(*r, tick) for r in rows])
                    self._evict()
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as e:
                raise self._fail(e, "write") from None

    def _evict(self) -> None:
        db = self._db
        while True:
            entries, size = db.execute("SELECT entries, bytes FROM totals WHERE id = 0").fetchone()
            over_entries = max(0, entries - self.max_entries) if self.max_entries is not None else 0
            over_bytes = max(0, size - self.max_bytes) if self.max_bytes is not None else 0
            if not over_entries and not over_bytes:
                return
            victims, freed = [], 0
            for model, kind, key, length in db.execute(
                    "SELECT model, kind, key, length(vector) FROM vectors ORDER BY used LIMIT ?", (_BATCH,)):
                if len(victims) >= over_entries and freed >= over_bytes:
                    break
                victims.append((model, kind, key))
                freed += length
            if not victims:
                return
            db.executemany("DELETE FROM vectors WHERE model = ? AND kind = ? AND key = ?", victims)
