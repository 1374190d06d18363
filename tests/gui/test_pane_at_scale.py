"""What a parameter change costs on the GUI thread, seen as a user sees it:
the chunk table stays where the user scrolled it, the gutter does not narrow (which
would re-wrap and move the text), and the overview keeps showing the loudest status of
every row it draws, computed without a loop over rows."""

import numpy as np
from PySide6.QtCore import QItemSelectionModel
from steadlith_core import ChunkerParams
from steadlith_core.bench.examples import generate_prose

from gui_helpers import load_texts, set_params
from steadlith_gui.model.layouts import ChunkLayout, SideStatus
from steadlith_gui.widgets.models import COLUMNS
from steadlith_gui.widgets.overview_map import side_data

TEXT_A = generate_prose(60_000, seed=5)
TEXT_B = TEXT_A[:30_000] + " an inserted sentence here." + TEXT_A[30_000:]
FINE = ChunkerParams(min_tokens=16, max_tokens=64)  # hundreds of chunks
COARSE = ChunkerParams(min_tokens=600, max_tokens=2000)  # a few dozen


def test_a_parameter_change_keeps_the_chunk_table_where_the_user_was(qtbot, window):
    """The rows change in place: the table keeps its scroll position and its current row
    (where the arrow keys go on from), as it would not after a model reset."""
    window.session.set_params(FINE, show=True)
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    window.navigation.select_chunk("B", None)  # the pair opened on its change, selected: the user moves on
    view = window.chunk_table
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 100)
    # the keyboard's current cell, not a selection (a selected chunk is scrolled to anyway)
    view.selectionModel().setCurrentIndex(view.model().index(150, COLUMNS.index("tokens")),
                                          QItemSelectionModel.SelectionFlag.NoUpdate)
    bar.setValue(bar.maximum() // 2)
    before = bar.value()
    result = set_params(qtbot, window, FINE.with_changes(min_tokens=20))
    assert bar.value() == before
    assert view.currentIndex().row() == 150 and view.currentIndex().column() == COLUMNS.index("tokens")
    # and the rows are the new result's chunks
    model = view.model()
    n = len(result.a.chunks) + len(result.b.chunks)
    assert model.rowCount() == n
    assert model.data(model.index(n - 1, COLUMNS.index("hash"))) == result.b.chunks[-1].hash


def test_the_gutter_does_not_narrow_when_a_result_has_fewer_chunks(qtbot, window):
    window.session.set_params(FINE, show=True)
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    pane = window.pane_b
    assert pane.view().count >= 100
    wide = pane.viewportMargins().left()
    text_moved = []
    pane.viewport().resizeEvent = lambda e: text_moved.append(e.size())
    result = set_params(qtbot, window, COARSE)
    assert len(result.b.chunks) < 100
    assert pane.viewportMargins().left() == wide
    assert not text_moved  # the text area kept its width: nothing re-wrapped
    # a new document starts narrow again
    load_texts(qtbot, window, "a short text to show.", "another short text.")
    assert pane.viewportMargins().left() < wide


def test_the_gutter_widens_once_for_many_more_chunks_and_then_keeps_its_width(qtbot, window):
    """A change from ~300 to ~1,000 chunks needs a fourth digit: the gutter made room for
    it when it first widened, so the text is not re-wrapped (and moved) now, and every
    number still fits."""
    window.session.set_params(FINE, show=True)
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    pane = window.pane_b
    assert 100 <= pane.view().count < 1000
    wide = pane.viewportMargins().left()
    text_moved = []
    pane.viewport().resizeEvent = lambda e: text_moved.append(e.size())
    result = set_params(qtbot, window, ChunkerParams(min_tokens=4, max_tokens=16))
    n = len(result.b.chunks)
    assert n >= 1000
    assert not text_moved and pane.viewportMargins().left() == wide
    label = pane.fontMetrics().horizontalAdvance(f"{n - 1}+")
    assert pane.gutter.width() - pane.gutter.STRIPE - pane.gutter.GLYPH - 6 >= label


def loudest_per_row(layout, status, length, rows):
    """The overview's rule, one row at a time: the loudest status among the chunks the
    row covers (reused < removed < new < edited < shifted), -3 where none is."""
    scale = rows / max(length, 1)
    top = np.floor(layout.starts * scale).astype(int)
    bottom = np.maximum(top + 1, np.ceil(layout.ends * scale).astype(int))
    loudness = [0, 4, 3, 2, 1]
    out = []
    for r in range(rows):
        codes = [int(status.codes[i]) for i in range(layout.count) if top[i] <= r < bottom[i]]
        out.append(max(codes, key=lambda c: loudness[c]) if codes else -3)
    return out


def test_overview_rows_show_the_loudest_status_they_cover(qtbot, window):
    window.session.set_params(FINE, show=True)
    result = load_texts(qtbot, window, TEXT_A, TEXT_B)
    overview = window.overview
    for side, layout, status in (("A", result.layout_a, result.status_a), ("B", result.layout_b, result.status_b)):
        length = window.panes[side].document().characterCount()
        overview.set_result({side: side_data(layout, status, length)})
        for rows in (37, 400):
            got = overview.strip_codes(side, rows)
            assert list(got) == loudest_per_row(layout, status, length, rows)
    assert isinstance(result.layout_a, ChunkLayout) and isinstance(result.status_b, SideStatus)
