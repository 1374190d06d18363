"""The status patterns (palette.STATUS_PATTERNS) drawn over a status colour, so statuses
differ in texture as well as in hue: what tells shifted from removed in greyscale or
under a colour-vision deficiency."""

from __future__ import annotations

from functools import lru_cache

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QImage, QPainter, QTransform

from .palette import STATUS_PATTERNS, Theme

#: Qt's pattern brushes repeat every 8 pixels both ways.
_PERIOD = 8


def pattern_brush(status: str, theme: Theme, alpha: int = 210) -> QBrush | None:
    """The status's pattern in the base colour (light lines on the status colour), or None."""
    name = STATUS_PATTERNS.get(status)
    if name is None:
        return None
    color = QColor(theme.base)
    color.setAlpha(alpha)
    return QBrush(color, getattr(Qt.BrushStyle, name))


@lru_cache(maxsize=32)
def _doubled_tile(name: str, base: str, alpha: int, dpr: float) -> QBrush:
    """One period of the pattern with its lines doubled, as paint_pattern draws it: the
    pattern filled twice, the second one pixel over, into a transparent tile. Filling a
    rect with this texture composes each pixel as the two fills would (the same colour
    over itself), in one pass and without a clip, which a status stripe drawn for every
    visible chunk on every paint otherwise pays twice. Qt draws its patterns in device
    pixels whatever the scale, so the tile is scaled back by the device pixel ratio."""
    color = QColor(base)
    color.setAlpha(alpha)
    brush = QBrush(color, getattr(Qt.BrushStyle, name))
    tile = QImage(_PERIOD, _PERIOD, QImage.Format.Format_ARGB32_Premultiplied)
    tile.fill(Qt.GlobalColor.transparent)
    p = QPainter(tile)
    for dx in (0, 1):
        p.setBrushOrigin(QPointF(dx, 0))
        p.fillRect(QRectF(0, 0, _PERIOD, _PERIOD), brush)
    p.end()
    brush = QBrush(tile)
    if dpr != 1.0:
        brush.setTransform(QTransform.fromScale(1 / dpr, 1 / dpr))
    return brush


def paint_pattern(p: QPainter, rect: QRectF, status: str, theme: Theme, alpha: int = 210) -> None:
    """The pattern with its lines doubled (drawn again one pixel over): Qt's hatches are
    1 px lines 8 px apart, too faint to carry a status on their own."""
    name = STATUS_PATTERNS.get(status)
    if name is None:
        return
    origin = p.brushOrigin()
    p.setBrushOrigin(QPointF(rect.x(), rect.y()))
    p.fillRect(rect, _doubled_tile(name, theme.base, alpha, p.device().devicePixelRatioF()))
    p.setBrushOrigin(origin)
