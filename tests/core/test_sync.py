"""`steadlith sync NEW --store PATH`: a real Qdrant local-mode store (extra `qdrant`)
brought to NEW's chunks by stable id, embedding only what the cache lacks; idempotent,
converging after SIGKILL at any point, and refusing bad input before writing anything."""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("qdrant_client")

from cli_helpers import run  # noqa: E402
from git_history import History  # noqa: E402
from steadlith_core.bench.examples import tool_library_text  # noqa: E402
from steadlith_core.chunking.identity import chunk_ids  # noqa: E402
from steadlith_core.chunking.params import ChunkerParams  # noqa: E402
from steadlith_core.chunking.pipeline import chunk  # noqa: E402
from steadlith_core.history.plan import make_plan  # noqa: E402
from steadlith_core.history.sync import store_points  # noqa: E402
from sync_helpers import WordHashEmbedder  # noqa: E402

pytestmark = pytest.mark.kernel_independent  # the layer above the chunker: no numpy re-run

HERE = Path(__file__).parent
EMBEDDER = "sync_helpers:WordHashEmbedder"
TEXT = tool_library_text()
EDITED = TEXT.replace("passes half", "exceeds half", 1)
OTHER = "A short second document.\n\nIt has two paragraphs of its own.\n"


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A corpus folder, a store path, a cache folder, and the embedder's log (every text
    it embeds, one JSON line each)."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "sub" / "notes.md").write_text(TEXT, encoding="utf-8")
    (docs / "other.md").write_text(OTHER, encoding="utf-8")
    log = tmp_path / "embedded.jsonl"
    monkeypatch.setenv("STEADLITH_TEST_EMBED_LOG", str(log))
    return {"docs": docs, "store": tmp_path / "store", "cache": tmp_path / "cache", "log": log, "tmp": tmp_path}


def sync(capsys, env, *extra, store=None, target=None, embedder=EMBEDDER):
    return run(capsys, "sync", str(target or env["docs"]), "--store", str(store or env["store"]),
               "--cache", str(env["cache"]), "--embedder", embedder, *extra)


def embedded(env) -> list[str]:
    log = env["log"]
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()] if log.exists() else []


def ids(text: str, source: str) -> list[str]:
    return chunk_ids(source, [c.hash for c in chunk(text, ChunkerParams()).chunks])


