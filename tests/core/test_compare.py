"""compare(): statuses, alignment, phase-shift regions, locality check, churn summary,
baseline, and the edge cases a user meets first (identical, empty, unrelated, edits at
the very start or end, paragraph re-flow)."""

from __future__ import annotations

import copy
import dataclasses
import json
from types import SimpleNamespace

import numpy as np
import pytest

from steadlith_core import (
    BASELINE_STRATEGY,
    ChunkerParams,
    Comparison,
    ComparisonError,
    DiffOp,
    chunk,
    chunk_hash,
    compare,
)
from steadlith_core.comparison.baseline import FixedTokenParams, baseline_for, chunk_fixed
from steadlith_core.vocabulary import STATUSES_A, STATUSES_B
from steadlith_core.bench.examples import generate_prose, scattered_edits
from steadlith_core.chunking.lmx2_params import Lmx2Params
from steadlith_core.chunking.pipeline import Pipeline

SMALL = ChunkerParams(window_words=4, min_tokens=8, max_tokens=40, primary_mask=0x3F, primary_remainder=0x3F,
                      backup_mask=0x3, backup_remainder=0x3)
PROSE = generate_prose(6_000, seed=11)


def cmp(text_a: str, text_b: str, params: ChunkerParams = SMALL) -> Comparison:
    c = compare(chunk(text_a, params), chunk(text_b, params))
    assert_consistent(c)
    return c


def assert_consistent(c: Comparison) -> None:
    s = c.summary
    assert len(c.status_a) == s.chunks_a == len(c.a.chunks)
    assert len(c.status_b) == s.chunks_b == len(c.b.chunks)
    assert set(c.status_a) <= set(STATUSES_A) and set(c.status_b) <= set(STATUSES_B)
    assert s.reused_chunks == len(c.alignment) == c.status_b.count("reused") == c.status_a.count("reused")
    assert s.reused_tokens + s.tokens_to_embed == s.tokens_b
    assert s.shifted_chunks_b + s.edited_chunks_b + s.new_chunks_b + s.reused_chunks == s.chunks_b
    assert s.shifted_chunks_a + s.edited_chunks_a + s.removed_chunks_a + s.reused_chunks == s.chunks_a
    for i, j in c.alignment:
        assert c.a.chunks[i].hash == c.b.chunks[j].hash and c.a.chunks[i].text == c.b.chunks[j].text
        assert c.partner_a[i] == j and c.partner_b[j] == i
    assert all(p < q for p, q in zip(c.alignment, c.alignment[1:]))
    assert all(x[1] < y[1] for x, y in zip(c.alignment, c.alignment[1:]))
    assert s.locality_held == c.locality_held == (not c.violations)
    json.dumps(c.to_dict())


# -- edge cases ------------------------------------------------------------------------


def test_identical_versions_reuse_everything():
    c = cmp(PROSE, PROSE)
    n = len(c.b.chunks)
    assert n > 10
    assert c.status_a == c.status_b == ("reused",) * n
    assert c.alignment == tuple((i, i) for i in range(n))
    assert c.ops == (DiffOp("equal", 0, c.a.word_count, 0, c.b.word_count),)
    assert c.phase_shift_regions == () and c.violations == ()
    s = c.summary
    assert (s.reused_chunk_ratio, s.reused_token_ratio, s.tokens_to_embed, s.edits) == (1.0, 1.0, 0, 0)
    assert s.checked_ranges == 1 and s.locality_held
    assert c.baseline.summary.reused_chunk_ratio == 1.0


def test_empty_a_makes_every_b_chunk_new():
    c = cmp("", PROSE)
    assert c.status_a == () and set(c.status_b) == {"new"}
    assert c.ops == (DiffOp("insert", 0, 0, 0, c.b.word_count),)
    s = c.summary
    assert (s.reused_chunks, s.reused_chunk_ratio, s.reused_token_ratio) == (0, 0.0, 0.0)
    assert s.tokens_to_embed == s.tokens_b > 0


