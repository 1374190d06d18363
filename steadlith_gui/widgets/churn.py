"""The churn panel: what the edit from A to B costs under every boundary rule side by
side, beside the fixed-size baseline, with each rule's locality verdict at its own
margin, and the phase-shift regions of the rule the panes show (click one to see it).
"Panes show" (the Compare rules selector) switches the panes between the rules while
the panel keeps both.

"Compare with…" adds external chunkers (other libraries' splitters, or spans read from
JSONL) as more columns, measured by hash the way steadlith_core.comparison.chunker_churn.compare_chunkers
measures them; the panes can show any of them too. The panel only says what the user
picked (`external_toggled`, `sizing_requested`, `external_shown`); the session holds the
choice and the worker computes the columns.

Every rule's number comes from the core's `Comparison.summary` and `Comparison.baseline`,
every external one from its `ChunkerChurn`. The external columns are `churn_external`'s
part of the panel, the regions list and its Why? section `churn_regions`'s.
"""

from __future__ import annotations


from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (QComboBox, QFrame, QGridLayout, QHBoxLayout, QLabel, QListWidgetItem, QScrollArea,
                               QToolButton, QVBoxLayout, QWidget)
from steadlith_core import BOUNDARY_RULES

from ..model.external_choice import ExternalChoice
from ..model.viewmodel import BASELINE
from .churn_cells import ROWS, compact_cells, summary_cells, verdict_text
from .churn_external import ExternalColumns
from .churn_regions import RegionList
from .palette import LIGHT, Theme


class _StagedLabel:
    """A label's text, tooltip, style and visibility, collected first and applied once
    where they changed: each change of a label's text, style or visibility re-lays the
    dock out, so blanking every cell and filling it again would do that twice per cell."""

    __slots__ = ("label", "text", "tip", "style", "visible")

    def __init__(self, label: QLabel, text: str = "–", visible: bool = True):
        self.label, self.text, self.tip, self.style, self.visible = label, text, "", "", visible

    def setText(self, text: str) -> None:  # noqa: N802 - stands in for the QLabel
        self.text = text

    def setToolTip(self, tip: str) -> None:  # noqa: N802
        self.tip = tip

    def setStyleSheet(self, style: str) -> None:  # noqa: N802
        self.style = style

    def setVisible(self, visible: bool) -> None:  # noqa: N802
        self.visible = visible

    def apply(self) -> None:
        label = self.label
        if label.text() != self.text:
            label.setText(self.text)
        if label.toolTip() != self.tip:
            label.setToolTip(self.tip)
        if label.styleSheet() != self.style:
            label.setStyleSheet(self.style)
        if label.isHidden() == self.visible:
            label.setVisible(self.visible)


