"""A pane can show an external chunking: its spans as chunks with the "external" cut
marker (its own shape and colour, in the legend), statuses by hash, the link map joining
equal hashes, and the rule-only diagnostics saying they do not apply."""

from __future__ import annotations

import pytest
from PySide6.QtGui import QColor
from steadlith_core.comparison.external import statuses_by_hash

from gui_helpers import color_near, load_texts, make_window
from steadlith_gui.model.external_runs import hash_alignment
from steadlith_core.report.style import MARKER_KINDS
from test_external_churn import choose, demo_pair, settled
from test_markers import expected_center


def show_in_panes(qtbot, window, key):
    combo = window.churn.rule_combo
    index = combo.findData(f"external:{key}" if key else f"rule:{window.session.rule}")
    return settled(qtbot, window, lambda: combo.activated.emit(index))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_panes_show_an_external_chunking_by_hash(qtbot, theme):
    window = make_window(qtbot, theme)
    text_a, text_b = demo_pair()
    load_texts(qtbot, window, text_a, text_b)
    column = choose(qtbot, window, "fixed-tokens").externals[0]
    result = show_in_panes(qtbot, window, "fixed-tokens")
    assert window.session.external.shown == "fixed-tokens"
    assert result.a.chunker == column.name == result.b.chunker
    a, b = result.a, result.b
    status_a, status_b = statuses_by_hash(a.chunks, b.chunks)
    assert "new" in status_b and "reused" in status_b  # the demo edit: some spans kept, some not
    pane = window.pane_b
    assert pane.status_info.statuses == status_b and window.pane_a.status_info.statuses == status_a
    assert set(pane.layout_info.markers) == {"external"} and pane.layout_info.count == len(b.chunks)
    # the link map pairs equal hashes in order; selecting a reused chunk selects its partner
    pairs = hash_alignment(a, b)
    links = result.links
    assert list(zip(links.a_lo[links.pairs], links.b_lo[links.pairs])) == pairs
    i, j = pairs[-1]
    window.navigation.select_chunk("B", j)
    assert window.pane_a.partner_selected == i
    # painted: the external marker at a span's end, in its colour, no rule kind's colour there
    colors = window.theme_ctl.theme.kind
    k = next(k for k, s in enumerate(status_b) if s == "new")
    b_end = result.doc_b.offsets.to_display(b.chunks[k].end)
    pane.scroll_to_position(b_end)
    image = pane.viewport().grab().toImage()
    x, y = expected_center(pane, b_end)
    assert color_near(image, x, y, QColor(colors["external"]))
    assert not any(color_near(image, x, y, QColor(colors[kind])) for kind in MARKER_KINDS)
    # the legend shows the external cut only; the table lists the spans; diagnostics say n/a
    assert window.legend.rule == "external" and window.legend.kind_widgets["external"].isVisible()
    assert not window.legend.kind_widgets["primary"].isVisible()
    assert window.table.model.rowCount() == len(a.chunks) + len(b.chunks)
    assert window.diagnostics.panel_b.value("hard_cut_rate") == "n/a"
    assert window.diagnostics.panel_b.value("chunk_count") == f"{len(b.chunks):,}"
    assert not window.diagnostics.panel_b.histogram.isVisible()  # its bins end at a max a splitter lacks
    assert "external" in window.shown_label.text() and column.name in window.shown_label.text()
    # and back to the rule: its chunks and kinds again, the external column still there
    back = show_in_panes(qtbot, window, None)
    assert back.a is back.rules[window.session.rule].a and window.legend.rule == window.session.rule
    assert window.churn.external_keys == ("fixed-tokens",) and window.diagnostics.panel_b.histogram.isVisible()
    assert window.diagnostics.panel_b.value("hard_cut_rate").endswith("%")


def test_asking_for_the_other_rule_takes_the_panes_back(qtbot, window):
    text_a, text_b = demo_pair()
    load_texts(qtbot, window, text_a, text_b)
    choose(qtbot, window, "fixed-tokens")
    assert show_in_panes(qtbot, window, "fixed-tokens").b.boundary_rule == "external"
    result = settled(qtbot, window, window.act["compare_rules"].trigger)
    assert result.b.boundary_rule == "lmx2-v1" == window.legend.rule and window.session.external.shown is None
    assert window.churn.rule_combo.currentText() == "lmx2-v1"