def test_empty_b_has_nothing_to_embed():
    c = cmp(PROSE, "   \n\n ")
    assert c.status_b == () and set(c.status_a) == {"removed"}
    s = c.summary
    # Ratios are over B; B has no chunk, so nothing needs embedding: 1.0 by definition.
    assert (s.chunks_b, s.tokens_to_embed, s.reused_chunk_ratio, s.reused_token_ratio) == (0, 0, 1.0, 1.0)
    assert s.removed_chunks_a == s.chunks_a > 0


def test_both_empty():
    c = cmp("", "")
    assert c.ops == () and c.alignment == () and c.locality_held
    assert c.summary.reused_chunk_ratio == 1.0 and c.summary.longest_resync_tokens == 0


def test_versions_that_share_nothing():
    c = cmp(generate_prose(4_000, seed=1), generate_prose(4_000, seed=2))
    s = c.summary
    assert s.reused_chunks == 0 and s.shifted_chunks_b == 0 and s.shifted_chunks_a == 0
    assert set(c.status_b) <= {"new", "edited"} and set(c.status_a) <= {"removed", "edited"}
    assert c.phase_shift_regions == () and s.checked_ranges == 0


def test_edit_at_the_very_start():
    c = cmp(PROSE, "Inserted first words. " + PROSE)
    assert c.ops[0] == DiffOp("insert", 0, 0, 0, 3)
    assert c.status_b[0] in ("new", "edited")
    # CDC resynchronizes: the end of the document is reused
    assert c.status_b[-1] == "reused" and c.summary.reused_chunk_ratio > 0.5
    inserted_tokens = int(c.b.cum_tokens[3])  # "Inserted first words." = 2 + 2 + 2 chars4 tokens
    assert inserted_tokens == 6
    for r in c.phase_shift_regions:
        assert r.after_edit == c.ops[0]
        assert r.resync_distance_tokens == int(c.b.cum_tokens[c.b.chunks[r.resync_b].start_word]) - inserted_tokens
    # the fixed-window baseline loses every window after the insertion
    assert c.baseline.summary.reused_chunks <= 1


def test_edit_at_the_very_end():
    c = cmp(PROSE, PROSE.rstrip() + " and two more words.")
    assert c.ops[-1].tag in ("insert", "replace")
    # A cut depends only on words before the overflow point, which A has: every chunk
    # of A but its last ('end') one is reused.
    assert c.status_a[:-1] == ("reused",) * (len(c.a.chunks) - 1)
    # A's 'end' chunk keeps all its words, but B, going on, may cut inside it: shifted
    assert c.status_a[-1] in ("shifted", "edited")
    assert c.status_b[len(c.a.chunks) - 1:].count("reused") == 0
    assert c.status_b[-1] in ("edited", "new")


def test_deletion_at_the_very_end():
    words = PROSE.split(" ")
    c = cmp(PROSE, " ".join(words[:-5]))
    assert c.ops[-1].tag == "delete"
    assert c.status_b[:-1] == ("reused",) * (len(c.b.chunks) - 1)


def test_paragraph_reflow_changes_only_paragraph_starts():
    reflowed = " ".join(PROSE.split())  # same words, one paragraph
    c = cmp(PROSE, reflowed)
    n_breaks = int(c.a.words.para.sum())
    assert n_breaks > 3
    changes = [op for op in c.ops if op.tag != "equal"]
    assert len(changes) == n_breaks
    assert all(op.tag == "replace" and op.a_end - op.a_start == 1 == op.b_end - op.b_start for op in changes)
    assert c.summary.changed_words_a == c.summary.changed_words_b == n_breaks
    # A chunk holding a former paragraph start inside it is edited. One that *starts*
    # there may be reused: canonical text has no leading separator, so its hash is the
    # same (the alignment's second pass pairs it by hash).
    starting = 0  # reused chunks that start at a re-flowed word
    for op in changes:
        j, i = c.b.chunk_at_word(op.b_start), c.a.chunk_at_word(op.a_start)
        if c.b.chunks[j].start_word == op.b_start:
            starting += c.status_b[j] == "reused"
            assert c.status_b[j] in ("edited", "reused")
        else:
            assert c.status_b[j] == "edited"
        if c.a.chunks[i].start_word != op.a_start:
            assert c.status_a[i] == "edited"
    assert starting >= 1  # this document has one such chunk


