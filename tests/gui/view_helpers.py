"""Widgets built alone over core results, without the window (napari tests its Qt
widgets the same way): a document pane, or two panes and the link map between them."""

from PySide6.QtCore import QPoint
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QHBoxLayout, QWidget
from steadlith_core import chunk, compare

from steadlith_gui.model.documents import prepare_document
from steadlith_gui.model.layouts import ChunkLayout, SideStatus
from steadlith_gui.model.links import LinkList
from steadlith_gui.widgets.document_pane import DocumentPane
from steadlith_gui.widgets.link_map import LinkMap
from steadlith_gui.widgets.palette import LIGHT, qt_palette


def shown_pane(qtbot, text: str, params, theme=LIGHT, size=(700, 500)):
    """A DocumentPane alone, showing `text` and the core's chunking of it."""
    doc = prepare_document("A", text)
    chunking = chunk(text, params)
    pane = DocumentPane("A", theme)
    pane.setPalette(qt_palette(theme))  # the window sets it application-wide
    pane.set_document(doc)
    pane.show_result(doc, chunking, ChunkLayout.build(chunking, doc.offsets), None)
    qtbot.addWidget(pane)
    pane.resize(*size)
    pane.show()
    qtbot.waitExposed(pane)
    return pane, chunking, doc


def compared_pane(qtbot, text_a: str, text_b: str, params, side: str = "B", theme=LIGHT, size=(700, 500)):
    """One DocumentPane alone, showing its side of the core's comparison of two texts
    (statuses, changed words)."""
    c = compare(chunk(text_a, params), chunk(text_b, params))
    doc = prepare_document(side, text_a if side == "A" else text_b)
    chunking = c.a if side == "A" else c.b
    pane = DocumentPane(side, theme)
    pane.setPalette(qt_palette(theme))
    pane.set_document(doc)
    pane.show_result(doc, chunking, ChunkLayout.build(chunking, doc.offsets),
                            SideStatus.build(side, c, doc.offsets))
    qtbot.addWidget(pane)
    pane.resize(*size)
    pane.show()
    qtbot.waitExposed(pane)
    return pane, c, doc


def link_views(qtbot, text_a: str, text_b: str, params, theme=LIGHT):
    """Two panes and the link map between them, alone (no window), over the core's
    chunkings and comparison of the two texts. Tall enough to show both texts whole."""
    docs = {"A": prepare_document("A", text_a), "B": prepare_document("B", text_b)}
    c = compare(chunk(text_a, params), chunk(text_b, params))
    host = QWidget()
    row = QHBoxLayout(host)
    host.setPalette(qt_palette(theme))  # the window sets it application-wide
    panes = {s: DocumentPane(s, theme) for s in "AB"}
    link_map = LinkMap(panes["A"], panes["B"], theme)
    row.addWidget(panes["A"])
    row.addWidget(link_map)
    row.addWidget(panes["B"])
    for side, chunking in (("A", c.a), ("B", c.b)):
        doc = docs[side]
        panes[side].set_document(doc)
        panes[side].show_result(doc, chunking, ChunkLayout.build(chunking, doc.offsets),
                                       SideStatus.build(side, c, doc.offsets))
    link_map.set_links(LinkList.build(c.status_a, c.status_b, c.alignment))
    qtbot.addWidget(host)
    host.resize(1000, 1700)
    host.show()
    qtbot.waitExposed(host)
    # The host owns the widgets: the test's qtbot keeps it alive for the test. (Held by
    # one of its own widgets, it made a cycle that the GUI thread's collector could free
    # between two events, leaving the widgets without their Python methods while Qt
    # still delivered signals to them.)
    qtbot.steadlith_hosts = [*getattr(qtbot, "steadlith_hosts", []), host]
    return c, docs, panes, link_map


def chunk_lines_y(pane, doc, chunk_, link_map) -> list[float]:
    """Link-map y of the middle of every line of a core chunk (code-point offsets
    turned into the pane's positions, then into the pane's lines)."""
    start, end = (int(doc.offsets.to_display(x)) for x in (chunk_.start, chunk_.end))
    locate = pane.y_locator()
    dy = link_map.mapFromGlobal(pane.viewport().mapToGlobal(QPoint(0, 0))).y()
    ys = []
    y, bottom = locate(start)[0], locate(end)[1]
    while y < bottom:
        y0, y1 = locate(pane.position_at_y(y + 1))
        ys.append(dy + (y0 + y1) / 2)
        y = y1
    return ys


def over(fill: QColor, alpha: int, background: QColor) -> QColor:
    """`fill` at `alpha` painted over `background`."""
    a = alpha / 255
    return QColor(*(round(f * a + b * (1 - a)) for f, b in (
        (fill.red(), background.red()), (fill.green(), background.green()), (fill.blue(), background.blue()))))


def same(c1: QColor, c2: QColor, tolerance: int = 3) -> bool:
    return all(abs(x - y) <= tolerance for x, y in (
        (c1.red(), c2.red()), (c1.green(), c2.green()), (c1.blue(), c2.blue())))
