"""The locality lab: run_lab's result, the incremental path against chunking each edited
document from scratch, and what the lab reports for edits whose cost is known."""

from __future__ import annotations

import pytest

from steadlith_core import ChunkerParams, Lmx2Params, compare, chunk
from steadlith_core.bench.examples import generate_prose, tool_library_text
from steadlith_core.lab import EDIT_KINDS, Edit, LabError, draw_edits, run_lab
from steadlith_core.lab.edits import LabDocument
from steadlith_core.lab.run import build_chunkers
from steadlith_core.lab.stream import EditedStream
from steadlith_core.chunking.presets import LMX2_PRESETS
from steadlith_core.progress import Cancelled

RULES = {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params(), "fixed": None}
# small chunks and snapping on: many cuts per edit, every branch of the tttd-v1 scan
SMALL = {
    "tttd-v1": ChunkerParams(window_words=4, min_tokens=8, max_tokens=40, primary_mask=0x3F, primary_remainder=0x3F,
                             backup_mask=1, backup_remainder=1, snap_mode="paragraph-sentence/1",
                             snap_window_words=3),
    "lmx2-v1": LMX2_PRESETS["lmx2 Small chunks"],
    "fixed": None,
}


@pytest.fixture(scope="module")
def tool_library():
    return tool_library_text()


def _pairs(text, rules, edits, seed):
    doc = LabDocument(text)
    chunkers = build_chunkers(doc, rules)
    for edit in draw_edits(doc.n, edits, seed):
        stream = EditedStream(doc, edit.splices(doc))
        for c in chunkers:
            yield c, edit, stream


@pytest.mark.parametrize("rules", [RULES, SMALL], ids=["defaults", "small-and-snapping"])
def test_incremental_outcomes_equal_chunking_every_edited_document_from_scratch(tool_library, rules):
    checked = 0
    for c, edit, stream in _pairs(tool_library, rules, 120, seed=3):
        assert c.outcome(edit, stream) == c.outcome_from_scratch(edit, stream), (c.name, edit.describe())
        checked += 1
    assert checked == 360


def test_incremental_equals_from_scratch_on_generated_prose_with_long_words():
    for c, edit, stream in _pairs(generate_prose(25_000, seed=4), SMALL, 60, seed=8):
        assert c.outcome(edit, stream) == c.outcome_from_scratch(edit, stream), (c.name, edit.describe())


# tiny chunks, a wide fingerprint window and snapping: the scan must not resume in step
# before fingerprints and snapping read only unchanged words again
DENSE = {"tttd-v1": ChunkerParams(window_words=16, min_tokens=2, max_tokens=12, primary_mask=0x7, primary_remainder=0x7,
                                  backup_mask=1, backup_remainder=1, snap_mode="paragraph-sentence/1",
                                  snap_window_words=2),
         "lmx2-v1": Lmx2Params(min_tokens=2, max_tokens=8, horizon=3, fill_horizon=2, key_tokens=3)}


def test_incremental_equals_from_scratch_with_tiny_chunks_and_a_wide_window():
    for c, edit, stream in _pairs(generate_prose(10_000, seed=6), DENSE, 100, seed=2):
        assert c.outcome(edit, stream) == c.outcome_from_scratch(edit, stream), (c.name, edit.describe())


SHORT_PARAGRAPHS = "Title\n\nOne.\n\nTwo words.\n\nA\nthird one here. And more!\n\n“Quoted.”\n\nLast\n"


@pytest.mark.parametrize("kind", EDIT_KINDS)
def test_the_edited_stream_is_right_at_every_seam_of_short_paragraphs(kind):
    """One-word paragraphs put paragraph starts right at the seams of every re-scanned
    piece: each edit at each position, against normalizing the edited text."""
    from steadlith_core.chunking.canonical import compute_symbols
    from steadlith_core.chunking.normalize import normalize

    doc = LabDocument(SHORT_PARAGRAPHS)
    for position in range(doc.n):
        for seed in range(3):
            edit = Edit(kind, position, 1 + seed, seed)
            stream = EditedStream(doc, edit.splices(doc))
            words = normalize(edit.apply(SHORT_PARAGRAPHS))
            assert stream.para.tolist() == words.para.tolist(), edit
            assert stream.symbols.tolist() == compute_symbols(words).tolist(), edit
            assert [stream.word(k) for k in range(stream.n)] == list(words.texts), edit


