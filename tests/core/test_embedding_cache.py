"""The on-disk embedding cache: round trips, keys, the LRU bound, bad directories, and
that a writer killed at any moment leaves only whole entries."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from steadlith_core.errors import SteadlithError
from steadlith_core.retrieval.embedding_cache import (
    DATABASE,
    EmbedCounts,
    EmbeddingCache,
    MemoryEmbeddingCache,
)
from steadlith_core.retrieval.embedders import EmbeddingError

pytestmark = pytest.mark.kernel_independent

MODEL = "fake@0123456789abcdef"


def vector(key: str, dim: int = 8) -> np.ndarray:
    """The one vector a test ever writes under `key`: a reader can check it knows it."""
    seed = int.from_bytes(key.encode()[-8:].rjust(8, b"\0"), "little")
    return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)


def test_round_trip_is_exact_and_survives_reopening(tmp_path):
    keys = [f"h{i:04d}" for i in range(50)]
    with EmbeddingCache(tmp_path / "c") as cache:
        cache.put_many(MODEL, "chunk", [(k, vector(k)) for k in keys])
        assert cache.totals() == (50, 50 * 8 * 4)
        cache.put_many(MODEL, "chunk", [(k, vector(k)) for k in keys[:10]])  # rewriting counts once
        assert cache.totals() == (50, 50 * 8 * 4)
    with EmbeddingCache(tmp_path / "c") as cache:
        found = cache.get_many(MODEL, "chunk", keys + ["absent"])
    assert sorted(found) == keys
    for k in keys:
        assert found[k].dtype == np.float32 and found[k].tobytes() == vector(k).tobytes()


def test_model_and_kind_are_part_of_the_key(tmp_path):
    with EmbeddingCache(tmp_path) as cache:
        cache.put_many(MODEL, "chunk", [("h", vector("a"))])
        assert cache.get_many("other@00", "chunk", ["h"]) == {}
        assert cache.get_many(MODEL, "query", ["h"]) == {}
        assert cache.get_many(MODEL, "chunk", ["h"])["h"].tobytes() == vector("a").tobytes()


def test_embed_through_embeds_only_missing_keys_once_each(tmp_path):
    calls = []

    def embed(texts):
        calls.append(list(texts))
        return np.stack([vector(t) for t in texts])

    with EmbeddingCache(tmp_path) as cache:
        rows, counts = cache.embed_through(MODEL, "chunk", ["a", "b", "a"], ["ta", "tb", "ta"], embed)
        assert counts == EmbedCounts(embedded=2, reused=0) and calls == [["ta", "tb"]]
        assert rows[0].tobytes() == rows[2].tobytes() == vector("ta").tobytes()
        rows, counts = cache.embed_through(MODEL, "chunk", ["a", "c"], ["ta", "tc"], embed)
        assert str(counts) == "embedded 1, reused 1" and calls[-1] == ["tc"]
        assert rows[0].tobytes() == vector("ta").tobytes()


def test_a_model_id_that_changes_dimension_is_one_clear_error(tmp_path):
    with EmbeddingCache(tmp_path) as cache:
        cache.put_many(MODEL, "chunk", [("a", vector("a", 8))])
        with pytest.raises(SteadlithError, match="dimensions \\[4, 8\\].*does not pin one model"):
            cache.embed_through(MODEL, "chunk", ["a", "b"], ["ta", "tb"],
                                lambda texts: np.ones((len(texts), 4), np.float32))


def test_a_stored_vector_whose_length_disagrees_with_its_dimension_is_refused(tmp_path):
    with EmbeddingCache(tmp_path) as cache:
        cache.put_many(MODEL, "chunk", [("a", vector("a"))])
    db = sqlite3.connect(tmp_path / DATABASE)
    db.execute("UPDATE vectors SET dim = 7")
    db.commit()
    db.close()
    with EmbeddingCache(tmp_path) as cache, pytest.raises(EmbeddingError, match="is corrupt: 32 bytes for dimension 7"):
        cache.get_many(MODEL, "chunk", ["a"])


def stored(directory: Path) -> list[str]:
    """The keys on disk, read without touching them (a lookup would make them recent)."""
    db = sqlite3.connect(directory / DATABASE)
    try:
        return sorted(k for (k,) in db.execute("SELECT key FROM vectors"))
    finally:
        db.close()


def test_least_recently_used_entries_go_first_past_max_entries(tmp_path):
    with EmbeddingCache(tmp_path, max_entries=4) as cache:
        cache.put_many(MODEL, "chunk", [(k, vector(k)) for k in "ab"])
        cache.put_many(MODEL, "chunk", [(k, vector(k)) for k in "cd"])
        cache.get_many(MODEL, "chunk", ["a"])  # a is now newer than b, c, d
        cache.put_many(MODEL, "chunk", [("e", vector("e"))])
        assert stored(tmp_path) == ["a", "c", "d", "e"]
        cache.get_many(MODEL, "chunk", ["c", "b"])  # c newer than a, d; b is gone
        cache.put_many(MODEL, "chunk", [(k, vector(k)) for k in "fg"])
        assert cache.totals()[0] == 4
        assert stored(tmp_path) == ["c", "e", "f", "g"]


def test_max_bytes_bounds_the_vector_bytes(tmp_path):
    with EmbeddingCache(tmp_path, max_bytes=10 * 32) as cache:
        for i in range(30):
            cache.put_many(MODEL, "chunk", [(f"k{i}", vector(f"k{i}"))])
            entries, size = cache.totals()
            assert size <= 10 * 32 and size == entries * 32
    assert stored(tmp_path) == sorted(f"k{i}" for i in range(20, 30))


def test_the_memory_cache_evicts_least_recently_used(tmp_path):
    cache = MemoryEmbeddingCache(max_entries=2)
    cache.put_many(MODEL, "chunk", [("a", vector("a")), ("b", vector("b"))])
    cache.get_many(MODEL, "chunk", ["a"])
    cache.put_many(MODEL, "chunk", [("c", vector("c"))])
    assert sorted(cache.get_many(MODEL, "chunk", list("abc"))) == ["a", "c"]


def test_a_file_where_the_directory_should_be_is_one_line(tmp_path):
    (tmp_path / "f").write_text("x")
    for where in (tmp_path / "f", tmp_path / "f" / "below"):
        with pytest.raises(SteadlithError) as caught:
            EmbeddingCache(where)
        assert "\n" not in str(caught.value) and str(tmp_path / "f") in str(caught.value)


def test_a_database_file_that_is_not_a_cache_is_one_line(tmp_path):
    (tmp_path / DATABASE).write_bytes(b"this is not SQLite" * 100)
    with pytest.raises(SteadlithError, match="cannot open the embedding cache: file is not a database"):
        EmbeddingCache(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    db = sqlite3.connect(other / DATABASE)
    db.execute("CREATE TABLE notes (x)")
    db.commit()
    db.close()
    with pytest.raises(SteadlithError, match="not an embedding cache of this version"):
        EmbeddingCache(other)


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_directory_is_one_line(tmp_path):
    tmp_path.chmod(0o500)
    try:
        with pytest.raises(SteadlithError, match="not writable"):
            EmbeddingCache(tmp_path)
    finally:
        tmp_path.chmod(0o700)


def test_bad_bounds_are_refused(tmp_path):
    with pytest.raises(SteadlithError, match="max_bytes must be a positive integer"):
        EmbeddingCache(tmp_path, max_bytes=0)
    with pytest.raises(SteadlithError, match="max_entries must be a positive integer"):
        EmbeddingCache(tmp_path, max_entries=-1)


def test_readers_in_other_connections_see_whole_batches_while_a_writer_writes(tmp_path):
    EmbeddingCache(tmp_path).close()
    errors: list[BaseException] = []
    done = threading.Event()

    def write():
        try:
            with EmbeddingCache(tmp_path) as cache:
                for b in range(40):
                    cache.put_many(MODEL, "chunk", [(f"b{b}-{i}", vector(f"b{b}-{i}")) for i in range(25)])
        except BaseException as e:  # pragma: no cover - reported below
            errors.append(e)
        finally:
            done.set()

    def read():
        try:
            with EmbeddingCache(tmp_path) as cache:
                while not done.is_set():
                    for b in range(40):
                        keys = [f"b{b}-{i}" for i in range(25)]
                        found = cache.get_many(MODEL, "chunk", keys)
                        assert len(found) in (0, 25), "a batch was seen half written"
                        for k, v in found.items():
                            assert v.tobytes() == vector(k).tobytes()
        except BaseException as e:
            errors.append(e)

    threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors, errors


_WRITER = textwrap.dedent("""
    import sys
    import numpy as np
    from steadlith_core.retrieval.embedding_cache import EmbeddingCache

    def vector(key, dim):
        seed = int.from_bytes(key.encode()[-8:].rjust(8, b"\\0"), "little")
        return np.random.default_rng(seed).standard_normal(dim).astype(np.float32)

    cache = EmbeddingCache(sys.argv[1], max_entries=400)
    print("ready", flush=True)
    n = int(sys.argv[2])
    while True:  # killed from outside
        keys = [f"k{(n * 37 + i) % 997}" for i in range(60)]
        # two models of two dimensions: a torn write would show as a wrong length
        cache.put_many("m8", "chunk", [(k, vector(k, 8)) for k in keys])
        cache.put_many("m384", "chunk", [(k, vector(k, 384)) for k in keys[:20]])
        cache.get_many("m8", "chunk", keys[::3])
        n += 1