def same_points(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(a[i][0] == b[i][0] and np.array_equal(a[i][1], b[i][1]) for i in a)


def counts(out: str) -> str:
    return out.split(";")[0]


def test_a_first_sync_stores_every_chunk_with_its_vector_text_source_and_identity(capsys, env):
    code, out, err = sync(capsys, env)
    assert code == 0, err
    expected = set(ids(TEXT, "sub/notes.md")) | set(ids(OTHER, "other.md"))
    assert counts(out) == f"sync: embedded {len(expected)}, reused 0, deleted 0, upserted {len(expected)}, 0 unchanged"
    points = store_points(str(env["store"]))
    assert set(points) == expected
    assert sorted(embedded(env)) == sorted(p["text"] for p, _ in points.values())
    params = ChunkerParams()
    for payload, vector in points.values():
        text = {"sub/notes.md": TEXT, "other.md": OTHER}[payload["source"]]
        assert payload["text"] in text and payload["tokens"] > 0
        assert payload["params_hash"] == params.params_hash
        assert payload["embedding_model"] == WordHashEmbedder.model_id
        np.testing.assert_allclose(vector, WordHashEmbedder().embed([payload["text"]])[0], rtol=1e-6)


def test_running_twice_changes_nothing_and_embeds_nothing(capsys, env):
    assert sync(capsys, env)[0] == 0
    before, log = store_points(str(env["store"])), embedded(env)
    code, out, _ = sync(capsys, env)
    assert code == 0
    assert counts(out) == f"sync: embedded 0, reused 0, deleted 0, upserted 0, {len(before)} unchanged"
    assert same_points(store_points(str(env["store"])), before) and embedded(env) == log


def test_a_one_word_edit_embeds_only_its_chunk_and_ends_where_a_clean_sync_does(capsys, env):
    assert sync(capsys, env)[0] == 0
    (env["docs"] / "sub" / "notes.md").write_text(EDITED, encoding="utf-8")
    (env["docs"] / "other.md").unlink()
    seen = len(embedded(env))
    code, out, _ = sync(capsys, env, "--format", "json")
    assert code == 0
    result = json.loads(out)
    changed = set(ids(EDITED, "sub/notes.md")) - set(ids(TEXT, "sub/notes.md"))
    assert 1 <= result["upserted"] == len(changed) <= 2 and result["embedded"] == len(changed)
    assert result["deleted"] == len(changed) + len(ids(OTHER, "other.md"))  # other.md went with all its chunks
    assert len(embedded(env)) - seen == len(changed)
    clean = env["tmp"] / "clean"
    env["cache"] = env["tmp"] / "clean-cache"
    assert sync(capsys, env, store=clean)[0] == 0
    assert same_points(store_points(str(env["store"])), store_points(str(clean)))


def test_a_new_store_takes_every_vector_from_the_cache(capsys, env):
    assert sync(capsys, env)[0] == 0
    seen = len(embedded(env))
    code, out, _ = sync(capsys, env, store=env["tmp"] / "second")
    assert code == 0 and counts(out) == f"sync: embedded 0, reused {seen}, deleted 0, upserted {seen}, 0 unchanged"
    assert len(embedded(env)) == seen


def test_a_plan_is_applied_and_a_plan_of_another_target_or_store_is_refused(capsys, env):
    old = env["tmp"] / "old"
    (old / "sub").mkdir(parents=True)
    (old / "sub" / "notes.md").write_text(TEXT, encoding="utf-8")
    assert sync(capsys, env, target=old)[0] == 0
    code, plan, _ = run(capsys, "plan", str(old), str(env["docs"]))
    assert code == 0
    (env["tmp"] / "plan.jsonl").write_text(plan, encoding="utf-8")
    # a store that is not at the plan's OLD (it holds the edited notes): refused, nothing written
    edited = env["tmp"] / "edited"
    (edited / "sub").mkdir(parents=True)
    (edited / "sub" / "notes.md").write_text(EDITED, encoding="utf-8")
    elsewhere = env["tmp"] / "elsewhere"
    assert sync(capsys, env, target=edited, store=elsewhere)[0] == 0
    before = store_points(str(elsewhere))
    code, out, err = sync(capsys, env, "--plan", str(env["tmp"] / "plan.jsonl"), store=elsewhere)
    assert code == 2 and out == "" and "the store is not at the plan's OLD" in err and err.count("\n") == 1
    assert same_points(store_points(str(elsewhere)), before)
    code, out, err = sync(capsys, env, "--plan", str(env["tmp"] / "plan.jsonl"))
    assert code == 0, err
    assert counts(out) == f"sync: embedded {len(ids(OTHER, 'other.md'))}, reused 0, deleted 0, " \
                          f"upserted {len(ids(OTHER, 'other.md'))}, {len(ids(TEXT, 'sub/notes.md'))} unchanged"
    code, out, _ = sync(capsys, env, "--from", str(old))  # applied: what is left of the plan is nothing
    assert code == 0 and "deleted 0, upserted 0" in out


def test_a_plan_of_another_repository_is_refused_before_anything_is_written(capsys, env):
    mine, theirs = History(env["tmp"] / "mine"), History(env["tmp"] / "theirs")
    mine.commit({"docs/notes.md": TEXT}, "first")
    first = theirs.commit({"docs/notes.md": OTHER}, "first")
    theirs.commit({"docs/notes.md": OTHER + "\nOne more line.\n"}, "second")
    target = f"{env['tmp'] / 'mine'}@HEAD:docs/*.md"
    assert sync(capsys, env, target=target)[0] == 0
    repo = env["tmp"] / "theirs"
    code, plan, _ = run(capsys, "plan", f"{repo}@{first}:docs/*.md", f"{repo}@HEAD:docs/*.md")
    assert code == 0 and plan
    (env["tmp"] / "theirs.jsonl").write_text(plan, encoding="utf-8")
    before, log = store_points(str(env["store"])), embedded(env)
    code, out, err = sync(capsys, env, "--plan", str(env["tmp"] / "theirs.jsonl"), target=target)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "which is not a chunk of NEW: a plan of another repository" in err
    # and the other repository itself, into this store: refused by the store's record of its roots
    code, out, err = sync(capsys, env, target=f"{repo}@HEAD:docs/*.md")
    assert code == 2 and "the store was synced from another repository" in err and err.count("\n") == 1
    assert same_points(store_points(str(env["store"])), before) and embedded(env) == log


@pytest.mark.parametrize("case", ["file", "no-parent", "foreign-folder", "other-model", "other-params", "bad-plan",
                                  "in-use", "unknown-embedder", "damaged"])
def test_bad_input_is_one_line_exit_2_and_writes_nothing(capsys, env, case):
    assert sync(capsys, env)[0] == 0
    before, log = store_points(str(env["store"])), embedded(env)
    store, extra, embedder = env["store"], [], EMBEDDER
    env["cache"] = env["tmp"] / "new-cache"  # must not be created either
    expected = {"file": "not a folder", "no-parent": "is not a folder", "foreign-folder": "not a Steadlith store",
                "other-model": "delete", "other-params": "other parameters", "bad-plan": "plan.jsonl:2: not JSON",
                "in-use": "open in another process", "unknown-embedder": "--embedder",
                "damaged": "damaged): DatabaseError"}[case]
    holder = None
    if case == "file":
        store = env["docs"] / "other.md"
    elif case == "no-parent":
        store = env["docs"] / "other.md" / "store"
    elif case == "foreign-folder":
        store = env["docs"]
    elif case == "other-model":
        embedder = "sync_helpers:OtherModel"
    elif case == "other-params":
        extra = ["--set", "max_tokens=300"]
    elif case == "bad-plan":
        (env["tmp"] / "plan.jsonl").write_text('{"op": "delete", "id": "x", "chunk_hash": "y"}\n{oops\n')
        extra = ["--plan", str(env["tmp"] / "plan.jsonl")]
    elif case == "in-use":
        import qdrant_client

        holder = qdrant_client.QdrantClient(path=str(store))
    elif case == "unknown-embedder":
        embedder = "sync_helpers:NoSuchModel"
    elif case == "damaged":
        store = env["tmp"] / "damaged"
        shutil.copytree(env["store"], store)
        (store / "collection" / "steadlith_chunks" / "storage.sqlite").write_bytes(b"not a database" * 100)
    (env["docs"] / "other.md").write_text(OTHER + "\nA change that a wrong run would write.\n", encoding="utf-8") \
        if case not in ("file", "no-parent") else None
    try:
        code, out, err = sync(capsys, env, *extra, store=store, embedder=embedder)
    finally:
        if holder is not None:
            holder.close()
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("steadlith: error:")
    assert expected in err, err
    if case == "other-model":
        assert f"delete {env['store']} to start fresh" in err
    assert same_points(store_points(str(env["store"])), before) and embedded(env) == log
    assert not env["cache"].exists()
    assert not [p for p in os.listdir(env["tmp"]) if ".creating-" in p]  # no half-made store left


def test_creating_a_store_removes_what_a_killed_creation_left_and_nothing_else(capsys, env):
    dead = env["tmp"] / ".store.creating-999999999-0123abcd"  # above any pid_max: no such process
    running = env["tmp"] / f".store.creating-{os.getpid()}-0123abcd"
    for folder in (dead, running):
        (folder / "collection").mkdir(parents=True)
    assert sync(capsys, env)[0] == 0
    assert not dead.exists() and running.exists() and store_points(str(env["store"]))


def test_a_missing_extra_is_one_line_naming_it(capsys, env, monkeypatch):
    monkeypatch.setitem(sys.modules, "qdrant_client", None)  # what a failed import looks like
    code, out, err = sync(capsys, env)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert ("steadlith sync needs the package qdrant_client: pip install 'steadlith-core[qdrant]' "
            "(from a checkout: pip install './core[qdrant]')") in err
    assert not env["store"].exists() and not env["cache"].exists()


def test_embedder_names():
    from steadlith_core.retrieval.embedder_names import embedder_named
    from steadlith_core.retrieval.embedders import EmbeddingError

    assert embedder_named(EMBEDDER).model_id == WordHashEmbedder.model_id
    for spec, message in [("nothing", "expected minilm or MODULE:ATTRIBUTE"), ("no_such_module:X", "cannot import"),
                          ("sync_helpers:Missing", "has no attribute"), ("sync_helpers:DIMENSION", "not an Embedder")]:
        with pytest.raises(EmbeddingError, match=message):
            embedder_named(spec)


# -- killed mid-sync ------------------------------------------------------------------------

def command(env, store: Path, target: Path, kill_at: int = 0) -> list[str]:
    return [sys.executable, str(HERE / "sync_helpers.py"), str(kill_at), "sync", str(target), "--store", str(store),
            "--cache", str(env["cache"]), "--embedder", EMBEDDER]


def subprocess_env(**extra) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]), **extra)
    return env


