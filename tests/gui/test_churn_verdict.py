"""The churn panel's verdict: a check that tested nothing reads as neither a pass nor a
failure."""

from PySide6.QtGui import QColor
from steadlith_core import ChunkerParams, chunk, compare
from steadlith_core.bench.examples import generate_prose

from steadlith_gui.widgets.palette import LIGHT
from steadlith_gui.widgets.churn import ChurnPanel


def _comparison(text_a: str, text_b: str, params: ChunkerParams):
    return compare(chunk(text_a, params), chunk(text_b, params))


def _verdict_colour(panel: ChurnPanel) -> QColor:
    return panel.verdict.palette().color(panel.verdict.foregroundRole())


def test_a_rewrite_with_nothing_to_check_is_neutral(qtbot):
    panel = ChurnPanel(LIGHT)
    qtbot.addWidget(panel)
    panel.show()
    rewrite = _comparison(generate_prose(300, seed=1), generate_prose(300, seed=2), ChunkerParams())
    assert rewrite.checked_ranges == 0
    panel.show_comparison(rewrite)
    line = panel.verdict_text()
    assert "nothing to check" in line and "✓" not in line and "held" not in line
    neutral = _verdict_colour(panel)
    assert neutral == QColor(LIGHT.muted) and neutral != QColor(LIGHT.ok)

    same = generate_prose(4000, seed=5)
    panel.show_comparison(_comparison(same, same, ChunkerParams(min_tokens=8, max_tokens=40, window_words=4)))
    assert "✓ locality held" in panel.verdict_text()
    assert _verdict_colour(panel) == QColor(LIGHT.ok)
