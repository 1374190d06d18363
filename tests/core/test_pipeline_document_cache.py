"""The pipeline's document cache finds a document by its text without hashing it."""

import threading
import time

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.bench.examples import generate_prose
from steadlith_core.chunking.document import DocumentCache


class Unhashable(str):
    def __hash__(self):
        raise AssertionError("the document cache hashed the text")


class UnhashableBytes(bytes):
    def __hash__(self):
        raise AssertionError("the document cache hashed the bytes")


TEXT = generate_prose(5000, seed=4)


def _documents(pipeline):
    return [doc for _, doc in pipeline._docs._entries]


def test_no_hash_of_the_text_is_computed_and_chunking_matches():
    for params in (ChunkerParams(), Lmx2Params()):
        expected = [tuple(c) for c in Pipeline().chunk(TEXT, params).chunks]
        assert [tuple(c) for c in Pipeline().chunk(Unhashable(TEXT), params).chunks] == expected
        assert [tuple(c) for c in Pipeline().chunk(UnhashableBytes(TEXT.encode()), params).chunks] == expected


def test_an_equal_new_object_is_a_hit_and_an_unequal_one_of_the_same_length_a_miss():
    pipeline = Pipeline()
    pipeline.chunk(TEXT)
    (doc,) = _documents(pipeline)
    copy = TEXT[:-1] + TEXT[-1:]
    assert copy is not TEXT
    pipeline.chunk(copy)
    assert _documents(pipeline) == [doc]  # the same Document: a hit
    other = TEXT[:-2] + ("x" if TEXT[-2] != "x" else "y") + TEXT[-1]
    assert len(other) == len(TEXT)
    pipeline.chunk(other)
    assert len(_documents(pipeline)) == 2 and _documents(pipeline)[0] is doc


def test_str_and_bytes_of_the_same_text_are_different_documents():
    pipeline = Pipeline()
    pipeline.chunk(TEXT)
    pipeline.chunk(TEXT.encode())
    assert len(_documents(pipeline)) == 2


def test_the_cache_keeps_the_most_recently_used_documents():
    cache = DocumentCache(2)
    made = []

    def make(x):
        made.append(x)
        return x.upper()

    for x in ("aa", "bb", "aa", "cc", "bb", "aa"):
        cache.get(x, lambda x=x: make(x))
    # aa, bb made; aa hit (now most recent); cc evicts bb; bb made again, evicts aa; aa made again
    assert made == ["aa", "bb", "cc", "bb", "aa"]
    assert len(cache) == 2
    cache.clear()
    assert len(cache) == 0


def test_threads_share_one_document():
    pipeline = Pipeline(max_documents=2)
    copies = [TEXT[:-1] + TEXT[-1:] for _ in range(8)]
    results = []
    threads = [threading.Thread(target=lambda c=c: results.append(pipeline.chunk(c))) for c in copies]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(_documents(pipeline)) == 1 and len(results) == 8


def test_two_documents_chunk_at_once_and_one_document_never_does(monkeypatch):
    """The cache has one lock, each document another: runs of two documents overlap (each
    waits here for the other), runs of one document take turns."""
    from steadlith_core.chunking import pipeline as pipeline_module

    other = generate_prose(5000, seed=5)
    params = ChunkerParams(min_tokens=40)
    expected = {t: Pipeline().chunk(t, params).chunks for t in (TEXT, other)}
    real, inside, lock = pipeline_module.RULES[ChunkerParams], [], threading.Lock()
    meet = threading.Barrier(2, timeout=10)

    def run(doc, p):
        with lock:
            assert doc not in inside, "one document run by two threads at once"
            inside.append(doc)
        try:
            if p.min_tokens == 40:  # the two-document case: broken unless both are running
                meet.wait()
            else:  # the one-document case: time for another thread to come in, were it let in
                time.sleep(0.02)
            return real(doc, p)
        finally:
            with lock:
                inside.remove(doc)

    monkeypatch.setitem(pipeline_module.RULES, ChunkerParams, run)
    pipeline = Pipeline()
    results = {}
    threads = [threading.Thread(target=lambda t=t: results.__setitem__(t, pipeline.chunk(t, params)))
               for t in (TEXT, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert {t: results[t].chunks for t in (TEXT, other)} == expected
    # one document from eight threads: the run's assertion would fail in a thread (no result)
    same = [threading.Thread(target=lambda m=m: results.__setitem__(m, pipeline.chunk(TEXT, ChunkerParams(min_tokens=m))))
            for m in range(50, 58)]
    for t in same:
        t.start()
    for t in same:
        t.join()
    assert all(m in results for m in range(50, 58))
