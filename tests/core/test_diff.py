"""Word diff (steadlith_core.comparison.diff): opcodes that are complete, ordered and truthful, a
shortest edit script on small inputs, and sane on big or hostile ones."""

from __future__ import annotations

from contextlib import contextmanager
from unittest import mock

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from steadlith_core import DiffOp, diff_sequences, normalize, word_diff
from steadlith_core.comparison import diff as diff_module
from steadlith_core.comparison import matching as matching_module
from steadlith_core.comparison.diff import EQUAL, check_ops, diff_ids
from steadlith_core.bench.examples import generate_prose, scattered_edits


def assert_truthful(a, b, ops) -> None:
    """Well-formed, equal ranges really equal, and applying the ops to a yields b."""
    check_ops(ops, len(a), len(b))
    rebuilt = []
    for tag, a0, a1, b0, b1 in ops:
        if tag == EQUAL:
            assert list(a[a0:a1]) == list(b[b0:b1])
            rebuilt.extend(a[a0:a1])
        else:
            rebuilt.extend(b[b0:b1])
    assert rebuilt == list(b)


def lcs_length(a, b) -> int:
    """Textbook O(nm) dynamic programme: the oracle for small inputs."""
    prev = [0] * (len(b) + 1)
    for x in a:
        cur = [0]
        for j, y in enumerate(b):
            cur.append(prev[j] + 1 if x == y else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


def equal_count(ops) -> int:
    return sum(op.a_end - op.a_start for op in ops if op.tag == EQUAL)


@contextmanager
def forced_anchor_path():
    """Skip the exact pass so even tiny inputs go through k-gram anchoring and the
    replace fallback (the code paths big documents take)."""
    with mock.patch.object(diff_module, "SMALL_REGION", 0):
        yield


small_lists = st.lists(st.integers(0, 3), max_size=30)


@given(small_lists, small_lists)
@example([], [])
@example([1, 2, 3], [])
@example([], [1, 2, 3])
@example([0, 1, 2, 0, 1, 1, 0], [2, 1, 0, 1, 0, 2])
def test_small_inputs_get_a_shortest_edit_script(a, b):
    ops = diff_sequences(a, b)
    assert_truthful(a, b, ops)
    assert equal_count(ops) == lcs_length(a, b)


@given(st.lists(st.integers(0, 5), max_size=200), st.lists(st.integers(0, 5), max_size=200))
def test_anchor_path_is_truthful_on_small_alphabets(a, b):
    with forced_anchor_path():
        assert_truthful(a, b, diff_sequences(a, b))


@given(st.lists(st.integers(0, 400), min_size=1, max_size=300), st.data())
def test_anchor_path_finds_scattered_edits(base, data):
    """An edited copy of a mostly-unique sequence: every untouched run stays equal."""
    edited = list(base)
    for _ in range(data.draw(st.integers(1, 4))):
        p = data.draw(st.integers(0, len(edited)))
        edited[p:p + data.draw(st.integers(0, 2))] = data.draw(st.lists(st.integers(1000, 1010), max_size=3))
    with forced_anchor_path():
        ops = diff_sequences(base, edited)
    assert_truthful(base, edited, ops)


def test_a_hash_collision_never_makes_unequal_words_equal():
    # Every k-gram of a gets the same "hash" as the k-gram of b at the same position:
    # all are unique, all look common; the content check must reject the false ones.
    a = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12] * 3
    b = [1, 2, 3, 4, 0, 6, 7, 8, 9, 10, 11, 12] * 3
    fake = lambda x, k, start=0, stop=None: np.arange(start, len(x) - k + 1 if stop is None else stop,  # noqa: E731
                                                       dtype=np.uint64)
    with forced_anchor_path(), mock.patch.object(matching_module, "_kgram_hashes", fake):
        ops = diff_sequences(a, b)
    assert_truthful(a, b, ops)


def test_known_opcodes():
    assert diff_sequences("abcdef", "abXdef") == (
        DiffOp("equal", 0, 2, 0, 2), DiffOp("replace", 2, 3, 2, 3), DiffOp("equal", 3, 6, 3, 6))
    assert diff_sequences("abc", "abcde") == (DiffOp("equal", 0, 3, 0, 3), DiffOp("insert", 3, 3, 3, 5))
    assert diff_sequences("xabc", "abc") == (DiffOp("delete", 0, 1, 0, 0), DiffOp("equal", 1, 4, 0, 3))
    assert diff_sequences("abc", "xyz") == (DiffOp("replace", 0, 3, 0, 3),)
    assert diff_sequences("", "") == ()


def test_word_equality_includes_the_paragraph_flag():
    a = normalize("one two three four")
    b = normalize("one two\n\nthree four")  # same texts; "three" now starts a paragraph
    assert word_diff(a, b) == (
        DiffOp("equal", 0, 2, 0, 2), DiffOp("replace", 2, 3, 2, 3), DiffOp("equal", 3, 4, 3, 4))
    # whitespace that is not a paragraph break is not a change
    assert word_diff(a, normalize("one  two\tthree\nfour")) == (DiffOp("equal", 0, 4, 0, 4),)


