"""A parameter change reaches the panes first; the churn panel's fixed-size baseline and
the other rule follow when they were not already known, and are kept while what they
depend on stays (the baseline: both texts, max_tokens and the token counter)."""

from steadlith_core import Analysis, ChunkerParams, Lmx2Params
from steadlith_core.bench.examples import generate_prose

from gui_helpers import load_texts, set_params
from steadlith_gui.model.viewmodel import BASELINE
from steadlith_gui.widgets.churn_cells import ROWS, compact_cells

TEXT_A = generate_prose(30_000, seed=11)
TEXT_B = TEXT_A[:9_000] + " a few words inserted here " + TEXT_A[9_000:20_000] + TEXT_A[20_500:]


def expected_baseline_cells(params) -> dict[str, str]:
    """The baseline column as the core computes it, from scratch."""
    an = Analysis()
    c = an.compare(an.chunk(TEXT_A, params), an.chunk(TEXT_B, params))
    return compact_cells(c.baseline.summary, c.margin)


def expected_rule_cells(params) -> dict[str, str]:
    an = Analysis()
    c = an.compare(an.chunk(TEXT_A, params), an.chunk(TEXT_B, params))
    return compact_cells(c.summary, c.margin)


def column(window, name: str) -> dict[str, str]:
    return {key: window.churn.value(name, key) for key, _, _ in ROWS}


def record_shown(window) -> list:
    """What the window showed at each result_shown: (result, panes' layouts, churn columns)."""
    seen = []
    window.result_shown.connect(lambda r: seen.append((
        r, window.pane_a.layout_info, window.pane_b.layout_info,
        column(window, "tttd-v1"), column(window, "lmx2-v1"), column(window, "base"))))
    return seen


def test_the_panes_show_a_new_pair_before_the_other_rule_and_baseline_fill_in(qtbot, window):
    seen = record_shown(window)
    result = load_texts(qtbot, window, TEXT_A, TEXT_B)
    first, last = seen[0], seen[-1]
    # first: the panes and the shown rule's column, the rest still computing
    assert set(first[0].pending) == {BASELINE, "lmx2-v1"}
    assert first[1] is first[0].layout_a and first[2] is first[0].layout_b
    assert first[3] == expected_rule_cells(ChunkerParams())
    assert set(first[4].values()) == {"…"} and set(first[5].values()) == {"…"}
    # then the same chunks, and the churn panel complete
    assert last[0] is result and not result.pending and result.a is first[0].a
    assert last[4] == expected_rule_cells(Lmx2Params())
    assert last[5] == expected_baseline_cells(ChunkerParams())
    assert not window.analyzer.busy


def test_a_min_tokens_change_keeps_the_baseline_column_without_a_gap(qtbot, window):
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    seen = record_shown(window)
    for m in (60, 80, 120):
        p = ChunkerParams(min_tokens=m)
        set_params(qtbot, window, p)
        assert column(window, "tttd-v1") == expected_rule_cells(p)
        assert column(window, "base") == expected_baseline_cells(p)
    # min_tokens changes neither the baseline nor lmx2-v1: every result came whole, and the
    # baseline column never showed "…" in between
    assert [r.pending for r, *_ in seen] == [(), (), ()]
    assert all("…" not in base.values() for *_, base in seen)


def test_changing_max_tokens_updates_the_baseline_column(qtbot, window):
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    before = column(window, "base")
    seen = record_shown(window)
    p = ChunkerParams(max_tokens=300)
    set_params(qtbot, window, p)
    assert seen[0][0].pending == (BASELINE,)  # the other rule is kept; the baseline follows
    assert column(window, "base") == expected_baseline_cells(p) != before
    # back to 512: the baseline of that window is still known, and comes at once
    seen.clear()
    set_params(qtbot, window, ChunkerParams())
    assert [r.pending for r, *_ in seen] == [()]
    assert column(window, "base") == before
