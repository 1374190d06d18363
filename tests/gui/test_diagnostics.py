"""The diagnostics dock shows the core's numbers for A and B side by side."""

from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QColor
from PySide6.QtWidgets import QLabel
from steadlith_core import chunk, load_text

from gui_helpers import GOLDEN, golden_params, load_texts, set_params
from steadlith_gui.widgets.palette import DARK, LIGHT
from steadlith_core.report.style import MARKER_KINDS
from steadlith_gui.model.documents import prepare_document
from steadlith_gui.model.viewmodel import AnalysisResult
from steadlith_gui.widgets.diagnostics import DiagnosticsView


def value(panel, key):
    return panel.findChild(QLabel, key).text()


def test_diagnostics_match_the_core(qtbot, window):
    window.session.set_params(golden_params("small-snap"), show=True)
    a = load_text(GOLDEN / "mixed.txt")
    b = load_text(GOLDEN / "long.txt")
    result = load_texts(qtbot, window, a, b)
    assert window.diagnostics_a.objectName() == "diagnosticsA"
    assert window.diagnostics_b.objectName() == "diagnosticsB"
    assert window.diagnostics_a.isVisible() and window.diagnostics_b.isVisible()
    for panel, chunking, ms in ((window.diagnostics_a, result.a, result.ms_a), (window.diagnostics_b, result.b, result.ms_b)):
        d = chunking.diagnostics
        assert value(panel, "chunk_count") == f"{d.chunk_count:,}"
        assert value(panel, "total_tokens") == f"{d.total_tokens:,}"
        assert value(panel, "tokens_range") == f"{d.tokens_min:,} – {d.tokens_max:,}"
        assert value(panel, "tokens_p90") == f"{d.tokens_p90:,}"
        counts = {"primary": d.primary, "backup": d.backup, "hard": d.hard, "end": d.end, "snapped": d.snapped}
        for kind in MARKER_KINDS:
            assert value(panel, f"kind_{kind}") == f"{counts[kind]:,}"
        assert value(panel, "hard_cut_rate") == f"{d.hard_cut_rate * 100:.1f} %"
        assert value(panel, "chunks_over_max") == f"{d.chunks_over_max:,}"
        assert value(panel, "snapping") == "on (6 words)"
        assert value(panel, "time") == f"{ms:,.1f} ms"
        assert panel.histogram.counts == d.histogram_counts
        assert panel.histogram.edges == d.histogram_edges
    # A and B really differ here, so the test would notice a swapped panel
    assert value(window.diagnostics_a, "chunk_count") != value(window.diagnostics_b, "chunk_count")
    # unrelated documents of very different sizes: each histogram keeps its own scale
    peaks = [max(c.diagnostics.histogram_counts) for c in (result.a, result.b)]
    assert [window.diagnostics_a.histogram.y_max, window.diagnostics_b.histogram.y_max] == peaks


def test_diagnostics_opened_later_show_the_latest_result(qtbot, window):
    """On a laptop screen the dock starts closed: results meanwhile are not drawn into it,
    and opening it shows the latest one, not an older or an empty one."""
    window.dock_layout.fit_to_screen(QRect(0, 0, 1366, 768))
    assert not window.diagnostics_dock.isVisible()
    a, b = load_text(GOLDEN / "mixed.txt"), load_text(GOLDEN / "long.txt")
    window.session.set_params(golden_params("small-snap"), show=True)
    load_texts(qtbot, window, a, b)
    result = set_params(qtbot, window, golden_params("small"))
    assert value(window.diagnostics_b, "chunk_count") == "–"  # nothing drawn while closed
    window.diagnostics_dock.show()
    qtbot.waitUntil(window.diagnostics_b.isVisible)
    for panel, chunking in ((window.diagnostics_a, result.a), (window.diagnostics_b, result.b)):
        d = chunking.diagnostics
        assert value(panel, "chunk_count") == f"{d.chunk_count:,}"
        assert value(panel, "snapping") == "off"
        assert panel.histogram.counts == d.histogram_counts


def diagnostics_view(qtbot, text_a: str, text_b: str, params) -> tuple[DiagnosticsView, AnalysisResult]:
    """The diagnostics view alone (no window) over the core's chunkings of two texts."""
    docs = [prepare_document(side, t) for side, t in (("A", text_a), ("B", text_b))]
    a, b = (chunk(d.text, params) for d in docs)
    result = AnalysisResult(a, b, None, params, 1, *docs, None, None, 1.5, 2.5, 4.0)
    view = DiagnosticsView()
    qtbot.addWidget(view)
    view.resize(1000, 300)
    view.show_result(result)
    view.show()  # a hidden view draws its result when shown
    qtbot.waitExposed(view)
    qtbot.waitUntil(lambda: view.panel_a.histogram.counts == result.a.diagnostics.histogram_counts)
    return view, result