def test_scattered_edits_in_a_long_document_are_found_precisely():
    text = generate_prose(200_000, seed=3)
    edited = scattered_edits(text, 10, seed=4)
    a, b = normalize(text), normalize(edited)
    ops = word_diff(a, b)
    check_ops(ops, len(a), len(b))
    for tag, a0, a1, b0, b1 in ops:
        if tag == EQUAL:
            assert a.texts[a0:a1] == b.texts[b0:b1]
            assert (a.para[a0:a1] == b.para[b0:b1]).all()
    changes = [op for op in ops if op.tag != EQUAL]
    assert 5 <= len(changes) <= 10  # an edit may be absorbed by identical neighbours
    # each edit touches at most 4 words per side, so almost everything stays equal
    assert equal_count(ops) >= len(a) - 10 * 4


def test_unrelated_documents_share_next_to_nothing_and_stay_truthful():
    a = normalize(generate_prose(200_000, seed=1))
    b = normalize(generate_prose(200_000, seed=2))
    ids_a, ids_b = diff_module.word_ids(a, b)
    ops = diff_ids(ids_a, ids_b)
    assert_truthful(ids_a.tolist(), ids_b.tolist(), ops)
    # Only coincidences of a small vocabulary ("the", "of") match: short runs, few words.
    # Past the work budget whole regions are replaced, so this is far from an LCS.
    assert max(op.a_end - op.a_start for op in ops if op.tag == EQUAL) <= 8
    assert equal_count(ops) < 0.1 * len(b)


def test_identical_streams_are_one_equal_opcode():
    a = normalize(generate_prose(50_000, seed=5))
    assert word_diff(a, a) == (DiffOp("equal", 0, len(a), 0, len(a)),)


@pytest.mark.parametrize("n, m", [(0, 5), (5, 0), (1, 1)])
def test_degenerate_lengths(n, m):
    a, b = list(range(n)), list(range(100, 100 + m))
    ops = diff_sequences(a, b)
    assert_truthful(a, b, ops)
    assert len(ops) == 1 and ops[0].tag == {(0, 5): "insert", (5, 0): "delete", (1, 1): "replace"}[(n, m)]


def test_small_edits_in_repetitive_text_are_found_precisely():
    """A document that repeats one paragraph has no unique k-gram to anchor on; ten
    one-word substitutions must still cost ten words, not a replace of everything
    between the first and the last edit (which once marked 700k words as changed)."""
    paragraph = "The quick brown fox jumps over the lazy dog again and again. " * 8
    paragraphs = [paragraph] * 400
    edited = list(paragraphs)
    for k in range(5, 400, 40):
        edited[k] = edited[k].replace("lazy", "sleepy", 1)
    a = normalize("\n\n".join(paragraphs))
    b = normalize("\n\n".join(edited))
    ops = word_diff(a, b)
    check_ops(ops, len(a), len(b))
    changed = [op for op in ops if op.tag != EQUAL]
    assert len(changed) == 10
    assert all(op.tag == "replace" and op.a_end - op.a_start == 1 == op.b_end - op.b_start for op in changed)
    assert all(b.texts[op.b_start] == "sleepy" for op in changed)


def test_one_repeated_word_with_substitutions():
    """The degenerate case of repetition: one word, scattered substitutions."""
    a = ["w"] * 20_000
    b = list(a)
    for k in range(7, 20_000, 1999):
        b[k] = "x"
    ops = diff_sequences(a, b)
    check_ops(ops, len(a), len(b))
    assert sum(op.b_end - op.b_start for op in ops if op.tag != EQUAL) == len(range(7, 20_000, 1999))


def test_the_diagonal_walk_holds_no_python_int_per_word():
    """Repetitive text (no unique k-gram) is walked along the diagonal; the walk reads
    the ids where it stands and lists only the words a jump can reach. A list of every
    word's id (tens of bytes a word: 0.5 GB of a 50 MB document's diff) must not come
    back. tracemalloc counts numpy's buffers and Python's objects alike: the peak is a
    count of bytes, not a timing."""
    import tracemalloc

    import numpy as np

    from steadlith_core.comparison.diff import diff_ids

    n = 200_000
    a = np.tile(np.arange(50, dtype=np.int64) << 40, n // 50)  # ids as large as symbols: no cached small ints
    b = a.copy()
    b[7 :: 20_011] = 999  # scattered substitutions: the walk resynchronizes after each
    tracemalloc.start()
    try:
        ops = diff_ids(a, b)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sum(op.b_end - op.b_start for op in ops if op.tag != EQUAL) == len(range(7, n, 20_011))
    assert peak < 32 * n, f"{peak / n:.1f} bytes a word"  # the k-gram anchors' arrays; lists of ids add ~80
