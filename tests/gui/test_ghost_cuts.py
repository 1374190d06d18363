"""Ghost cuts (where the other version cuts, shown faintly in each pane) are computed from
the chunks' end words and the word diff's equal runs after every parameter change. They
must be exactly the other version's cuts after an unchanged word, moved to the end of
the same word here (and a cut at the other text's very end to this text's end), less
this version's own cuts, whatever the edits, line ends, astral characters or the text's
last word. The oracle below says that word by word in plain Python. Qt-free.

An external chunker (a LangChain or LlamaIndex splitter, JSONL spans) has no chunk
fields: its cuts come as Qt positions and may fall anywhere, inside a word or in the
whitespace between words. Its ghosts follow the same rule widened to every position the
word diff keeps: a cut inside or at either edge of an unchanged word moves to the same
character of that word here; a cut in whitespace, or in a changed word, has no ghost."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from steadlith_core import Analysis, ChunkerParams
from steadlith_core.bench.examples import phase_shift_counterexample

from steadlith_gui.model.documents import prepare_document
from steadlith_gui.model.layouts import ChunkLayout
from steadlith_gui.model.links import WordMap

# few words, so edits hit the same words again and chunks end on changed and unchanged words alike
WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta", "é", "😀x", "z" * 9, "q"])
SEPARATORS = st.sampled_from([" ", " ", "  ", "\n", "\r\n", "\n\n", "\t"])
SMALL = ChunkerParams(min_tokens=4, max_tokens=24, window_words=4, primary_mask=0x7, primary_remainder=0x7,
                      backup_mask=0x3, backup_remainder=0x3)


@st.composite
def text_pairs(draw):
    words = draw(st.lists(WORDS, min_size=2, max_size=120))
    seps = draw(st.lists(SEPARATORS, min_size=len(words), max_size=len(words)))
    edited = list(words)
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(edited)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert" or not edited:
            edited.insert(at, draw(WORDS))
        elif action == "delete":
            del edited[min(at, len(edited) - 1)]
        else:
            edited[min(at, len(edited) - 1)] = draw(WORDS)
    trailing_a, trailing_b = draw(st.booleans()), draw(st.booleans())  # the last word at the text's very end, or not
    text_a = "".join(w + s for w, s in zip(words, seps))
    text_b = "".join(w + seps[k % len(seps)] for k, w in enumerate(edited)) or "omega "
    return text_a if trailing_a else text_a.rstrip(), text_b if trailing_b else text_b.rstrip()


def mapped_cut(comparison, own, other, cut: int) -> int | None:
    """Where a cut of `other` (a code point) lies in `own`, word by word: at the same
    character of the same unchanged word, or at own's end for a cut at other's end;
    None elsewhere (whitespace, changed words)."""
    if cut == len(other.text):
        return len(own.text)
    if other.text[cut - 1:cut + 1] == "\r\n":  # between "\r" and "\n" a pane shows it where the line ends
        cut -= 1
    a_is_own = own is comparison.a
    for op in comparison.ops:
        if op.tag != "equal":
            continue
        for t in range(op.a_end - op.a_start):
            i, j = op.a_start + t, op.b_start + t
            mine, theirs = (i, j) if a_is_own else (j, i)
            start, end = int(other.words.starts[theirs]), int(other.words.ends[theirs])
            if start <= cut <= end:
                return int(own.words.starts[mine]) + cut - start
    return None


def oracle(comparison, own, other, own_offsets, other_cuts=None, own_cuts=None) -> np.ndarray:
    """Ghosts in `own`'s Qt positions of `other`'s cuts (code points; its chunk ends by
    default), less `own_cuts` (code points; own's chunk ends by default)."""
    other_cuts = [c.end for c in other.chunks] if other_cuts is None else other_cuts
    own_cuts = [c.end for c in own.chunks] if own_cuts is None else own_cuts
    ghosts = {mapped_cut(comparison, own, other, c) for c in other_cuts} - {None}
    shown = {own_offsets.to_display(g) for g in ghosts} - {own_offsets.to_display(c) for c in own_cuts}
    return np.asarray(sorted(shown), dtype=np.int64)


def word_map(text_a: str, text_b: str, params):
    """The pair's WordMap as the window builds it, with what the oracle reads."""
    da, db = prepare_document("A", text_a), prepare_document("B", text_b)
    an = Analysis()
    ca, cb = an.chunk(text_a, params), an.chunk(text_b, params)
    la, lb = ChunkLayout.build(ca, da.offsets), ChunkLayout.build(cb, db.offsets)
    c = an.compare(ca, cb, baseline=False)
    return WordMap.build(c, da.offsets, db.offsets, la, lb), c, (ca, da), (cb, db)


def both_ways(text_a: str, text_b: str):
    wm, c, (ca, da), (cb, db) = word_map(text_a, text_b, SMALL)
    return (wm.ghosts_a, wm.ghosts_b), (oracle(c, ca, cb, da.offsets), oracle(c, cb, ca, db.offsets))


@settings(max_examples=150, deadline=None)
@given(text_pairs())
@example(("alpha beta gamma delta " * 8, "alpha beta gamma q delta " * 8))
@example(("alpha beta\r\ngamma 😀x", "alpha beta\r\ngamma 😀x delta"))  # A's last cut at its very end
@example(("delta alpha", "zzzzzzzzz delta\r\nalpha"))  # a cut before "\r\n" (the knots' round trip lost it)
def test_ghost_cuts_are_the_other_versions_cuts_after_unchanged_words(pair):
    (ghosts_a, ghosts_b), (expected_a, expected_b) = both_ways(*pair)
    assert ghosts_a.tolist() == expected_a.tolist()
    assert ghosts_b.tolist() == expected_b.tolist()


def test_a_phase_shift_shows_the_other_versions_cuts_between_this_ones():
    wm, c, (ca, _da), (cb, db) = word_map(*phase_shift_counterexample())
    assert wm.ghosts_b.size >= 5, "a phase shift: A's cuts fall between B's"
    assert wm.ghosts_b.tolist() == oracle(c, cb, ca, db.offsets).tolist()


def external_layout(cuts: list[int], offsets) -> ChunkLayout:
    """An external chunker's spans as the panes lay them out (external_runs.lay_out): Qt
    positions, no chunk fields."""
    ends = np.asarray(cuts, dtype=np.int64)
    starts = np.concatenate(([0], ends))[:ends.size]
    return ChunkLayout(np.asarray(offsets.to_display(starts), dtype=np.int64),
                       np.asarray(offsets.to_display(ends), dtype=np.int64), ("external",) * len(cuts))


@st.composite
def cuts_in(draw, text: str):
    """Sorted cut positions (code points) anywhere in `text`, word ends and the positions
    around line ends drawn often."""
    words = [m.end() for m in re.finditer(r"\S+", text)]
    near = st.sampled_from(words).flatmap(lambda e: st.integers(max(1, e - 1), min(len(text), e + 2)))
    cuts = draw(st.lists(st.one_of(near, st.integers(1, len(text))), max_size=30))
    return sorted(set(cuts))


@st.composite
def external_cases(draw):
    text_a, text_b = draw(text_pairs())
    return text_a, text_b, draw(cuts_in(text_a)), draw(cuts_in(text_b))


def external_ghosts(text_a: str, text_b: str, cuts_a: list[int], cuts_b: list[int]):
    """The window's ghosts of two external chunkings' cuts, and the oracle's."""
    da, db = prepare_document("A", text_a), prepare_document("B", text_b)
    an = Analysis()
    ca, cb = an.chunk(text_a, SMALL), an.chunk(text_b, SMALL)  # the chunkings only give the words
    c = an.compare(ca, cb, baseline=False)
    la, lb = external_layout(cuts_a, da.offsets), external_layout(cuts_b, db.offsets)
    wm = WordMap.build(c, da.offsets, db.offsets, la, lb)
    return (wm.ghosts_a, wm.ghosts_b), (oracle(c, ca, cb, da.offsets, cuts_b, cuts_a),
                                        oracle(c, cb, ca, db.offsets, cuts_a, cuts_b))


@settings(max_examples=150, deadline=None)
@given(external_cases())
@example(("delta alpha", "zzzzzzzzz delta\r\nalpha", [11], [15, 22]))  # a cut before "\r\n"
@example(("alpha beta\r\ngamma", "alpha beta\r\ngamma", [17], [11, 17]))  # between "\r" and "\n"
@example(("alpha beta gamma", "alpha betx gamma ", [3, 8, 10, 11, 16], [8, 17]))  # inside words, in gaps
def test_external_ghost_cuts_are_the_other_versions_cuts_at_unchanged_positions(case):
    (ghosts_a, ghosts_b), (expected_a, expected_b) = external_ghosts(*case)
    assert ghosts_a.tolist() == expected_a.tolist()
    assert ghosts_b.tolist() == expected_b.tolist()
