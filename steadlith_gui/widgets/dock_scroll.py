"""A dock's content in a scroll area that asks for the content's whole minimum (nothing
scrolls, nothing is cut) until it is told it is short: then it asks for `short_height`
and scrolls the rest. The Churn panel needs ~400 px for its rows, verdicts and regions;
in a column beside the panes it has them, but tabbed with the docks under the panes that
minimum would set the height of every bottom tab and leave each pane a dozen lines."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QFrame, QScrollArea, QWidget


class DockScroll(QScrollArea):
    def __init__(self, widget: QWidget, short_height: int, parent: QWidget | None = None):
        super().__init__(parent)
        # sized here, not by QScrollArea: it would give a content whose layout has
        # height-for-width (wrapped labels) that height, taller than its minimum, so even a
        # scroll area as tall as the minimum would scroll and cut the content's bottom off
        self.setWidgetResizable(False)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setWidget(widget)
        self.short_height = short_height
        self.short = False
        # the content's minimum grows with what it shows (a result's rows and verdicts):
        # its layout requests reach it, and the dock must ask again
        widget.installEventFilter(self)

    def set_short(self, short: bool) -> None:
        if short != self.short:
            self.short = short
            self.updateGeometry()

    def minimumSizeHint(self) -> QSize:  # noqa: N802
        inner = self._inner_minimum()
        frame = 2 * self.frameWidth()
        if not self.short:
            return QSize(inner.width() + frame, inner.height() + frame)
        bar = self.verticalScrollBar().sizeHint().width()
        return QSize(inner.width() + bar + frame, min(inner.height(), self.short_height) + frame)

    def sizeHint(self) -> QSize:  # noqa: N802
        return self.widget().sizeHint().expandedTo(self.minimumSizeHint())

    def _inner_minimum(self) -> QSize:
        return self.widget().minimumSizeHint().expandedTo(self.widget().minimumSize())

    def _fit_widget(self) -> None:
        """The content fills the viewport, never smaller than its minimum (then it scrolls)."""
        view, least = self.viewport().size(), self._inner_minimum()
        size = QSize(max(view.width(), least.width()), max(view.height(), least.height()))
        if self.widget().size() != size:
            self.widget().resize(size)

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_widget()

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # noqa: N802
        if obj is self.widget() and event.type() == QEvent.Type.LayoutRequest:
            self.updateGeometry()
            self._fit_widget()
        return super().eventFilter(obj, event)