def test_the_edited_stream_is_the_stream_of_the_edited_text(tool_library):
    """Words, offsets, paragraph flags and symbols built from the original's agree with
    normalizing the edited text whole."""
    from steadlith_core.chunking.canonical import compute_symbols
    from steadlith_core.chunking.normalize import normalize

    doc = LabDocument(tool_library)
    for edit in draw_edits(doc.n, 60, seed=11):
        stream = EditedStream(doc, edit.splices(doc))
        words = normalize(edit.apply(tool_library))
        assert stream.text == edit.apply(tool_library)
        assert stream.n == len(words)
        assert stream.starts_of().tolist() == words.starts.tolist(), edit.describe()
        assert stream.ends_of().tolist() == words.ends.tolist()
        assert stream.para.tolist() == words.para.tolist(), edit.describe()
        assert stream.symbols.tolist() == compute_symbols(words).tolist(), edit.describe()


def test_tokens_to_embed_is_compare_tokens_to_embed_less_its_hash_hits(tool_library):
    """The lab counts what an embedding cache keyed by chunk hash pays: compare()'s
    tokens to embed, minus its chunks whose hash occurs elsewhere in A."""
    doc = LabDocument(tool_library)
    chunkers = build_chunkers(doc, {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params()})
    for edit in draw_edits(doc.n, 25, seed=21):
        text_b = edit.apply(tool_library)
        stream = EditedStream(doc, edit.splices(doc))
        for c in chunkers:
            s = compare(chunk(tool_library, c.params), chunk(text_b, c.params), baseline=False).summary
            outcome = c.outcome(edit, stream)
            assert outcome.tokens_to_embed == s.tokens_to_embed - s.unaligned_hash_hit_tokens_b, edit.describe()


def test_the_example_edit_passes_tttd_margin_and_holds_lmx2s_as_compare_says():
    """tool_library_example inserts one sentence: compare finds a locality violation
    under tttd-v1 and none under lmx2-v1; the lab's margin verdicts agree."""
    from steadlith_core.bench.examples import TOOL_LIBRARY_ANCHOR, TOOL_LIBRARY_INSERTION, tool_library_example
    from steadlith_core.lab.edits import Splice

    text_a, text_b, params = tool_library_example()
    doc = LabDocument(text_a)
    at = text_a.index(TOOL_LIBRARY_ANCHOR) + len(TOOL_LIBRARY_ANCHOR)
    stream = EditedStream(doc, (Splice(at, at, TOOL_LIBRARY_INSERTION),))
    assert stream.text == text_b
    edit = Edit("insert-sentence", doc.starts.index(at))  # the record only: the splice is the example's
    held = []
    for c in build_chunkers(doc, params):
        expected = compare(chunk(text_a, c.params), chunk(text_b, c.params), baseline=False).locality_held
        outcome = c.outcome(edit, stream)
        assert outcome.margin_held is expected
        assert outcome == c.outcome_from_scratch(edit, stream)
        held.append(outcome.margin_held)
    assert held == [False, True]


