"""Cut markers of lmx2-v1: primary takes the primary bar, fill the backup diamond and
long-word the hard-cut triangle (the core's style), painted where the core cut; the
legend lists the kinds of the rule the panes show."""

import pytest
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel
from steadlith_core import LMX2_PRESETS, load_text
from steadlith_core.report.style import KIND_SHAPES, marker_kind

from gui_helpers import GOLDEN, color_near
from steadlith_gui.widgets.palette import THEMES
from steadlith_gui.widgets.legend import Legend
from test_markers import expected_center
from view_helpers import shown_pane

ROLES = {"primary": "primary", "fill": "backup", "long-word": "hard", "end": "end"}  # lmx2 kind -> shape of


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_lmx2_kinds_are_painted_in_their_roles_shapes(qtbot, theme):
    text = load_text(GOLDEN / "mixed.txt")  # holds words longer than min_tokens
    pane, core, doc = shown_pane(qtbot, text, LMX2_PRESETS["lmx2 Small chunks"], THEMES[theme])
    palette = THEMES[theme].kind
    checked = set()
    for c in core.chunks:
        kind = marker_kind(c.kind, c.snapped)
        if kind in checked:
            continue
        assert KIND_SHAPES[kind] == KIND_SHAPES[ROLES[kind]]
        pos = doc.offsets.to_display(c.end)
        pane.scroll_to_position(pos)
        image = pane.viewport().grab().toImage()
        x, y = expected_center(pane, pos)
        role_colour = QColor(palette[ROLES[kind]])
        assert color_near(image, x, y, role_colour), f"no {kind} marker (as {ROLES[kind]}) at chunk {c.index}'s cut"
        for other in {"primary", "backup", "hard", "end"} - {ROLES[kind]}:
            assert not color_near(image, x, y, QColor(palette[other])), f"{other} colour at a {kind} cut"
        checked.add(kind)
    assert checked == set(ROLES), "the test document must hold every lmx2-v1 kind"


def test_the_legend_lists_the_shown_rules_kinds(qtbot):
    legend = Legend()
    qtbot.addWidget(legend)
    legend.show()

    def shown() -> set[str]:
        return {w.objectName().removeprefix("legend_") for w in legend.findChildren(QLabel)
                if w.objectName().startswith("legend_") and not w.objectName().startswith("legend_status")
                and w.isVisible()}

    assert shown() == {"primary", "backup", "hard", "snapped", "end"}
    legend.set_rule("lmx2-v1")
    assert shown() == {"primary", "fill", "long-word", "end"}
    assert "lmx2-v1" in legend.findChild(QLabel, "legend_primary").toolTip()
    legend.set_rule("tttd-v1")
    assert "backup" in shown() and "fill" not in shown()


def test_the_boundary_class_is_in_the_table_and_the_tooltip(qtbot):
    """Each chunk says where it ends (paragraph, sentence, between words), as the core's
    Chunk.boundary says, in the chunk table and in the pane's tooltip."""
    from steadlith_core.report.style import BOUNDARY_LABELS

    from steadlith_gui.widgets.models import COLUMNS, ChunkTableModel

    text = load_text(GOLDEN / "mixed.txt")
    pane, core, doc = shown_pane(qtbot, text, LMX2_PRESETS["lmx2 Small chunks"])
    model = ChunkTableModel()
    model.set_result(core, None, None, None)
    col = COLUMNS.index("boundary")
    shown = [model.data(model.index(i, col)) for i in range(len(core.chunks))]
    assert shown == [BOUNDARY_LABELS[c.boundary] for c in core.chunks]
    assert {"paragraph end", "sentence end", "between words"} <= set(shown)
    for c in core.chunks[:5]:
        assert f"<td>ends at</td><td>{BOUNDARY_LABELS[c.boundary]}</td>" in pane.chunk_tooltip(c.index)
