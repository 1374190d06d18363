"""Cut markers: a boundary of kind X is painted where the core says, in X's colour."""

import pytest
from PySide6.QtGui import QColor, QTextCursor
from steadlith_core import chunk, load_text

from steadlith_gui.model.offsets import OffsetMap
from steadlith_gui.widgets.palette import THEMES
from steadlith_core.report.style import MARKER_KINDS, marker_kind

from gui_helpers import GOLDEN, color_near, golden_params, load_texts
from view_helpers import shown_pane


def expected_center(pane, position):
    """Where a cut at Qt position `position` is drawn: in the gap after the word, mid-line."""
    cursor = QTextCursor(pane.document())
    cursor.setPosition(position)
    rect = pane.cursorRect(cursor)
    space = pane.fontMetrics().horizontalAdvance(" ")
    return rect.left() + space / 2, rect.top() + rect.height() / 2


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_each_kind_painted_at_core_position_in_its_colour(qtbot, theme):
    """The pane alone, over the core's chunking: every kind of cut has its marker where
    the core cut, in its colour and no other kind's."""
    text = load_text(GOLDEN / "mixed.txt")  # CRLF and CR line ends, an oversize word
    pane, core, doc = shown_pane(qtbot, text, golden_params("small-snap"), THEMES[theme])
    offsets = doc.offsets
    colors = {k: QColor(THEMES[theme].kind[k]) for k in MARKER_KINDS}
    checked = set()
    for c in core.chunks:
        kind = marker_kind(c.kind, c.snapped)
        if kind in checked:
            continue
        pos = offsets.to_display(c.end)
        pane.scroll_to_position(pos)
        image = pane.viewport().grab().toImage()
        x, y = expected_center(pane, pos)
        assert color_near(image, x, y, colors[kind]), f"no {kind} marker at chunk {c.index}'s cut"
        for other in MARKER_KINDS:
            if other != kind:
                assert not color_near(image, x, y, colors[other]), f"{other} colour at a {kind} cut"
        checked.add(kind)
    assert checked == set(MARKER_KINDS), "the test document must hold every kind of cut"

    # a control: in the middle of a chunk, far from its cuts, no marker colour at all.
    # Probe the space before a word, where no glyph is drawn: anti-aliased text can
    # hold any grey, the end marker's colour included; and keep the caret away (the
    # pane is read-only: no caret is drawn).
    c = max(core.chunks, key=lambda c: c.end_word - c.start_word)  # many words: its middle is far from cuts
    middle = core.words[(c.start_word + c.end_word) // 2]
    pos = offsets.to_display(middle.start)
    pane.scroll_to_position(pos)
    image = pane.viewport().grab().toImage()
    x, y = expected_center(pane, pos)
    x -= pane.fontMetrics().horizontalAdvance(" ")
    for kind in MARKER_KINDS:
        assert not color_near(image, x, y, colors[kind], radius=1), f"{kind} colour inside chunk {c.index}"


def test_the_window_shows_the_cuts_of_the_analysis_it_ran(qtbot, window):
    """The same markers reach the window's pane through the worker."""
    text = load_text(GOLDEN / "mixed.txt")
    params = golden_params("small-snap")
    window.session.set_params(params, show=True)
    result = load_texts(qtbot, window, text, text)
    core = chunk(text, params)
    assert [c.hash for c in result.a.chunks] == [c.hash for c in core.chunks]
    pane = window.pane_a
    c = core.chunks[0]
    pos = OffsetMap(text).to_display(c.end)
    pane.scroll_to_position(pos)
    window.pane_b.setFocus()  # the caret away from the probed cut
    image = pane.viewport().grab().toImage()
    x, y = expected_center(pane, pos)
    kind = marker_kind(c.kind, c.snapped)
    assert color_near(image, x, y, QColor(window.theme_ctl.theme.kind[kind])), f"no {kind} marker at chunk 0's cut"


def test_legend_shows_every_kind(window):
    legend = window.findChild(type(window.legend), "legend")
    assert legend is window.legend and legend.isVisible()
    from PySide6.QtWidgets import QLabel

    for kind in MARKER_KINDS:
        label = legend.findChild(QLabel, f"legend_{kind}")
        assert label is not None and label.isVisible()
    image = legend.grab().toImage()
    found = {
        k
        for k in MARKER_KINDS
        if any(
            image.pixelColor(x, y) == QColor(window.theme_ctl.theme.kind[k])
            for x in range(image.width())
            for y in range(image.height())
        )
    }
    assert found == set(MARKER_KINDS)


def test_hover_shows_chunk_details(qtbot, window):
    from PySide6.QtCore import QEvent
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QToolTip

    text = load_text(GOLDEN / "mixed.txt")
    window.session.set_params(golden_params("small"), show=True)
    result = load_texts(qtbot, window, text, text)
    pane = window.pane_a
    offsets = OffsetMap(text)
    c = result.a.chunks[3]
    pos = offsets.to_display(c.start + 1)
    pane.scroll_to_position(pos)
    cursor = QTextCursor(pane.document())
    cursor.setPosition(pos)
    point = pane.cursorRect(cursor).center()
    assert pane.chunk_at_point(point) == 3
    event = QHelpEvent(QEvent.Type.ToolTip, point, pane.viewport().mapToGlobal(point))
    QApplication.sendEvent(pane.viewport(), event)
    tip = QToolTip.text()
    assert f"Chunk {c.index}" in tip and c.hash in tip
    assert f"{c.tokens:,}" in tip and f"{c.word_count:,}" in tip and c.kind in tip
    QToolTip.hideText()
    # the gutter numbers the chunks: it was painted with a width for the largest index
    assert pane.gutter.width() > pane.fontMetrics().horizontalAdvance(str(len(result.a.chunks) - 1))


def test_hovered_chunk_is_highlighted(qtbot, window):
    from PySide6.QtCore import QEvent, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    text = load_text(GOLDEN / "long.txt")
    window.session.set_params(golden_params("small"), show=True)
    result = load_texts(qtbot, window, text, text)
    pane = window.pane_a
    c = result.a.chunks[2]
    pos = OffsetMap(text).to_display(c.start + 2)
    cursor = QTextCursor(pane.document())
    cursor.setPosition(pos)
    point = QPointF(pane.cursorRect(cursor).center())
    move = QMouseEvent(QEvent.Type.MouseMove, point, pane.viewport().mapToGlobal(point),
                       Qt.MouseButton.NoButton, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(pane.viewport(), move)
    assert pane.hovered == 2
    image = pane.viewport().grab().toImage()
    assert color_near(image, point.x(), point.y(), QColor(window.theme_ctl.theme.hover_tint), radius=4, tolerance=2)
