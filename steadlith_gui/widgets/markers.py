"""Cut markers: one shape per kind (never colour alone), shared by the panes, the
legend and the diagnostics."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from steadlith_core.report.style import KIND_SHAPES


def marker_path(kind: str, center: QPointF, size: float, height: float | None = None) -> QPainterPath:
    """The outline of `kind`'s marker centred on `center`; `size` is its width, `height`
    the line height (the primary bar spans it)."""
    shape = KIND_SHAPES[kind]
    x, y = center.x(), center.y()
    r = size / 2
    path = QPainterPath()
    if shape == "bar":
        h = height if height is not None else size * 1.6
        w = max(4.0, size * 0.5)
        path.addRect(QRectF(x - w / 2, y - h / 2, w, h))
    elif shape == "diamond":
        r *= 1.12
        path.addPolygon(QPolygonF([QPointF(x, y - r), QPointF(x + r, y), QPointF(x, y + r), QPointF(x - r, y)]))
        path.closeSubpath()
    elif shape == "triangle":
        r *= 1.1
        path.addPolygon(QPolygonF([QPointF(x, y - r), QPointF(x + r, y + r * 0.8), QPointF(x - r, y + r * 0.8)]))
        path.closeSubpath()
    elif shape == "chevron":  # points into the next chunk: a cut someone else's splitter made
        r *= 1.1
        path.addPolygon(QPolygonF([QPointF(x - r, y - r), QPointF(x + r * 0.2, y), QPointF(x - r, y + r),
                                   QPointF(x - r * 0.35, y + r), QPointF(x + r, y), QPointF(x - r * 0.35, y - r)]))
        path.closeSubpath()
    elif shape == "circle":
        path.addEllipse(center, r, r)
    else:  # square
        r *= 0.85
        path.addRect(QRectF(x - r, y - r, 2 * r, 2 * r))
    return path


def paint_marker(
    painter: QPainter,
    kind: str,
    center: QPointF,
    size: float,
    color: QColor,
    outline: QColor | None = None,
    height: float | None = None,
) -> None:
    path = marker_path(kind, center, size, height)
    painter.save()
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
    if outline is not None:
        painter.setPen(QPen(outline, 1.5))
        painter.setBrush(Qt.BrushStyle.NoBrush)
        painter.drawPath(path)
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(color)
    painter.drawPath(path)
    painter.restore()


def marker_icon(kind: str, color: QColor, px: int = 14) -> QIcon:
    pm = QPixmap(QSize(px, px))
    pm.fill(Qt.GlobalColor.transparent)
    p = QPainter(pm)
    paint_marker(p, kind, QPointF(px / 2, px / 2), px * 0.72, color, height=px - 2)
    p.end()
    return QIcon(pm)