def test_run_lab_result_has_the_api_the_window_reads(tool_library):
    result = run_lab(tool_library, RULES, edits=40, seed=2)
    assert list(result.rules) == list(RULES) == list(result.outcomes)
    assert len(result.edits) == 40
    for name, s in result.rules.items():
        outcomes = result.outcomes[name]
        assert [o.edit for o in outcomes] == list(result.edits)
        assert set(s.tokens) == set(s.reach) == {"mean", "p50", "p95", "p99", "max"}
        assert s.reach["max"] == max(o.reach for o in outcomes)
        assert s.tokens["max"] == max(o.tokens_to_embed for o in outcomes)
        assert s.worst[0].reach == s.reach["max"]
        assert len(s.worst) == 10
    assert result.rules["tttd-v1"].margin == ChunkerParams().margin
    assert result.rules["lmx2-v1"].margin == Lmx2Params().margin
    assert result.rules["fixed"].margin is None and result.rules["fixed"].past_margin_share is None
    assert all(o.margin_held is None for o in result.outcomes["fixed"])
    data = result.to_dict()
    assert data["schema"] == "steadlith-lab/1"
    assert data["rules"]["tttd-v1"]["reach"]["p99"] == result.rules["tttd-v1"].reach["p99"]


def test_same_seed_same_edits_same_figures(tool_library):
    a = run_lab(tool_library, RULES, edits=30, seed=9).to_dict()
    b = run_lab(tool_library, RULES, edits=30, seed=9).to_dict()
    c = run_lab(tool_library, RULES, edits=30, seed=10).to_dict()
    assert a == b
    assert a != c


def test_progress_counts_every_edit_and_cancelling_stops_the_run(tool_library):
    seen = []

    def stop_at_five(done, total):
        seen.append((done, total))
        if done == 5:
            raise Cancelled()

    with pytest.raises(Cancelled):
        run_lab(tool_library, RULES, edits=50, hunt_trials=10, progress=stop_at_five)
    assert seen == [(k, 50 + 3 * 10) for k in range(1, 6)]


@pytest.mark.parametrize("bad, message", [
    (dict(edits=0), "edits must be an integer >= 1"),
    (dict(seed=-1), "seed must be an integer >= 0"),
    (dict(hunt_trials=1.5), "hunt_trials must be an integer >= 0"),
])
def test_bad_arguments_are_clear_errors(tool_library, bad, message):
    with pytest.raises(LabError, match=message):
        run_lab(tool_library, RULES, **bad)


def test_a_document_without_words_is_refused_with_one_message():
    with pytest.raises(LabError, match="no words"):
        run_lab(" \n\n ", RULES, edits=5)
    with pytest.raises(LabError, match="at least one chunker"):
        run_lab("some words", {}, edits=5)


def test_edit_kinds_are_all_drawn(tool_library):
    kinds = {e.kind for e in draw_edits(LabDocument(tool_library).n, 400, seed=0)}
    assert kinds == set(EDIT_KINDS)


def test_the_token_view_reads_as_the_whole_cumulative_array(tool_library):
    """What the incremental path reads instead of building the edited document's token
    array: every index, slice and search answers as numpy over the whole array would."""
    import random

    import numpy as np
    from steadlith_core.chunking import tokens as token_counters

    doc = LabDocument(tool_library)
    counter = token_counters.get_counter("chars4/1")
    tok_a = counter.count(doc.words)
    cum_a = np.concatenate([[0], np.cumsum(tok_a)])
    rng = random.Random(4)
    for edit in draw_edits(doc.n, 40, seed=13):
        stream = EditedStream(doc, edit.splices(doc))
        tok, cum = stream.tokens(counter, tok_a, cum_a)
        view = stream.token_view(counter, tok_a, cum_a)
        assert len(view) == cum.size and view[-1] == int(cum[-1]) == view.total
        assert view.cum(stream.n - 3, stream.n + 1).tolist() == cum[-4:].tolist()  # the end is the total
        for _ in range(30):
            k = rng.randrange(cum.size)
            lo, hi = sorted(rng.randrange(cum.size + 1) for _ in range(2))
            assert view[k] == int(cum[k])
            assert view.cum(lo, hi).tolist() == cum[lo:hi].tolist()
            assert view.tokens(lo, min(hi, stream.n)).tolist() == tok[lo:min(hi, stream.n)].tolist()
            value = rng.choice([0, int(cum[k]), int(cum[k]) + 1, int(cum[-1]), int(cum[-1]) + 1, -3])
            for side in ("left", "right"):
                assert view.searchsorted(value, side) == int(np.searchsorted(cum, value, side)), (value, side)
