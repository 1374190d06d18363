"""scroll_position_to_y puts the line holding a position as near to the y asked as whole
lines allow, whatever the font's leading and the document's margins (the sync scrolling,
F7/F8 and the chunk table all scroll through it)."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QFont
from steadlith_core import ChunkerParams
from steadlith_core.bench.examples import phase_shift_counterexample

from view_helpers import compared_pane

WRAPPED = "\n".join(f"line {k} " + "word " * (k % 23) for k in range(400)) + "\n"  # lines of 1 to 3 rows


@pytest.mark.parametrize("font", [None, QFont("DejaVu Sans Mono", 10)], ids=["default font", "DejaVu Sans Mono"])
def test_a_line_lands_within_half_a_line_of_the_y_asked(qtbot, font):
    """DejaVu Sans Mono at 10 pt has a negative leading: QFontMetrics.lineSpacing() says
    15 px where the layout draws 16 px lines, so counting lines by it drifted a line
    per 15 (the panes' sync scrolling was a line apart after 80 lines)."""
    a, _, _ = phase_shift_counterexample()
    for text in (WRAPPED, a):
        pane, _, _ = compared_pane(qtbot, text, text, ChunkerParams(min_tokens=40, max_tokens=200), size=(420, 500))
        if font is not None:
            pane.setFont(font)
        bar, height = pane.verticalScrollBar(), pane.viewport().height()
        half = pane.line_height() / 2
        for position in range(0, len(text), len(text) // 37):
            for y in (0, 30, height / 2, height - 60):
                pane.scroll_position_to_y(position, y)
                top = pane.y_locator()(position)[0]
                if bar.value() in (bar.minimum(), bar.maximum()):
                    continue  # the scroll range, not the landing, decides there
                assert abs(top - y) <= half + 0.5, (position, y, top, pane.line_height())
