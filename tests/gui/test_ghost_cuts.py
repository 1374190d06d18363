"""Ghost cuts (where the other version cuts, shown faintly in each pane) are computed from
the chunks' end words and the word diff's equal runs after every parameter change. They
must be exactly the other version's cuts after an unchanged word, moved to the end of
the same word here (and a cut at the other text's very end to this text's end), less
this version's own cuts, whatever the edits, line ends, astral characters or the text's
last word. The oracle below says that word by word in plain Python. Qt-free."""

from __future__ import annotations

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st
from steadlith_core import Analysis, ChunkerParams
from steadlith_core.examples import phase_shift_counterexample

from steadlith_gui.viewmodel import ChunkLayout, WordMap, prepare_document

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


def oracle(comparison, own, other, own_offsets) -> np.ndarray:
    """Ghosts in `own`'s Qt positions of `other`'s cuts, word by word."""
    own_words, other_words = own.words, other.words
    a_is_own = own is comparison.a
    partner_end = {}  # the other's word end (code points) -> the same word's end here
    for op in comparison.ops:
        if op.tag != "equal":
            continue
        for t in range(op.a_end - op.a_start):
            i, j = op.a_start + t, op.b_start + t
            mine, theirs = (i, j) if a_is_own else (j, i)
            partner_end[int(other_words.ends[theirs])] = int(own_words.ends[mine])
    ghosts = set()
    for c in other.chunks:
        if c.end == len(other.text):
            ghosts.add(len(own.text))
        elif c.end in partner_end:
            ghosts.add(partner_end[c.end])
    ghosts -= {c.end for c in own.chunks}
    return np.asarray([own_offsets.to_display(g) for g in sorted(ghosts)], dtype=np.int64)


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
