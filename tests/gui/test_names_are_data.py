"""Names the user controls are shown as typed, never as markup and never reordering
their neighbours: the message bar, the pane headers, the diagnostics titles, the window
title and the tooltips."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage, QTextDocument

from gui_helpers import load_texts
from steadlith_gui.widgets.names import FSI, PDI, plain_tooltip, tooltip_lines, visible_lines
from steadlith_gui.widgets.message_bar import MessageBar

FAKE = '<b style="color:red; font-size:40pt">FAKE: all chunks reused ✓</b>'
RLO = "\u202e"
TEXT_A = "Alpha beta gamma delta.\n\nEpsilon zeta eta theta.\n"
TEXT_B = "Alpha beta gamma delta.\n\nEpsilon zeta eta iota.\n"


def rendered(rich_or_plain: str, fmt=Qt.TextFormat.RichText) -> str:
    """What a reader sees of a label's text: rich text is parsed as Qt parses it."""
    if fmt == Qt.TextFormat.PlainText:
        return rich_or_plain
    doc = QTextDocument()
    doc.setHtml(rich_or_plain)
    return doc.toPlainText()


def red_image(tmp_path) -> str:
    path = tmp_path / "probe.png"
    image = QImage(120, 120, QImage.Format.Format_RGB32)
    image.fill(QColor("#ff0000"))
    assert image.save(str(path))
    return str(path)


def has_red(widget) -> bool:
    image = widget.grab().toImage()
    return any(QColor(image.pixel(x, y)).red() > 200 and QColor(image.pixel(x, y)).green() < 60
               for x in range(0, image.width(), 2) for y in range(0, image.height(), 2))


def test_message_bar_shows_markup_as_typed_and_loads_no_image(qtbot, tmp_path):
    bar = MessageBar()
    qtbot.addWidget(bar)
    bar.resize(900, 200)
    probe = red_image(tmp_path)
    text = f"Cannot open {FAKE} <img src=\"{probe}\" width=120 height=120>"
    bar.show_message(text, "error")
    qtbot.waitExposed(bar)
    assert bar.label.textFormat() == Qt.TextFormat.PlainText
    assert bar.text() == text
    assert not has_red(bar)  # neither the red "FAKE" nor the image was drawn


def test_message_bar_escapes_controls_and_bidi_but_keeps_its_lines(qtbot):
    bar = MessageBar()
    qtbot.addWidget(bar)
    bar.show_message(f"Cannot open report{RLO}lmth.exe\x1b[31m\nNothing was changed.", "error")
    assert bar.text() == "Cannot open report\\u202elmth.exe\\x1b[31m\nNothing was changed."


def test_headers_titles_and_tooltips_show_a_hostile_name_as_text(qtbot, window):
    name_a = FAKE
    name_b = f"notes{RLO}dm.txt"
    window.act["focus_documents"].trigger()  # room for the whole name (a narrower header elides it)
    load_texts(qtbot, window, TEXT_A, TEXT_B, name_a=name_a, name_b=name_b)
    header_a, header_b = window.columns["A"].header, window.columns["B"].header
    seen_a, seen_b = rendered(header_a.text()), rendered(header_b.text())
    assert f"{FSI}{name_a}{PDI}" in seen_a  # the markup, literally, isolated
    assert f"{FSI}notes\\u202edm.txt{PDI}" in seen_b and RLO not in seen_b
    assert "chunks" in seen_b.splitlines()[-1]  # the counts line is its own, after the name
    title = window.windowTitle()
    assert f"{FSI}{name_a}{PDI}" in title and RLO not in title
    for side in ("A", "B"):
        tip = window.columns[side].header.toolTip()
        assert RLO not in rendered(tip)


def test_diagnostics_titles_isolate_the_name(qtbot, window):
    load_texts(qtbot, window, TEXT_A, TEXT_B, name_a=FAKE, name_b="b.md")
    from PySide6.QtWidgets import QLabel

    title = window.findChild(QLabel, "diagnosticsTitleA")
    assert f"{FSI}{FAKE}{PDI}" in rendered(title.text())


NAMES = st.text(st.sampled_from(list("<>&\"' /bimgsrc=x\n\t\x1b\u202e\u2066\u2069\u05d0\u0627é")), max_size=30)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(NAMES)
def test_any_tooltip_reads_back_as_the_text_given(qtbot, text):
    shown = tooltip_lines(text)  # blank lines show nothing (Hypothesis found "<\n\n", "\n\n<", "<\n\n<")
    if not shown.strip():  # nothing to show: no tooltip at all (Hypothesis found "\n\n")
        assert plain_tooltip(text) == ""
    else:
        assert rendered(plain_tooltip(text)) == visible_lines(shown)


@settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(NAMES)
def test_any_message_reads_back_escaped_and_plain(qtbot, text):
    bar = MessageBar()
    qtbot.addWidget(bar)
    bar.show_message(text, "info")
    assert bar.label.textFormat() == Qt.TextFormat.PlainText
    assert bar.text() == visible_lines(text)
    assert "\x1b" not in bar.text() and "\u202e" not in bar.text()