""")


def test_a_writer_killed_at_random_points_leaves_only_whole_entries(tmp_path):
    """SIGKILL a process in the middle of puts, touches and evictions, again and again
    on one cache: every open must succeed, every entry must read back as written, the
    running totals must match the rows, and no file but SQLite's own may appear."""
    directory = tmp_path / "cache"
    rng = random.Random(1234)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    seen_entries = 0
    for round_ in range(16):
        writer = subprocess.Popen([sys.executable, "-c", _WRITER, str(directory), str(round_ * 11)],
                                  stdout=subprocess.PIPE, env=env)
        try:
            if round_ % 4:  # most rounds kill while writing; the others also while opening
                assert writer.stdout.readline().strip() == b"ready"
            time.sleep(rng.uniform(0.0, 0.25))
        finally:
            writer.send_signal(signal.SIGKILL)
            writer.wait()
            writer.stdout.close()
        if not directory.exists():  # killed before it made the directory
            continue
        assert {p.name for p in directory.iterdir()} <= {DATABASE, DATABASE + "-wal", DATABASE + "-shm"}
        with EmbeddingCache(directory, max_entries=400) as cache:
            db = sqlite3.connect(directory / DATABASE)
            try:
                assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
                rows = db.execute("SELECT model, kind, key, dim FROM vectors").fetchall()
                assert db.execute("SELECT entries, bytes FROM totals").fetchone() == (
                    len(rows), sum(dim * 4 for *_, dim in rows))
            finally:
                db.close()
            for model, dim in (("m8", 8), ("m384", 384)):
                keys = [k for m, _, k, _ in rows if m == model]
                found = cache.get_many(model, "chunk", keys)
                assert sorted(found) == sorted(keys)
                for k, v in found.items():
                    assert v.tobytes() == vector(k, dim).tobytes(), (round_, model, k)
            seen_entries = max(seen_entries, len(rows))
    assert seen_entries > 0, "no round got as far as writing: the kill test tested nothing"
