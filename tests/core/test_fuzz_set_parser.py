"""Hypothesis over `--set NAME=VALUE` (parse_assignments): any input is parameters or a
ParameterError naming a field in a short message, never another exception; every value
the contract accepts, up to 2^64 - 1, in decimal or hex, parses to itself."""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from steadlith_core import ChunkerParams, ParameterError, parse_assignments
from steadlith_core.errors import visible
from steadlith_core.chunking.params import INT_FIELDS
import pytest

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

NAMES = st.sampled_from([*INT_FIELDS, "token_counter", "snap_mode", "nope", "", " max_tokens "])
VALUES = st.one_of(
    st.text(max_size=30),
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.integers(min_value=0, max_value=2**70).map(hex),
    st.text(st.sampled_from("0123456789"), min_size=4000, max_size=5000),
)
ASSIGNMENT = st.one_of(st.tuples(NAMES, VALUES).map("=".join), st.text(max_size=40))


@given(st.lists(ASSIGNMENT, max_size=5))
@example(["max_tokens=" + "9" * 5000])
@example(["window_words=0x" + "f" * 100])
@example(["snap_mode=" + "\x1b[31m" * 10])
def test_any_assignment_is_parameters_or_a_short_parameter_error(items):
    try:
        params = parse_assignments(items)
    except ParameterError as e:
        message = visible(str(e))
        assert len(message) < 400 and "\n" not in message
        assert e.field
    else:
        assert isinstance(params, ChunkerParams)


TOP = 2**64 - 1


@given(min_tokens=st.integers(1, TOP), extra=st.integers(0, TOP), window=st.integers(1, TOP),
       snap=st.integers(1, TOP), hexa=st.booleans())
def test_the_whole_accepted_range_parses_to_itself(min_tokens, extra, window, snap, hexa):
    max_tokens = min(TOP, min_tokens + extra)
    show = hex if hexa else str
    items = [f"min_tokens={show(min_tokens)}", f"max_tokens={show(max_tokens)}", f"window_words={show(window)}",
             "snap_mode=paragraph-sentence/1", f"snap_window_words={show(snap)}"]
    params = parse_assignments(items)
    assert (params.min_tokens, params.max_tokens, params.window_words, params.snap_window_words) == (
        min_tokens, max_tokens, window, snap)
    assert params == ChunkerParams(min_tokens=min_tokens, max_tokens=max_tokens, window_words=window,
                                   snap_mode="paragraph-sentence/1", snap_window_words=snap)
