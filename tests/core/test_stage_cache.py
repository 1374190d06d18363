"""The bounded caches a Pipeline and an Analysis own (chunking.pipeline.LRU): least
recently used out first, a peek neither makes nor refreshes, and a Pipeline keeps at
most `max_documents` documents."""

from __future__ import annotations

from steadlith_core.chunking.document import LRU
from steadlith_core.chunking.pipeline import Pipeline


def test_the_least_recently_used_entry_goes_first_and_a_peek_does_not_refresh():
    cache = LRU(2)
    made = []

    def make(v):
        return lambda: made.append(v) or v

    assert cache.get("a", make(1)) == 1 and cache.get("b", make(2)) == 2
    assert cache.get("a", make(9)) == 1  # a hit: nothing made, "a" now most recent
    assert cache.peek("b") == 2  # leaves "b" least recent
    cache.get("c", make(3))
    assert cache.peek("b") is None and cache.peek("a") == 1 and cache.peek("c") == 3
    assert made == [1, 2, 3] and sorted(cache.peek_items()) == [("a", 1), ("c", 3)]


def test_a_cache_of_size_zero_makes_every_time_and_keeps_nothing():
    cache = LRU(0)
    assert cache.get("a", lambda: 1) == 1 and cache.get("a", lambda: 2) == 2 and not cache.data


def test_a_pipeline_keeps_at_most_max_documents():
    pipeline = Pipeline(max_documents=2)
    for text in ("one two", "three four", "five six"):
        pipeline.chunk(text)
    kept = [text for text in ("one two", "three four", "five six") if pipeline._docs.find(text) is not None]
    assert kept == ["three four", "five six"]
