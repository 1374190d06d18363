"""Status never by colour alone: under a simulated deuteranopia
(Machado et al. 2009, severity 1) shifted and removed still differ, in the panes' gutter
stripe and in the overview, by their patterns; every status has its own gutter glyph;
changed words still differ from the edited chunk's tint."""

import numpy as np
from PySide6.QtGui import QImage

from gui_helpers import load_texts
from steadlith_core import ChunkerParams
from steadlith_core.bench.examples import phase_shift_counterexample
from steadlith_gui.widgets.palette import STATUS_GLYPHS
from steadlith_core.vocabulary import STATUSES

DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968],
                         [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
LINES = [f"Paragraph line {i}: chunk boundaries follow the content, word {i * 37 % 101} of many." for i in range(200)]


def deuteranopia_grey(image: QImage) -> np.ndarray:
    """The image as a deuteranope would see it, then in greyscale (0..255), as an array."""
    image = image.convertToFormat(QImage.Format.Format_RGB32)
    w, h = image.width(), image.height()
    raw = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes()).reshape(h, image.bytesPerLine())
    bgra = raw[:, : w * 4].reshape(h, w, 4).astype(np.float64) / 255
    rgb = bgra[..., 2::-1]
    lin = np.where(rgb <= 0.04045, rgb / 12.92, ((rgb + 0.055) / 1.055) ** 2.4)
    sim = np.clip(lin @ DEUTERANOPIA.T, 0, 1)
    srgb = np.where(sim <= 0.0031308, sim * 12.92, 1.055 * sim ** (1 / 2.4) - 0.055) * 255
    return srgb @ np.array([0.299, 0.587, 0.114])


def distinguishable(a: np.ndarray, b: np.ndarray) -> bool:
    """Two regions differ in brightness or in texture by more than a glance misses."""
    return abs(a.mean() - b.mean()) > 40 or abs(a.std() - b.std()) > 25


def overview_pixels(window, side: str, status: str) -> np.ndarray:
    ov = window.overview
    grey = deuteranopia_grey(ov.grab().toImage())
    rect = ov.strip_rect(side)
    rows = int(rect.height())
    codes = ov.strip_codes(side, rows)
    wanted = np.flatnonzero(codes == STATUSES.index(status))
    assert wanted.size >= 6, f"no {status} rows in the {side} strip"
    x0, x1 = int(rect.left()) + 1, int(rect.right()) - 1
    return grey[(int(rect.top()) + wanted)[2:-2], x0:x1]


def stripe_pixels(window, side: str, status: str) -> np.ndarray:
    pane = window.panes[side]
    gutter = pane.gutter
    grey = deuteranopia_grey(gutter.grab().toImage())
    view = pane.view()
    index = next(i for i in pane.visible_chunks() if STATUSES[int(view.codes[i])] == status)
    y0, y1 = pane.y_locator()(int(view.starts[index]))[0], pane.y_locator()(int(view.ends[index]))[1]
    # a chunk that runs past the bottom of the view ends at +inf: clip before rounding
    y0, y1 = max(int(max(y0, -1.0)) + 2, 0), int(min(y1, gutter.height() + 2.0)) - 2
    x1 = gutter.width() - 1
    return grey[y0:y1, x1 - gutter.STRIPE:x1]


def deletion_pair():
    return "\n".join(LINES) + "\n", "\n".join(LINES[:60] + LINES[140:]) + "\n"


def test_shifted_and_removed_differ_without_colour_in_the_overview_and_the_gutter(qtbot, window):
    text_a, text_b, params = phase_shift_counterexample()
    window.session.set_params(params, show=True)
    load_texts(qtbot, window, text_a, text_b)
    shifted_overview = overview_pixels(window, "A", "shifted")
    shifted_stripe = stripe_pixels(window, "A", "shifted")

    window.session.set_params(ChunkerParams(min_tokens=48, max_tokens=160), show=True)
    pair = deletion_pair()
    load_texts(qtbot, window, *pair)
    # the parameter change analyses the old pair first: wait for the new pair's result
    qtbot.waitUntil(lambda: window.session.result is not None and window.session.result.a is not None
                    and window.session.result.a.text == pair[0] and window.session.result.comparison is not None, timeout=20_000)
    result = window.session.result
    assert "removed" in result.comparison.status_a
    removed_overview = overview_pixels(window, "A", "removed")
    first_removed = result.comparison.status_a.index("removed")
    window.pane_a.scroll_chunk_into_view(first_removed, force=True)
    removed_stripe = stripe_pixels(window, "A", "removed")

    assert distinguishable(shifted_overview, removed_overview), (shifted_overview.mean(), removed_overview.mean())
    assert distinguishable(shifted_stripe, removed_stripe), (shifted_stripe.mean(), removed_stripe.mean())


def test_every_status_but_reused_has_its_own_gutter_glyph():
    glyphs = [STATUS_GLYPHS[s] for s in STATUSES if s != "reused"]
    assert all(glyphs) and len(set(glyphs)) == len(glyphs)
    assert STATUS_GLYPHS["reused"] == ""


def test_changed_words_differ_from_the_edited_tint_without_colour(qtbot, window):
    text_a = "\n".join(LINES) + "\n"
    text_b = text_a.replace("word 37 of many", "word 37 of very many", 1)
    result = load_texts(qtbot, window, text_a, text_b)
    pane = window.pane_b
    view = pane.view()
    k = 0
    start, end = int(view.changed_starts[k]), int(view.changed_ends[k])
    pane.scroll_position_to_y(start, pane.viewport().height() / 2)
    grey = deuteranopia_grey(pane.viewport().grab().toImage())
    from steadlith_gui.widgets.chunk_painter import line_rects

    rects = [r for _, r in line_rects(pane.visible_blocks(), pane.contentOffset().x(), [(start, end, None)])]
    assert rects
    r = rects[0]
    word = grey[int(r.bottom()) - 3:int(r.bottom()), int(r.left()) + 1:int(r.right()) - 1]
    j = result.comparison.status_b.index("edited")
    s0, _ = pane.chunk_span(j)
    tint_rects = [t for _, t in line_rects(pane.visible_blocks(), pane.contentOffset().x(), [(s0, start - 2, None)])]
    tint = grey[int(tint_rects[-1].bottom()) - 3:int(tint_rects[-1].bottom()), int(tint_rects[-1].left()) + 1:
                int(tint_rects[-1].left()) + 12]
    assert word.min() < tint.mean() - 50, "the changed word's underline shows in greyscale"
