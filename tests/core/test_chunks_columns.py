"""A chunking keeps its chunks column-wise and makes Chunk objects only when they are
read: what a reader sees is the same either way. Every chunk field, the diagnostics and
the chunk lookups are checked here against literal per-chunk computations, on random
documents and parameters of both rules."""

from __future__ import annotations

import math
import statistics

from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.chunking.boundaries import cut_boundary
from steadlith_core.chunking.diagnostics import HISTOGRAM_BINS
from steadlith_core.bench.examples import generate_prose
from steadlith_core.chunking.identity import chunk_hash
from steadlith_core.chunking.lmx2 import CHUNKER_FAMILY as LMX2_FAMILY
from test_lmx2_oracle import small_params as lmx2_params
from test_lmx2_oracle import streams
from test_properties import documents
from test_properties import small_params as tttd_params

# Either rule, on a document made for it: tttd-v1's vocabulary has astral characters,
# closers and oversize words; lmx2-v1's forces equal key windows and long-word edges.
CASES = st.one_of(
    tttd_params().flatmap(lambda p: st.tuples(documents(p.max_tokens, 60), st.just(p))),
    st.tuples(streams(), lmx2_params()),
)


def expected_chunk(result, i: int, start_word: int, end_word: int) -> dict:
    """Every field of chunk i from the words alone, one chunk at a time."""
    words = result.words
    text = words.canonical_text(start_word, end_word)
    family = {"lmx2-v1": (LMX2_FAMILY,)}.get(result.boundary_rule, ())
    return {
        "index": i, "start_word": start_word, "end_word": end_word,
        "start": int(words.starts[start_word]), "end": int(words.ends[end_word - 1]),
        "tokens": int(sum(int(t) for t in result.word_tokens[start_word:end_word])),
        "text": text, "hash": chunk_hash(text, result.params_hash, *family),
        "boundary": cut_boundary(words, end_word),
    }


def expected_histogram(sizes: list[int], max_tokens: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """SPEC §8's histogram, one chunk at a time: HISTOGRAM_BINS equal bins over
    [0, max_tokens], then one for the chunks over max_tokens."""
    step = max(1, math.ceil(max_tokens / HISTOGRAM_BINS))
    counts = [0] * (HISTOGRAM_BINS + 1)
    for t in sizes:
        if t > max_tokens:
            counts[-1] += 1
        else:
            counts[min(HISTOGRAM_BINS - 1, max(0, (t - 1) // step))] += 1
    edges = tuple(min(max_tokens, i * step) for i in range(HISTOGRAM_BINS + 1)) + (max([max_tokens, *sizes]),)
    return edges, tuple(counts)


def expected_diagnostics(result) -> dict:
    chunks, p = result.chunks, result.params
    sizes = [c.tokens for c in chunks]
    kinds = [c.kind for c in chunks]
    interior = [c.boundary for c in chunks if c.boundary != "end"]
    n = len(sizes)
    edges, counts = expected_histogram(sizes, p.max_tokens)
    d = {
        "chunk_count": n, "word_count": len(result.words), "total_tokens": sum(sizes),
        "tokens_min": min(sizes, default=None), "tokens_max": max(sizes, default=None),
        "tokens_mean": sum(sizes) / n if n else None,
        "tokens_median": statistics.median(sizes) if n else None,
        "tokens_p90": sorted(sizes)[math.ceil(0.9 * n) - 1] if n else None,
        "histogram_edges": list(edges), "histogram_counts": list(counts),
        "chunks_over_max": sum(t > p.max_tokens for t in sizes),
        "paragraph_boundaries": interior.count("paragraph"), "sentence_boundaries": interior.count("sentence"),
        "word_boundaries": interior.count("word"),
        "paragraph_share": interior.count("paragraph") / len(interior) if interior else 0.0,
        "sentence_share": interior.count("sentence") / len(interior) if interior else 0.0,
        "end": kinds.count("end"), "primary": kinds.count("primary"),
    }
    if result.boundary_rule == "lmx2-v1":
        d.update(fill=kinds.count("fill"), long_word=kinds.count("long-word"),
                 chunks_under_min=sum(t < p.min_tokens for t in sizes))
    else:
        d.update(backup=kinds.count("backup"), hard=kinds.count("hard"),
                 snapped=sum(c.snapped for c in chunks), hard_cut_rate=kinds.count("hard") / n if n else 0.0)
    return d


@settings(max_examples=150)
@given(CASES)
def test_every_chunk_field_is_what_its_words_give(case):
    text, params = case
    result = Pipeline().chunk(text, params)
    chunks = result.chunks
    assert [c.end_word for c in chunks[:-1]] == [c.start_word for c in chunks[1:]]
    for i, c in enumerate(chunks):
        got = {name: getattr(c, name) for name in ("index", "start_word", "end_word", "start", "end", "tokens",
                                                   "text", "hash", "boundary")}
        assert got == expected_chunk(result, i, c.start_word, c.end_word)


@settings(max_examples=150)
@given(CASES)
def test_diagnostics_are_the_per_chunk_counts_and_sizes(case):
    text, params = case
    result = Pipeline().chunk(text, params)
    got = result.diagnostics.to_dict()
    expected = expected_diagnostics(result)
    assert {k: got[k] for k in expected} == expected
    # exactly the types a JSON reader sees: an odd count's median is a size, not a float
    assert {k: type(got[k]) for k in expected} == {k: type(v) for k, v in expected.items()}


@settings(max_examples=60)
@given(CASES, st.data())
def test_chunk_lookups_find_the_chunk_holding_a_word_or_an_offset(case, data):
    text, params = case
    result = Pipeline().chunk(text, params)
    chunks = result.chunks
    if result.word_count:
        k = data.draw(st.integers(0, result.word_count - 1))
        assert result.chunk_at_word(k) == next(c.index for c in chunks if c.start_word <= k < c.end_word)
    offset = data.draw(st.integers(0, len(text) + 1))
    assert result.chunk_at_offset(offset) == next((c.index for c in chunks if c.start <= offset < c.end), None)


def test_a_rechunk_makes_no_chunk_object_until_one_is_read():
    """A parameter change that only feeds the diagnostics (a benchmark, a sweep, a count)
    does not pay for a Python object per chunk; reading them later gives what a cold
    run gives."""
    text = generate_prose(60_000, seed=4)
    for base, changed in ((ChunkerParams(), ChunkerParams(min_tokens=40)),
                          (Lmx2Params(), Lmx2Params(min_tokens=40, max_tokens=300))):
        pipeline = Pipeline()
        pipeline.chunk(text, base)
        warm = pipeline.chunk(text, changed)
        assert warm.diagnostics.chunk_count == len(warm.columns) > 20
        assert "chunks" not in vars(warm)  # nothing has read them
        assert warm.chunks == Pipeline().chunk(text, changed).chunks
        assert warm.chunks is warm.chunks  # made once
