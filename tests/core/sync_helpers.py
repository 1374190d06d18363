"""A deterministic embedder for `steadlith sync` tests, reachable from a command line as
`--embedder sync_helpers:WordHashEmbedder` (tests/core on PYTHONPATH), and a runner that
kills the command at a chosen store write (imported as `sync_helpers`, like cli_helpers).

WordHashEmbedder: each word hashed into one of 32 slots, rows L2-normalised: texts sharing
words are close, equal texts are equal, and nothing is downloaded. It appends every text
it embeds, one JSON line each, to the file named by STEADLITH_TEST_EMBED_LOG (when set):
how a test counts what a subprocess embedded. STEADLITH_TEST_EMBED_DELAY (seconds per
text) slows it, so that a kill lands mid-run."""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time

import numpy as np

DIMENSION = 32


class WordHashEmbedder:
    model_id = "word-hash-32@test"

    def embed(self, texts):
        texts = list(texts)
        log = os.environ.get("STEADLITH_TEST_EMBED_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as f:
                for t in texts:
                    f.write(json.dumps(t) + "\n")
        delay = float(os.environ.get("STEADLITH_TEST_EMBED_DELAY", "0"))
        out = np.zeros((len(texts), DIMENSION), np.float32)
        for i, text in enumerate(texts):
            if delay:
                time.sleep(delay)
            for word in text.lower().split():
                out[i, hashlib.sha256(word.encode("utf-8", "surrogatepass")).digest()[0] % DIMENSION] += 1
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms > 0, norms, 1)


class OtherModel(WordHashEmbedder):
    """The same vectors under another model id: a store made with one must refuse the other."""

    model_id = "word-hash-32-other@test"


def kill_after_writes(count: int) -> None:
    """SIGKILL this process at the `count`-th point Qdrant's local mode writes or deletes
    (its SQLite statement for that point), before it commits: a crash in the middle of
    the store's own write, where a real one could land."""
    import signal

    from qdrant_client.local import persistence

    seen = [0]

    def wrap(method):
        def wrapped(self, *args, **kwargs):
            seen[0] += 1
            if seen[0] >= count:
                os.kill(os.getpid(), signal.SIGKILL)
            return method(self, *args, **kwargs)
        return wrapped

    persistence.CollectionPersistence.persist = wrap(persistence.CollectionPersistence.persist)
    persistence.CollectionPersistence.delete = wrap(persistence.CollectionPersistence.delete)


if __name__ == "__main__":  # python sync_helpers.py KILL_AT steadlith-arguments...
    kill_at = int(sys.argv[1])
    if kill_at > 0:
        kill_after_writes(kill_at)
    from steadlith_core.cli.main import main

    sys.exit(main(sys.argv[2:]))
