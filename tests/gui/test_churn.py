"""What an edit cost, shown: the counterexample example, the churn panel beside the
baseline, statuses painted in the panes, the overview map, navigation."""

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtGui import QColor, QKeySequence
from PySide6.QtWidgets import QComboBox, QLabel
from steadlith_core.bench.examples import counterexample_params, phase_shift_answer

from compare_helpers import chunk_visible, position_point
from gui_helpers import color_near, load_texts
from steadlith_gui.model.demo import PAIR_EXAMPLES
from steadlith_gui.model.viewmodel import change_target


def load_example(qtbot, window, name):
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.act.examples[name].trigger()
    return blocker.args[0]


def test_counterexample_example_shows_the_phase_shift_and_failed_locality(qtbot, window):
    result = load_example(qtbot, window, "phase-shift")
    c = result.comparison
    assert window.session.params == counterexample_params() and result.params == counterexample_params()
    assert len(c.phase_shift_regions) >= 1
    churn = window.findChild(type(window.churn), "churnPanel")
    assert churn is window.churn and churn.isVisible()
    # the regions, each one line in the list
    regions = churn.regions
    assert regions.objectName() == "phaseShiftRegions" and regions.count() == len(c.phase_shift_regions)
    r = c.phase_shift_regions[0]
    assert "shifted" in regions.item(0).text() and f"B {r.b_chunks[0]}–{r.b_chunks[1] - 1}" in regions.item(0).text()
    # the verdict
    verdict = churn.findChild(QLabel, "churnVerdict_tttd-v1").text()
    assert "locality did not hold" in verdict and f"{c.summary.violations}" in verdict
    # the numbers, tttd-v1 beside the fixed-size baseline
    s, base = c.summary, c.baseline.summary
    assert churn.value("cdc", "reused_chunks").startswith(f"{s.reused_chunks}/{s.chunks_b}")
    assert churn.value("base", "reused_chunks").startswith(f"{base.reused_chunks}/{base.chunks_b}")
    assert churn.value("cdc", "reused_tokens") == f"{s.reused_tokens:,} t"
    assert f"{s.reused_token_ratio * 100:.1f} %" in churn.values[("tttd-v1", "reused_tokens")].toolTip()
    assert f"{s.tokens_to_embed:,} t" in churn.value("cdc", "to_embed")
    assert churn.value("cdc", "shifted").startswith(f"{s.shifted_chunks_b}")
    # past the margin, yet shown neutrally with words: only the verdict reports a violation
    assert churn.value("cdc", "resync") == f"{s.longest_resync_tokens:,} t · margin {c.margin:,}"
    assert f"past the margin of {c.margin:,} t" in churn.values[("tttd-v1", "resync")].toolTip()
    assert churn.values[("tttd-v1", "resync")].styleSheet() == ""
    # the example jumped to the shifted region: its first B chunk is selected and on screen
    j = r.b_chunks[0]
    assert window.navigation.selection == ("B", j) and chunk_visible(window.pane_b, j)
    assert chunk_visible(window.pane_a, r.a_chunks[0])
    assert "counterexample" in window.columns["B"].header.text()


def test_the_churn_panel_shows_both_rules_on_the_counterexample(qtbot, window):
    """tttd-v1 breaks locality on the counterexample, lmx2-v1 holds it: both verdicts side
    by side, each at its own margin, as the core's phase_shift_answer says."""
    result = load_example(qtbot, window, "phase-shift")
    answer = phase_shift_answer()
    churn = window.churn
    assert set(result.rules) == {"tttd-v1", "lmx2-v1"}
    for rule, expected in answer.items():
        s = expected.summary
        assert churn.value(rule, "reused_chunks").startswith(f"{s.reused_chunks}/{s.chunks_b}")
        assert churn.value(rule, "resync").endswith(f"{expected.margin:,}")
    tttd = churn.findChild(QLabel, "churnVerdict_tttd-v1")
    lmx2 = churn.findChild(QLabel, "churnVerdict_lmx2-v1")
    assert tttd.isVisible() and "did not hold" in tttd.text()
    assert lmx2.isVisible() and "locality held" in lmx2.text() and "did not" not in lmx2.text()
    assert answer["lmx2-v1"].summary.reused_chunks == 33  # the core's pinned answer

    # Compare rules: the panes switch to lmx2-v1, the panel keeps both
    combo = churn.findChild(QComboBox, "churnRuleCombo")
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        combo.setCurrentText("lmx2-v1")
        combo.activated.emit(combo.currentIndex())
    shown = blocker.args[0]
    assert shown.a.boundary_rule == "lmx2-v1" and window.pane_b.chunking is shown.b
    assert window.session.rule == "lmx2-v1" and window.params_panel.rule_combo.currentText() == "lmx2-v1"
    assert "did not hold" in churn.findChild(QLabel, "churnVerdict_tttd-v1").text()
    assert churn.regions.count() == 1 and not churn.regions.item(0).data(Qt.ItemDataRole.UserRole)


