"""The legend: the cut kinds of the rule the panes show, each with its colour and shape,
and the chunk statuses. lmx2-v1's kinds take tttd-v1's shapes by role (the core's
style: fill the backup diamond, long-word the hard-cut triangle)."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize
from PySide6.QtGui import QColor, QPainter
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget
from steadlith_core.chunking.rules import PARAMS_TYPES
from steadlith_core.report.style import EXTERNAL, KIND_HELP, KIND_LABELS, KIND_SHAPES, STATUS_HELP, kind_help, marker_kinds
from steadlith_core.vocabulary import STATUSES

from .flow_layout import FlowLayout
from .markers import paint_marker
from .palette import LIGHT, STATUS_GLYPHS, Theme
from .status_patterns import paint_pattern


class MarkerSwatch(QWidget):
    """A marker of one kind (or, with kind=None, the two chunk tints)."""

    def __init__(self, kind: str | None, theme: Theme, px: int = 16, parent: QWidget | None = None):
        super().__init__(parent)
        self.kind = kind
        self.theme = theme
        self.px = px
        self.setFixedSize(self.sizeHint())
        if kind is None:
            self.setAccessibleName("chunk tints: neighbouring chunks alternate between two backgrounds")
        else:
            self.setAccessibleName(f"{KIND_LABELS[kind]} cut marker: {KIND_SHAPES[kind]}")
            self.setAccessibleDescription(KIND_HELP[kind])

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(self.px * 2 if self.kind is None else self.px, self.px)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        px = self.px
        if self.kind is None:
            p.fillRect(QRectF(0, 2, px, px - 4), QColor(self.theme.tints[0]))
            p.fillRect(QRectF(px, 2, px, px - 4), QColor(self.theme.tints[1]))
        else:
            paint_marker(
                p, self.kind, QPointF(px / 2, px / 2), px * 0.62, self.theme.kind_color(self.kind),
                height=px - 2,
            )
        p.end()


class StatusSwatch(QWidget):
    """A chunk tint of one status with its colour edge (as in the panes' gutter stripe)."""

    def __init__(self, status: str, theme: Theme, px: int = 16, parent: QWidget | None = None):
        super().__init__(parent)
        self.status = status
        self.theme = theme
        self.px = px
        self.setFixedSize(QSize(int(px * 1.4), px))
        self.setAccessibleName(f"{status} chunk tint")
        self.setAccessibleDescription(STATUS_HELP[status])

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802
        p = QPainter(self)
        w, h = self.width(), self.px
        p.fillRect(QRectF(0, 2, w, h - 4), self.theme.status_tints(self.status)[1])
        edge = QRectF(0, 2, 7, h - 4)
        p.fillRect(edge, QColor(self.theme.status[self.status]))
        paint_pattern(p, edge, self.status, self.theme)
        p.end()


def _group(swatch: QWidget, label: QLabel, tip: str) -> QWidget:
    group = QWidget()
    lay = QHBoxLayout(group)
    lay.setContentsMargins(0, 0, 0, 0)
    lay.setSpacing(4)
    for w in (swatch, label):
        w.setToolTip(tip)
        lay.addWidget(w)
    return group


class Legend(QWidget):
    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("legend")
        self.setAccessibleName("Legend")
        self.theme = theme
        self.rule = "tttd-v1"
        self.swatches: list[MarkerSwatch] = []
        # one flow of small groups (a swatch and its word stay together): a narrow window
        # wraps the legend onto more lines instead of being held wide by it
        flow = FlowLayout(self, spacing=12, line_spacing=2)
        flow.setContentsMargins(6, 2, 6, 2)
        self.title = QLabel("<b>Cuts</b>")
        flow.addWidget(self.title)
        self.kind_widgets: dict[str, QWidget] = {}  # every rule's kinds; the shown rule's are visible
        for kind in dict.fromkeys(k for rule in (*PARAMS_TYPES, EXTERNAL) for k in marker_kinds(rule)):
            sw = MarkerSwatch(kind, theme)
            label = QLabel(KIND_LABELS[kind])
            label.setObjectName(f"legend_{kind}")
            group = _group(sw, label, "")
            flow.addWidget(group)
            self.swatches.append(sw)
            self.kind_widgets[kind] = group
        tint = MarkerSwatch(None, theme)
        self.swatches.append(tint)
        self.tint_label = QLabel("chunks (hover one)")
        flow.addWidget(_group(tint, self.tint_label, "Chunks alternate between two background tints"))
        flow.addWidget(QLabel("<b>Status</b>"))
        for status in STATUSES:
            sw = StatusSwatch(status, theme)
            label = QLabel(f"{STATUS_GLYPHS[status]} {status}".strip())
            label.setObjectName(f"legend_status_{status}")
            flow.addWidget(_group(sw, label, f"<b>{status}</b>: {STATUS_HELP[status]}"))
            self.swatches.append(sw)
        self.set_rule(self.rule)

    def set_rule(self, rule: str) -> None:
        """Show the cut kinds of `rule` (the rule the panes show)."""
        self.rule = rule
        kinds = marker_kinds(rule)
        self.title.setToolTip(f"The cut kinds of {rule}, the rule the panes show")
        for kind, group in self.kind_widgets.items():
            group.setVisible(kind in kinds)
            tip = f"<b>{KIND_LABELS[kind]}</b> ({rule}): {kind_help(rule, kind)}"
            for w in (group, *group.findChildren(QWidget)):
                w.setToolTip(tip)
        self.setAccessibleDescription(
            f"Cut kinds of {rule}, each with a colour and a shape: "
            + "; ".join(f"{KIND_LABELS[k]}: {KIND_SHAPES[k]}" for k in kinds)
            + ". Chunk statuses between the versions, as background tints: " + ", ".join(STATUSES) + ".")

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        for sw in self.swatches:
            sw.set_theme(theme)
