"""The link map: one band per alignment pair in view, status regions, stubs, clicks;
synchronized scrolling keeps partners level."""

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor
from steadlith_core import chunk, compare
from steadlith_core.bench.examples import phase_shift_counterexample

from compare_helpers import SMALL, band_point, chunk_top_y, chunk_visible, small_pair
from gui_helpers import load_texts, set_params
from steadlith_gui.widgets.palette import DARK, LIGHT
from view_helpers import chunk_lines_y, link_views, over, same


def load_counterexample(qtbot, window):
    a, b, params = phase_shift_counterexample()
    window.session.set_params(params, show=True)
    return load_texts(qtbot, window, a, b)


def test_one_band_per_alignment_pair_when_all_is_visible(qtbot, window):
    window.session.set_params(SMALL, show=True)
    window.act["focus_documents"].trigger()  # every dock hidden: the whole pair fits in the panes
    a, b = small_pair()
    result = load_texts(qtbot, window, a, b)
    c = result.comparison
    assert c is not None and c.alignment == compare(chunk(a, SMALL), chunk(b, SMALL)).alignment
    # everything fits: every chunk of both versions is in view
    assert window.pane_a.visible_chunks() == range(len(result.a.chunks))
    assert window.pane_b.visible_chunks() == range(len(result.b.chunks))
    link_map = window.findChild(type(window.link_map), "linkMap")
    assert link_map is window.link_map and link_map.width() >= 48
    pairs = link_map.pair_bands()
    assert sorted((i, j) for i, j, _ in pairs) == sorted(c.alignment)
    # and the edit is a region band in its status colour, joining the non-reused chunks
    regions = [bd for bd in link_map.bands() if bd.status != "reused"]
    edited_b = [k for k, s in enumerate(c.status_b) if s != "reused"]
    assert regions and {j for bd in regions for j in range(bd.b_lo, bd.b_hi)} == set(edited_b)
    assert link_map.paint_count > 0


def test_only_pairs_in_view_are_drawn_and_off_screen_ends_are_stubs(qtbot, window):
    window.session.set_params(SMALL, show=True)
    result = load_texts(qtbot, window, *small_pair(8000, seed=5))
    window.act["sync"].setChecked(False)
    c = result.comparison
    pa, pb = window.pane_a, window.pane_b
    pa.verticalScrollBar().setValue(pa.verticalScrollBar().maximum())  # A at its end, B at its start
    pb.verticalScrollBar().setValue(0)
    va, vb = set(pa.visible_chunks()), set(pb.visible_chunks())
    expected = {(i, j) for i, j in c.alignment if i in va or j in vb}
    assert 0 < len(expected) < len(c.alignment) // 3
    bands = window.link_map.bands()
    assert {(bd.a_lo, bd.b_lo) for bd in bands if bd.status == "reused"} == expected
    for bd in bands:
        if bd.status == "reused":
            stub = "A" if bd.a_lo not in va else "B" if bd.b_lo not in vb else ""
            assert bd.stub == stub, bd


def test_counterexample_has_a_loud_shifted_band(qtbot, window):
    result = load_counterexample(qtbot, window)
    region = result.comparison.phase_shift_regions[0]
    window.navigation.show_region(0)
    shifted = [bd for bd in window.link_map.bands() if bd.status == "shifted"]
    assert len(shifted) == 1
    bd = shifted[0]
    assert (bd.b_lo, bd.b_hi) == region.b_chunks
    # painted last (on top of every other band)
    assert window.link_map.bands()[-1].status == "shifted"


def test_clicking_a_band_scrolls_both_panes_to_its_chunks(qtbot, window):
    result = load_counterexample(qtbot, window)
    c = result.comparison
    window.act["sync"].setChecked(False)
    pa, pb = window.pane_a, window.pane_b
    pa.verticalScrollBar().setValue(pa.verticalScrollBar().maximum())
    pb.verticalScrollBar().setValue(0)
    # a pair visible in A only: its band is a stub towards B
    va, vb = pa.visible_chunks(), pb.visible_chunks()
    target = next(bd for bd in window.link_map.bands() if bd.status == "reused" and bd.stub == "B")
    assert target.a_lo in va and target.b_lo not in vb
    qtbot.mouseClick(window.link_map, Qt.MouseButton.LeftButton, pos=band_point(window.link_map, target))
    i, j = target.a_lo, target.b_lo
    assert (i, j) in c.alignment
    assert chunk_visible(pa, i) and chunk_visible(pb, j)
    assert abs(chunk_top_y(pa, i) - chunk_top_y(pb, j)) <= pa.line_height()  # level
    assert window.navigation.selection == ("B", j) and pb.selected == j and pa.partner_selected == i
    # now the band is a full band, not a stub
    assert any(bd.a_lo == i and bd.stub == "" for bd in window.link_map.bands())


