"""Chunking a document given as its UTF-8 bytes: what a command that only chunks does
(`steadlith chunk FILE`), so that the document is never held as a str."""

from __future__ import annotations

import numpy as np
import pytest

from steadlith_core import ChunkerParams, Pipeline, TokenCounter, register_counter, unregister_counter
from steadlith_core.kernel import select as kernel
from steadlith_core.bench.examples import generate_prose
from steadlith_core.chunking.tokens import running_total

TEXT = generate_prose(30_000, seed=3) + "\r\n\u00a0\U0001F680 tail\n"
PARAMS = ChunkerParams(min_tokens=16, max_tokens=64)


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
def test_a_bytes_document_is_decoded_only_when_its_characters_are_asked_for(kernel_name):
    with kernel.using(kernel_name):
        result = Pipeline().chunk(TEXT.encode(), PARAMS)
    assert "source" not in vars(result.words)  # chunks, hashes and offsets needed no str
    third = result.chunks[3]
    assert third.text == " ".join(TEXT[third.start : third.end].split()) or "\n\n" in third.text
    assert result.text == TEXT and result.words[5].text == TEXT.split()[5]
    assert third.text == result.words.canonical_text(third.start_word, third.end_word)


def test_a_bytes_document_makes_fingerprints_only_when_read_and_they_are_the_rolling_window():
    """(A str document keeps them: the inspector's mask changes test masks on them.)"""
    pipeline = Pipeline()
    result = pipeline.chunk(TEXT.encode(), PARAMS)
    stage = pipeline._docs.find(TEXT.encode()).stage("fingerprints", 4)
    assert not stage.data  # the cuts needed none: 8 bytes a word were never stored
    fp = result.fingerprints
    assert len(stage.data) == 1 and result.fingerprints is fp
    str_pipeline = Pipeline()
    str_pipeline.chunk(TEXT, PARAMS)
    assert len(str_pipeline._docs.find(TEXT).stage("fingerprints", 4).data) == 1
    assert fp.tolist() == kernel.window_fingerprints(kernel.scan(TEXT).symbols, PARAMS.window_words,
                                                     PARAMS.polynomial).tolist()
    primary = np.flatnonzero(fp & np.uint64(PARAMS.primary_mask) == np.uint64(PARAMS.primary_remainder))
    assert set(c.end_word - 1 for c in result.chunks if c.kind == "primary") <= set(primary.tolist())


@pytest.mark.parametrize("block", [1, 3, 1 << 20])
def test_the_running_total_is_exact_in_blocks(block):
    tok = np.array([2**31 - 1] * 7 + [1, 5, 2**30], dtype=np.int32)
    want = [0] + np.cumsum(tok.astype(object)).tolist()
    assert running_total(tok, block).tolist() == want and running_total(tok[:0], block).tolist() == [0]


