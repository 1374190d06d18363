"""The word diffs a sweep shares between its tasks: each pair diffed once per sweep,
whatever the number of sets, the same opcodes as diffing the pair on its own, and the
same whether a source is diffed whole or in slices spread over workers."""

import importlib
import pickle

import numpy as np
import pytest

from steadlith_core.sweep import diffs as sweep_diffs
from steadlith_core.comparison.diff import word_diff
from steadlith_core.chunking.normalize import normalize
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.sweep.diffs import SourceDiffs
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, in_process
from steadlith_core.sweep.tasks import PairsSource, diff_slices, source_diffs

compare_module = importlib.import_module("steadlith_core.comparison.churn")


@pytest.fixture(scope="module")
def history():
    return synthetic_history(60, 4000, seed=31)


def test_each_opcode_list_is_the_pairs_own_word_diff(history):
    diffs = source_diffs(history)
    assert diffs.units == 60
    for n in range(60):
        assert diffs.ops(n) == word_diff(normalize(history.versions[n]), normalize(history.versions[n + 1]))
    with pytest.raises(IndexError):
        diffs.ops(60)


def test_slices_joined_in_any_order_are_the_whole_and_survive_pickling(history):
    whole = source_diffs(history)
    slices = diff_slices(history, 4)
    assert len(slices) == 2 and slices[0] == (0, 30) and slices[-1][1] == 60  # at least 25 units a slice
    pieces = [pickle.loads(pickle.dumps(source_diffs(history, lo, hi))) for lo, hi in reversed(slices)]
    joined = SourceDiffs.join(pieces)
    assert np.array_equal(joined.rows, whole.rows) and np.array_equal(joined.offsets, whole.offsets)
    assert [joined.ops(n) for n in range(60)] == [whole.ops(n) for n in range(60)]
    with pytest.raises(ValueError, match="not consecutive"):
        SourceDiffs.join([source_diffs(history, 0, 30), source_diffs(history, 31, 40)])


def test_pairs_are_diffed_from_their_own_old_version():
    v = synthetic_history(6, 3000, seed=32).versions
    pairs = PairsSource("p", (("x", v[0], v[3]), ("y", v[5], v[1]), ("z", v[2], v[2])))
    diffs = source_diffs(pairs, 1, 3)
    assert diffs.first == 1 and diffs.units == 2
    assert diffs.ops(1) == word_diff(normalize(v[5]), normalize(v[1]))
    assert [op.tag for op in diffs.ops(2)] == ["equal"]


def test_a_sweep_diffs_each_pair_once_however_many_sets(history, count_calls):
    plan = SweepPlan((history,), build_grid(["boundary_rule=tttd-v1,lmx2-v1", "max_tokens=384,512"]).sets)
    calls = count_calls(sweep_diffs, ["word_diff"])
    direct = count_calls(compare_module, ["word_diff", "baseline_for"])
    run = SweepRun(plan).execute(in_process)
    assert run.done == 4 and not run.partial
    assert calls["word_diff"] == 60  # not 4 x 60
    assert direct["word_diff"] == direct["baseline_for"] == 0  # no diff redone, no baseline built and dropped
