"""The hunt: an adversarial search for the edit that reaches farthest. On real prose it
finds tttd-v1 edits whose effect passes the margin (SPEC §9); it finds none for lmx2-v1,
whose margin is a theorem (SPEC-lmx2 §7), though it does find them when that margin is
understated."""

from __future__ import annotations

import pytest

from steadlith_core import Lmx2Params
from steadlith_core.bench.examples import counterexample_lmx2_params, counterexample_params, tool_library_text
from steadlith_core.lab import DEFAULT_HUNT_TRIALS, LabError, hunt
from steadlith_core.lab.edits import LabDocument
from steadlith_core.lab.hunt import hunt_chunker
from steadlith_core.lab.run import build_chunkers
from steadlith_core.progress import Cancelled

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

TEXT = tool_library_text()  # real prose, 17,000 characters


def test_tttd_hunt_finds_edits_past_its_margin_within_the_default_budget():
    result = hunt(TEXT, counterexample_params(), seed=0)
    assert result.trials == DEFAULT_HUNT_TRIALS
    assert result.failures > 0
    assert result.worst.reach > counterexample_params().margin
    assert result.worst.margin_held is False


@pytest.mark.parametrize("params", [counterexample_lmx2_params(), Lmx2Params()], ids=["small", "defaults"])
def test_lmx2_hunt_finds_no_edit_past_its_margin(params):
    result = hunt(TEXT, params, seed=0)
    assert result.trials == DEFAULT_HUNT_TRIALS
    assert result.failures == 0
    assert result.worst.margin_held is True
    assert result.worst.reach > 0


def test_the_same_hunt_catches_an_lmx2_margin_claimed_too_small():
    """The lmx2-v1 hunt is not vacuous: told the margin is a quarter of the theorem's (a
    worst case that real edits stay well inside), it finds edits past it."""
    chunker = build_chunkers(LabDocument(TEXT), {"lmx2-v1": counterexample_lmx2_params()})[0]
    chunker.margin //= 4
    assert hunt_chunker(chunker, seed=0).failures > 0


def test_the_hunt_reaches_at_least_as_far_as_its_random_restarts():
    """Local perturbation climbs: the worst edit found is at least the worst of the
    first tenth (all random), and usually found later."""
    params = counterexample_params()
    first_tenth = hunt(TEXT, params, trials=DEFAULT_HUNT_TRIALS // 10, seed=3)
    whole = hunt(TEXT, params, seed=3)
    assert whole.worst.reach >= first_tenth.worst.reach


def test_hunt_reports_progress_and_stops_when_cancelled():
    seen = []

    def stop(done, total):
        seen.append((done, total))
        if done == 3:
            raise Cancelled()

    with pytest.raises(Cancelled):
        hunt(TEXT, Lmx2Params(), trials=50, progress=stop)
    assert seen == [(1, 50), (2, 50), (3, 50)]
    with pytest.raises(LabError, match="at least one trial"):
        hunt(TEXT, Lmx2Params(), trials=0)


def test_the_baseline_can_be_hunted_and_has_no_margin_to_pass():
    result = hunt(TEXT, None, trials=30, seed=1)
    assert result.name == "fixed" and result.failures is None and result.worst.margin_held is None
    assert result.worst.reach > 0
