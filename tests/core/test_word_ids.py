"""A one-shot comparison (`steadlith compare`: Analysis(word_ids=True)) keeps a uint32 id
a word instead of the words' symbols: ids are equal exactly when the symbols are, across
the documents of the comparison, and the word diff over them is the word diff over the
symbols."""

from __future__ import annotations

import numpy as np
import pytest

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.bench.examples import generate_prose, scattered_edits
from steadlith_core.comparison import word_ids as word_ids_module
from steadlith_core.comparison.analysis import Analysis
from steadlith_core.comparison.word_ids import WordIds


@pytest.mark.parametrize("block", [3, 1000, word_ids_module.LOOKUP_BLOCK])
def test_ids_are_equal_exactly_when_the_symbols_are(monkeypatch, block):
    monkeypatch.setattr(word_ids_module, "LOOKUP_BLOCK", block)
    rng = np.random.default_rng(block)
    vocabulary = rng.integers(0, 2**64, 500, dtype=np.uint64)
    docs = [vocabulary[rng.integers(0, n, 3000)] for n in (300, 500, 50)]
    docs.append(np.empty(0, dtype=np.uint64))
    ids = WordIds()
    made = [ids.ids(d) for d in docs]
    assert all(m.dtype == np.uint32 and not m.flags.writeable for m in made)
    symbols, every = np.concatenate(docs), np.concatenate(made)
    # one id a distinct symbol, the same in every document, numbered densely from 0
    pairs = set(zip(symbols.tolist(), every.tolist()))
    assert len(pairs) == len(set(symbols.tolist())) == len(set(every.tolist())) == len(ids)
    assert sorted(set(every.tolist())) == list(range(len(ids)))
    assert ids.ids(docs[0]).tolist() == made[0].tolist()  # read again: the same ids


@pytest.mark.parametrize("params", [ChunkerParams(min_tokens=16, max_tokens=128), Lmx2Params()],
                         ids=lambda p: p.boundary_rule)
def test_a_comparison_on_ids_is_the_comparison_on_symbols(text_kernel, params):
    text = generate_prose(6_000, seed=4)
    a, b = text.encode(), scattered_edits(text, 6).encode()
    lean = Analysis(word_ids=True)
    ca, cb = lean.chunk(a, params), lean.chunk(b, params)
    assert ca.words.symbols is None and cb.words.symbols is None  # let go: the ids are kept
    on_ids = lean.compare(ca, cb)
    full = Analysis()
    on_symbols = full.compare(full.chunk(a, params), full.chunk(b, params))
    assert on_ids.ops == on_symbols.ops and len(on_ids.ops) > 1
    assert on_ids.to_dict() == on_symbols.to_dict()


@pytest.mark.parametrize("params", [ChunkerParams(min_tokens=16, max_tokens=128), Lmx2Params()],
                         ids=lambda p: p.boundary_rule)
def test_a_diff_prepared_before_chunking_is_the_diff_of_the_chunkings(text_kernel, params):
    # compare_rules diffs the pair's ids before either is chunked (Analysis.prepare_diff),
    # then lets the ids go: the chunkings make none, and the comparison is the same
    text = generate_prose(6_000, seed=5)
    a, b = text.encode(), scattered_edits(text, 6).encode()
    lean = Analysis(word_ids=True)
    on_prepared = lean.compare_rules(a, b, [params])[params.boundary_rule]
    assert len(lean._ids) == 0  # no id a word outlives the prepared diff
    full = Analysis()
    on_symbols = full.compare(full.chunk(a, params), full.chunk(b, params))
    assert on_prepared.ops == on_symbols.ops and len(on_prepared.ops) > 1
    assert on_prepared.to_dict() == on_symbols.to_dict()


def test_a_prepared_diff_whose_equal_ranges_fail_is_made_again_from_the_texts(monkeypatch):
    # a 64-bit symbol may collide: a prepared diff is checked against the words, like word_diff's
    from steadlith_core.comparison import analysis as analysis_module
    from steadlith_core.comparison.diff import DiffOp

    a, b = b"one two three four five", b"one two THREE four five"
    # what colliding symbols would give: every word equal
    monkeypatch.setattr(analysis_module, "diff_ids", lambda x, y: (DiffOp("equal", 0, len(x), 0, len(y)),))
    lean = Analysis(word_ids=True)
    got = lean.compare_rules(a, b, [ChunkerParams()])["tttd-v1"]
    assert got.ops == (DiffOp("equal", 0, 2, 0, 2), DiffOp("replace", 2, 3, 2, 3), DiffOp("equal", 3, 5, 3, 5))