def test_token_counts_are_int32_and_int64_only_past_its_range():
    result = Pipeline().chunk(TEXT, PARAMS)
    assert result.word_tokens.dtype == np.int32 and result.cum_tokens.dtype == np.int64
    register_counter(TokenCounter("test-huge/1", "huge", vectorized=lambda w: np.full(len(w), 2**40, np.int64)))
    try:
        huge = Pipeline().chunk("a b c", ChunkerParams(token_counter="test-huge/1", min_tokens=1, max_tokens=2**41))
    finally:
        unregister_counter("test-huge/1")
    assert huge.word_tokens.dtype == np.int64 and huge.cum_tokens.tolist() == [0, 2**40, 2**41, 3 * 2**40]


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
def test_a_bytes_document_lets_its_symbols_go_and_rescans_when_a_change_needs_them(kernel_name):
    """The lean path keeps no symbols nor per-word tokens after a tttd-v1 run; a window,
    a mask or a rule change on the cached document still gives what a fresh str run gives."""
    from steadlith_core import Lmx2Params

    data = TEXT.encode()
    changes = [PARAMS, PARAMS.with_changes(window_words=9), PARAMS.with_changes(primary_mask=0x3F, primary_remainder=0x3),
               Lmx2Params(min_tokens=16, max_tokens=64), PARAMS.with_changes(min_tokens=20)]
    with kernel.using(kernel_name):
        pipeline = Pipeline()
        first = pipeline.chunk(data, PARAMS)
        doc = pipeline._docs.find(data)
        assert doc._symbols is None and all(tok is None for tok, _ in doc._tokens.data.values())
        for params in changes:
            got, want = pipeline.chunk(data, params), Pipeline().chunk(TEXT, params)
            assert [tuple(c) for c in got.chunks] == [tuple(c) for c in want.chunks], params
            assert got.word_tokens.dtype == want.word_tokens.dtype
            assert got.word_tokens.tolist() == want.word_tokens.tolist()
    assert Pipeline().chunk(TEXT, PARAMS)  # a str document keeps them
    str_pipeline = Pipeline()
    str_pipeline.chunk(TEXT, PARAMS)
    assert str_pipeline._docs.find(TEXT)._symbols is not None
    assert first.fingerprints.tolist() == Pipeline().chunk(TEXT, PARAMS).fingerprints.tolist()


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
def test_lmx2_on_a_bytes_document_keeps_no_symbols_tokens_or_keys(kernel_name):
    """lmx2-v1's lean path: once its window hashes exist, the symbols and the per-word
    tokens are let go, and no key array is kept (lmx2.Lmx2HashKeys makes keys from the
    hashes where they are read); a change of the key window rescans, and every run gives
    what a fresh str run gives."""
    from steadlith_core import Lmx2Params
    from steadlith_core.chunking.lmx2 import Lmx2HashKeys

    data = TEXT.encode()
    first_params = Lmx2Params(min_tokens=16, max_tokens=64)
    changes = [first_params, first_params.with_changes(key_tokens=9), first_params.with_changes(min_tokens=20), PARAMS]
    with kernel.using(kernel_name):
        pipeline = Pipeline()
        first = pipeline.chunk(data, first_params)
        doc = pipeline._docs.find(data)
        assert doc._symbols is None and all(tok is None for tok, _ in doc._tokens.data.values())
        keys = first.stages.keys
        assert isinstance(keys, Lmx2HashKeys) and keys.h.size == keys.key_1.size == first.word_count + 1
        for params in changes:
            got, want = pipeline.chunk(data, params), Pipeline().chunk(TEXT, params)
            assert [tuple(c) for c in got.chunks] == [tuple(c) for c in want.chunks], params
            assert got.word_tokens.tolist() == want.word_tokens.tolist()
        kept = Pipeline().chunk(TEXT, first_params)  # a str document keeps the window hashes
        assert kept.stages.keys.h is not None and kept.stages.keys.h.tolist() == keys.h.tolist()
        assert kept.stages.keys.key_1.tolist() == keys.key_1.tolist()
        assert kept.stages.keys.key_2.tolist() == keys.key_2.tolist()
        some = np.array([0, 1, 5, first.word_count - 1, first.word_count])
        assert keys.key_at(2, some).tolist() == kept.stages.keys.key_at(2, some).tolist()


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
def test_a_long_str_document_is_chunked_lean_but_keeps_its_symbols(kernel_name, monkeypatch):
    """From LEAN_STR_CHARS on, a str document keeps no fingerprints, per-word tokens or
    window hashes either; its stream keeps the symbols for a pipeline that compares
    (word_symbols), or where the str is scanned as itself (the numpy kernel). What it
    gives is what a short one gives."""
    from steadlith_core import Lmx2Params
    from steadlith_core.chunking import document as document_module

    changes = (PARAMS, Lmx2Params(min_tokens=16, max_tokens=64),
               PARAMS.with_changes(primary_mask=0x3F, primary_remainder=0x3))
    with kernel.using(kernel_name):
        short = [Pipeline().chunk(TEXT, params) for params in changes]
        monkeypatch.setattr(document_module, "LEAN_STR_CHARS", len(TEXT))
        pipeline = Pipeline()
        long = [pipeline.chunk(TEXT, params) for params in changes]
        doc = pipeline._docs.find(TEXT)
        assert doc.lean and not doc.stage("fingerprints", 4).data
        assert all(tok is None for tok, _ in doc._tokens.data.values())
        # the compiled passes keep no hashes at all; the numpy stages keep the keys alone
        assert (not doc.stage("lmx2-keys", 4).data if kernel_name == "c" else long[1].stages.keys.h is None)
        assert (long[0].words.symbols is None) == (kernel_name == "c")  # scanned from its UTF-8, as bytes are
        assert Pipeline(word_symbols=True).chunk(TEXT, changes[0]).words.symbols is not None
        for got, want in zip(long, short):
            assert [tuple(c) for c in got.chunks] == [tuple(c) for c in want.chunks]
            assert got.word_tokens.tolist() == want.word_tokens.tolist()
        assert long[0].fingerprints.tolist() == short[0].fingerprints.tolist()
        monkeypatch.setattr(document_module, "LEAN_STR_CHARS", len(TEXT) + 1)
        assert not Pipeline()._docs.get(TEXT, lambda: document_module.Document(TEXT)).lean
