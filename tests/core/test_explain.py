"""Decision records (why each cut is where it is) and the causal diff of two chunkings
(why the chunks moved): steadlith_core.comparison.explain, `steadlith explain` and the report's
"Why the chunks moved" section.

The documents are the project's own (the tool library notes, the counterexample
passage, generated prose); the real revision pair is rebuilt from the notes with the
kind of edit a real one made (a line of the art-of-command-line README that gained a
clause: its chunks past the edit shifted in a chain of hard cuts, at min 32 / max 128).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.comparison.churn import compare
from steadlith_core.bench.examples import counterexample_params, counterexample_passage, generate_prose, tool_library_text
from steadlith_core.comparison.causes import (LENGTH_CHANGE, LOCAL_CHANGE, LOST_CANDIDATE, NEW_CANDIDATE,
                                              explain_comparison)
from steadlith_core.comparison.explain import ExplainError, Lmx2Decision, TttdDecision, explain_cuts
from steadlith_core.lab.edits import FIX_WORD, Edit, LabDocument
from steadlith_core.chunking.pipeline import chunk
from steadlith_core.report.comparison import render_report

from cli_helpers import run
from test_resync_distance import counterexample_texts


def edited(text: str, edit: Edit) -> str:
    return edit.apply(text)


# -- decision records: the explained cut is the real cut ---------------------------------------


@st.composite
def tttd_params(draw) -> ChunkerParams:
    lo = draw(st.integers(2, 60))
    snapping = draw(st.booleans())
    return ChunkerParams(
        window_words=draw(st.sampled_from([1, 2, 4, 16])),
        primary_mask=draw(st.sampled_from([0x3, 0x7, 0xF, 0x3F, 0x7F])), primary_remainder=0,
        backup_mask=draw(st.sampled_from([0x0, 0x1, 0x3, 0x7])), backup_remainder=0,
        token_counter=draw(st.sampled_from(["chars4/1", "words/1"])),
        min_tokens=lo, max_tokens=draw(st.integers(lo, 4 * lo)),
        snap_mode="paragraph-sentence/1" if snapping else "off",
        snap_window_words=draw(st.integers(1, 12)) if snapping else 0,
    )


@st.composite
def lmx2_params(draw) -> Lmx2Params:
    lo = draw(st.integers(2, 40))
    return Lmx2Params(
        min_tokens=lo, max_tokens=draw(st.integers(3 * lo - 1, 6 * lo)),
        horizon=draw(st.integers(lo - 1, 3 * lo)), fill_horizon=draw(st.integers(lo - 1, 3 * lo)),
        key_tokens=draw(st.integers(1, 48)),
        boundary_preference=draw(st.sampled_from(["paragraph-sentence/1", "off"])),
        token_counter=draw(st.sampled_from(["chars4/1", "words/1"])),
    )


texts = st.tuples(st.integers(200, 6000), st.integers(0, 10_000)).map(lambda t: generate_prose(t[0], seed=t[1]))


@settings(max_examples=80, deadline=None)
@given(text=texts, p=tttd_params())
def test_every_tttd_decision_is_the_real_cut(text, p):
    c = chunk(text, p)
    decisions = explain_cuts(c)
    assert [(d.chunk, d.start_word, d.cut_word, d.kind, d.snapped) for d in decisions] == [
        (ch.index, ch.start_word, ch.end_word, ch.kind, ch.snapped) for ch in c.chunks]
    fp, n = c.fingerprints, c.word_count
    is_primary = lambda k: int(fp[k]) & p.primary_mask == p.primary_remainder  # noqa: E731
    is_backup = lambda k: int(fp[k]) & p.backup_mask == p.backup_remainder  # noqa: E731
    cum = c.cum_tokens
    for d in decisions:
        # what the record says the decision read holds of the document (SPEC §4)
        assert d.start_token == cum[d.start_word] and d.cut_token == cum[d.cut_word]
        if d.kind == "primary":
            assert is_primary(d.candidate_word) and d.candidate_word >= d.min_word
            assert d.raw_cut_word == d.candidate_word + 1 and d.fingerprint == f"0x{int(fp[d.candidate_word]):x}"
            assert not any(is_primary(k) for k in range(d.min_word, d.candidate_word))
        elif d.kind == "backup":
            assert is_backup(d.candidate_word) and d.primaries_in_reach == 0 and d.max_word is not None
            assert cum[d.max_word + 1] - cum[d.start_word] > p.max_tokens
            assert not any(is_backup(k) for k in range(d.candidate_word + 1, d.max_word))
        elif d.kind == "hard":
            assert d.primaries_in_reach == d.backups_in_reach == 0 and d.raw_cut_word == d.max_word
        else:
            assert d.cut_word == n
        if d.snapped:
            assert d.snap_target in ("paragraph", "sentence") and d.raw_cut_word != d.cut_word
        assert d.describe() and json.dumps(d.to_dict())


@settings(max_examples=60, deadline=None)
@given(text=texts, p=lmx2_params())
def test_every_lmx2_decision_is_the_real_cut_and_wins_its_neighbourhood(text, p):
    c = chunk(text, p)
    decisions = explain_cuts(c)
    assert [(d.cut_word, d.kind) for d in decisions] == [(ch.end_word, ch.kind) for ch in c.chunks]
    keys = c.stages.keys
    cum = c.cum_tokens
    for d in decisions:
        if d.level is None:
            continue
        key = (keys.key_1 if d.level == 1 else keys.key_2)[d.cut_word]
        assert d.key == f"{int(key):016x}"
        lo, hi = d.neighbourhood_words
        assert abs(int(cum[lo]) - int(cum[d.cut_word])) <= d.horizon >= abs(int(cum[hi]) - int(cum[d.cut_word]))
        if d.runner_up_word is not None:
            assert int(d.runner_up_key, 16) <= int(key) and lo <= d.runner_up_word <= hi
        assert d.describe() and json.dumps(d.to_dict())


def test_a_range_of_chunks_and_bad_ranges():
    c = chunk(tool_library_text())
    some = explain_cuts(c, 3, 6)
    assert [d.chunk for d in some] == [3, 4, 5] and all(isinstance(d, TttdDecision) for d in some)
    assert explain_cuts(c, 5, 5) == ()
    for bad in ((-1, 2), (4, 2), (0, len(c.chunks) + 1)):
        with pytest.raises(ExplainError):
            explain_cuts(c, *bad)
    assert all(isinstance(d, Lmx2Decision) for d in explain_cuts(chunk(tool_library_text(), Lmx2Params()), 0, 3))


# -- why the chunks moved ------------------------------------------------------------------------


def explain_pair(text_a: str, text_b: str, params=None):
    params = params if params is not None else ChunkerParams()
    c = compare(chunk(text_a, params), chunk(text_b, params), baseline=False)
    return c, explain_comparison(c)


def test_the_counterexample_names_the_lost_candidate_the_fallback_and_the_resync():
    c, (x,) = explain_pair(*counterexample_texts())
    assert x.cause == LOST_CANDIDATE
    (lost,) = x.lost
    assert (lost.kind, lost.a_word, lost.b_word, lost.window_covers_edit) == ("backup", 824, 824, True)
    assert (x.first_a_chunk, x.first_b_chunk) == (6, 6)
    assert x.decision_a.kind == x.decision_b.kind == "backup"
    assert (x.decision_a.candidate_word, x.decision_b.candidate_word) == (824, 750)
    assert x.fell_back_before_edit and x.cut_moved == "earlier" and x.a_cut_b_word == 825
    assert [(d.chunk, d.kind, d.cut_word) for d in x.chain_b] == [(7, "primary", 1002)]
    assert (x.resync_a, x.resync_b, x.resync_a_word, x.resync_b_word, x.resync_kind) == (8, 8, 1002, 1002, "primary")
    assert (x.resync_distance_tokens, x.starts_before_edit_tokens, x.reach_tokens) == (277, 458, 458)
    assert x.text == (
        "The edit (replace) at B word 810 removed the backup candidate at A word 824 whose 16-word window "
        "covered it; B's chunk 6 (from word 492) had no primary before max (512 t), so it fell back to the backup "
        "at word 750 — before the edit; B cuts at its word 751, 74 words earlier than A's cut (A word 825, "
        "which is B word 825); the next cut followed from that start (primary at 1,001); both versions meet again at the primary cut at A 1,002 "
        "/ B 1,002 (A chunk 8, B chunk 8), 277 tokens after the edit.")
    d = x.to_dict()
    assert d["lost"][0]["a_word"] == 824 and d["decision_b"]["candidate_word"] == 750 and d["text"] == x.text
    json.dumps(d)


def test_a_lost_primary():
    text = tool_library_text()
    _, xs = explain_pair(text, edited(text, Edit(FIX_WORD, 98, 3, 98)))
    x = xs[0]
    assert x.cause == LOST_CANDIDATE and x.lost[0].kind == "primary" and x.lost[0].a_word == 103
    assert x.lost[0].window_covers_edit
    assert "removed the primary candidate at A word 103 whose 16-word window covered it" in x.text
    assert x.decision_b.kind == "primary" and x.decision_b.candidate_word == 157 and x.cut_moved == "later"


def test_a_new_primary_moves_the_cut_earlier():
    text = tool_library_text()
    _, xs = explain_pair(text, edited(text, Edit(FIX_WORD, 77, 3, 77)))
    x = xs[0]
    assert x.cause == NEW_CANDIDATE and not x.lost
    (new,) = x.created
    assert (new.kind, new.a_word, new.b_word, new.window_covers_edit) == ("primary", 86, 86, True)
    assert x.decision_b.cut_word == 87 and x.decision_a.cut_word == 104 and x.cut_moved == "earlier"
    assert "created a primary candidate at B word 86" in x.text and "earlier than A's chunk 0" in x.text


def test_a_length_change_shifts_a_max_bounded_chain():
    # the counterexample's passage and parameters: primaries rare, backups every other word
    text = counterexample_passage()
    _, xs = explain_pair(text, edited(text, Edit(FIX_WORD, 0, 1, 0)), counterexample_params())
    x = xs[0]
    assert x.cause == LENGTH_CHANGE and x.token_change == 1 and not x.lost and not x.created
    assert (x.decision_a.candidate_word, x.decision_b.candidate_word) == (24, 21)
    assert [d.kind for d in x.chain_b] == ["backup", "backup", "backup"]
    assert "added 1 token, so min (8 t) and max (40 t) fall at other words" in x.text


REAL_CLAUSE = ", in rough order from older to newer,"


def real_pair() -> tuple[str, str]:
    """The notes with one clause added to a sentence, as the README's line about
    searching gained "(in rough order from older to newer)" between two commits."""
    text = tool_library_text()
    doc = LabDocument(text)
    end = doc.ends[2646]
    return text, text[:end] + REAL_CLAUSE + text[end:]


def test_a_real_revision_pair_shifts_a_chain_of_hard_cuts():
    params = ChunkerParams(min_tokens=32, max_tokens=128)
    c, xs = explain_pair(*real_pair(), params)
    x = next(x for x in xs if x.cause == LENGTH_CHANGE)
    assert x.token_change == 11 and x.decision_a.kind == x.decision_b.kind == "hard"
    assert (x.decision_b.cut_word, x.a_cut_b_word, x.cut_moved) == (2661, 2668, "earlier")
    assert [(d.kind, d.cut_word) for d in x.chain_b] == [("hard", 2743), ("hard", 2830), ("primary", 2870)]
    assert (x.resync_kind, x.resync_a_word, x.resync_b_word, x.resync_distance_tokens) == ("primary", 2863, 2870, 327)
    assert "the next three cuts followed from that start (hard cut at 2,743, hard cut at 2,830, primary at 2,869)" \
        in x.text


def test_lmx2_names_the_local_change():
    text = tool_library_text()
    _, xs = explain_pair(text, edited(text, Edit(FIX_WORD, 70, 3, 70)), Lmx2Params())
    x = xs[0]
    assert x.cause == LOCAL_CHANGE and x.rule == "lmx2-v1"
    lost = {(cand.kind, cand.a_word, cand.window_covers_edit) for cand in x.lost}
    created = {(cand.kind, cand.b_word, cand.window_covers_edit) for cand in x.created}
    assert ("primary", 78, True) in lost and ("primary", 71, True) in created
    assert "A's primary cut at word 78 is gone (its key window covers the edit, so its key changed)" in x.text
    assert x.resync_b_word == 361 and x.resynced
    assert isinstance(x.decision_b, Lmx2Decision)


def test_no_region_no_explanation_and_a_region_out_of_range():
    text = tool_library_text()
    c, xs = explain_pair(text, text)
    assert xs == ()
    with pytest.raises(ExplainError):
        explain_comparison(c, 0)


# -- the command and the report ----------------------------------------------------------------


@pytest.fixture
def pair_files(tmp_path):
    a, b = counterexample_texts()
    (tmp_path / "a.md").write_text(a, encoding="utf-8")
    (tmp_path / "b.md").write_text(b, encoding="utf-8")
    return str(tmp_path / "a.md"), str(tmp_path / "b.md")


def test_explain_command_text(capsys, pair_files):
    code, out, err = run(capsys, "explain", *pair_files)
    assert code == 0 and err == ""
    assert "1 phase-shift region" in out
    assert "#1 B chunks 6..6 ~ A chunks 6..6: lost-candidate" in out
    assert "removed the backup candidate at A word 824" in out and "277 tokens after the edit" in out
    assert "A chunk 6: backup: no primary candidate before max (512 t; word 843 would overflow), last backup " \
           "candidate at word 824: cut at word 825" in out
    assert "B chunk 7: primary candidate at word 1001" in out


def test_explain_command_json_and_parameters(capsys, pair_files):
    code, out, err = run(capsys, "explain", *pair_files, "--format", "json", "--region", "1")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert data["schema"] == "steadlith-explain/1" and data["boundary_rule"] == "tttd-v1"
    (r,) = data["regions"]
    assert r["cause"] == "lost-candidate" and r["lost"][0]["a_word"] == 824
    assert r["resync_distance_tokens"] == 277 and r["chain_b"][0]["kind"] == "primary"
    # the same parameter options as compare
    code, out, _ = run(capsys, "explain", *pair_files, "--set", "boundary_rule=lmx2-v1", "--format", "json")
    assert code == 0 and json.loads(out)["boundary_rule"] == "lmx2-v1"
    code, out, _ = run(capsys, "explain", *pair_files, "--preset", "Small chunks", "--format", "json")
    assert code == 0 and json.loads(out)["params"]["max_tokens"] != 512


@pytest.mark.parametrize("argv, message", [
    (["--region", "2"], "no phase-shift region 2: the comparison has 1"),
    (["--region", "0"], "no phase-shift region 0"),
    (["--set", "max_tokens=1"], "max_tokens"),
    (["--region", "x"], "invalid int value"),
])
def test_explain_command_bad_input_is_one_line_and_exit_2(capsys, pair_files, argv, message):
    code, out, err = run(capsys, "explain", *pair_files, *argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1


def test_explain_command_missing_file(capsys, pair_files, tmp_path):
    code, out, err = run(capsys, "explain", pair_files[0], str(tmp_path / "nope.md"))
    assert code == 2 and out == "" and err.count("\n") == 1 and "nope.md" in err


def test_report_has_why_the_chunks_moved():
    text_a, text_b = counterexample_texts()
    c = compare(chunk(text_a), chunk(text_b))
    html = render_report(c, "a.md", "b.md")
    section = html[html.index('<section id="why">'):]
    section = section[:section.index("</section>")]
    assert '<h2>Why the chunks moved</h2>' in section and '<a href="#region-1">#1</a>' in section
    assert section.count("<p ") == len(c.phase_shift_regions) == 1
    # escaped like everything else: the em dash stays, the apostrophe becomes an entity
    assert "B&#x27;s chunk 6 (from word 492)" in section and "B's chunk" not in section
    assert "removed the backup candidate at A word 824" in section and "277 tokens after the edit" in section
    assert '<a href="#why">Why the chunks moved</a>' in html


def test_report_without_a_phase_shift_says_so():
    text = tool_library_text()
    html = render_report(compare(chunk(text), chunk(text)), "a.md", "b.md")
    assert '<section id="why">' in html and "No phase shift" in html
