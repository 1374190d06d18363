"""A layout that wraps its items onto further lines when the row is too narrow (the idea
of Qt's Flow Layout example), so a legend costs one line on a wide window and never sets
the window's minimum width on a narrow one.

superqt's QFlowLayout does the same wrapping, but a hidden item still takes its spacing
there and items sit on the line's top edge; the legend hides the kinds of the rule not
shown and mixes swatches with labels of another height, so it keeps this layout."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem, QWidget


class FlowLayout(QLayout):
    def __init__(self, parent: QWidget | None = None, spacing: int = 4, line_spacing: int = 2):
        super().__init__(parent)
        self._items: list[QLayoutItem] = []
        self._spacing = spacing
        self._line_spacing = line_spacing

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802
        shown = self._shown()
        width = sum(i.sizeHint().width() for i in shown) + self._spacing * max(len(shown) - 1, 0)
        m = self.contentsMargins()
        return QSize(width + m.left() + m.right(), self.minimumSize().height())

    def minimumSize(self) -> QSize:  # noqa: N802
        size = QSize()
        for item in self._shown():
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _shown(self) -> list[QLayoutItem]:
        """The items that take room: a hidden widget leaves no gap (a legend hides the
        kinds of the rule not shown)."""
        return [i for i in self._items if not i.isEmpty()]

    def _arrange(self, rect: QRect, move: bool) -> int:
        """Place the items line by line inside `rect`; the height they take."""
        m = self.contentsMargins()
        area = rect.adjusted(m.left(), m.top(), -m.right(), -m.bottom())
        x, y, line_height = area.x(), area.y(), 0
        line: list[tuple[QLayoutItem, QSize]] = []

        def place_line() -> None:
            lx = area.x()
            for item, hint in line:  # centred vertically on the line, as a QHBoxLayout does
                if move:
                    item.setGeometry(QRect(QPoint(lx, y + (line_height - hint.height()) // 2), hint))
                lx += hint.width() + self._spacing

        for item in self._shown():
            hint = item.sizeHint()
            if line and x + hint.width() > area.right() + 1:
                place_line()
                x, y = area.x(), y + line_height + self._line_spacing
                line, line_height = [], 0
            line.append((item, hint))
            x += hint.width() + self._spacing
            line_height = max(line_height, hint.height())
        place_line()
        return y + line_height - rect.y() + m.bottom()
