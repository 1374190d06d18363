"""Alignment like Meld's: the panes are synchronized through every
word the core's word diff keeps, not only through reused chunks; the link map draws the
diff's deletions and insertions as wedges; each pane shows faint ghost ticks where the
OTHER version cuts. The map itself is Qt-free (viewmodel.WordMap), tested first."""

from __future__ import annotations

import numpy as np
from steadlith_core import Analysis, ChunkerParams
from steadlith_core.bench.examples import phase_shift_counterexample

from steadlith_gui.model.documents import prepare_document
from steadlith_gui.model.layouts import ChunkLayout
from steadlith_gui.model.links import WordMap

BIG = ChunkerParams(min_tokens=300, max_tokens=900)
LINES = [f"    value_{i} = compute(record[{i}], weight={i * 7 % 13})  # step {i}" for i in range(160)]
A_TEXT = "\n".join(LINES) + "\n"
B_TEXT = "\n".join(LINES[:40] + LINES[80:]) + "\n"  # 40 lines deleted


def analysed(text_a, text_b, params):
    da, db = prepare_document("A", text_a), prepare_document("B", text_b)
    an = Analysis()
    ca, cb = an.chunk(text_a, params), an.chunk(text_b, params)
    c = an.compare(ca, cb)
    la, lb = ChunkLayout.build(ca, da.offsets), ChunkLayout.build(cb, db.offsets)
    return c, WordMap.build(c, da.offsets, db.offsets, la, lb), la, lb


def test_unchanged_text_maps_to_its_copy_to_the_character_next_to_a_deletion():
    c, wm, _, _ = analysed(A_TEXT, B_TEXT, BIG)
    for k in list(range(0, 40)) + list(range(80, 160)):
        line = LINES[k]
        a0, b0 = A_TEXT.index(line + "\n"), B_TEXT.index(line + "\n")
        for col in (4, 15, len(line) // 2, len(line) - 1):  # positions within the line
            assert wm.map("A", a0 + col) == b0 + col, (k, col)
            assert wm.map("B", b0 + col) == a0 + col, (k, col)
    # the deleted lines all map to the one place in B where they were
    deleted_at = B_TEXT.index(LINES[80])
    inside = [A_TEXT.index(LINES[k]) + 6 for k in range(41, 79)]
    assert all(abs(p - deleted_at) <= 5 for p in wm.map("A", np.array(inside)))
    # one gap: the deletion, as the core's word diff says
    deletes = [op for op in c.ops if op.tag == "delete"]
    assert len(deletes) == 1 and list(wm.gap_kind) == [0]
    a_lo, a_hi, b_lo, b_hi = wm.gaps[0]
    assert A_TEXT[a_lo:].startswith(LINES[40].strip()) and A_TEXT[:a_hi].endswith(LINES[79].split()[-1])
    assert b_lo == b_hi == B_TEXT.index(LINES[80].strip())


def test_ghost_cuts_are_the_other_sides_cuts_mapped_through_the_words():
    text_a, text_b, params = phase_shift_counterexample()
    c, wm, la, lb = analysed(text_a, text_b, params)
    ghosts_b = wm.ghost_cuts("B", lb.ends, la.ends)
    assert np.array_equal(ghosts_b, wm.ghosts_b)  # computed with the result, in the worker
    assert ghosts_b.size >= 5, "a phase shift: A's cuts fall between B's"
    assert not np.isin(ghosts_b, lb.ends).any()
    # each ghost sits after the same word as A's cut it stands for
    mapped = {int(wm.map("A", e)) for e in la.ends}
    assert set(ghosts_b.tolist()) <= mapped
    for g in ghosts_b[:5]:
        a_end = next(int(e) for e in la.ends if wm.map("A", int(e)) == g)
        assert text_b[g - 8:g] == text_a[a_end - 8:a_end]


# -- in the window ------------------------------------------------------------------------

from PySide6.QtCore import QPoint  # noqa: E402

from gui_helpers import color_near, load_texts  # noqa: E402
from steadlith_gui.widgets.pane_geometry import ABOVE, BELOW


def test_sync_scrolling_keeps_unchanged_lines_level_next_to_a_deletion(qtbot, window):
    window.session.set_params(BIG, show=True)
    result = load_texts(qtbot, window, A_TEXT, B_TEXT)
    assert result.word_map is not None
    pa, pb = window.pane_a, window.pane_b
    statuses = result.comparison.status_a
    assert "edited" in statuses
    for k in (82, 86, 92):  # lines just after the deletion, inside the edited chunk's reach
        pos_a = A_TEXT.index(LINES[k])
        pa.scroll_position_to_y(pos_a, pa.viewport().height() / 2)
        window.navigation.sync_from("A")
        y_a = pa.y_locator()(pos_a)[0]
        y_b = pb.y_locator()(B_TEXT.index(LINES[k]))[0]
        assert abs(y_a - y_b) <= 2, f"line {k}: A at {y_a:.0f} px, B at {y_b:.0f} px"


def test_link_map_draws_a_wedge_where_the_core_says_a_deletion_is(qtbot, window):
    window.session.set_params(BIG, show=True)
    result = load_texts(qtbot, window, A_TEXT, B_TEXT)
    pa = window.pane_a
    pa.scroll_position_to_y(A_TEXT.index(LINES[40]), pa.viewport().height() / 3)  # the deletion's top in view
    window.navigation.sync_from("A")
    link_map = window.link_map
    wedges = link_map.wedges()
    assert [kind for kind, _ in wedges] == ["removed"]
    image = link_map.grab().toImage()
    a_lo, a_hi, _, _ = result.word_map.gaps[0]
    dy = link_map.mapFromGlobal(pa.viewport().mapToGlobal(QPoint(0, 0))).y()
    h = pa.viewport().height()

    def clamp(y):
        return 0.0 if y == ABOVE else float(h) if y == BELOW else y

    top, bottom = clamp(pa.y_locator()(a_lo)[0]), clamp(pa.y_locator()(a_hi)[1])
    mid = dy + (top + bottom) / 2
    colour = link_map.wedge_color("removed")
    assert color_near(image, 4, mid, colour, radius=2, tolerance=3), "the wedge's wide end is beside the deletion"
    # nowhere near a reused stretch: above the deletion the map shows no wedge colour
    top_of_deletion = dy + top
    if top > 40:
        assert not color_near(image, 4, top_of_deletion - 30, colour, radius=2, tolerance=3)


def test_ghost_markers_are_painted_where_the_other_version_cuts(qtbot, window):
    text_a, text_b, params = phase_shift_counterexample()
    window.session.set_params(params, show=True)
    result = load_texts(qtbot, window, text_a, text_b)
    pb = window.pane_b
    expected = result.word_map.ghosts_b
    assert np.array_equal(pb.ghosts, expected)
    height = pb.viewport().height()
    shown = [g for g in pb.painter.ghost_points(pb.visible_blocks()) if g[2] < height]
    assert shown, "ghost ticks on screen in the shifted region"
    with_ghosts = pb.viewport().grab().toImage()
    pb.set_ghosts(None)
    without = pb.viewport().grab().toImage()
    for x, top, bottom in shown[:4]:
        y = int((top + bottom) / 2)
        changed = any(with_ghosts.pixel(int(x) + dx, yy) != without.pixel(int(x) + dx, yy)
                      for dx in (-1, 0, 1) for yy in range(int(top) + 2, int(bottom) - 2))
        assert changed, f"no ghost tick drawn at x={x:.0f}, y={y}"
