"""A changed word inside an edited chunk stands out from the chunk's tint by at least
3:1 (WCAG 2.x non-text contrast) in both themes, and its text stays readable (4.5:1).
Ratios from the WCAG relative-luminance formula over the palette the panes paint with,
and a pixel check that the frame is painted round the changed word."""

import pytest
from PySide6.QtGui import QColor
from steadlith_core.bench.examples import phase_shift_counterexample

from compare_helpers import position_point
from gui_helpers import color_near
from steadlith_gui.widgets.palette import DARK, LIGHT
from view_helpers import compared_pane


def relative_luminance(color: QColor) -> float:
    def channel(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.red()) + 0.7152 * channel(color.green()) + 0.0722 * channel(color.blue())


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def test_the_formula_gives_the_wcag_extremes():
    assert contrast(QColor("#000000"), QColor("#FFFFFF")) == pytest.approx(21.0)
    assert contrast(QColor("#777777"), QColor("#FFFFFF")) == pytest.approx(4.48, abs=0.01)


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_a_changed_word_stands_out_from_its_edited_chunk(theme):
    edge, ground = theme.changed_word_edge(), theme.changed_word_color()
    for tint in theme.status_tints("edited"):  # both alternating tints of an edited chunk
        assert contrast(edge, tint) >= 3.0, (theme.name, edge.name(), tint.name())
    assert contrast(edge, ground) >= 3.0  # the frame shows on the word's own ground too
    assert contrast(QColor(theme.text), ground) >= 4.5  # and the word stays readable


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=["light", "dark"])
def test_the_frame_is_painted_round_a_changed_word(qtbot, theme):
    a, b, params = phase_shift_counterexample()
    pane, c, doc = compared_pane(qtbot, a, b, params, theme=theme)
    op = next(op for op in c.ops if op.tag != "equal")
    pos = doc.offsets.to_display(c.b.words[op.b_start + 1].start)
    pane.scroll_position_to_y(pos, 30)
    image = pane.viewport().grab().toImage()
    point = position_point(pane, pos)
    top, bottom = pane.y_locator()(pos)
    assert color_near(image, point.x() + 4, top + 0.5, theme.changed_word_edge(), radius=1, tolerance=4)
    assert color_near(image, point.x() + 4, bottom - 2, theme.changed_word_edge(), radius=1, tolerance=4)
