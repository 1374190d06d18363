"""The churn panel's phase-shift regions: the list of the shown rule's regions (click one
to show it in the panes) and, under it and sharing its room, the "Why?" section with the
selected region's explanation (the core's paragraph, from a why_state.WhyState).

`RegionList` is that part of `ChurnPanel` (churn.py), which inherits it; it uses the
panel's theme, choice and signals and is not used alone.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QTextCharFormat, QTextCursor
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QPlainTextEdit, QSplitter

from ..model.external_choice import SHORT_LABELS
from ..model.why_state import PROMPT, WhyState
from .churn_cells import region_label

WHY = "Why? "  # the section's heading, the first word of its text (a title label would cost a line of height)


class RegionList:
    """The regions' part of ChurnPanel: their title, the list and the Why? text."""

    def _build_regions(self) -> QSplitter:
        """The title, the list and the Why? text; returns the splitter holding the last two."""
        self.regions_title = QLabel()
        self.regions = QListWidget()
        self.regions.setObjectName("phaseShiftRegions")
        self.regions.setAccessibleName("Phase-shift regions")
        self.regions.setToolTip("Runs of shifted B chunks: same words as in A, cut elsewhere. Click one to show it.")
        self.regions.setWordWrap(True)
        self.regions.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.regions.itemClicked.connect(self._on_item)
        self.regions.itemActivated.connect(self._on_item)
        # "Why?": the selected region's explanation (the core's paragraph), under the list and
        # sharing its room (a splitter between them): the panel needs no more height than before
        self.why = QPlainTextEdit()
        self.why.setObjectName("whyText")
        self.why.setAccessibleName("Why? The selected phase-shift region's explanation")
        self.why.setToolTip("Why? The edit, the candidate it removed or created, the cut that fell back, the cuts "
                            "that followed and where both versions meet again; the words are marked in the panes")
        self.why.setReadOnly(True)
        self.why.setPlainText(WHY + PROMPT)
        self.regions_split = QSplitter(Qt.Orientation.Vertical)
        self.regions_split.setObjectName("regionsWhySplit")
        self.regions_split.setChildrenCollapsible(False)
        self.regions_split.setHandleWidth(4)
        self.regions_split.addWidget(self.regions)
        self.regions_split.addWidget(self.why)
        self.regions.setMinimumHeight(28)
        self.why.setMinimumHeight(28)
        self.regions_split.setStretchFactor(0, 1)
        self.regions_split.setStretchFactor(1, 1)
        return self.regions_split

    def _list_regions(self, comparison) -> None:
        if self.choice.shown:  # a region's chunk numbers are the rule's, not the spans the panes show
            self.regions_title.setText(f"<b>Phase-shift regions</b> of {self.shown_rule}")
            item = QListWidgetItem(f"{len(comparison.phase_shift_regions):,} regions under {self.shown_rule}; the "
                                   f"panes show {SHORT_LABELS.get(self.choice.shown, self.choice.shown)}, which has no "
                                   "phase shifts (spans are compared by hash). Show the rule to see them.")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.regions.addItem(item)
            return
        self.regions_title.setText(f"<b>Phase-shift regions</b> of {self.shown_rule} (click to show)")
        for k, r in enumerate(comparison.phase_shift_regions):
            item = QListWidgetItem(region_label(r, k))
            item.setData(Qt.ItemDataRole.UserRole, k)
            edit = r.first_edit if r.starts_before_edit else r.after_edit
            where = "before" if r.starts_before_edit else "after"
            item.setToolTip(
                f"B chunks {r.b_chunks[0]}–{r.b_chunks[1] - 1} hold the same words as A chunks "
                f"{r.a_chunks[0]}–{r.a_chunks[1] - 1} (A words {r.a_chunk_words[0]:,}–{r.a_chunk_words[1] - 1:,}), "
                f"cut elsewhere {where} the edit at B word {edit.b_start if edit else 0:,}. Click to show both.")
            self.regions.addItem(item)
        if not comparison.phase_shift_regions:
            item = QListWidgetItem("none: every chunk outside the edits is reused")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.regions.addItem(item)

    def show_why(self, state: WhyState) -> None:
        """The Why? section from a why_state.WhyState (its text; the list follows the region)."""
        if self.why.toPlainText() != WHY + state.text:
            self.why.setPlainText(WHY + state.text)
        # muted through the text's own format, not a style sheet: a style sheet on the box
        # can keep it on the light palette's base after the dark theme is applied
        muted = QTextCharFormat()
        if state.status != "shown":
            muted.setForeground(QColor(self.theme.muted))
        cursor = QTextCursor(self.why.document())
        cursor.select(QTextCursor.SelectionType.Document)
        cursor.setCharFormat(muted)
        if state.region is not None and state.region < self.regions.count():
            item = self.regions.item(state.region)
            if item.data(Qt.ItemDataRole.UserRole) == state.region and not item.isSelected():
                self.regions.setCurrentRow(state.region)

    def _on_item(self, item: QListWidgetItem) -> None:
        k = item.data(Qt.ItemDataRole.UserRole)
        if k is not None:
            self.region_activated.emit(int(k))