def many_documents(folder: Path, edited: bool) -> None:
    """Six documents (about 120 chunks): several batches of writes to be killed between."""
    for i in range(6):
        text = (EDITED if edited and i % 2 else TEXT).replace("tool library", f"tool library {i}")
        (folder / f"doc{i}.md").write_text(text, encoding="utf-8")
    if edited:
        (folder / "doc5.md").unlink()


def converge(env, store: Path, target: Path, kill_points) -> int:
    """Run the sync killed at each write count in `kill_points` (each run picks up where the
    last died), then once to the end; the number of runs that were killed."""
    killed = 0
    for k in kill_points:
        done = subprocess.run(command(env, store, target, k), env=subprocess_env(), capture_output=True, text=True)
        assert done.returncode in (0, -signal.SIGKILL), done.stderr
        killed += done.returncode == -signal.SIGKILL
    done = subprocess.run(command(env, store, target), env=subprocess_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return killed


def test_killed_at_store_writes_the_next_run_converges_to_a_clean_sync(env):
    old, new = env["tmp"] / "old", env["tmp"] / "new"
    old.mkdir()
    new.mkdir()
    many_documents(old, edited=False)
    many_documents(new, edited=True)
    store = env["tmp"] / "killed"
    # the first build, killed inside its 1st, 30th, 31st, 70th, ... point write
    assert converge(env, store, old, [1, 30, 1, 40, 3]) == 5
    env_clean = dict(env, cache=env["tmp"] / "clean-cache")
    clean_old = env["tmp"] / "clean-old"
    assert subprocess.run(command(env_clean, clean_old, old), env=subprocess_env()).returncode == 0
    assert same_points(store_points(str(store)), store_points(str(clean_old)))
    # then an edit, killed among its deletes (1st, 2nd, 6th) and at its 2nd upsert
    plan = make_plan(str(old), str(new), ChunkerParams())
    deletes = len(plan.deletes)
    assert deletes > 8 and len(plan.upserts) >= 2
    assert converge(env, store, new, [2, 1, 5, deletes - 5 + 2]) == 4
    clean_new = env["tmp"] / "clean-new"
    assert subprocess.run(command(env_clean, clean_new, new), env=subprocess_env()).returncode == 0
    points = store_points(str(store))
    assert same_points(points, store_points(str(clean_new)))
    assert len(points) == len(plan.upserts) + plan.unchanged  # nothing twice
    done = subprocess.run(command(env, store, new), env=subprocess_env(), capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.startswith("sync: embedded 0, reused 0, deleted 0, upserted 0,")


def stored_rows(store: Path) -> int:
    """Points in the store's SQLite file, read beside a running sync (0 when not there yet
    or busy): how a test tells that the writes have begun."""
    import sqlite3

    path = store / "collection" / "steadlith_chunks" / "storage.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.05) as db:
            return db.execute("SELECT count(*) FROM points").fetchone()[0]
    except sqlite3.Error:
        return 0


def test_killed_at_random_moments_the_next_run_converges_to_a_clean_sync(env):
    target = env["tmp"] / "new"
    target.mkdir()
    many_documents(target, edited=False)
    total = sum(len(ids((target / name).read_text(encoding="utf-8"), name)) for name in os.listdir(target))
    store = env["tmp"] / "killed"
    rng = random.Random(27)
    # each run is killed a random moment (0-0.3 s, seeded) after it wrote its first point;
    # embedding is slowed (20 ms a text), so the first run dies between its two batches
    # at the latest, and later ones while writing or embedding what is left
    slow = subprocess_env(STEADLITH_TEST_EMBED_DELAY="0.02")
    partial = []
    for _ in range(4):
        start = stored_rows(store)
        process = subprocess.Popen(command(env, store, target), env=slow, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while process.poll() is None and stored_rows(store) <= start and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0, 0.3))
        process.send_signal(signal.SIGKILL)
        _, err = process.communicate()
        assert process.returncode in (0, -signal.SIGKILL), err
        partial.append(0 < len(store_points(str(store))) < total)  # Qdrant rolls back a torn write
    assert partial[0] and total > 64
    assert subprocess.run(command(env, store, target), env=subprocess_env()).returncode == 0
    clean = env["tmp"] / "clean"
    env_clean = dict(env, cache=env["tmp"] / "clean-cache")
    assert subprocess.run(command(env_clean, clean, target), env=subprocess_env()).returncode == 0
    assert same_points(store_points(str(store)), store_points(str(clean)))
