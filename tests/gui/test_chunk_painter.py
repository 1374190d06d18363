"""What a pane paints over its text, on a DocumentPane alone over the core's comparison:
status tints, changed words (tint and underline), the gutter's status stripe, and the
selection frames (solid for the selected chunk, dashed for its partner)."""

from PySide6.QtGui import QColor
from steadlith_core.bench.examples import phase_shift_counterexample

from compare_helpers import position_point
from gui_helpers import color_near
from steadlith_gui.widgets.palette import LIGHT
from view_helpers import compared_pane


def test_statuses_changed_words_and_stripe_are_painted_where_the_core_says(qtbot):
    a, b, params = phase_shift_counterexample()
    pane, c, doc = compared_pane(qtbot, a, b, params)
    theme = LIGHT
    j = c.phase_shift_regions[0].b_chunks[0] + 1  # a shifted chunk
    start, end = pane.chunk_span(j)
    pane.scroll_position_to_y(start, 30)
    image = pane.viewport().grab().toImage()
    point = position_point(pane, (start + end) // 2)
    assert color_near(image, point.x(), point.y(), theme.status_tints("shifted")[j % 2], radius=6, tolerance=3)
    # a changed word: the changed-word tint, and the underline in the edited colour below it
    op = next(op for op in c.ops if op.tag != "equal")
    pos = doc.offsets.to_display(c.b.words[op.b_start + 1].start)
    pane.scroll_position_to_y(pos, 30)
    image = pane.viewport().grab().toImage()
    point = position_point(pane, pos)
    assert color_near(image, point.x(), point.y(), theme.changed_word_color(), radius=6, tolerance=3)
    locate = pane.y_locator()
    bottom = locate(pos)[1]
    underline = theme.changed_word_edge()
    assert color_near(image, point.x() + 4, bottom - 2, underline, radius=1, tolerance=3)
    # the gutter stripe beside the edited chunk, at its first line (its last line may
    # also start the next chunk, whose stripe it then shows)
    gutter = pane.gutter.grab().toImage()
    y = locate(pane.chunk_span(c.b.chunk_at_word(op.b_start))[0])[0] + 3
    assert color_near(gutter, pane.gutter.width() - 1 - pane.STRIPE / 2, y, QColor(theme.status["edited"]), radius=2)
    # a reused chunk has no stripe
    k = c.alignment[-1][1]
    pane.scroll_position_to_y(pane.chunk_span(k)[0], 30)
    gutter = pane.gutter.grab().toImage()
    y = pane.y_locator()(pane.chunk_span(k)[0])[0] + 3
    for status in ("reused", "shifted", "edited", "new"):
        assert not color_near(gutter, pane.gutter.width() - 1 - pane.STRIPE / 2, y, QColor(theme.status[status]),
                              radius=2)


def test_selected_chunk_and_partner_are_framed(qtbot):
    a, b, params = phase_shift_counterexample()
    pane, c, doc = compared_pane(qtbot, a, b, params)
    frame = QColor(LIGHT.highlight)
    _, j = c.alignment[-1]
    start, _ = pane.chunk_span(j)
    pane.scroll_position_to_y(start, 40)

    def framed() -> bool:
        image = pane.viewport().grab().toImage()
        top = pane.y_locator()(start)[0]
        left = position_point(pane, start).x()
        # the frame's top edge runs just above the chunk's first line, from its first word on
        return any(color_near(image, left + dx, top, frame, radius=2, tolerance=40) for dx in range(4, 40, 6))

    assert not framed()
    pane.set_selected(j)
    assert pane.selected == j and framed()
    pane.set_selected(None, j)  # shown as the partner of a chunk selected in the other pane
    assert pane.partner_selected == j and framed()
    pane.set_selected(None)
    assert not framed()
