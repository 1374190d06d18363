"""A status pattern is drawn from a cached tile of its doubled lines in one fill: the
same pixels as Qt's pattern filled twice, the second one pixel over (to a colour level
where the two compose the colour differently), and nothing outside the rect."""

import pytest
from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QColor, QImage, QPainter

from steadlith_gui.widgets.palette import DARK, LIGHT
from steadlith_gui.widgets.status_patterns import paint_pattern, pattern_brush

GROUND = QColor("#3366aa")


def canvas() -> QImage:
    img = QImage(48, 48, QImage.Format.Format_ARGB32_Premultiplied)
    img.fill(GROUND)
    return img


def twice(rect: QRectF, status: str, theme, alpha: int) -> QImage:
    """The pattern as two fills of Qt's own pattern brush."""
    img, p = canvas(), None
    p = QPainter(img)
    p.setClipRect(rect)
    for dx in (0, 1):
        p.setBrushOrigin(QPointF(rect.x() + dx, rect.y()))
        p.fillRect(rect, pattern_brush(status, theme, alpha))
    p.end()
    return img


def drawn(rect: QRectF, status: str, theme, alpha: int) -> QImage:
    img = canvas()
    p = QPainter(img)
    paint_pattern(p, rect, status, theme, alpha)
    p.end()
    return img


def largest_difference(a: QImage, b: QImage) -> int:
    worst = 0
    for y in range(a.height()):
        for x in range(a.width()):
            ca, cb = a.pixelColor(x, y), b.pixelColor(x, y)
            worst = max(worst, abs(ca.red() - cb.red()), abs(ca.green() - cb.green()), abs(ca.blue() - cb.blue()))
    return worst


@pytest.mark.parametrize("theme", [LIGHT, DARK], ids=lambda t: t.name)
@pytest.mark.parametrize("status", ["shifted", "edited", "new"])
@pytest.mark.parametrize("rect", [QRectF(3, 5, 12, 30), QRectF(0, 0, 40, 40), QRectF(13, 2, 5, 41)])
def test_one_fill_of_the_tile_is_the_pattern_filled_twice(theme, status, rect):
    for alpha in (210, 60):
        assert largest_difference(drawn(rect, status, theme, alpha), twice(rect, status, theme, alpha)) <= 1


def test_statuses_without_a_pattern_draw_nothing_and_the_rect_bounds_the_rest():
    assert drawn(QRectF(3, 5, 12, 30), "reused", LIGHT, 210) == canvas()
    img = drawn(QRectF(8, 8, 16, 16), "new", LIGHT, 210)
    outside = [(x, y) for y in range(48) for x in range(48) if not (8 <= x < 24 and 8 <= y < 24)]
    assert all(img.pixelColor(x, y) == GROUND for x, y in outside)
    assert any(img.pixelColor(x, y) != GROUND for x in range(8, 24) for y in range(8, 24))