@pytest.mark.parametrize("b_words, header", [
    ("alpha beta GAMMA delta", "1 edit: 1 word new in B, 1 gone from A"),
    ("alpha beta GAMMA EPSILON delta", "1 edit: 2 words new in B, 1 gone from A"),
])
def test_the_edit_size_header_counts_in_the_singular_for_one(qtbot, window, b_words, header):
    text = "Some words to keep around the edit so the chunker has a document. "
    load_texts(qtbot, window, text * 20 + "alpha beta gamma delta. " + text * 20,
               text * 20 + b_words + ". " + text * 20)
    assert window.churn.title.text().startswith(header)


def test_clicking_a_region_shows_it_in_both_panes(qtbot, window):
    result = load_example(qtbot, window, "phase-shift")
    r = result.comparison.phase_shift_regions[0]
    window.pane_a.verticalScrollBar().setValue(window.pane_a.verticalScrollBar().maximum())
    window.act["sync"].setChecked(False)
    window.pane_b.verticalScrollBar().setValue(window.pane_b.verticalScrollBar().maximum())
    assert not chunk_visible(window.pane_b, r.b_chunks[0])
    window.navigation.select_chunk("A", None)
    regions = window.churn.regions
    rect = regions.visualItemRect(regions.item(0))
    qtbot.mouseClick(regions.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    assert chunk_visible(window.pane_b, r.b_chunks[0]) and chunk_visible(window.pane_a, r.a_chunks[0])
    assert window.navigation.selection == ("B", r.b_chunks[0])


def test_statuses_are_painted_in_the_panes(qtbot, window):
    result = load_example(qtbot, window, "phase-shift")
    c = result.comparison
    pane = window.pane_b
    theme = window.theme_ctl.theme
    r = c.phase_shift_regions[0]
    j = r.b_chunks[0] + 1  # a shifted chunk (not the selected one, which is framed)
    window.navigation.select_chunk("B", None)
    start, end = pane.chunk_span(j)
    pane.scroll_position_to_y(start, 30)
    image = pane.viewport().grab().toImage()
    point = position_point(pane, (start + end) // 2)
    shifted = theme.status_tints("shifted")[j % 2]
    assert color_near(image, point.x(), point.y(), shifted, radius=6, tolerance=3)
    # the edit's own words get the changed-word colour, in the edited chunk
    op = next(op for op in c.ops if op.tag != "equal")
    w = result.b.words[op.b_start + 1]
    pos = result.doc_b.offsets.to_display(w.start)
    pane.scroll_position_to_y(pos, 30)
    image = pane.viewport().grab().toImage()
    point = position_point(pane, pos)
    assert color_near(image, point.x(), point.y(), theme.changed_word_color(), radius=6, tolerance=3)
    assert not color_near(image, point.x(), point.y(), shifted, radius=2, tolerance=3)
    # the gutter repeats the status as a stripe
    gutter = pane.gutter.grab().toImage()
    y = pane.y_locator()(pos)[0] + 3
    assert color_near(gutter, pane.gutter.width() - 1 - pane.STRIPE / 2, y, QColor(theme.status["edited"]), radius=2)


def test_overview_map_click_jumps_and_caches_its_strips(qtbot, window):
    result = load_example(qtbot, window, "small-edit")
    overview = window.findChild(type(window.overview), "overviewMap")
    assert overview is window.overview and overview.isVisible()
    window.pane_b.verticalScrollBar().setValue(0)
    overview.repaint()  # the strip image of this result is rendered once
    builds, painted = overview.cache_builds, overview.paint_count
    frame = overview.frame_rect("A")
    # scrolling repaints the frames only: the strip image is not rebuilt
    for v in (5, 10, 15):
        window.pane_a.verticalScrollBar().setValue(v)
        overview.repaint()
    assert overview.paint_count == painted + 3 and overview.cache_builds == builds
    assert overview.frame_rect("A").top() > frame.top()
    # click near the end of B's strip: B shows the end of the document, and A follows
    rect = overview.strip_rect("B")
    target = int(overview.position_at("B", rect.bottom() - 8))
    qtbot.mouseClick(overview, Qt.MouseButton.LeftButton, pos=QPoint(int(rect.center().x()), int(rect.bottom() - 8)))
    lo, hi = window.pane_b.visible_position_range()
    assert lo <= target <= hi
    assert window.pane_a.verticalScrollBar().value() > 15  # synced
    last = len(result.b.chunks) - 1
    assert chunk_visible(window.pane_b, last)


@pytest.mark.parametrize("what, key", [("shifted", Qt.Key.Key_F8), ("changed", Qt.Key.Key_F7)])
def test_navigation_to_next_and_previous_chunks(qtbot, window, what, key):
    """The key steps to the next chunk of its kind; with Shift, back to the previous one."""
    result = load_example(qtbot, window, "phase-shift")
    c = result.comparison
    pane = window.pane_b
    pane.setFocus()
    pane.move_caret(0)
    pane.verticalScrollBar().setValue(0)
    window.navigation.select_chunk("B", None)
    # the caret starts in chunk 0, so the first step goes to the first such chunk after it
    wanted = [j for j, s in enumerate(c.status_b) if (s == "shifted" if what == "shifted" else s != "reused") and j]
    assert len(wanted) >= 3
    act, back = window.act.nav[f"next_{what}"], window.act.nav[f"prev_{what}"]
    # listed in the Navigate menu with their shortcuts
    assert act.shortcut() == QKeySequence(key)
    assert back.shortcut() == QKeySequence(Qt.KeyboardModifier.ShiftModifier | key)
    nav_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&Navigate")
    assert act in nav_menu.actions() and back in nav_menu.actions()
    for expected in wanted[:3]:
        qtbot.keyClick(pane, key)
        assert window.navigation.selection == ("B", expected)
        assert pane.textCursor().position() == change_target(pane.view(), expected)
        assert chunk_visible(pane, expected)
    qtbot.keyClick(pane, key, Qt.KeyboardModifier.ShiftModifier)
    assert window.navigation.selection == ("B", wanted[1])
    assert pane.textCursor().position() == change_target(pane.view(), wanted[1])
    qtbot.keyClick(pane, key, Qt.KeyboardModifier.ShiftModifier)
    assert window.navigation.selection == ("B", wanted[0])


def test_navigation_by_boundary_and_by_keyboard(qtbot, window):
    result = load_example(qtbot, window, "small-edit")
    pane = window.pane_a
    pane.setFocus()
    assert window.navigation.active_side == "A"
    pane.move_caret(0)
    pane.verticalScrollBar().setValue(0)  # the example opened on its change: the caret at 0 must be on screen
    window.act.nav["next_boundary"].trigger()
    assert pane.textCursor().position() == pane.cut_position(0) and window.navigation.selection == ("A", 0)
    window.act.nav["next_boundary"].trigger()
    assert pane.textCursor().position() == pane.cut_position(1)
    window.act.nav["prev_boundary"].trigger()
    assert pane.textCursor().position() == pane.cut_position(0)
    # the shortcut itself, typed in pane A
    assert window.act.nav["next_boundary"].shortcut() == QKeySequence("Alt+Down")
    qtbot.keyClick(pane, Qt.Key.Key_Down, Qt.KeyboardModifier.AltModifier)
    assert pane.textCursor().position() == pane.cut_position(1)
    assert len(result.a.chunks) > 2


@pytest.mark.parametrize("name", list(PAIR_EXAMPLES))
def test_every_example_loads_with_its_parameters(qtbot, window, name):
    result = load_example(qtbot, window, name)
    text_a, text_b, params = PAIR_EXAMPLES[name].make()
    assert result.a.text == text_a and result.b.text == text_b and result.params == params
    assert result.comparison is not None
    if name == "snapping-on":
        assert params.snapping and result.a.diagnostics.snapped > 0
        assert result.comparison.locality_held
    if name == "small-edit":
        assert result.comparison.summary.edits == 1 and "edited" in result.comparison.status_b


def test_compare_rules_in_the_view_menu_switches_the_panes(qtbot, window):
    load_example(qtbot, window, "phase-shift")
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.act["compare_rules"].trigger()
    assert blocker.args[0].b.boundary_rule == "lmx2-v1" == window.churn.rule_combo.currentText()
    assert window.legend.rule == "lmx2-v1" and set(blocker.args[0].rules) == {"tttd-v1", "lmx2-v1"}
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.act["compare_rules"].trigger()
    assert blocker.args[0].b.boundary_rule == "tttd-v1" and window.params_panel.rule == "tttd-v1"
