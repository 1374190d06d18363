"""The churn panel: what the edit from A to B costs, tttd-v1 beside the fixed-size
baseline, the locality verdict, and the phase-shift regions (click one to see it).

Every number comes from the core's `Comparison.summary` and `Comparison.baseline`.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QGridLayout, QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from ..palette import LIGHT, Theme

ROWS = (
    ("reused_chunks", "reused chunks", "B chunks whose embedding is reused (paired with an equal A chunk)"),
    ("reused_tokens", "reused tokens", "tokens (t) of the reused B chunks, and their share of B's tokens"),
    ("to_embed", "to re-embed", "tokens (t) and chunks of B that need a new embedding"),
    ("shifted", "shifted", "B chunks with no changed word but a new hash: the phase shift (and their tokens)"),
    ("resync", "resync vs margin", "the longest distance, in tokens, from an edit to where the cuts are in phase "
                                   "again, against the locality margin (max_tokens + window + snap window)"),
    ("regions", "shift regions", "runs of consecutive shifted B chunks"),
)


def _pct(x: float) -> str:
    return f"{x * 100:.1f} %"


def summary_cells(s, margin: int) -> dict[str, str]:
    """The panel's cells for one ChurnSummary (plain text)."""
    return {
        "reused_chunks": f"{s.reused_chunks:,} / {s.chunks_b:,} · {_pct(s.reused_chunk_ratio)}",
        "reused_tokens": f"{s.reused_tokens:,} t · {_pct(s.reused_token_ratio)}",
        "to_embed": f"{s.tokens_to_embed:,} t · {s.chunks_to_embed:,} chunks",
        "shifted": f"{s.shifted_chunks_b:,} · {s.shifted_tokens_b:,} t",
        "resync": f"{s.longest_resync_tokens:,} t {'>' if s.longest_resync_tokens > margin else '≤'} {margin:,}",
        "regions": f"{s.phase_shift_regions:,}",
    }


def verdict_text(comparison) -> tuple[bool, str]:
    """(held, one line) for the locality check (SPEC §9)."""
    s = comparison.summary
    if s.violations:
        n = s.violations
        return False, (f"✗ locality did not hold: {n:,} chunk{'s' if n != 1 else ''} inside shared "
                       f"regions changed")
    if s.checked_ranges == 0:
        return True, "✓ locality held (no shared region was long enough to check: 2 × margin)"
    n = s.checked_ranges
    return True, f"✓ locality held: every chunk deep inside {n:,} shared region{'s' if n != 1 else ''} was reused"


def region_label(r, k: int) -> str:
    b0, b1 = r.b_chunks
    a0, a1 = r.a_chunks
    chunks = f"B {b0}" if b1 - b0 == 1 else f"B {b0}–{b1 - 1}"
    a = f"A {a0}" if a1 - a0 == 1 else f"A {a0}–{a1 - 1}"
    n = r.shifted_chunks
    tokens = r.b_tokens[1] - r.b_tokens[0]
    if r.resynced:
        resync = f"resync after {r.resync_distance_tokens:,} t at B {r.resync_b}"
    else:
        resync = f"never resyncs (≥ {r.resync_distance_tokens:,} t)"
    return f"#{k + 1}  {chunks} ↔ {a}: {n} shifted, {tokens:,} t; {resync}"


