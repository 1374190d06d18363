"""The fast lmx2-v1 path against the literal oracle of SPEC-lmx2 §2-§4."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lmx2_oracle import oracle_text
from steadlith_core import chunk, load_text
from steadlith_core.chunking.lmx2_params import Lmx2Params

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
EXPECTED = json.loads((GOLDEN / "lmx2-expected.json").read_text(encoding="utf-8"))
SMALL_DOCS = [d for d in EXPECTED["documents"] if d != "long.txt"]  # O(n^2) stays quick


@pytest.mark.parametrize("doc", SMALL_DOCS)
@pytest.mark.parametrize("run", EXPECTED["param_sets"])
def test_oracle_reproduces_the_vectors(doc, run):
    p = EXPECTED["param_sets"][run]["params"]
    got = oracle_text(load_text(GOLDEN / doc), p).chunks
    want = [(c["start_word"], c["end_word"], c["kind"], c["boundary"]) for c in EXPECTED["documents"][doc]["runs"][run]["chunks"]]
    assert got == want


def test_oracle_reproduces_keys_head():
    o = oracle_text(load_text(GOLDEN / "mixed.txt"), EXPECTED["param_sets"]["small"]["params"])
    got = [
        {"cut": c, "x": o.x[c], "h": f"{o.h[c]:016x}", "key_1": f"{o.key_1[c]:016x}", "key_2": f"{o.key_2[c]:016x}",
         "class": ("word", "sentence", "paragraph")[o.cls[c]]}
        for c in range(1, 41)
    ]
    assert got == EXPECTED["documents"]["mixed.txt"]["keys_head"]


# Tiny vocabularies force equal key windows (ties), long words force edges, marks and
# closers force sentence classes.
WORDS = st.sampled_from(
    ["a", "bb", "tide", "echo", "end.", "stop!", "why?\u201d", "(so.)", "\u2026", "done.\u2019)",
     "interdisciplinarianisms", "x" * 41, "mid-length-word"]
)
SEPARATORS = st.sampled_from([" ", " ", " ", "\n", "\n\n", "\r\n\r\n", "\t"])


@st.composite
def streams(draw):
    n = draw(st.integers(0, 90))
    parts = []
    for _ in range(n):
        parts.append(draw(WORDS))
        parts.append(draw(SEPARATORS))
    return "".join(parts)


@st.composite
def small_params(draw):
    lo = draw(st.integers(1, 6))
    return Lmx2Params(
        token_counter=draw(st.sampled_from(["chars4/1", "words/1"])),
        min_tokens=lo,
        max_tokens=draw(st.integers(3 * lo - 1, 3 * lo + 12)),
        horizon=draw(st.integers(max(1, lo - 1), lo + 8)),
        fill_horizon=draw(st.integers(max(1, lo - 1), lo + 8)),
        key_tokens=draw(st.integers(1, 12)),
        boundary_preference=draw(st.sampled_from(["paragraph-sentence/1", "off"])),
    )


@settings(max_examples=150)
@given(streams(), small_params())
@example("echo tide " * 30, Lmx2Params(token_counter="words/1", min_tokens=2, max_tokens=5, horizon=1, fill_horizon=1, key_tokens=1))
def test_fast_path_equals_oracle(text, p):
    o = oracle_text(text, p.to_dict())
    fast = chunk(text, p)
    assert [(c.start_word, c.end_word, c.kind, c.boundary) for c in fast.chunks] == o.chunks
    n = fast.word_count
    assert [int(k) for k in fast.stages.keys.key_1[1:n]] == [o.key_1[c] for c in range(1, n)]
    assert [int(k) for k in fast.stages.keys.key_2[1:n]] == [o.key_2[c] for c in range(1, n)]


@given(st.lists(st.integers(1, 60), min_size=1, max_size=80), st.integers(1, 100), st.data())
def test_both_ways_of_finding_the_reach_agree(gaps, reach, data):
    """Dense token positions use a running count, sparse ones binary search (long words);
    small streams only ever take the first way, so both are checked here directly."""
    import numpy as np

    from kernel_helpers import dense_layout
    from steadlith_core.chunking import lmx2

    pos = np.cumsum(np.array(gaps, dtype=np.int64))
    at = pos[data.draw(st.lists(st.integers(0, pos.size - 1), max_size=20))] if pos.size else pos
    want = (
        [sum(1 for p in pos.tolist() if p < a - reach) for a in at.tolist()],
        [sum(1 for p in pos.tolist() if p <= a + reach) for a in at.tolist()],
    )
    for dense in (True, False):
        with dense_layout(dense):
            lo, hi = lmx2._reach_bounds(pos, at, reach)
        assert (lo.tolist(), hi.tolist()) == want
