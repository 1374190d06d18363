"""The grid of a sweep: what runs, and one message for each thing that cannot."""

import pytest

from steadlith_core.errors import ParameterError
from steadlith_core.chunking.presets import preset
from steadlith_core.sweep.grid import build_grid

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run


def labels(grid):
    return [s.label for s in grid.sets]


def test_the_product_of_the_entries_in_grid_order():
    grid = build_grid(["min_tokens=32,64", "max_tokens=256,512"])
    assert labels(grid) == ["tttd-v1 min_tokens=32 max_tokens=256", "tttd-v1 min_tokens=32 max_tokens=512",
                            "tttd-v1 min_tokens=64 max_tokens=256", "tttd-v1 min_tokens=64 max_tokens=512"]
    assert [s.params.min_tokens for s in grid.sets] == [32, 32, 64, 64]
    assert grid.skipped == ()


def test_a_field_multiplies_only_the_sets_of_the_rules_that_have_it():
    grid = build_grid(["boundary_rule=tttd-v1,lmx2-v1", "window_words=8,16", "horizon=100,128"])
    assert labels(grid) == ["tttd-v1 window_words=8", "tttd-v1 window_words=16",
                            "lmx2-v1 horizon=100", "lmx2-v1 horizon=128"]
    assert grid.skipped == ()


def test_invalid_entries_values_and_combinations_are_one_message_each_and_the_rest_runs():
    grid = build_grid(["min_tokens=64,abc,128", "max_tokens=100,512", "nonsense=1,2", "broken",
                       "horizon=5"])
    assert labels(grid) == ["tttd-v1 min_tokens=64 max_tokens=100", "tttd-v1 min_tokens=64 max_tokens=512",
                            "tttd-v1 min_tokens=128 max_tokens=512"]
    assert len(grid.skipped) == 5, grid.skipped
    assert sum("'abc'" in m for m in grid.skipped) == 1
    assert sum(m.startswith("grid entry skipped: nonsense") for m in grid.skipped) == 1
    assert sum("broken" in m for m in grid.skipped) == 1
    assert sum(m.startswith("grid entry skipped: horizon: not a field of tttd-v1") for m in grid.skipped) == 1
    assert sum("min_tokens=128 max_tokens=100" in m and "max_tokens: must be >= min_tokens" in m
               for m in grid.skipped) == 1


def test_a_refused_combination_shared_by_copies_is_reported_once():
    # lmx2-v1 ignores window_words, so both of its copies of min 64 / max 100 are one set, one message
    grid = build_grid(["boundary_rule=tttd-v1,lmx2-v1", "min_tokens=64", "max_tokens=100,1024",
                       "window_words=8,16"])
    lmx2_failures = [m for m in grid.skipped if "lmx2-v1" in m]
    assert len(lmx2_failures) == 1
    assert labels(grid).count("lmx2-v1 min_tokens=64 max_tokens=1024") == 1
    assert labels(grid).count("tttd-v1 min_tokens=64 max_tokens=100 window_words=16") == 1


def test_an_unknown_rule_is_skipped_and_the_known_ones_run():
    grid = build_grid(["boundary_rule=tttd-v1,nope-v9"])
    assert labels(grid) == ["tttd-v1"]
    assert len(grid.skipped) == 1 and "nope-v9" in grid.skipped[0]


def test_the_base_is_the_preset_of_its_rule_changed_by_set():
    base = preset("small chunks")
    grid = build_grid(["max_tokens=300,400"], assignments=["window_words=12"], base=base)
    assert all(s.params.window_words == 12 and s.params.min_tokens == base.min_tokens for s in grid.sets)


def test_a_set_field_no_rule_of_the_sweep_has_is_an_error_not_a_skip():
    with pytest.raises(ParameterError, match="horizon"):
        build_grid(["min_tokens=32,64"], assignments=["horizon=100"])


def test_each_rule_starts_from_its_own_base():
    from steadlith_core.chunking.rules import parse_assignments

    tttd = parse_assignments(["window_words=10"])
    lmx2 = parse_assignments(["boundary_rule=lmx2-v1", "horizon=140"])
    grid = build_grid(["boundary_rule=tttd-v1,lmx2-v1", "max_tokens=400"], bases={"tttd-v1": tttd, "lmx2-v1": lmx2})
    assert grid.sets[0].params.window_words == 10 and grid.sets[1].params.horizon == 140
    only_first = build_grid(["max_tokens=400,500"], bases={"lmx2-v1": lmx2, "tttd-v1": tttd})
    assert {s.rule for s in only_first.sets} == {"lmx2-v1"}
