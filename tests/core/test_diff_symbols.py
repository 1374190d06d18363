"""The word diff through the kernel's per-word symbols: the same opcodes as through a
dict of the words' texts, and never an unequal pair of words called equal, even when
two words' symbols collide."""

from __future__ import annotations

import dataclasses
from unittest import mock

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from steadlith_core import DiffOp, normalize, word_diff
from steadlith_core.comparison import diff as diff_module
from steadlith_core.comparison.diff import diff_ids, word_ids


def by_texts(a, b):
    """The diff through ids from the words' texts: what streams without symbols get."""
    return diff_ids(*word_ids(a, b))


# A small vocabulary makes repeated words, and so every branch of the diff (prefix and
# suffix, Myers, anchors, the diagonal walk); the separators make paragraph starts and
# whitespace-only differences between versions.
words = st.sampled_from(["a", "b", "c", "the", "fox", "é", "日本"])
separators = st.sampled_from([" ", " ", " ", "  ", "\n", "\t", "\n\n", "\n \n"])
documents = st.lists(st.tuples(separators, words), min_size=1, max_size=60).map(
    lambda parts: "".join(sep + word for sep, word in parts))
edits = st.lists(st.tuples(st.integers(0, 1000), st.integers(0, 6), st.lists(st.tuples(separators, words), max_size=8)),
                 max_size=4)


def edited(text: str, changes) -> str:
    """`text` with runs of its characters replaced by other words (seeded by `changes`)."""
    for at, drop, insert in changes:
        at %= len(text) + 1
        text = text[:at] + "".join(sep + word for sep, word in insert) + text[at + drop:]
    return text or "a"


@settings(max_examples=300, deadline=None)
@given(documents, edits)
@example("a b c", [(2, 0, [("\n\n", "b")])])
@example("the fox\n\nthe fox", [(0, 0, [(" ", "fox")])])
def test_the_symbols_give_the_same_opcodes_as_the_words_texts(text, changes):
    a, b = normalize(text), normalize(edited(text, changes))
    assert a.symbols is not None and b.symbols is not None
    assert word_diff(a, b) == by_texts(a, b)


@settings(max_examples=100, deadline=None)
@given(documents, edits)
def test_the_same_on_the_paths_big_documents_take(text, changes):
    a, b = normalize(text), normalize(edited(text, changes))
    with mock.patch.object(diff_module, "SMALL_REGION", 0):  # anchors, diagonal, replace
        assert word_diff(a, b) == by_texts(a, b)


def forged(stream, symbol_of: dict[int, int]):
    """`stream` whose words k get the symbol of words symbol_of[k]: a collision."""
    symbols = stream.symbols.copy()
    for k, like in symbol_of.items():
        symbols[k] = like
    return dataclasses.replace(stream, symbols=symbols)


def test_a_collision_between_two_words_never_makes_them_equal():
    a = normalize("alpha beta gamma delta")
    b = normalize("alpha omega gamma delta")
    b = forged(b, {1: a.symbols[1]})  # "omega" hashed like "beta"
    assert word_diff(a, b) == (DiffOp("equal", 0, 1, 0, 1), DiffOp("replace", 1, 2, 1, 2),
                               DiffOp("equal", 2, 4, 2, 4))


def test_a_collision_between_paragraph_flags_never_makes_them_equal():
    a = normalize("alpha beta gamma")
    b = normalize("alpha\n\nbeta gamma")  # "beta" now starts a paragraph
    b = forged(b, {1: a.symbols[1]})
    assert word_diff(a, b) == (DiffOp("equal", 0, 1, 0, 1), DiffOp("replace", 1, 2, 1, 2),
                               DiffOp("equal", 2, 3, 2, 3))


def test_rewrapped_lines_are_compared_without_a_string_per_word():
    """Whitespace that is not a paragraph break is no change, and the check of an equal
    range whose whitespace differs still makes no per-word ids from texts."""
    words_ = [f"word{k}" for k in range(2000)]
    rewrapped = "\n".join("  ".join(words_[i:i + 9]) for i in range(0, len(words_), 9))
    a, b = normalize(" ".join(words_)), normalize(rewrapped)
    assert b.symbols is not None and len(a) == len(b) == 2000
    with mock.patch.object(diff_module, "word_ids", side_effect=AssertionError("fell back to the texts")):
        assert word_diff(a, b) == (DiffOp("equal", 0, 2000, 0, 2000),)


def test_streams_without_symbols_are_diffed_by_their_texts():
    a, b = normalize("one two three"), normalize("one 2 three")
    plain_b = dataclasses.replace(b, symbols=None)
    assert word_diff(a, plain_b) == word_diff(a, b) == (
        DiffOp("equal", 0, 1, 0, 1), DiffOp("replace", 1, 2, 1, 2), DiffOp("equal", 2, 3, 2, 3))
    assert np.array_equal(a.symbols, normalize("one two three").symbols)
