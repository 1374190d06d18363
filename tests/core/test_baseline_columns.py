"""The fixed-size baseline keeps its chunks column-wise, as a Chunking does: compare reads
the columns and makes no Chunk object, `FixedChunking.chunks` still gives every chunk
when asked, and what compare finds over the columns is what the chunks and their texts
say. Checked against literal per-chunk computations on random version pairs."""

from __future__ import annotations

import dataclasses
from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_churn_properties import doc_st, params_st, render, word_st

from steadlith_core import chunk, compare
from steadlith_core.comparison.baseline import BASELINE_FAMILY, END, WINDOW, FixedTokenParams, baseline_for, chunk_fixed
from steadlith_core.chunking.boundaries import cut_boundary
from steadlith_core.chunking.chunks import Chunk
from steadlith_core.comparison.churn import baseline_churn
from steadlith_core.chunking.identity import chunk_hash


def expected_chunks(fixed) -> list[Chunk]:
    """The baseline's chunks one word at a time: greedy windows of max_tokens tokens (a
    word over the window alone), each chunk's fields from its words and its text."""
    words, tokens, window = fixed.words, [int(t) for t in fixed.word_tokens], fixed.params.max_tokens
    out, s = [], 0
    while s < len(words):
        e, total = s + 1, tokens[s]
        while e < len(words) and total + tokens[e] <= window:
            total, e = total + tokens[e], e + 1
        text = words.canonical_text(s, e)
        kind = END if e == len(words) else WINDOW
        out.append(Chunk(len(out), s, e, int(words.starts[s]), int(words.ends[e - 1]), kind, False, total, text,
                         chunk_hash(text, fixed.params_hash, BASELINE_FAMILY), cut_boundary(words, e)))
        s = e
    return out


def from_chunk_texts(fixed):
    """A copy of baseline `fixed` whose columns are read off its Chunk objects, hashes
    made again from their texts: what compare would see if it read the chunks."""
    chunks = fixed.chunks

    def ints(field: str) -> np.ndarray:
        return np.asarray([getattr(c, field) for c in chunks], dtype=np.int64)

    columns = SimpleNamespace(
        start_words=ints("start_word"), end_words=ints("end_word"), tokens=ints("tokens"),
        hashes=[chunk_hash(c.text, fixed.params_hash, BASELINE_FAMILY) for c in chunks],
        boundaries=[c.boundary for c in chunks])
    return dataclasses.replace(fixed, columns=columns)


@st.composite
def version_pairs(draw):
    """Two versions that share most words (a few edits), so baseline chunks get reused,
    shifted and edited alike, and a chunking's parameters for both."""
    a = draw(doc_st)
    b = list(a)
    for _ in range(draw(st.integers(0, 4))):
        at = draw(st.integers(0, len(b)))
        if draw(st.booleans()) or not b:
            b[at:at] = draw(st.lists(word_st, min_size=1, max_size=4))
        else:
            del b[at:at + draw(st.integers(1, 4))]
    return render(a) or "x", render(b) or "x", draw(params_st())


@settings(max_examples=150, deadline=None)
@given(version_pairs())
def test_compare_over_the_baselines_columns_is_what_their_chunk_texts_say(case):
    text_a, text_b, params = case
    a, b = chunk(text_a, params), chunk(text_b, params)
    c = compare(a, b)
    fa, fb = baseline_for(a), baseline_for(b)
    churn = baseline_churn(a, b, c.ops, (fa, fb))
    assert "chunks" not in vars(fa) and "chunks" not in vars(fb), "compare made the baseline's Chunk objects"
    assert churn == c.baseline
    oracle = baseline_churn(a, b, c.ops, (from_chunk_texts(fa), from_chunk_texts(fb)))
    assert churn.summary.to_dict() == oracle.summary.to_dict()


@settings(max_examples=150, deadline=None)
@given(doc_st, st.integers(1, 30), st.sampled_from(["chars4/1", "words/1"]))
def test_the_baselines_chunks_are_its_greedy_windows(doc, max_tokens, counter):
    fixed = chunk_fixed(render(doc) or "x", FixedTokenParams(max_tokens, counter))
    expected = expected_chunks(fixed)
    assert [tuple(ch) for ch in fixed.chunks] == [tuple(ch) for ch in expected]
    assert [ch.text for ch in fixed.chunks] == [ch.text for ch in expected]
    assert fixed.chunks is fixed.chunks  # made once