def test_a_deletion_inside_a_chunk_is_an_edit_even_when_its_words_are_unchanged():
    # B's words all come from A, yet the chunk that spans the deletion point is new text
    words = PROSE.split(" ")
    c = cmp(PROSE, " ".join(words[:60] + words[63:]))
    (change,) = [op for op in c.ops if op.tag != "equal"]
    assert change.tag == "delete"
    j = c.b.chunk_at_word(change.b_start)
    chunk_b = c.b.chunks[j]
    if chunk_b.start_word < change.b_start:  # the deletion point is inside chunk j
        assert c.status_b[j] == "edited"
    assert c.summary.changed_words_b == 0


def test_text_repeated_elsewhere_counts_as_unaligned_hash_hits():
    c = cmp(PROSE, PROSE + "\n\n" + PROSE)
    s = c.summary
    assert s.reused_chunks >= len(c.a.chunks) - 1
    assert s.unaligned_hash_hits_b > 0  # the copy's chunks exist in A, but only once
    assert s.unaligned_hash_hit_tokens_b <= s.tokens_to_embed


# -- the structure of results -------------------------------------------------------------


def test_regions_are_maximal_runs_of_shifted_chunks():
    c = cmp(PROSE, PROSE[:1500] + " Something new in the middle. " + PROSE[1500:])
    shifted = [j for j, s in enumerate(c.status_b) if s == "shifted"]
    covered = [j for r in c.phase_shift_regions for j in range(*r.b_chunks)]
    assert covered == shifted
    for r in c.phase_shift_regions:
        lo, hi = r.b_chunks
        assert lo == 0 or c.status_b[lo - 1] != "shifted"
        assert hi == len(c.status_b) or c.status_b[hi] != "shifted"
        cum_b, cum_a = c.b.cum_tokens, c.a.cum_tokens
        assert r.b_words == (c.b.chunks[lo].start_word, c.b.chunks[hi - 1].end_word)
        assert r.b_tokens == (cum_b[r.b_words[0]], cum_b[r.b_words[1]])
        assert r.a_tokens == (cum_a[r.a_words[0]], cum_a[r.a_words[1]])
        # same words in both versions
        assert c.a.words.texts[slice(*r.a_words)] == c.b.words.texts[slice(*r.b_words)]
        if r.resynced:
            assert c.status_b[r.resync_b] == "reused" and c.partner_b[r.resync_b] == r.resync_a
            assert all(s != "reused" for s in c.status_b[hi:r.resync_b])


def test_mismatched_parameters_are_a_clear_error():
    a, b = chunk(PROSE, SMALL), chunk(PROSE, SMALL.with_changes(min_tokens=9))
    with pytest.raises(ComparisonError, match=r"min_tokens \(A 8, B 9\)"):
        compare(a, b)


def test_mismatched_normalizer_is_a_clear_error():
    a = chunk(PROSE, SMALL)
    other = dataclasses.replace(a, normalizer_version="steadlith-norm/2")
    with pytest.raises(ComparisonError, match="steadlith-norm/1.*steadlith-norm/2"):
        compare(a, other)


def test_compare_takes_chunkings():
    with pytest.raises(TypeError):
        compare(PROSE, PROSE)  # type: ignore[arg-type]


def test_comparison_is_immutable():
    c = cmp(PROSE, PROSE)
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.summary = None  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.summary.reused_chunks = 0  # type: ignore[misc]
    assert isinstance(c.alignment, tuple) and isinstance(c.status_b, tuple)


SUMMARY_FIELDS = [
    "strategy", "words_a", "words_b", "tokens_a", "tokens_b", "chunks_a", "chunks_b", "edits",
    "changed_words_a", "changed_words_b", "reused_chunks", "reused_chunk_ratio", "reused_tokens",
    "reused_token_ratio", "chunks_to_embed", "tokens_to_embed", "shifted_chunks_b", "shifted_tokens_b",
    "edited_chunks_b", "new_chunks_b", "shifted_chunks_a", "edited_chunks_a", "removed_chunks_a",
    "unaligned_hash_hits_b", "unaligned_hash_hit_tokens_b", "phase_shift_regions", "longest_resync_tokens",
    "margin", "checked_ranges", "violations", "locality_held", "margin_formula", "paragraph_cut_share_b",
    "sentence_cut_share_b", "mean_chunk_tokens_b", "longest_reach_tokens",
]


