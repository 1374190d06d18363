"""The ranges table each rule's integer fields publish (what the inspector's fields let a
user type) is exactly what construction accepts: both bounds in, one past them out."""

import pytest
from steadlith_core import ChunkerParams, Lmx2Params, ParameterError
from steadlith_core.chunking.rules import INT_RANGES_BY_RULE

DEGREE_63 = (1 << 63) | 0b11  # x^63 + x + 1, irreducible: masks may use all 63 bits


def _tttd(field, value):
    top = 2**64 - 1
    base = dict(polynomial=DEGREE_63, max_tokens=top)
    if field.endswith("_mask"):
        base[field.replace("mask", "remainder")] = 0
    if field.endswith("_remainder"):
        base[field.replace("remainder", "mask")] = 2**63 - 1
    if field == "snap_window_words" and value > 0:
        base["snap_mode"] = "paragraph-sentence/1"
    return ChunkerParams(**{**base, field: value})


def _lmx2(field, value):
    top = 2**32
    base = dict(min_tokens=1, max_tokens=top, horizon=top, fill_horizon=top)
    if field == "max_tokens":
        base = dict(min_tokens=1)
    return Lmx2Params(**{**base, field: value})


CASES = [(rule, field) for rule, table in INT_RANGES_BY_RULE.items() for field in table]


@pytest.mark.parametrize("rule, field", CASES, ids=[f"{r}:{f}" for r, f in CASES])
def test_range_bounds_are_the_constructors(rule, field):
    lo, hi = INT_RANGES_BY_RULE[rule][field]
    make = _tttd if rule == "tttd-v1" else _lmx2
    for outside in (lo - 1, hi + 1):
        with pytest.raises(ParameterError) as info:
            make(field, outside)
        # lmx2's top min_tokens is where max_tokens (>= 3 * min - 1) runs out of room
        assert info.value.field in (field, "max_tokens" if (rule, outside) == ("lmx2-v1", hi + 1) else field)
    if field == "polynomial":  # its top is a magnitude bound; irreducibility is a further rule
        assert make(field, lo if lo > 255 else DEGREE_63).polynomial == DEGREE_63
        return
    assert getattr(make(field, hi), field) == hi
    if not (rule == "tttd-v1" and field == "max_tokens"):
        assert getattr(make(field, lo), field) == lo