def test_sync_scrolling_keeps_partners_level_and_can_be_turned_off(qtbot, window):
    result = load_counterexample(qtbot, window)
    pa, pb = window.pane_a, window.pane_b
    assert window.act["sync"].isChecked()  # on by default, in the View menu
    assert window.act["sync"] in window.menuBar().actions()[2].menu().actions()
    i, j = result.comparison.alignment[-3]  # a pair after the phase shift
    pa.scroll_position_to_y(pa.chunk_span(i)[0], pa.viewport().height() / 2)
    assert chunk_visible(pb, j)
    assert abs(chunk_top_y(pa, i) - chunk_top_y(pb, j)) <= pa.line_height()
    # the other way round
    pb.verticalScrollBar().setValue(0)
    assert pa.verticalScrollBar().value() == 0
    window.act["sync"].setChecked(False)
    before = pb.verticalScrollBar().value()
    pa.verticalScrollBar().setValue(pa.verticalScrollBar().maximum())
    assert pb.verticalScrollBar().value() == before


def test_no_comparison_draws_no_bands_and_says_why(qtbot, window):
    result = load_texts(qtbot, window, "Only one version is loaded here.", None)
    assert result.comparison is None and result.b is None
    assert window.link_map.bands() == [] and window.link_map.links is None
    assert "Load B too" in window.churn.empty.text() and window.churn.empty.isVisible()
    # a parameter change keeps it that way, without errors
    result = set_params(qtbot, window, SMALL)
    assert result.comparison is None and window.link_map.bands() == []
    window.link_map.repaint()  # the empty state paints


def test_bands_are_painted_where_the_core_puts_the_pairs(qtbot):
    """Pixels, not paths: at the lines of a reused pair's A chunk (left edge) and of its
    B partner (right edge) the link map shows the reused band's colour; at the lines of
    the phase-shift region the loud shifted fill and its hatch; below both documents'
    last lines, nothing but the background."""
    text_a, text_b, params = phase_shift_counterexample()
    theme = LIGHT
    c, docs, panes, link_map = link_views(qtbot, text_a, text_b, params, theme)
    assert panes["A"].visible_chunks() == range(len(c.a.chunks))  # both texts whole: every band in view
    assert panes["B"].visible_chunks() == range(len(c.b.chunks))
    image = link_map.grab().toImage()
    w = link_map.width()
    bg = QColor(theme.window)
    reused = over(QColor(theme.status["reused"]), 80, bg)
    # the inner lines of each chunk: its first and last line may be shared with a neighbour
    checked = 0
    for i, j in c.alignment:
        ya = chunk_lines_y(panes["A"], docs["A"], c.a.chunks[i], link_map)[1:-1]
        yb = chunk_lines_y(panes["B"], docs["B"], c.b.chunks[j], link_map)[1:-1]
        for y in ya:
            assert same(image.pixelColor(3, int(y)), reused), (i, j, y)
        for y in yb:
            assert same(image.pixelColor(w - 4, int(y)), reused), (i, j, y)
        checked += bool(ya) and bool(yb)
    assert checked >= len(c.alignment) // 2
    # the shifted region: loud fill and its hatch, never the reused colour
    shifted = over(QColor(theme.status["shifted"]), 215, bg)
    hatch = over(QColor(theme.base), 150, shifted)
    region = c.phase_shift_regions[0]
    seen = set()
    for k in range(*region.b_chunks):
        for y in chunk_lines_y(panes["B"], docs["B"], c.b.chunks[k], link_map)[1:-1]:
            for x in range(w - 12, w - 3):
                px = image.pixelColor(x, int(y))
                assert not same(px, reused)
                seen |= {name for name, col in (("fill", shifted), ("hatch", hatch)) if same(px, col)}
    assert seen == {"fill", "hatch"}
    # below the last line of both documents there is no band
    end = max(chunk_lines_y(panes[s], docs[s], ch.chunks[-1], link_map)[-1] for s, ch in (("A", c.a), ("B", c.b)))
    assert end + 40 < link_map.height()
    for x in (3, w // 2, w - 4):
        assert same(image.pixelColor(x, int(end + 30)), bg, tolerance=0)


def test_dark_bands_are_painted_in_the_dark_colours(qtbot):
    text_a, text_b, params = phase_shift_counterexample()
    c, docs, panes, link_map = link_views(qtbot, text_a, text_b, params, DARK)
    image = link_map.grab().toImage()
    i, _ = c.alignment[-1]
    y = chunk_lines_y(panes["A"], docs["A"], c.a.chunks[i], link_map)[1]
    assert same(image.pixelColor(3, int(y)), over(QColor(DARK.status["reused"]), 110, QColor(DARK.window)))