def test_json_names_are_stable():
    d = cmp(PROSE, PROSE[:2000] + " An edit. " + PROSE[2000:]).to_dict()
    assert list(d) == [
        "schema", "normalizer_version", "boundary_rule", "params_hash", "params", "locality_held", "locality_verdict",
        "margin",
        "margin_formula", "summary", "phase_shift_regions", "violations", "alignment", "diff", "chunks_a", "chunks_b", "baseline",
    ]
    assert d["schema"] == "steadlith-compare/1"
    assert list(d["summary"]) == SUMMARY_FIELDS
    assert list(d["baseline"]) == ["strategy", "params_hash", "params", "summary"]
    assert list(d["baseline"]["summary"]) == SUMMARY_FIELDS
    assert list(d["diff"][0]) == ["tag", "a_start", "a_end", "b_start", "b_end"]
    assert set(d["chunks_b"][0]) == {"index", "start_word", "end_word", "start_token", "end_token", "tokens",
                                     "kind", "boundary", "hash", "status", "partner"}
    if d["phase_shift_regions"]:
        assert set(d["phase_shift_regions"][0]) == {
            "b_chunks", "b_words", "b_tokens", "a_chunks", "a_words", "a_tokens", "after_edit", "resync_b",
            "resync_a", "resync_distance_tokens", "resynced", "shifted_chunks",
            # added beside the older names, whose meaning stays: a reader of those still reads right
            "a_chunk_words", "a_chunk_tokens", "run_b_chunks", "first_edit", "edit", "starts_before_edit_tokens",
            "reach_tokens"}


# -- the baseline ------------------------------------------------------------------------


def test_baseline_windows_and_identity():
    b = chunk_fixed(PROSE, FixedTokenParams(max_tokens=40))
    assert b.boundary_rule == BASELINE_STRATEGY == "fixed-tokens/1"
    assert [c.start_word for c in b.chunks[1:]] == [c.end_word for c in b.chunks[:-1]]
    assert b.chunks[0].start_word == 0 and b.chunks[-1].end_word == b.word_count
    for c in b.chunks[:-1]:
        assert c.tokens <= 40 or c.word_count == 1
        # greedy: the next word would not have fitted
        assert c.tokens + int(b.word_tokens[c.end_word]) > 40
    for c in b.chunks:
        assert c.hash == chunk_hash(c.text, b.params_hash, family="fixed-tokens")
        assert c.text == b.words.canonical_text(c.start_word, c.end_word)
    assert b.params_hash != ChunkerParams(min_tokens=8, max_tokens=40).params_hash
    assert b.params_hash != FixedTokenParams(max_tokens=41).params_hash


def test_baseline_oversize_word_is_a_chunk_of_its_own():
    b = chunk_fixed("a " + "x" * 100 + " b c", FixedTokenParams(max_tokens=4))
    assert [(c.start_word, c.end_word, c.tokens) for c in b.chunks] == [(0, 1, 1), (1, 2, 25), (2, 4, 2)]


def test_baseline_uses_the_chunkings_stream_and_max_tokens():
    a = chunk(PROSE, SMALL)
    b = baseline_for(a)
    assert b.words is a.words and b.params == FixedTokenParams(40, "chars4/1")


def test_cdc_saves_what_the_baseline_loses():
    c = cmp(PROSE, PROSE[:300] + " A short insertion near the start. " + PROSE[300:])
    assert c.baseline.strategy == "fixed-tokens/1"
    assert c.summary.reused_token_ratio > c.baseline.summary.reused_token_ratio + 0.3


