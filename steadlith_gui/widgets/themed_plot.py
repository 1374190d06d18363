"""A pyqtgraph plot in the inspector's theme, telling what lies under the pointer.

pyqtgraph brings zoom (wheel, drag), "View all" and export (right-click) with it; this
adds the two things every chart of the window needs on top: the theme's surfaces and
text colours (light or dark, switched live), and a tooltip for the bin under the pointer,
whose words the chart that owns the plot supplies (`describe_at`).

A subclass must not name an attribute `metric`: that is QPaintDevice.metric(), which Qt
calls while painting, and shadowing it crashes the process in grab() (seen offscreen).
"""

from __future__ import annotations

from typing import Callable

import pyqtgraph as pg
from PySide6.QtCore import QPointF, QSize
from PySide6.QtWidgets import QSizePolicy, QToolTip, QWidget

from .palette import LIGHT, Theme

#: describe_at(x, y) in data coordinates: the tooltip text, or None where there is nothing.
Describe = Callable[[float, float], "str | None"]


class ThemedPlot(pg.PlotWidget):
    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None, **plot_options):
        super().__init__(parent, **plot_options)
        self.theme = theme
        self.describe_at: Describe = lambda x, y: None
        self.hover_text: str | None = None  # what the tooltip shows now (None: hidden)
        item = self.getPlotItem()
        item.hideButtons()  # the small "A" (auto-range) button: "View all" is in the right-click menu
        item.setMouseEnabled(x=True, y=False)  # counts start at zero: zoom and pan along x only
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setMinimumSize(150, 100)
        self.scene().sigMouseMoved.connect(self._hover)
        self.set_theme(theme)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(320, 140)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.setBackground(theme.window)
        for name in ("left", "bottom"):
            axis = self.getAxis(name)
            axis.setPen(pg.mkPen(theme.mid))
            axis.setTextPen(pg.mkPen(theme.muted))
        self.restyle()

    def restyle(self) -> None:
        """Re-colour the plot's items for self.theme (charts override it)."""

    def scene_to_data(self, scene_pos: QPointF) -> QPointF | None:
        box = self.getPlotItem().getViewBox()
        if not box.sceneBoundingRect().contains(scene_pos):
            return None
        return box.mapSceneToView(scene_pos)

    def data_to_widget(self, x: float, y: float) -> QPointF:
        """Where a data point is drawn, in this widget's pixels (tests look there)."""
        scene = self.getPlotItem().getViewBox().mapViewToScene(QPointF(x, y))
        return QPointF(self.mapFromScene(scene))

    def _hover(self, scene_pos: QPointF) -> None:
        at = self.scene_to_data(scene_pos)
        text = None if at is None else self.describe_at(at.x(), at.y())
        self.hover_text = text
        if text is None:
            QToolTip.hideText()
        else:
            QToolTip.showText(self.mapToGlobal(self.mapFromScene(scene_pos)), text, self)
