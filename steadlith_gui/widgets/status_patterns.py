"""The status patterns (palette.STATUS_PATTERNS) drawn over a status colour, so statuses
differ in texture as well as in hue: what tells shifted from removed in greyscale or
under a colour-vision deficiency."""

from __future__ import annotations

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QPainter

from .palette import STATUS_PATTERNS, Theme


def pattern_brush(status: str, theme: Theme, alpha: int = 210) -> QBrush | None:
    """The status's pattern in the base colour (light lines on the status colour), or None."""
    name = STATUS_PATTERNS.get(status)
    if name is None:
        return None
    color = QColor(theme.base)
    color.setAlpha(alpha)
    return QBrush(color, getattr(Qt.BrushStyle, name))


def paint_pattern(p: QPainter, rect: QRectF, status: str, theme: Theme, alpha: int = 210) -> None:
    """The pattern with its lines doubled (drawn again one pixel over): Qt's hatches are
    1 px lines 8 px apart, too faint to carry a status on their own."""
    brush = pattern_brush(status, theme, alpha)
    if brush is None:
        return
    p.save()
    try:
        p.setClipRect(rect)
        for dx in (0, 1):
            p.setBrushOrigin(QPointF(rect.x() + dx, rect.y()))
            p.fillRect(rect, brush)
    finally:
        p.restore()