def test_histograms_of_two_versions_share_a_scale(qtbot):
    text = load_text(GOLDEN / "long.txt")
    view, result = diagnostics_view(qtbot, text, text[: len(text) // 2], golden_params("small"))
    peak = max(max(c.diagnostics.histogram_counts) for c in (result.a, result.b))
    assert max(result.b.diagnostics.histogram_counts) < peak  # the half document has the lower peak
    assert view.panel_a.histogram.y_max == view.panel_b.histogram.y_max == peak
    assert view.panel_b.value("time") == "2.5 ms"


def bar_pixel(hist, i):
    """The colour painted just above the baseline in the middle of bar i."""
    a, b = hist.bar_span(i)
    at = hist.data_to_widget((a + b) / 2, 0)
    return hist.grab().toImage().pixelColor(int(at.x()), int(at.y()) - 2)


def test_histogram_draws_the_cores_counts_and_over_max_in_hard_colour(qtbot):
    text = load_text(GOLDEN / "mixed.txt")  # holds a word longer than max_tokens of 'small'
    view, result = diagnostics_view(qtbot, text, text, golden_params("small"))
    d = result.a.diagnostics
    assert d.chunks_over_max >= 1
    hist = view.panel_a.histogram
    # the bars pyqtgraph draws have the core's counts as heights, one per bin
    drawn = hist._bars.opts
    assert [int(h) for h in drawn["height"]] == list(d.histogram_counts)
    n = len(d.histogram_counts)
    assert list(drawn["x0"][:-1]) == list(d.histogram_edges[:n - 1])
    assert drawn["x0"][-1] > d.histogram_edges[n - 1]  # the over-max bar starts past max_tokens
    assert bar_pixel(hist, len(hist.counts) - 1) == QColor(LIGHT.kind["hard"])
    fullest = max(range(len(hist.counts) - 1), key=lambda i: hist.counts[i])
    assert bar_pixel(hist, fullest) == QColor(LIGHT.bar)


def test_histogram_follows_the_dark_theme(qtbot):
    text = load_text(GOLDEN / "mixed.txt")
    view, _ = diagnostics_view(qtbot, text, text, golden_params("small"))
    view.set_theme(DARK)
    hist = view.panel_a.histogram
    fullest = max(range(len(hist.counts) - 1), key=lambda i: hist.counts[i])
    assert bar_pixel(hist, fullest) == QColor(DARK.bar)
    assert bar_pixel(hist, len(hist.counts) - 1) == QColor(DARK.kind["hard"])
    corner = hist.grab().toImage().pixelColor(2, 2)
    assert corner == QColor(DARK.window)


def hover(qtbot, plot, x, y, expected):
    """Point at data (x, y) until the plot's tooltip says `expected` (pyqtgraph drops
    mouse moves that follow each other too fast, so the move is repeated)."""
    nudge = [0]
    point = plot.data_to_widget(x, y).toPoint()

    def shown():
        nonlocal point
        nudge[0] ^= 1  # Qt drops a move to where the pointer already is
        # where the data is drawn now: a plot given its data as it is shown lays out once more
        point = plot.data_to_widget(x, y).toPoint()
        qtbot.mouseMove(plot.viewport(), point + QPoint(nudge[0], 0))
        return plot.hover_text == expected

    try:
        qtbot.waitUntil(shown, timeout=3000)
    except Exception:
        raise AssertionError(f"{plot.hover_text!r} != {expected!r} at {point}")


def test_hovering_a_bar_tells_its_count(qtbot):
    text = load_text(GOLDEN / "mixed.txt")
    view, result = diagnostics_view(qtbot, text, text, golden_params("small"))
    d = result.a.diagnostics
    hist = view.panel_a.histogram
    fullest = max(range(len(hist.counts) - 1), key=lambda i: hist.counts[i])
    a, b = hist.bar_span(fullest)
    lo = d.histogram_edges[fullest] + 1 if fullest else 1
    hover(qtbot, hist, (a + b) / 2, 1,
          f"{lo}–{d.histogram_edges[fullest + 1]} tokens: {d.histogram_counts[fullest]} chunks")
    max_tokens = d.histogram_edges[len(d.histogram_counts) - 1]
    assert d.histogram_counts[-1] >= 1
    hover(qtbot, hist, sum(hist.bar_span(len(hist.counts) - 1)) / 2, 0.5,
          f"over max_tokens ({max_tokens}): {d.histogram_counts[-1]} chunks")


def test_a_narrower_number_leaves_the_histogram_its_width(qtbot):
    """The value columns keep the width of the widest number shown for a text: another
    parameter set whose numbers are narrower does not resize the histogram (re-laying
    out a plot is most of a diagnostics update); another text starts afresh."""
    from steadlith_gui.widgets.diagnostics import DiagnosticsPanel

    text = load_text(GOLDEN / "long.txt")
    panel = DiagnosticsPanel("A")
    qtbot.addWidget(panel)
    panel.resize(700, 220)
    panel.show()
    qtbot.waitExposed(panel)
    panel.set_chunking(chunk(text, golden_params("small")), "A", 12345.6)
    qtbot.wait(20)
    wide = panel.histogram.width()
    panel.set_chunking(chunk(text, golden_params("small")), "A", 1.0)  # "1.0 ms": narrower
    qtbot.wait(20)
    assert value(panel, "time") == "1.0 ms"
    assert panel.histogram.width() == wide
    other = text[: len(text) // 2]
    panel.set_chunking(chunk(other, golden_params("small")), "A", 1.0)
    qtbot.wait(20)
    assert panel.histogram.width() > wide  # the time column fits "1.0 ms" again
