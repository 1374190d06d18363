"""segment.py decides the chunks that start after a candidate all at once (numpy) and
follows the chain of starts; it must cut exactly where SPEC §4's word loop cuts.

The oracle below is the pseudo-code of SPEC §4 transcribed word by word. Candidates
are drawn sparse (the chain is used) and dense (more candidates than a few per chunk:
only word 0 is decided at once), token counts small and large (hard cuts, whose next
chunk is decided alone), and min/max up to past the document's total.
"""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core.kernel.segment import segment, segment_columns


def spec_word_loop(tok: list[int], primary: set[int], backup: set[int], min_tokens: int, max_tokens: int):
    n, s, cuts = len(tok), 0, []
    while s < n:
        total, b = 0, None
        for i in range(s, n):
            if total + tok[i] > max_tokens and i > s:
                end, kind = (b + 1, "backup") if b is not None else (i, "hard")
                break
            total += tok[i]
            if total >= min_tokens:
                if i in primary:
                    end, kind = i + 1, "primary"
                    break
                if i in backup:
                    b = i
        else:
            end, kind = n, "end"
        cuts.append((s, end, kind))
        s = end
    return cuts


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.one_of(st.integers(1, 4), st.integers(1, 60)), max_size=250),
    st.data(),
    st.integers(1, 40),
    st.one_of(st.integers(0, 120), st.just(2**63 + 7)),
    st.sampled_from([0.0, 0.02, 0.1, 0.5, 1.0]),
)
def test_chunks_follow_the_word_loop_of_spec_section_4(tok, data, min_tokens, extra, density):
    n = len(tok)
    draw_set = lambda p: {i for i in range(n) if data.draw(st.floats(0, 1)) < p}  # noqa: E731
    primary, backup = (draw_set(density / 4), draw_set(density)) if n <= 60 else (
        {i for i in range(n) if (i * 7919 + 13) % 97 < 97 * density / 4},
        {i for i in range(n) if (i * 104729 + 7) % 89 < 89 * density})
    max_tokens = min_tokens + extra
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tok, out=cum[1:])
    want = spec_word_loop(tok, primary, backup, min_tokens, max_tokens)

    starts, ends, kinds, snapped = segment_columns(cum, np.array(sorted(primary), dtype=np.int64),
                                                   np.array(sorted(backup), dtype=np.int64), min_tokens, max_tokens)
    assert list(zip(starts.tolist(), ends.tolist(), kinds)) == want
    assert snapped is None  # nothing can be snapped with snapping off
    assert [c[:3] for c in segment(cum, sorted(primary), sorted(backup), min_tokens, max_tokens)] == want


def test_a_long_document_with_sparse_candidates_and_hard_cuts_cuts_as_the_word_loop():
    """Enough words for the chain to carry most chunks, and long words forcing hard cuts
    in between: the starts after them are decided one by one."""
    rng = np.random.default_rng(11)
    n = 20_000
    tok = rng.choice([1, 2, 3, 150], size=n, p=[0.5, 0.3, 0.19, 0.01]).tolist()
    primary = {int(i) for i in np.flatnonzero(rng.random(n) < 1 / 128)}
    backup = {int(i) for i in np.flatnonzero(rng.random(n) < 1 / 64)}
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tok, out=cum[1:])
    want = spec_word_loop(tok, primary, backup, 96, 300)
    assert {kind for _, _, kind in want} == {"primary", "backup", "hard", "end"}
    starts, ends, kinds, _ = segment_columns(cum, np.array(sorted(primary), dtype=np.int64),
                                             np.array(sorted(backup), dtype=np.int64), 96, 300)
    assert list(zip(starts.tolist(), ends.tolist(), kinds)) == want


def test_dense_candidates_and_few_chunks_cut_as_the_word_loop():
    """Every word a backup candidate and a max past most of the document: more candidates
    than chunks by far, so the chunks are decided one by one instead."""
    n = 5_000
    tok = [1 + (i * 7) % 5 for i in range(n)]
    primary, backup = {i for i in range(0, n, 997)}, set(range(n))
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(tok, out=cum[1:])
    for min_tokens, max_tokens in ((96, 4_000), (3_000, 6_000), (1, 2**64)):
        want = spec_word_loop(tok, primary, backup, min_tokens, max_tokens)
        starts, ends, kinds, _ = segment_columns(cum, np.array(sorted(primary), dtype=np.int64),
                                                 np.array(sorted(backup), dtype=np.int64), min_tokens, max_tokens)
        assert list(zip(starts.tolist(), ends.tolist(), kinds)) == want
