"""The SPEC §9 counterexample: tttd-v1 is not strictly local.

B is A plus one inserted sentence; both chunkings use backup cuts and no hard cut; the
shared region after the insertion is far longer than 2 * margin, and chunks in its
interior differ (hash inequality) because B's backup cuts run out of phase with A's
until a common primary candidate resynchronizes them. Everything below is pinned: if
a change to the chunker moves these ranges, it changed tttd-v1 (a new boundary-rule
id), or the example, and this regression must be re-derived on purpose.
"""

from __future__ import annotations

from steadlith_core import DiffOp, chunk, compare
from steadlith_core.examples import COUNTEREXAMPLE_INSERTION, phase_shift_counterexample

S, R, E = "shifted", "reused", "edited"


def run():
    text_a, text_b, params = phase_shift_counterexample()
    a, b = chunk(text_a, params), chunk(text_b, params)
    return text_a, text_b, params, a, b, compare(a, b)


def test_it_is_deterministic_and_b_is_a_plus_one_insertion():
    text_a, text_b, params, a, b, c = run()
    assert phase_shift_counterexample() == (text_a, text_b, params)
    at = text_b.index(COUNTEREXAMPLE_INSERTION)
    assert text_b[:at] + text_b[at + len(COUNTEREXAMPLE_INSERTION) + 1 :] == text_a
    assert c.ops == (
        DiffOp("equal", 0, 37, 0, 37),
        DiffOp("insert", 37, 37, 37, 44),
        DiffOp("equal", 37, 349, 44, 356),
    )


def test_parameters_and_cut_kinds():
    _, _, params, a, b, c = run()
    assert params.token_counter == "chars4/1"
    assert (params.window_words, params.min_tokens, params.max_tokens, params.margin) == (4, 8, 40, 44)
    assert (params.primary_mask, params.backup_mask) == (0x3F, 0x1)
    for result in (a, b):
        assert result.diagnostics.hard == 0
        assert result.diagnostics.backup >= 1
    assert (a.diagnostics.backup, b.diagnostics.backup) == (13, 14)


def test_the_pinned_phase_shift():
    _, _, _, a, b, c = run()
    assert c.status_b == (R, R, E) + (S,) * 11 + (R,) * 6
    assert c.status_a == (R, R, E) + (S,) * 11 + (R,) * 6
    (region,) = c.phase_shift_regions
    assert region.b_chunks == (3, 14)
    assert region.b_words == (50, 267)
    assert region.b_tokens == (91, 488)
    assert region.a_chunks == (2, 14)
    assert region.a_words == (43, 260)
    assert region.a_tokens == (80, 477)
    assert region.after_edit == DiffOp("insert", 37, 37, 37, 44)
    assert (region.resync_b, region.resync_a, region.resynced) == (14, 14, True)
    # exact counter tokens from the end of the insertion (B token 79) to the resync (488)
    assert int(b.cum_tokens[44]) == 79
    assert region.resync_distance_tokens == 488 - 79 == 409
    assert region.resync_distance_tokens > 9 * c.margin  # no bound by the margin
    # the versions resynchronize at a primary candidate both reach: chunk 13 ends there
    assert a.chunks[13].kind == b.chunks[13].kind == "primary"
    assert a.chunks[13].end_word + 7 == b.chunks[13].end_word == 267
    # A cut at a primary candidate that B's chunk never reaches (it overflows first)
    assert a.chunks[8].kind == "primary" and b.chunks[8].kind == "backup"


def test_the_shared_region_breaks_the_locality_bar():
    _, _, _, a, b, c = run()
    shared = c.ops[2]
    tokens = int(b.cum_tokens[shared.b_end] - b.cum_tokens[shared.b_start])
    assert tokens == int(a.cum_tokens[shared.a_end] - a.cum_tokens[shared.a_start]) == 589
    assert tokens >= 2 * c.margin
    assert not c.locality_held and c.summary.locality_held is False
    assert [v.b_chunk for v in c.violations] == list(range(4, 14))
    v = c.violations[0]
    assert v.equal_b_words == (44, 356) and v.equal_a_words == (37, 349)
    assert v.equal_b_tokens == (79, 668)
    assert v.interior_b_tokens == (79 + 44, 668 - 44)
    assert v.b_words == (67, 85) and v.b_tokens == (125, 162) and v.status == "shifted"
    assert v.a_chunks == (3, 5)


def test_hash_inequality_inside_the_interior():
    _, _, _, a, b, c = run()
    v = c.violations[0]
    interior_chunk = b.chunks[v.b_chunk]
    # the same words in A (B words 67..85 are A words 60..78) sit in A chunks 3 and 4,
    # cut elsewhere: no A chunk has B's hash
    assert a.words.texts[60:78] == b.words.texts[67:85]
    assert [(ch.start_word, ch.end_word) for ch in a.chunks[3:5]] == [(48, 67), (67, 84)]
    assert interior_chunk.hash == "a8ec8cc6bf09379751f9cde25a077745"
    assert [ch.hash for ch in a.chunks[3:5]] == [
        "efeccf5669c586970cda38f682b15ffa", "8bc14e297e07cf714ebb1adf67aaac0e"]
    hashes_a = {ch.hash for ch in a.chunks}
    for w in c.violations:
        assert b.chunks[w.b_chunk].hash not in hashes_a
        assert w.hash_b == b.chunks[w.b_chunk].hash


def test_the_baseline_is_worse_still():
    *_, c = run()
    assert c.baseline.summary.reused_token_ratio < c.summary.reused_token_ratio
