"""A large document's far end is painted from the result on screen: the panes paint only
their visible lines (chunk_painter.py), so after scrolling far down the tints and cut
markers there are those of the chunks there, and a parameter change repaints them with
the new chunks."""

from PySide6.QtGui import QColor
from steadlith_core import ChunkerParams, load_text

from compare_helpers import position_point
from gui_helpers import GOLDEN, color_near, load_texts, make_window, set_params

REPEATS = 6  # about 290 KB a side: thousands of lines below the first screen


def expected_tint(window, position: int) -> tuple[int, QColor]:
    """(chunk index at B's `position`, the tint the window's result gives it there): read
    from the analysis result, not from what the pane holds."""
    result = window.session.result
    i = result.layout_b.chunk_at(position)
    return i, window.pane_b.theme.status_tints(result.status_b.statuses[i])[i % 2]


def test_the_far_end_shows_its_chunks_and_a_parameter_change_repaints_them(qtbot):
    text = load_text(GOLDEN / "long.txt") * REPEATS
    edited = text[: len(text) // 3] + " inserted words " + text[len(text) // 3:]
    window = make_window(qtbot)
    params = ChunkerParams().with_changes(min_tokens=24, max_tokens=96)
    window.session.set_params(params, show=True)  # no documents yet: nothing to analyse
    load_texts(qtbot, window, text, edited)
    pane = window.pane_b
    far = int(pane.document().characterCount() * 0.9)
    pane.scroll_position_to_y(far, 30)
    qtbot.wait(20)
    before = {}
    image = pane.viewport().grab().toImage()
    visible = list(pane.visible_chunks())[1:-1]  # whole chunks, not the ones cut by the edges
    assert len(visible) >= 3
    assert min(visible) > 0.8 * pane.view().count, "the view is at the far end"
    for i in visible:
        start, end = pane.chunk_span(i)
        middle = (start + end) // 2
        _, tint = expected_tint(window, middle)
        point = position_point(pane, middle)
        assert color_near(image, point.x(), point.y(), tint, radius=6, tolerance=3), f"chunk {i}'s tint"
        before[middle] = tint
        # its cut marker, just after its last word, in the colour of its kind
        mark = position_point(pane, end)
        half_space = pane.fontMetrics().horizontalAdvance(" ") / 2
        kind = QColor(pane.theme.kind[window.session.result.layout_b.markers[i]])
        assert color_near(image, mark.x() + half_space, mark.y(), kind, radius=2, tolerance=8), f"chunk {i}'s marker"

    set_params(qtbot, window, params.with_changes(min_tokens=40))
    qtbot.wait(20)
    image = pane.viewport().grab().toImage()
    changed = 0
    for middle, old in before.items():
        _, tint = expected_tint(window, middle)
        point = position_point(pane, middle)
        assert color_near(image, point.x(), point.y(), tint, radius=6, tolerance=3)
        changed += tint != old
    assert changed, "the new chunks tint some of these places differently"