class ChurnPanel(ExternalColumns, RegionList, QWidget):
    region_activated = Signal(int)  # index in the shown rule's comparison.phase_shift_regions
    rule_selected = Signal(str)  # "Panes show": the user chose the rule the panes show
    external_shown = Signal(object)  # "Panes show": an external chunker's key, or None for a rule
    external_toggled = Signal(str, bool)  # "Compare with…": a chunker key checked or unchecked
    sizing_requested = Signal(str)  # "matched" or "own": how the external chunkers are sized

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("churnPanel")
        self.setAccessibleName("Churn summary")
        self.theme = theme
        self.comparison = None  # the shown rule's
        self.comparisons: dict = {}  # every rule's
        self.pending: tuple[str, ...] = ()  # columns still being computed (show_rules)
        self.shown_rule = BOUNDARY_RULES[0]
        self.values: dict[tuple[str, str], QLabel] = {}

        self.empty = QLabel("Load two versions, A and B, to see what the edit costs: reused chunks, "
                            "tokens to re-embed, phase shifts and the locality check, for each boundary rule.")
        self.empty.setObjectName("churnEmpty")
        self.empty.setWordWrap(True)

        self.title = QLabel()
        self.title.setObjectName("churnTitle")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)

        self.rule_combo = QComboBox()
        self.rule_combo.setObjectName("churnRuleCombo")
        self.rule_combo.setAccessibleName("Compare rules: the rule the panes show")
        self.rule_combo.setToolTip("Compare rules: which rule's chunks the panes show. This panel keeps "
                                   "every rule side by side.")
        self.rule_combo.activated.connect(self._on_pane_choice)
        self.compare_button = QToolButton()
        self.compare_button.setObjectName("churnCompareWith")
        self.compare_button.setText("Compare with…")
        self.compare_button.setToolTip("Add other chunkers as columns: your pipeline's splitter (LangChain, "
                                       "LlamaIndex, chonkie, semchunk) or spans it wrote to JSONL")
        self.compare_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.compare_menu = self._build_compare_menu()
        self.compare_button.setMenu(self.compare_menu)
        shows = QHBoxLayout()
        shows.addWidget(QLabel("Panes show"))
        shows.addWidget(self.rule_combo, 1)
        shows.addWidget(self.compare_button)

        self.grid = grid = QGridLayout()
        grid.setHorizontalSpacing(6)
        grid.setVerticalSpacing(3)
        self.heads: dict[str, QLabel] = {}
        self.columns = (*BOUNDARY_RULES, "base")
        for c, column in enumerate(self.columns, start=1):
            head = QLabel()
            head.setObjectName(f"churnHead_{column}")
            self.heads[column] = head
            grid.addWidget(head, 0, c)
            grid.setColumnStretch(c, 1)
        self.heads["base"].setText("<b>fixed</b>")
        self.heads["base"].setToolTip("fixed-tokens/1: the fixed-size baseline on the same words, a cut every "
                                      "max_tokens tokens of the rule the panes show")
        for r, (key, text, tip) in enumerate(ROWS, start=1):
            label = QLabel(text)
            label.setToolTip(tip)
            label.setWordWrap(True)  # "resync after edit" may take two lines in a narrow dock
            grid.addWidget(label, r, 0)
            for c, column in enumerate(self.columns, start=1):
                v = QLabel("–")
                v.setObjectName(f"churn_{column}_{key}")
                v.setWordWrap(True)  # on a narrow dock a long value goes to a second line, never off the edge
                v.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.values[(column, key)] = v
                grid.addWidget(v, r, c)
        self.grid_box = QFrame()
        self.grid_box.setLayout(grid)
        self.external_keys: tuple[str, ...] = ()  # the external columns, in order
        self._external_widgets: list[QWidget] = []
        self.externals: dict = {}  # key -> ExternalColumn of the latest result
        self.choice = ExternalChoice()
        # more columns than a narrow dock holds scroll sideways instead of squeezing the rules'
        self.grid_scroll = QScrollArea()
        self.grid_scroll.setObjectName("churnGridScroll")
        self.grid_scroll.setWidget(self.grid_box)
        self.grid_scroll.setWidgetResizable(True)
        self.grid_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.grid_scroll.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.external_note = QLabel()
        self.external_note.setObjectName("churnExternalNote")
        self.external_note.setWordWrap(True)
        self.external_note.setTextFormat(Qt.TextFormat.RichText)
        self.external_note.setVisible(False)

        self.verdicts: dict[str, QLabel] = {}
        verdicts = QVBoxLayout()
        verdicts.setSpacing(3)
        for rule in BOUNDARY_RULES:
            v = QLabel()
            v.setObjectName(f"churnVerdict_{rule}")
            v.setWordWrap(True)
            v.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.verdicts[rule] = v
            verdicts.addWidget(v)

        # the Retrieval dock's question set: cuts splitting a reference, per side (references.py)
        self.reference_splits = QLabel()
        self.reference_splits.setObjectName("churnReferenceSplits")
        self.reference_splits.setWordWrap(True)
        self.reference_splits.setToolTip("Cuts that split a reference excerpt of the Retrieval dock's question set "
                                         "(its text is underlined in the panes, a notch marks each such cut)")
        self.reference_splits.setVisible(False)

        regions_split = self._build_regions()

        lay = QVBoxLayout(self)
        lay.setContentsMargins(8, 6, 8, 6)
        lay.setSpacing(6)
        lay.addWidget(self.empty)
        lay.addWidget(self.title)
        lay.addLayout(shows)
        lay.addWidget(self.grid_scroll)
        lay.addWidget(self.external_note)
        lay.addLayout(verdicts)
        lay.addWidget(self.reference_splits)
        lay.addWidget(self.regions_title)
        lay.addWidget(regions_split, 1)  # the list, and the Why? text sharing its room
        # wide enough for the usual numbers from the start: a dock does not grow when a
        # label's text does
        fm = self.fontMetrics()
        # values wrap (setWordWrap), so the usual short ones set the width, not "99,999 > 9,999"
        widest_value = max(fm.horizontalAdvance(t) for t in ("9,999/9,999", "999 > 99"))
        self.setMinimumWidth(fm.horizontalAdvance("reused tokens") + 3 * widest_value + 3 * 6 + 16 + 8)
        self.set_external_choice(self.choice)
        self.set_shown_rule(self.shown_rule)
        self.show_rules(None)

    # -- content ---------------------------------------------------------------------------
    @property
    def verdict(self) -> QLabel:
        """The verdict of the rule the panes show."""
        return self.verdicts[self.shown_rule]

    def value(self, column: str, key: str) -> str:
        """A cell's text; `column` a rule, "base", or "cdc" for the rule the panes show."""
        return self.values[(self.shown_rule if column == "cdc" else column, key)].text()

    def set_shown_rule(self, rule: str) -> None:
        """The panes show `rule` (the selector follows; the table keeps every rule)."""
        self.shown_rule = rule
        self._sync_pane_combo()

    def show_comparison(self, comparison, message: str | None = None) -> None:
        """One rule's comparison (or None: the empty state with `message`)."""
        self.show_rules(None if comparison is None else {comparison.b.boundary_rule: comparison},
                        comparison.b.boundary_rule if comparison is not None else None, message)

    def show_rules(self, comparisons, shown: str | None = None, message: str | None = None,
                   externals=(), pending=()) -> None:
        """Every rule's comparison `{rule: Comparison}` side by side, `shown` the rule the
        panes show (its regions are listed), and the external chunkers' columns
        (external_runs.ExternalColumn); None: the empty state with `message`. `pending`:
        the columns still being computed ("fixed-tokens/1" for the baseline, rule ids),
        shown as "…" until the result that completes them comes."""
        if shown is not None:
            self.set_shown_rule(shown)
        self.pending = tuple(pending)
        self.comparisons = dict(comparisons or {})
        comparison = self.comparisons.get(self.shown_rule)
        self.comparison = comparison
        has = comparison is not None
        self.title.setVisible(has)
        self.empty.setVisible(not has)
        if message:
            self.empty.setText(message)
        self.regions.clear()
        values = {key: _StagedLabel(label) for key, label in self.values.items()}
        verdicts = {rule: _StagedLabel(label, "", visible=False) for rule, label in self.verdicts.items()}
        try:
            self._show_rules(comparison, values, verdicts, externals)
        finally:
            for staged in (*values.values(), *verdicts.values()):
                staged.apply()
        self._fit_wrapped()
        if has:
            self._list_regions(comparison)

    def _show_rules(self, comparison, values: dict, verdicts: dict, externals) -> None:
        has = comparison is not None
        self._show_externals(externals if has else (), values)
        if not has:
            self.regions_title.setText("<b>Phase-shift regions</b>")
            item = QListWidgetItem("no comparison yet")
            item.setFlags(Qt.ItemFlag.NoItemFlags)
            self.regions.addItem(item)
            self.setAccessibleDescription(self.empty.text())
            return
        s = comparison.summary
        t = self.theme
        self.title.setText(
            f"{s.edits:,} edit{'s' if s.edits != 1 else ''}: {s.changed_words_b:,} word{'s' if s.changed_words_b != 1 else ''} new in B, "
            f"{s.changed_words_a:,} gone from A<br><span style='color:{t.muted}'>t = tokens · "
            + " · ".join(f"{r} margin {c.margin:,} t" for r, c in self.comparisons.items()) + "</span>")
        self.title.setToolTip("\n".join(f"{r}: margin = {c.summary.margin_formula}"
                                         for r, c in self.comparisons.items()))
        described = []
        for rule, c in self.comparisons.items():
            full = summary_cells(c.summary, c.margin)
            for key, text in compact_cells(c.summary, c.margin).items():
                values[(rule, key)].setText(text)
                values[(rule, key)].setToolTip(f"{rule}: {full[key]}")
            verdict, line = verdict_text(c)
            verdicts[rule].setText(f"{rule}: {line}")
            verdicts[rule].setVisible(True)
            verdicts[rule].setToolTip(
                f"Every B chunk lying more than {rule}'s margin ({c.margin:,} t = {c.summary.margin_formula}) "
                "inside a long unchanged region should be reused" + (
                    f"; {c.summary.violations} were not (the phase shift)" if verdict == "violated" else
                    "; this edit left no unchanged region that long" if verdict == "nothing to check" else ""))
            self._style_verdict(verdicts[rule], verdict)
            described.append(f"{rule}: {c.summary.reused_chunks} of {c.summary.chunks_b} chunks reused, "
                             f"{c.summary.tokens_to_embed} tokens to re-embed, {c.summary.shifted_chunks_b} "
                             f"shifted. {line}")
        base = comparison.baseline
        if base is not None:
            full = summary_cells(base.summary, comparison.margin)
            for key, text in compact_cells(base.summary, comparison.margin).items():
                values[("base", key)].setText(text)
                values[("base", key)].setToolTip(f"fixed-tokens/1: {full[key]}")
        for column in self.columns:
            name = BASELINE if column == "base" else column
            if name in self.pending:
                for key, _, _ in ROWS:
                    values[(column, key)].setText("…")
                    values[(column, key)].setToolTip(f"{name}: computing…")
        self._style_values(values)
        for col in self.externals.values():
            if col.row is not None:
                described.append(f"{col.name}: {col.row.reused_chunks} of {col.row.chunks_b} chunks reused, "
                                 f"{col.row.tokens_to_embed} tokens to embed.")
        self.setAccessibleDescription(" ".join(described))

    def _style_values(self, values: dict) -> None:
        t = self.theme
        for rule, c in self.comparisons.items():
            loud = c.summary.shifted_chunks_b > 0
            values[(rule, "shifted")].setStyleSheet(
                f"color: {t.status['shifted']}; font-weight: bold" if loud else "")
            # neutral either side of the margin: only the verdict below reports a violation
            values[(rule, "resync")].setStyleSheet("")

    def _style_verdict(self, label: QLabel, verdict: str) -> None:
        t = self.theme
        if verdict == "held":
            label.setStyleSheet(f"color: {t.ok}; font-weight: bold; padding: 4px;")
        elif verdict == "nothing to check":  # neither a pass nor a failure: neutral
            label.setStyleSheet(f"color: {t.muted}; padding: 4px;")
        else:
            label.setStyleSheet(
                f"color: {t.error_fg}; background: {t.error_bg}; font-weight: bold; padding: 4px;"
                f" border-radius: 3px;")

    def show_reference_splits(self, text: str | None) -> None:
        """The line counting the cuts that split a reference (None: no question set, or
        no pane shows one of its corpora)."""
        text = text or ""
        if text == self.reference_splits.text() and bool(text) == self.reference_splits.isVisibleTo(self):
            return  # as shown: every result asks again, and the labels' heights are already fitted
        self.reference_splits.setText(text)
        self.reference_splits.setVisible(bool(text))
        self._fit_wrapped()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        if self.comparison is not None:
            self.show_rules(self.comparisons, externals=tuple(self.externals.values()), pending=self.pending)

    def verdict_text(self) -> str:
        return self.verdict.text()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._fit_wrapped()

    def _fit_wrapped(self) -> None:
        """Wrapped labels get the height their text needs at the current width (dock
        layouts do not ask for height-for-width)."""
        width = max(100, self.width() - 16)
        for label in (self.title, self.empty, self.external_note, self.reference_splits, *self.verdicts.values()):
            label.setMinimumHeight(label.heightForWidth(width) if label.text() else 0)
        self._fit_grid()