class ChurnPanel(QWidget):
    region_activated = Signal(int)  # index in comparison.phase_shift_regions

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("churnPanel")
        self.setAccessibleName("Churn summary")
        self.theme = theme
        self.comparison = None
        self.values: dict[tuple[str, str], QLabel] = {}

        self.empty = QLabel("Load two versions, A and B, to see what the edit costs: reused chunks, "
                            "tokens to re-embed, phase shifts and the locality check.")
        self.empty.setObjectName("churnEmpty")
        self.empty.setWordWrap(True)

        self.title = QLabel()
        self.title.setObjectName("churnTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)

        grid = QGridLayout()
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(3)
        self.head_cdc = QLabel("<b>tttd-v1</b>")
        self.head_base = QLabel("<b>fixed-tokens/1</b>")
        self.head_base.setToolTip("The fixed-size baseline on the same words: a cut every max_tokens tokens")
        self.head_cdc.setToolTip("The content-defined chunker with the parameters in force")
        grid.addWidget(self.head_cdc, 0, 1)
        grid.addWidget(self.head_base, 0, 2)
        for r, (key, text, tip) in enumerate(ROWS, start=1):
            label = QLabel(text)
            label.setToolTip(tip)
            grid.addWidget(label, r, 0)
            for c, strategy in ((1, "cdc"), (2, "base")):
                v = QLabel("–")
                v.setObjectName(f"churn_{strategy}_{key}")
                v.setWordWrap(True)  # on a narrow dock "· 40.0 %" goes to a second line, never off the edge
                v.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.values[(strategy, key)] = v
                grid.addWidget(v, r, c)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(2, 1)
        self.grid_box = QFrame()
        self.grid_box.setLayout(grid)

        self.verdict = QLabel()
        self.verdict.setObjectName("churnVerdict")
        self.verdict.setWordWrap(True)
        self.verdict.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        self.regions_title = QLabel("<b>Phase-shift regions</b> (click to show)")
        self.regions = QListWidget()
        self.regions.setObjectName("phaseShiftRegions")
        self.regions.setAccessibleName("Phase-shift regions")
        self.regions.setToolTip("Runs of shifted B chunks: same words as in A, cut elsewhere. Click one to show it.")
        self.regions.setWordWrap(True)
        self.regions.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.regions.itemClicked.connect(self._on_item)
        self.regions.itemActivated.connect(self._on_item)

        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.setSpacing(6)
        lay.addWidget(self.empty)
        lay.addWidget(self.title)
        lay.addWidget(self.grid_box)
        lay.addWidget(self.verdict)
        lay.addWidget(self.regions_title)
        lay.addWidget(self.regions, 1)
        self.regions.setMinimumHeight(60)
        # wide enough for the usual numbers from the start: a dock does not grow when a
        # label's text does
        fm = self.fontMetrics()
        widest_value = max(fm.horizontalAdvance(t) for t in ("9,999 / 9,999 ·", "999,999 t ·", "999 chunks"))
        self.setMinimumWidth(fm.horizontalAdvance("resync vs margin") + 2 * widest_value + 2 * 10 + 16 + 8)
        self.show_comparison(None)

    # -- content ---------------------------------------------------------------------------
    def value(self, strategy: str, key: str) -> str:
        return self.values[(strategy, key)].text()

    def show_comparison(self, comparison, message: str | None = None) -> None:
        """Show a comparison's churn, or (None) the empty state with `message`."""
        self.comparison = comparison
        has = comparison is not None
        self.title.setVisible(has)
        self.verdict.setVisible(has)
        self.empty.setVisible(not has)
        if message:
            self.empty.setText(message)
        self.regions.clear()
        if not has:
            self.verdict.setText("")
            for v in self.values.values():
                v.setText("–")
                v.setStyleSheet("")
            item = QListWidgetItem("no comparison yet")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.regions.addItem(item)
            self.setAccessibleDescription(self.empty.text())
            self._fit_wrapped()
            return
        s = comparison.summary
        t = self.theme
        self.title.setText(
            f"{s.edits:,} edit{'s' if s.edits != 1 else ''}: {s.changed_words_b:,} words new in B, "
            f"{s.changed_words_a:,} gone from A"
            f"<br><span style='color:{t.muted}'>t = tokens · locality margin {comparison.margin:,} t</span>")
        self.title.setToolTip("margin = max_tokens + window_words + snap window (SPEC §9)")
        for key, text in summary_cells(s, comparison.margin).items():
            self.values[("cdc", key)].setText(text)
        base = comparison.baseline
        if base is not None:
            for key, text in summary_cells(base.summary, comparison.margin).items():
                self.values[("base", key)].setText(text)
        else:
            for key, *_ in ROWS:
                self.values[("base", key)].setText("–")
        self._style_values()
        held, line = verdict_text(comparison)
        self.verdict.setText(line)
        self.setAccessibleDescription(
            f"{s.reused_chunks} of {s.chunks_b} chunks of B reused; {s.tokens_to_embed} tokens to re-embed; "
            f"{s.shifted_chunks_b} shifted; {len(comparison.phase_shift_regions)} phase-shift regions. {line}")
        self.verdict.setToolTip(
            "SPEC §9: every B chunk lying more than one margin inside a long unchanged region "
            "should be reused by a strictly local chunker" + ("" if held else
            f"; {comparison.summary.violations} were not (the phase shift)"))
        self._style_verdict(held)
        self._fit_wrapped()
        for k, r in enumerate(comparison.phase_shift_regions):
            item = QListWidgetItem(region_label(r, k))
            item.setData(Qt.ItemDataRole.UserRole, k)
            item.setToolTip(
                f"B chunks {r.b_chunks[0]}–{r.b_chunks[1] - 1} hold the same words as A chunks "
                f"{r.a_chunks[0]}–{r.a_chunks[1] - 1}, cut elsewhere after the edit at B word "
                f"{r.after_edit.b_start if r.after_edit else 0}. Click to show both.")
            self.regions.addItem(item)
        if not comparison.phase_shift_regions:
            item = QListWidgetItem("none: every chunk outside the edits is reused")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.regions.addItem(item)

    def _style_values(self) -> None:
        t = self.theme
        c = self.comparison
        shifted = self.values[("cdc", "shifted")]
        loud = c is not None and c.summary.shifted_chunks_b > 0
        shifted.setStyleSheet(f"color: {t.status['shifted']}; font-weight: bold" if loud else "")
        resync = self.values[("cdc", "resync")]
        over = c is not None and c.summary.longest_resync_tokens > c.margin
        resync.setStyleSheet(f"color: {t.error_text}; font-weight: bold" if over else "")

    def _style_verdict(self, held: bool) -> None:
        t = self.theme
        if held:
            self.verdict.setStyleSheet(f"color: {t.ok}; font-weight: bold; padding: 4px;")
        else:
            self.verdict.setStyleSheet(
                f"color: {t.error_fg}; background: {t.error_bg}; font-weight: bold; padding: 4px;"
                f" border-radius: 3px;")

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        if self.comparison is not None:
            self.show_comparison(self.comparison)

    def verdict_text(self) -> str:
        return self.verdict.text()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_wrapped()

    def _fit_wrapped(self) -> None:
        """Wrapped labels get the height their text needs at the current width (dock
        layouts do not ask for height-for-width)."""
        width = max(100, self.width() - 16)
        for label in (self.title, self.verdict, self.empty):
            label.setMinimumHeight(label.heightForWidth(width) if label.text() else 0)

    def _on_item(self, item: QListWidgetItem) -> None:
        k = item.data(Qt.ItemDataRole.UserRole)
        if k is not None:
            self.region_activated.emit(int(k))

