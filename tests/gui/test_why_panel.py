"""The churn panel's Why? section: the selected phase-shift region's explanation (the
core's paragraph) and its words marked in both panes; another region updates it, a
parameter change clears it until the new result."""

from steadlith_core import ChunkerParams
from steadlith_core.bench.examples import generate_prose
from steadlith_core.comparison.causes import explain_comparison
from PySide6.QtCore import Qt

from gui_helpers import load_texts
from steadlith_gui.model.why_state import SHOWN, STALE, STALE_TEXT


def load_example(qtbot, window, name):
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.act.examples[name].trigger()
    return blocker.args[0]


def why_text(window) -> str:
    return window.churn.why.toPlainText()


def wait_explained(qtbot, window, region):
    qtbot.waitUntil(lambda: window.why.state.status == SHOWN and window.why.state.region == region, timeout=10_000)


def word_span(result, side, word):
    c = result.comparison
    doc = result.doc_a if side == "A" else result.doc_b
    words = (c.a if side == "A" else c.b).words
    return int(doc.offsets.to_display(int(words.starts[word]))), int(doc.offsets.to_display(int(words.ends[word])))


def click_region(qtbot, window, k):
    regions = window.churn.regions
    rect = regions.visualItemRect(regions.item(k))
    qtbot.mouseClick(regions.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())


def test_the_counterexample_explains_its_region_and_marks_its_words(qtbot, window):
    result = load_example(qtbot, window, "phase-shift")
    click_region(qtbot, window, 0)
    wait_explained(qtbot, window, 0)
    x = explain_comparison(result.comparison, 0)[0]
    text = why_text(window)
    assert x.text in text and window.churn.why.isVisible() and window.churn.why.isReadOnly()
    # names the candidate the edit created, B's fallback cut and where both versions meet again
    created = x.created[0]
    assert f"created a backup candidate at B word {created.b_word}" in text
    assert "fell back to the backup" in text
    assert f"meet again at the primary cut at A {x.resync_a_word} / B {x.resync_b_word}" in text
    # and marks them in the panes
    marked_b, marked_a = window.why.marked("B"), window.why.marked("A")
    assert word_span(result, "B", created.b_word) in marked_b
    assert word_span(result, "B", x.decision_b.cut_word - 1) in marked_b
    assert word_span(result, "B", x.resync_b_word - 1) in marked_b
    assert word_span(result, "A", x.resync_a_word - 1) in marked_a
    assert word_span(result, "A", x.decision_a.cut_word - 1) in marked_a


def test_clicking_a_shifted_chunk_explains_its_region(qtbot, window):
    result = load_example(qtbot, window, "phase-shift")
    window.why.invalidate()
    assert why_text(window).endswith(STALE_TEXT) and window.why.marked("B") == []
    r = result.comparison.phase_shift_regions[0]
    window.pane_b.chunk_clicked.emit(r.b_chunks[0] + 1)
    wait_explained(qtbot, window, 0)
    assert explain_comparison(result.comparison, 0)[0].text in why_text(window)


def test_another_region_updates_the_panel_and_a_parameter_change_clears_it(qtbot, window):
    a = generate_prose(30_000, seed=5)
    b = (a[:6_000] + " A whole new sentence goes right here. " + a[6_000:18_000]
         + " Another sentence is added there too. " + a[18_000:])
    result = load_texts(qtbot, window, a, b)
    c = result.comparison
    assert len(c.phase_shift_regions) == 2
    click_region(qtbot, window, 0)
    wait_explained(qtbot, window, 0)
    first = why_text(window)
    assert explain_comparison(c, 0)[0].text in first
    click_region(qtbot, window, 1)
    wait_explained(qtbot, window, 1)
    second = explain_comparison(c, 1)[0].text
    assert second in why_text(window) and why_text(window) != first
    # a parameter change: cleared at once, and stays so when the new result comes
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        window.session.set_params(ChunkerParams(min_tokens=80), show=True)
        assert window.why.state.status == STALE and why_text(window).endswith(STALE_TEXT)
        assert window.why.marked("A") == [] and window.why.marked("B") == []
    assert window.why.state.status == STALE and second not in why_text(window)
    new = window.session.comparison
    assert new is not c
    if new.phase_shift_regions:  # the new result's regions explain themselves again
        click_region(qtbot, window, 0)
        wait_explained(qtbot, window, 0)
        assert explain_comparison(new, 0)[0].text in why_text(window)


def test_lmx2_shows_its_own_explanation(qtbot, window):
    load_example(qtbot, window, "phase-shift")
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        window.churn.rule_selected.emit("lmx2-v1")
    c = window.session.comparison
    assert c.b.boundary_rule == "lmx2-v1" and c.phase_shift_regions
    click_region(qtbot, window, 0)
    wait_explained(qtbot, window, 0)
    x = explain_comparison(c, 0)[0]
    assert x.text in why_text(window) and "lmx2-v1" in why_text(window)
    assert "decides every cut from its own neighbourhood" in why_text(window)


def test_the_explained_region_stays_selected_in_the_list(qtbot, window):
    load_example(qtbot, window, "phase-shift")  # opens on the first region, explained
    wait_explained(qtbot, window, 0)
    qtbot.waitUntil(lambda: not window.analyzer.busy)
    assert window.churn.regions.currentRow() == 0 and window.churn.regions.item(0).isSelected()


def test_the_why_box_keeps_the_themes_background_while_it_prompts(qtbot):
    """Muted (the prompt, or stale), the Why? box is still drawn on the theme's base: in
    the dark theme a white box would glare beside the dark region list."""
    from PySide6.QtGui import QColor

    from gui_helpers import make_window
    from steadlith_gui.widgets.palette import DARK

    window = make_window(qtbot, theme="dark")
    load_example(qtbot, window, next(iter(window.act.examples)))
    why = window.churn.why
    window.why.invalidate()  # stale until the next result: muted
    assert window.why.state.status != SHOWN
    qtbot.wait(50)
    image = why.viewport().grab().toImage()
    corner = QColor(image.pixel(image.width() - 3, image.height() - 3))
    assert abs(corner.lightness() - QColor(DARK.base).lightness()) < 24, corner.name()
    from PySide6.QtGui import QTextCursor

    cursor = QTextCursor(why.document())
    cursor.movePosition(QTextCursor.MoveOperation.NextCharacter)
    assert cursor.charFormat().foreground().color().name().lower() == DARK.muted.lower()  # the prompt is muted
