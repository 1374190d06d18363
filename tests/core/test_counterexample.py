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
from steadlith_core.bench.examples import COUNTEREXAMPLE_INSERTION, phase_shift_counterexample, tool_library_text

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
    # real prose written for the project, not generated words: A is a passage of whole
    # paragraphs of the tool library notes, and the sentence goes between two sentences
    assert text_a[:-1] in tool_library_text() and text_a.endswith(".\n") and len(text_a) >= 2200
    assert text_b[at - 2:at] == ". " and text_b[at + len(COUNTEREXAMPLE_INSERTION):].startswith(" It has")
    assert c.ops == (
        DiffOp("equal", 0, 17, 0, 17),
        DiffOp("insert", 17, 17, 17, 21),
        DiffOp("equal", 17, 409, 21, 413),
    )


def test_parameters_and_cut_kinds():
    _, _, params, a, b, c = run()
    assert params.token_counter == "chars4/1"
    assert (params.window_words, params.min_tokens, params.max_tokens, params.margin) == (4, 8, 40, 44)
    assert (params.primary_mask, params.backup_mask) == (0x3F, 0x1)
    for result in (a, b):
        assert result.diagnostics.hard == 0
        assert result.diagnostics.backup >= 1
    assert (a.diagnostics.backup, b.diagnostics.backup) == (11, 13)


def test_the_pinned_phase_shift():
    _, _, _, a, b, c = run()
    assert c.status_b == (E,) + (S,) * 12 + (R,) * 6
    assert c.status_a == (E,) + (S,) * 11 + (R,) * 6
    (region,) = c.phase_shift_regions
    assert region.b_chunks == (1, 13)
    assert region.b_words == (24, 300)
    assert region.b_tokens == (38, 463)
    assert region.a_chunks == (0, 12)
    assert region.a_words == (20, 296)
    assert region.a_tokens == (31, 456)
    assert region.after_edit == DiffOp("insert", 17, 17, 17, 21)
    assert (region.resync_b, region.resync_a, region.resynced) == (13, 13 - 1, True)
    # exact counter tokens from the end of the insertion (B token 35) to the resync (463)
    assert int(b.cum_tokens[21]) == 35
    assert region.resync_distance_tokens == 463 - 35 == 428
    assert region.resync_distance_tokens > 9 * c.margin  # no bound by the margin
    # the versions resynchronize at a primary candidate both reach: A chunk 11 and B
    # chunk 12 end there (B holds the 4 inserted words)
    assert a.chunks[11].kind == b.chunks[12].kind == "primary"
    assert a.chunks[11].end_word + 4 == b.chunks[12].end_word == 300
    # A cuts at a primary candidate (A word 76, B word 80) that B never cuts at: B's
    # backup cut at word 76 comes first, and the next chunk overflows past it
    assert a.chunks[2].kind == "primary" and a.chunks[2].end_word == 76
    assert b.chunks[2].kind == "backup" and 80 not in {ch.end_word for ch in b.chunks}


def test_the_shared_region_breaks_the_locality_bar():
    _, _, _, a, b, c = run()
    shared = c.ops[2]
    tokens = int(b.cum_tokens[shared.b_end] - b.cum_tokens[shared.b_start])
    assert tokens == int(a.cum_tokens[shared.a_end] - a.cum_tokens[shared.a_start]) == 598
    assert tokens >= 2 * c.margin
    assert not c.locality_held and c.summary.locality_held is False
    assert [v.b_chunk for v in c.violations] == list(range(3, 13))
    v = c.violations[0]
    assert v.equal_b_words == (21, 413) and v.equal_a_words == (17, 409)
    assert v.equal_b_tokens == (35, 633)
    assert v.interior_b_tokens == (35 + 44, 633 - 44)
    assert v.b_words == (76, 101) and v.b_tokens == (115, 154) and v.status == "shifted"
    assert v.a_chunks == (2, 4)


def test_hash_inequality_inside_the_interior():
    _, _, _, a, b, c = run()
    v = c.violations[0]
    interior_chunk = b.chunks[v.b_chunk]
    # the same words in A (B words 76..101 are A words 72..97) sit in A chunks 2 and 3,
    # cut elsewhere: no A chunk has B's hash
    assert a.words.texts[72:97] == b.words.texts[76:101]
    assert [(ch.start_word, ch.end_word) for ch in a.chunks[2:4]] == [(52, 76), (76, 99)]
    assert interior_chunk.hash == "5d20641e15efee37cafac1831547a0e8"
    assert [ch.hash for ch in a.chunks[2:4]] == [
        "bfe6c1d64e3bce2594ac2b436bcb3e90", "a45a159261bc8371bfa42bd81211aed6"]
    hashes_a = {ch.hash for ch in a.chunks}
    for w in c.violations:
        assert b.chunks[w.b_chunk].hash not in hashes_a
        assert w.hash_b == b.chunks[w.b_chunk].hash


def test_the_baseline_is_worse_still():
    *_, c = run()
    assert c.baseline.summary.reused_token_ratio < c.summary.reused_token_ratio
