"""The pipeline's document cache finds a document by its text without hashing it."""

import threading

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
