"""The lab dock's state and figures, without Qt: the shared bins hold every edit once,
and a result says when it no longer describes document A or the parameters."""

from pathlib import Path

from steadlith_core import ChunkerParams, Lmx2Params, load_text
from steadlith_core.lab import FIXED, run_lab

from steadlith_gui.model.job_state import DONE
from steadlith_gui.model.lab_state import LabRequest, LabState, bin_label, bin_of, distribution

GOLDEN = Path(__file__).resolve().parents[3] / "tests" / "golden"


def small_result(edits=40):
    text = load_text(GOLDEN / "long.txt")
    rules = {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params(), FIXED: None}
    return text, rules, run_lab(text, rules, edits=edits, seed=1)


def test_every_edit_falls_in_the_bin_whose_label_holds_its_cost():
    _, _, result = small_result()
    for metric, attr in (("tokens", "tokens_to_embed"), ("reach", "reach")):
        d = distribution(result, metric)
        assert d.edges[0] == 0 and d.edges[1] == 1  # an edit that costs nothing has a bin of its own
        for rule, outcomes in result.outcomes.items():
            assert int(d.counts[rule].sum()) == len(outcomes)
            for o in outcomes:
                i = bin_of(d, getattr(o, attr))
                lo, _, hi = bin_label(d, i).replace(",", "").partition("–")
                assert int(lo) <= getattr(o, attr) <= int(hi or lo)


def test_a_result_is_stale_once_a_or_the_parameters_differ():
    text, rules, result = small_result(edits=5)
    state = LabState()
    state.start(LabRequest(text, "long.txt", tuple(rules.items()), 5, 1))
    state.finish(result)
    assert state.phase == DONE and state.stale is None
    state.check_inputs(text, rules)
    assert state.stale is None
    state.check_inputs(text + " more", rules)
    assert state.stale == "document A changed since this run"
    state.check_inputs(text, {**rules, "tttd-v1": ChunkerParams(min_tokens=64)})
    assert state.stale == "the parameters changed since this run"
    state.check_inputs(text, rules)
    assert state.stale is None
