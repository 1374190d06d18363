"""segment_columns decides the chunks after hard cuts in rounds (each round: the chunks
starting where the previous round's hard cuts ended) and then follows the chain of
starts; past a few rounds it walks the rest one chunk at a time. Either way it must cut
exactly where SPEC §4's word loop cuts."""

from __future__ import annotations

import numpy as np
import pytest

from steadlith_core.kernel import segment as segment_module
from steadlith_core.kernel.segment import segment_columns
from test_segment_chain import spec_word_loop


def _cuts(tok, primary, backup, min_tokens, max_tokens):
    cum = np.zeros(len(tok) + 1, dtype=np.int64)
    np.cumsum(tok, out=cum[1:])
    starts, ends, kinds, _ = segment_columns(cum, np.array(sorted(primary), dtype=np.int64),
                                             np.array(sorted(backup), dtype=np.int64), min_tokens, max_tokens)
    return list(zip(starts.tolist(), ends.tolist(), kinds))


@pytest.mark.parametrize("hard_in_a_row", [1, 2, segment_module._HARD_CUT_ROUNDS, segment_module._HARD_CUT_ROUNDS + 1, 40])
def test_chains_of_hard_cuts_of_every_length_cut_as_the_word_loop(hard_in_a_row):
    """Stretches without a candidate of exactly `hard_in_a_row` hard cuts, between
    stretches with candidates: chains the rounds finish, and chains longer than them."""
    rng = np.random.default_rng(hard_in_a_row)
    tok, primary, backup = [], set(), set()
    for _ in range(6):
        stretch = rng.integers(1, 4, size=300).tolist()  # candidates here
        primary |= {len(tok) + int(i) for i in np.flatnonzero(rng.random(300) < 1 / 40)}
        backup |= {len(tok) + int(i) for i in np.flatnonzero(rng.random(300) < 1 / 20)}
        tok += stretch
        tok += [10] * (10 * hard_in_a_row)  # none here: max_tokens of 100 cuts it every 10 words
    want = spec_word_loop(tok, primary, backup, 30, 100)
    kinds = [kind for _, _, kind in want]
    assert "hard" in kinds and kinds.count("hard") >= 6 * hard_in_a_row - 6
    assert _cuts(tok, primary, backup, 30, 100) == want


def test_a_document_without_candidates_is_all_hard_cuts_as_the_word_loop():
    tok = [1 + i % 3 for i in range(5_000)]
    want = spec_word_loop(tok, set(), set(), 50, 120)
    assert {kind for _, _, kind in want} == {"hard", "end"} and len(want) > 50
    assert _cuts(tok, set(), set(), 50, 120) == want
