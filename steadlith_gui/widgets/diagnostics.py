"""Diagnostics of one chunking (informative, not part of the contract), shown for A and B side by side."""

from __future__ import annotations


import html

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QGridLayout, QHBoxLayout, QLabel, QSizePolicy, QVBoxLayout, QWidget
from steadlith_core import Chunking
from steadlith_core.report.style import KIND_HELP, KIND_LABELS, MARKER_KINDS

from .histogram import Histogram
from .legend import MarkerSwatch
from .names import name_html
from .palette import LIGHT, Theme


def _fmt_num(x) -> str:
    if x is None:
        return "–"
    if isinstance(x, float) and not x.is_integer():
        return f"{x:,.1f}"
    return f"{int(x):,}"


class DiagnosticsPanel(QFrame):
    """Numbers, kind counts and the token-size histogram of one document."""

    def __init__(self, side: str, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.side = side
        self.theme = theme
        self.setObjectName(f"diagnostics{side}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.values: dict[str, QLabel] = {}
        self._shown: tuple | None = None  # what set_chunking last showed, to restyle on theme change
        self._widths_for: str | None = None  # the text whose numbers the value columns are as wide as

        self.title = QLabel()
        self.title.setObjectName(f"diagnosticsTitle{side}")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        # a long file name is clipped rather than widening the dock
        self.title.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.title.setMinimumWidth(60)

        stats = QGridLayout()
        stats.setHorizontalSpacing(10)
        stats.setVerticalSpacing(2)
        rows = [
            ("chunk_count", "chunks"),
            ("words", "words"),
            ("total_tokens", "tokens"),
            ("tokens_range", "min – max"),
            ("tokens_mean", "mean"),
            ("tokens_median", "median"),
            ("tokens_p90", "p90"),
            ("time", "analysis"),
        ]
        for r, (key, text) in enumerate(rows):
            self._add_row(stats, r, key, text)
        stats.setRowStretch(len(rows), 1)

        kinds = QGridLayout()
        kinds.setHorizontalSpacing(6)
        kinds.setVerticalSpacing(2)
        self.swatches: list[MarkerSwatch] = []
        self.kind_names: dict[str, QLabel] = {}
        for r, kind in enumerate(MARKER_KINDS):
            sw = MarkerSwatch(kind, theme, px=14)
            sw.setToolTip(KIND_HELP[kind])
            sw.setAccessibleDescription(f"{side}: {KIND_HELP[kind]}")
            self.swatches.append(sw)
            kinds.addWidget(sw, r, 0)
            name = QLabel(KIND_LABELS[kind])
            name.setToolTip(KIND_HELP[kind])
            self.kind_names[kind] = name
            kinds.addWidget(name, r, 1)
            value = QLabel("–")
            value.setObjectName(f"kind_{kind}")
            value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.values[f"kind_{kind}"] = value
            kinds.addWidget(value, r, 2)
        base = len(MARKER_KINDS)
        for r, (key, text) in enumerate(
            [("hard_cut_rate", "hard-cut rate"), ("chunks_over_max", "over max"), ("snapping", "snapping")]
        ):
            self._add_row(kinds, base + r, key, text, col=1)
        kinds.setRowStretch(base + 3, 1)
        # the value columns, which keep their width across parameter sets (_keep_widths)
        self._value_columns = ((stats, 1, [self.values[k] for k, _ in rows]),
                               (kinds, 2, [v for k, v in self.values.items() if k not in dict(rows)]))

        self.histogram = Histogram(theme)
        self.histogram.setObjectName(f"histogram{side}")
        self.histogram.setAccessibleName(f"Chunk size histogram of {side}")
        self.setAccessibleName(f"Diagnostics of {side}")
        hist_box = QVBoxLayout()
        hist_box.setSpacing(0)
        caption = QLabel("tokens per chunk")
        caption.setObjectName("histogramCaption")
        self._caption = caption
        hist_box.addWidget(caption)
        hist_box.addWidget(self.histogram, 1)

        row = QHBoxLayout()
        row.setSpacing(12)
        row.addLayout(stats)
        row.addLayout(kinds)
        row.addLayout(hist_box, 1)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.setSpacing(4)
        lay.addWidget(self.title)
        lay.addLayout(row, 1)
        self.clear()

    def _add_row(self, grid: QGridLayout, r: int, key: str, text: str, col: int = 0) -> None:
        label = QLabel(text)
        value = QLabel("–")
        value.setObjectName(key)
        value.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.values[key] = value
        grid.addWidget(label, r, col)
        grid.addWidget(value, r, col + 1)

    def value(self, key: str) -> str:
        return self.values[key].text()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.histogram.set_theme(theme)
        for sw in self.swatches:
            sw.set_theme(theme)
        self._caption.setStyleSheet(f"color: {theme.muted}")
        if self._shown is not None:
            self.set_chunking(*self._shown)

    def clear(self, name: str | None = None) -> None:
        self._shown = None
        self._release_widths()
        shown = f" · {name_html(name)}" if name else ""
        self.title.setText(f"<b>{self.side}</b>{shown}")
        for v in self.values.values():
            v.setText("–")
        self.histogram.set_data((), ())
        self.histogram.setVisible(True)
        self._caption.setText("tokens per chunk")
        self._caption.setStyleSheet(f"color: {self.theme.muted}")

    def set_chunking(self, chunking: Chunking, name: str, ms: float, y_max: int | None = None) -> None:
        self._shown = (chunking, name, ms, y_max)
        self.histogram.setVisible(True)
        self._caption.setText("tokens per chunk")
        d = chunking.diagnostics
        self.title.setText(
            f"<b>{self.side}</b> · {name_html(name)} "
            f"<span style='color:{self.theme.muted}'>params {d.params_hash[:8]}…</span>"
        )
        v = self.values
        v["chunk_count"].setText(f"{d.chunk_count:,}")
        v["words"].setText(f"{d.word_count:,}")
        v["total_tokens"].setText(f"{d.total_tokens:,}")
        if d.chunk_count:
            v["tokens_range"].setText(f"{d.tokens_min:,} – {d.tokens_max:,}")
        else:
            v["tokens_range"].setText("–")
        v["tokens_mean"].setText(_fmt_num(d.tokens_mean))
        v["tokens_median"].setText(_fmt_num(d.tokens_median))
        v["tokens_p90"].setText(_fmt_num(d.tokens_p90))
        v["time"].setText(f"{ms:,.1f} ms")
        # lmx2-v1's kinds sit in the rows of the shapes they take (fill: backup's, long-word: hard's)
        lmx2 = chunking.boundary_rule == "lmx2-v1"
        counts = ({"primary": d.primary, "backup": d.fill, "hard": d.long_word, "end": d.end, "snapped": None}
                  if lmx2 else
                  {"primary": d.primary, "backup": d.backup, "hard": d.hard, "end": d.end, "snapped": d.snapped})
        shown_as = {"backup": "fill", "hard": "long-word"} if lmx2 else {}
        for kind in MARKER_KINDS:
            v[f"kind_{kind}"].setText("–" if counts[kind] is None else f"{counts[kind]:,}")
            self.kind_names[kind].setText(KIND_LABELS[shown_as.get(kind, kind)])
        v["hard_cut_rate"].setText("–" if lmx2 else f"{d.hard_cut_rate * 100:.1f} %")
        over = v["chunks_over_max"]
        over.setText(f"{d.chunks_over_max:,}")
        over.setStyleSheet(f"color: {self.theme.kind['hard']}; font-weight: bold" if d.chunks_over_max else "")
        p = chunking.params
        if lmx2:
            v["snapping"].setText(f"n/a · {d.paragraph_share * 100:.0f} % ¶")
        else:
            v["snapping"].setText(f"on ({p.snap_window_words} words)" if d.snapping else "off")
        self.histogram.set_data(d.histogram_edges, d.histogram_counts, y_max)
        self._keep_widths(chunking.text)

    def _keep_widths(self, text) -> None:
        """The value columns grow to the widest number shown for this text and never
        shrink for another parameter set: a number one digit narrower would hand its
        width to the histogram, and resizing a plot re-lays it out (axes, ticks, labels)
        on every parameter change. Another text starts them from their own widths again.
        The columns hold the width, not the labels: a label's size hint would keep it."""
        if text is not self._widths_for:
            self._release_widths()
            self._widths_for = text
        for grid, col, labels in self._value_columns:
            wanted = max(label.sizeHint().width() for label in labels)
            if wanted > grid.columnMinimumWidth(col):
                grid.setColumnMinimumWidth(col, wanted)

    def _release_widths(self) -> None:
        self._widths_for = None
        for grid, col, _ in self._value_columns:
            grid.setColumnMinimumWidth(col, 0)

    def show_external(self, chunking, name: str, ms: float) -> None:
        """An external chunker's spans: their sizes, and "n/a" where a rule's diagnostics
        would say something (cut kinds, hard cuts, max, snapping) rather than a stale value."""
        self._shown = None
        self._release_widths()
        self.title.setText(f"<b>{self.side}</b> · {name_html(name)} "
                           f"<span style='color:{self.theme.muted}'>{html.escape(chunking.chunker)}</span>")
        tokens = np.asarray([c.tokens for c in chunking.chunks], dtype=np.int64)
        d, v = chunking.diagnostics, self.values
        v["chunk_count"].setText(f"{d.chunk_count:,}")
        v["words"].setText(f"{d.word_count:,}")
        v["total_tokens"].setText(f"{d.total_tokens:,}")
        if tokens.size:
            v["tokens_range"].setText(f"{int(tokens.min()):,} – {int(tokens.max()):,}")
            v["tokens_mean"].setText(_fmt_num(float(tokens.mean())))
            v["tokens_median"].setText(_fmt_num(float(np.median(tokens))))
            v["tokens_p90"].setText(_fmt_num(float(np.percentile(tokens, 90))))
        v["time"].setText(f"{ms:,.1f} ms")
        why = "an external chunker has no cut kinds, max_tokens or snapping"
        for kind in MARKER_KINDS:
            v[f"kind_{kind}"].setText("n/a")
            v[f"kind_{kind}"].setToolTip(why)
        for key in ("hard_cut_rate", "chunks_over_max", "snapping"):
            v[key].setText("n/a")
            v[key].setToolTip(why)
            v[key].setStyleSheet("")
        # its last bin is "over max_tokens", which a splitter does not have: say so, draw nothing
        self.histogram.set_data((), ())
        self.histogram.setVisible(False)
        self._caption.setText("tokens per chunk: n/a (the histogram's bins end at a rule's max_tokens)")


class DiagnosticsView(QWidget):
    """A | B side by side, histograms on one scale so their heights compare.

    A result that comes while the view is hidden (its dock closed, or behind another
    tab: on a laptop screen the dock starts closed) is shown when the view is: each
    result re-lays out two plots, a few milliseconds of every parameter change that
    nobody would see."""

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self._unshown = None  # the latest result, until the view is shown
        self.setObjectName("diagnosticsView")
        self.panel_a = DiagnosticsPanel("A", theme)
        self.panel_b = DiagnosticsPanel("B", theme)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(8)
        lay.addWidget(self.panel_a, 1)
        lay.addWidget(self.panel_b, 1)

    def set_theme(self, theme: Theme) -> None:
        self.panel_a.set_theme(theme)
        self.panel_b.set_theme(theme)

    def show_result(self, result) -> None:
        if not self.isVisible():
            self._unshown = result
            return
        self._unshown = None
        self._show_result(result)

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        if self._unshown is not None:
            result, self._unshown = self._unshown, None
            self._show_result(result)

    def _show_result(self, result) -> None:
        if any(c is not None and c.boundary_rule == "external" for c in (result.a, result.b)):
            for panel, chunking, doc, ms in ((self.panel_a, result.a, result.doc_a, result.ms_a),
                                             (self.panel_b, result.b, result.doc_b, result.ms_b)):
                panel.show_external(chunking, doc.name, ms)
            return
        # One y scale for both histograms so their heights compare, unless the two are so
        # different in size (unrelated documents) that one would be flattened.
        peaks = [max(c.diagnostics.histogram_counts, default=0) for c in (result.a, result.b) if c is not None]
        y_max = max(peaks, default=0) if peaks and max(peaks) <= 3 * max(min(peaks), 1) else None
        for panel, chunking, doc, ms in (
            (self.panel_a, result.a, result.doc_a, result.ms_a),
            (self.panel_b, result.b, result.doc_b, result.ms_b),
        ):
            if chunking is None:
                panel.clear(doc.name if doc else None)
            else:
                panel.set_chunking(chunking, doc.name, ms, y_max)
