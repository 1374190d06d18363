"""The resync distance of a phase-shift region, measured from the edit in both directions,
and the locality lab's reach of the same edit: one number, whoever computes it.

An edit can take away the candidate a chunk before it ended at (its fingerprint window
covers the edited word), so the chunk falls back to an earlier backup and the shifted
region lies before the edit. Its distances must still run from the edit, not from the
document start.
"""

from __future__ import annotations

from functools import lru_cache

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.comparison.churn import compare
from steadlith_core.bench.examples import tool_library_text
from steadlith_core.lab.chunkers import make_chunker
from steadlith_core.lab.edits import FIX_WORD, Edit, LabDocument
from steadlith_core.lab.stream import EditedStream
from steadlith_core.chunking.pipeline import Pipeline, chunk

pytestmark = pytest.mark.kernel_independent

# The counterexample: in the tool library notes at the default tttd-v1 parameters,
# replacing word 810 ("written") with "unsafe," removes the backup candidate at word 824,
# whose 16-word window covered it. A's chunk 6 ended there ([492, 825)); B's chunk 6
# falls back to the backup at word 750, before the edit.
COUNTER_POSITION, COUNTER_OLD, COUNTER_NEW = 810, "written", "unsafe,"


@lru_cache(maxsize=None)
def lab(rule: str):
    doc = LabDocument(tool_library_text())
    params = ChunkerParams() if rule == "tttd-v1" else Lmx2Params()
    pipeline = Pipeline(max_documents=4)
    return doc, params, pipeline, make_chunker(rule, params, doc, pipeline)


def counterexample_texts() -> tuple[str, str]:
    text = tool_library_text()
    doc = LabDocument(text)
    start, end = doc.starts[COUNTER_POSITION], doc.ends[COUNTER_POSITION]
    assert text[start:end] == COUNTER_OLD
    return text, text[:start] + COUNTER_NEW + text[end:]


def test_a_region_before_the_edit_is_measured_from_the_edit():
    text_a, text_b = counterexample_texts()
    a, b = chunk(text_a), chunk(text_b)
    c = compare(a, b, baseline=False)
    (r,) = c.phase_shift_regions
    assert r.b_chunks == (6, 7) and r.b_words == (492, 751) and r.b_tokens == (734, 1106)
    assert r.after_edit is None  # no edit before it: it lies before the only one
    edit = r.first_edit
    assert edit == r.edit and (edit.tag, edit.b_start, edit.b_end) == ("replace", 810, 811)
    assert r.starts_before_edit
    cum = b.cum_tokens
    assert (r.resync_b, r.resync_a) == (8, 8) and int(cum[1002]) == 1471  # the resync point: B word 1002
    # counted from the edit, not from the document start (which gave 1,471)
    assert r.resync_distance_tokens == 1471 - int(cum[811]) == 277
    assert r.starts_before_edit_tokens == int(cum[810]) - 734 == 458
    assert r.reach_tokens == 458 and c.summary.longest_resync_tokens == 277
    assert c.summary.longest_reach_tokens == 458
    # A's side is A's own chunk, which ended at the lost backup: [492, 825), not the same
    # words [492, 751)
    assert r.a_words == (492, 751) and r.a_chunks == (6, 7)
    assert r.a_chunk_words == (492, 825) == (a.chunks[6].start_word, a.chunks[6].end_word)
    # the lost candidate: a backup at 824 in A, gone in B; 750 is one in both
    fa, fb = a.fingerprints, b.fingerprints
    backup = lambda f, k: int(f[k]) & 0x3F == 0x3F  # noqa: E731
    assert backup(fa, 824) and not backup(fb, 824) and backup(fa, 750) and backup(fb, 750)
    # and the lab measured the same edit the same way
    doc, _, _, chunker = lab("tttd-v1")
    e = Edit(FIX_WORD, COUNTER_POSITION, 1, 0)
    stream = EditedStream(doc, e.splices(doc))
    assert stream.text == text_b
    assert chunker.outcome(e, stream).reach == r.reach_tokens == 458


def test_the_text_report_names_the_a_chunks_span(tmp_path, capsys):
    from steadlith_core.cli.main import main

    text_a, text_b = counterexample_texts()
    (tmp_path / "a.md").write_text(text_a, encoding="utf-8")
    (tmp_path / "b.md").write_text(text_b, encoding="utf-8")
    assert main(["compare", str(tmp_path / "a.md"), str(tmp_path / "b.md")]) == 0
    out = capsys.readouterr().out
    assert "~ A chunks 6..6 (words [492, 825))" in out
    assert "before replace at B words [810, 811) / A words [810, 811), starting 458 tokens before it" in out
    assert "resync at B chunk 8 = A chunk 8, 277 tokens after the edit" in out
    assert "1471 tokens" not in out


@settings(max_examples=150, deadline=None)
@given(rule=st.sampled_from(["tttd-v1", "lmx2-v1"]), position=st.integers(0, 3089), seed=st.integers(0, 2**16))
@example(rule="tttd-v1", position=COUNTER_POSITION, seed=0)
def test_compare_and_the_lab_agree_on_one_word_edits(rule, position, seed):
    doc, params, pipeline, chunker = lab(rule)
    e = Edit(FIX_WORD, position % doc.n, 1, seed)
    stream = EditedStream(doc, e.splices(doc))
    outcome = chunker.outcome(e, stream)
    c = compare(pipeline.chunk(doc.text, params), pipeline.chunk(stream.text, params), baseline=False)
    if c.summary.unaligned_hash_hits_b:  # a re-cut chunk whose hash A has elsewhere: the lab does not pay it
        return
    if c.phase_shift_regions:
        assert c.summary.longest_reach_tokens == outcome.reach
        for r in c.phase_shift_regions:
            assert 0 <= r.resync_distance_tokens <= outcome.reach
    else:
        # no phase shift: the reach is the edited chunks' own span around the edit
        changed = [j for j, s in enumerate(c.status_b) if s != "reused"]
        cum = c.b.cum_tokens
        ops = [op for op in c.ops if op.tag != "equal"]
        if not changed or not ops:
            assert outcome.reach == 0
            return
        x0, x1 = int(cum[ops[0].b_start]), int(cum[ops[-1].b_end])
        lo, hi = int(cum[c.b.chunks[changed[0]].start_word]), int(cum[c.b.chunks[changed[-1]].end_word])
        assert outcome.reach == max(x0 - lo, hi - x1)
