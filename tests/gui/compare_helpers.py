"""Pairs of versions and pointer helpers shared by the comparison-view tests."""

from PySide6.QtCore import QPoint, QPointF
from PySide6.QtGui import QTextCursor
from steadlith_core import ChunkerParams
from steadlith_core.bench.examples import generate_prose
from steadlith_core.chunking.normalize import normalize

SMALL = ChunkerParams(window_words=4, min_tokens=8, max_tokens=40, primary_mask=0xF, primary_remainder=0xF,
                      backup_mask=0x3, backup_remainder=0x3)


def small_pair(chars: int = 900, seed: int = 2, word: str = "zebra"):
    """A short text and a copy with `word` inserted before its middle word."""
    a = generate_prose(chars, seed=seed)
    ws = normalize(a)
    at = int(ws.starts[len(ws) // 2])
    return a, a[:at] + word + " " + a[at:]


def band_point(link_map, band) -> QPoint:
    """A point where a click hits `band` (inside it, not under a band painted above it)."""
    r = band.path.boundingRect().toAlignedRect()
    for fx in (0.5, 0.3, 0.7, 0.15, 0.85):
        x = int(r.left() + r.width() * fx)
        for y in range(max(r.top(), 0), min(r.bottom(), link_map.height()) + 1):
            hit = link_map.band_at(QPointF(x, y))
            if hit is not None and hit.index == band.index:
                return QPoint(x, y)
    raise AssertionError("no visible point of the band")


def position_point(pane, position: int) -> QPoint:
    """Viewport point at a Qt position of a pane."""
    cursor = QTextCursor(pane.document())
    cursor.setPosition(position)
    return pane.cursorRect(cursor).center()


def chunk_visible(pane, index: int) -> bool:
    return index in pane.visible_chunks()


def chunk_top_y(pane, index: int) -> float:
    start, _ = pane.chunk_span(index)
    return pane.y_locator()(start)[0]
