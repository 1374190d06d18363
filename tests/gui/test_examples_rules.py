"""The Examples menu's rule examples: the counterexample answered under lmx2-v1, and real
prose where tttd-v1 at its defaults breaks locality on one inserted sentence and
lmx2-v1 holds (the core's examples, with the numbers it pins)."""

from PySide6.QtWidgets import QLabel
from steadlith_core.comparison.analysis import compare_rules
from steadlith_core.bench.examples import phase_shift_answer, tool_library_example


def load_example(qtbot, window, name):
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000) as blocker:
        window.act.examples[name].trigger()
    return blocker.args[0]


def verdicts(window) -> dict[str, str]:
    return {rule: window.churn.findChild(QLabel, f"churnVerdict_{rule}").text() for rule in ("tttd-v1", "lmx2-v1")}


def test_the_counterexample_answered_shows_lmx2_in_the_panes(qtbot, window):
    result = load_example(qtbot, window, "phase-shift-lmx2")
    answer = phase_shift_answer()
    assert result.b.boundary_rule == "lmx2-v1" and window.params_panel.rule == "lmx2-v1"
    assert result.comparison.summary == answer["lmx2-v1"].summary
    assert result.rules["tttd-v1"].summary == answer["tttd-v1"].summary
    shown = verdicts(window)
    assert "did not hold" in shown["tttd-v1"] and "locality held" in shown["lmx2-v1"]


def test_the_tool_library_prose_pair(qtbot, window):
    result = load_example(qtbot, window, "tool-library")
    text_a, text_b, params = tool_library_example()
    expected = compare_rules(text_a, text_b, params)
    assert {r: c.summary for r, c in result.rules.items()} == {r: c.summary for r, c in expected.items()}
    shown = verdicts(window)
    assert "did not hold" in shown["tttd-v1"] and "locality held" in shown["lmx2-v1"]
    assert any("tool library" in a.text().lower() for a in window.act.examples_menu.actions())
