"""The diagnostics dock shows the core's numbers for A and B side by side."""

from PySide6.QtWidgets import QLabel
from steadlith_core import load_text

from gui_helpers import GOLDEN, golden_params, load_texts
from steadlith_gui.palette import MARKER_KINDS


def value(panel, key):
    return panel.findChild(QLabel, key).text()


def test_diagnostics_match_the_core(qtbot, window):
    window.set_params(golden_params("small-snap"))
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


def test_histograms_of_two_versions_share_a_scale(qtbot, window):
    window.set_params(golden_params("small"))
    text = load_text(GOLDEN / "long.txt")
    result = load_texts(qtbot, window, text, text[: len(text) // 2])
    peak = max(max(c.diagnostics.histogram_counts) for c in (result.a, result.b))
    assert window.diagnostics_a.histogram.y_max == window.diagnostics_b.histogram.y_max == peak


def test_histogram_paints_over_max_bin_in_hard_colour(qtbot, window):
    from PySide6.QtGui import QColor

    text = load_text(GOLDEN / "mixed.txt")  # holds a word longer than max_tokens of 'small'
    window.set_params(golden_params("small"))
    result = load_texts(qtbot, window, text, text)
    assert result.a.diagnostics.chunks_over_max >= 1
    hist = window.diagnostics_a.histogram
    image = hist.grab().toImage()
    rect = hist._bar_rect(len(hist.counts) - 1, hist._plot_rect())
    c = image.pixelColor(int(rect.center().x()), int(rect.bottom() - 1))
    assert c == QColor(window.theme.kind["hard"])
