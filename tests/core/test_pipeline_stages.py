"""The staged pipeline re-runs only the stages a parameter change touches, and pauses
the process-wide garbage collector only when its caller asks for it."""

from __future__ import annotations

import gc
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass

import pytest

from steadlith_core import ChunkerParams, Pipeline, TokenCounter, register_counter, unregister_counter
from steadlith_core.chunking import document as document_module
from steadlith_core.chunking import pipeline as pipeline_module
from steadlith_core.bench.examples import generate_prose
from steadlith_core.chunking.chunks import build_chunks
from steadlith_core.chunking.identity import chunk_hash_prefix
from steadlith_core.chunking.document import Document
from steadlith_core.chunking.pipeline import gc_paused
from steadlith_core.chunking.tokens import get_counter

TEXT = generate_prose(20_000, seed=5)
BASE = ChunkerParams(min_tokens=16, max_tokens=96, primary_mask=0x1F, primary_remainder=0x1F)


@pytest.fixture
def stage_calls(count_calls):
    """Counts calls of the stage functions the pipeline calls, by stage name (scan_text: the text kernel;
    fingerprints_and_candidates: the fingerprints of a str document, with its first candidates)."""
    calls = count_calls(pipeline_module, ("window_fingerprints", "fingerprints_and_candidates", "segment_codes",
                                          "ChunkColumns"))
    return count_calls(document_module, ("scan_text",), calls)  # a Document scans its text


def _fingerprint(result):
    return result.params_hash, [(c.start_word, c.end_word, c.kind, c.snapped, c.hash) for c in result.chunks]


def test_a_min_tokens_change_reruns_neither_normalization_nor_fingerprinting(stage_calls):
    """Moving the min_tokens slider re-cuts and re-hashes; the text stages and the
    fingerprints come from the caches, and the result is what a cold run gives."""
    pipeline = Pipeline()
    pipeline.chunk(TEXT, BASE)
    assert stage_calls == Counter(scan_text=1, fingerprints_and_candidates=1, segment_codes=1, ChunkColumns=1)
    stage_calls.clear()

    changed = BASE.with_changes(min_tokens=BASE.min_tokens + 7)
    warm = pipeline.chunk(TEXT, changed)
    assert stage_calls == Counter(segment_codes=1, ChunkColumns=1)
    assert _fingerprint(warm) == _fingerprint(Pipeline().chunk(TEXT, changed))
    assert _fingerprint(warm) != _fingerprint(pipeline.chunk(TEXT, BASE))  # the change did move cuts


def test_a_window_change_refingerprints_but_does_not_renormalize(stage_calls):
    """The counterpart: a change the fingerprints depend on re-runs them, and only them
    of the text-side stages (so the counting above would see a stage that re-ran)."""
    pipeline = Pipeline()
    pipeline.chunk(TEXT, BASE)
    stage_calls.clear()
    pipeline.chunk(TEXT, BASE.with_changes(window_words=BASE.window_words + 1))
    assert stage_calls == Counter(fingerprints_and_candidates=1, segment_codes=1, ChunkColumns=1)


@dataclass(frozen=True)
class EveryFewWords:
    """Parameters of a toy second rule: a cut every `n` words."""

    n: int = 5


def run_every_few_words(doc: Document, p: EveryFewWords) -> tuple:
    _, cum = doc.tokens(get_counter("words/1"))
    cuts = doc.stage("toy-cuts").get(p.n, lambda: [(s, min(s + p.n, len(doc.words)), "end", False, "end")
                                                   for s in range(0, len(doc.words), p.n)])
    return build_chunks(doc.words, doc.canonical, cuts, cum, chunk_hash_prefix("toy", "toy"))


def test_a_second_rule_plugs_in_and_shares_the_text_stages(stage_calls, monkeypatch):
    """A boundary rule is one entry of pipeline.RULES; switching a document between
    rules re-runs only the rule's own stages, never normalization."""
    monkeypatch.setitem(pipeline_module.RULES, EveryFewWords, run_every_few_words)
    pipeline = Pipeline()
    pipeline.chunk(TEXT, BASE)
    stage_calls.clear()
    toy = pipeline.chunk(TEXT, EveryFewWords(7))
    assert stage_calls == Counter()  # none of tttd-v1's stages, and no normalization
    assert [c.word_count for c in toy[:-1]] == [7] * (len(toy) - 1)
    with pytest.raises(TypeError, match="ChunkerParams or Lmx2Params or EveryFewWords"):
        pipeline.chunk(TEXT, {"n": 7})


@contextmanager
def gc_watching_counter():
    """A token counter (chars4) that records whether the cyclic GC was enabled while it counted."""
    seen: list[bool] = []

    def count(words):
        seen.append(gc.isenabled())
        return (words.lengths + 3) // 4

    counter = TokenCounter("test-gc-watch/1", "chars4, watching the GC", vectorized=count)
    register_counter(counter)
    try:
        yield counter.id, seen
    finally:
        unregister_counter(counter.id)


@pytest.fixture
def gc_enabled():
    was = gc.isenabled()
    gc.enable()
    yield
    if not was:
        gc.disable()


def test_the_gc_is_left_alone_unless_the_caller_pauses_it(gc_enabled):
    """A library call must not switch off the host program's garbage collector; a
    caller that owns its process opts in, and the collector is back on afterwards."""
    with gc_watching_counter() as (cid, seen):
        Pipeline().chunk(TEXT, BASE.with_changes(token_counter=cid))
        assert seen == [True]
        Pipeline(pause_gc=True).chunk(TEXT, BASE.with_changes(token_counter=cid))
        assert seen == [True, False]
    assert gc.isenabled()


def test_a_caller_that_disabled_the_gc_keeps_it_disabled(gc_enabled):
    gc.disable()
    Pipeline(pause_gc=True).chunk("a few words", BASE)
    assert not gc.isenabled()


def test_overlapping_pauses_reenable_the_gc_only_when_the_last_one_ends(gc_enabled):
    """Two analyses in two threads overlap; the first to finish must not switch the
    collector back on under the other, nor the last leave it off."""
    first, second = gc_paused(), gc_paused()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert not gc.isenabled()
    second.__exit__(None, None, None)
    assert gc.isenabled()