def test_locality_interior_bounds_are_exact_and_inclusive():
    # words/1 and min = max = 10: every chunk is exactly 10 words (= 10 tokens), so the
    # numbers are easy to check. Five words inserted at the start shift every cut of B.
    params = ChunkerParams(window_words=5, min_tokens=10, max_tokens=10, token_counter="words/1")
    text_a = " ".join(f"w{k}" for k in range(100))
    c = cmp(text_a, "p q r s t " + text_a, params)
    assert all(ch.word_count == 10 for ch in c.b.chunks[:-1])
    assert c.margin == 15
    (shared,) = [op for op in c.ops if op.tag == "equal"]
    assert shared == DiffOp("equal", 0, 100, 5, 105)
    # interior: B tokens [5 + 15, 105 - 15] = [20, 90]; chunk 2 starts at 20, chunk 8 ends at 90
    assert c.violations[0].interior_b_tokens == (20, 90)
    assert [v.b_chunk for v in c.violations] == [2, 3, 4, 5, 6, 7, 8]
    assert all(v.status == "shifted" for v in c.violations)
    assert c.summary.checked_ranges == 1


def test_analysis_compare_equals_compare_and_reuses_the_diff_across_parameter_changes():
    """The inspector re-compares on every parameter change: Analysis.compare must give
    exactly compare()'s answer while reusing the word diff and the baseline, which
    depend only on the texts (and the baseline on max_tokens and the counter)."""
    from steadlith_core import Analysis
    from steadlith_core.bench.examples import phase_shift_counterexample

    text_a, text_b, params = phase_shift_counterexample()
    pipeline = Analysis()
    first = pipeline.compare(pipeline.chunk(text_a, params), pipeline.chunk(text_b, params))
    assert first.to_dict() == compare(chunk(text_a, params), chunk(text_b, params)).to_dict()
    changed = params.with_changes(min_tokens=params.min_tokens + 3)
    second = pipeline.compare(pipeline.chunk(text_a, changed), pipeline.chunk(text_b, changed))
    assert second.ops is first.ops  # the word diff came from the cache
    assert second.to_dict() == compare(chunk(text_a, changed), chunk(text_b, changed)).to_dict()
    wider = params.with_changes(max_tokens=params.max_tokens + 8)
    third = pipeline.compare(pipeline.chunk(text_a, wider), pipeline.chunk(text_b, wider))
    assert third.baseline.to_dict() == compare(chunk(text_a, wider), chunk(text_b, wider)).baseline.to_dict()
    assert third.baseline.max_tokens == wider.max_tokens


@pytest.mark.parametrize("params", [ChunkerParams(min_tokens=24, max_tokens=160), Lmx2Params(min_tokens=32, max_tokens=160, horizon=48, fill_horizon=32)],
                         ids=["tttd-v1", "lmx2-v1"])
def test_compare_reads_the_chunk_columns_and_agrees_with_chunk_objects(params):
    """Comparing a pair the pipeline chunked makes no Chunk object (a 10 MB pair in the
    inspector has ~10,000 a side, rebuilt on every parameter change), and finds exactly
    what it finds once the chunks have been read."""
    text = generate_prose(40_000, seed=11)
    edited = scattered_edits(text, n_edits=6, seed=3)
    a, b = Pipeline().chunk(text, params), Pipeline().chunk(edited, params)
    lazy = compare(a, b, baseline=False)
    assert "chunks" not in vars(a) and "chunks" not in vars(b)
    assert lazy.summary.phase_shift_regions > 0  # a case with shifted runs to agree on
    eager = compare(_chunks_only(a), _chunks_only(b), baseline=False)
    assert lazy.to_dict() == eager.to_dict()


def _chunks_only(c):
    """A copy of chunking `c` whose columns are read off its Chunk objects: what compare
    would see if it read the chunks."""
    chunks = c.chunks

    def ints(field: str) -> np.ndarray:
        return np.asarray([getattr(ch, field) for ch in chunks], dtype=np.int64)

    twin = copy.copy(c)
    object.__setattr__(twin, "columns", SimpleNamespace(
        start_words=ints("start_word"), end_words=ints("end_word"), tokens=ints("tokens"),
        hashes=[ch.hash for ch in chunks], boundaries=[ch.boundary for ch in chunks]))
    return twin
