"""The churn panel: what the edit from A to B costs under every boundary rule side by
side, beside the fixed-size baseline, with each rule's locality verdict at its own
margin, and the phase-shift regions of the rule the panes show (click one to see it).
"Panes show" (the Compare rules selector) switches the panes between the rules while
the panel keeps both.

"Compare with…" adds external chunkers (other libraries' splitters, or spans read from
JSONL) as more columns, measured by hash the way steadlith_core.comparison.external.compare_chunkers
measures them; the panes can show any of them too. The panel only says what the user
picked (`external_toggled`, `sizing_requested`, `external_shown`); the session holds the
choice and the worker computes the columns.

Every rule's number comes from the core's `Comparison.summary` and `Comparison.baseline`,
every external one from its `ChunkerChurn`.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import (QComboBox, QFrame, QGridLayout, QHBoxLayout, QLabel, QListWidget, QListWidgetItem,
                               QMenu, QScrollArea, QToolButton, QVBoxLayout, QWidget)
from steadlith_core import BOUNDARY_RULES
from steadlith_core.comparison.external import SPLITTERS, install_hint, installed_splitters
from superqt.utils import signals_blocked

from ..model.external_choice import JSONL, SHORT_LABELS, ExternalChoice, sizing_label
from ..model.viewmodel import BASELINE
from .palette import LIGHT, Theme

#: Rows an external chunker has no number for: it has no word alignment, so nothing is
#: "shifted", and no margin to check locality against.
NOT_EXTERNAL = {"shifted", "resync", "regions"}
SPLITTER_TITLES = {"langchain-recursive": "LangChain RecursiveCharacterTextSplitter",
                   "llama-index-sentence": "LlamaIndex SentenceSplitter", "chonkie-recursive": "chonkie RecursiveChunker",
                   "semchunk": "semchunk", "fixed-tokens": "fixed-size windows, sized like the splitters"}

ROWS = (
    ("reused_chunks", "reused chunks", "B chunks whose embedding is reused (paired with an equal A chunk)"),
    ("reused_tokens", "reused tokens", "tokens (t) of the reused B chunks, and their share of B's tokens"),
    ("to_embed", "to re-embed", "tokens (t) and chunks of B that need a new embedding"),
    ("shifted", "shifted", "B chunks with no changed word but a new hash: the phase shift (and their tokens)"),
    ("resync", "resync after edit", "the longest distance, in tokens, from an edit to where the cuts are in phase "
                                    "again, beside the rule's locality margin. Past the margin is not a violation: "
                                    "the locality check below counts those"),
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
        "resync": f"resync {s.longest_resync_tokens:,} t after the edit, {_side(s.longest_resync_tokens, margin)} "
                  f"margin of {margin:,} t (not a violation by itself: the locality check decides)",
        "regions": f"{s.phase_shift_regions:,}",
    }


def _side(tokens: int, margin: int) -> str:
    return "past the" if tokens > margin else "within the"


def compact_cells(s, margin: int) -> dict[str, str]:
    """The cells as three columns beside the panes have room for (summary_cells, with the
    shares, is each cell's tooltip)."""
    return {
        "reused_chunks": f"{s.reused_chunks:,}/{s.chunks_b:,}",
        "reused_tokens": f"{s.reused_tokens:,} t",
        "to_embed": f"{s.tokens_to_embed:,} t",
        "shifted": f"{s.shifted_chunks_b:,}",
        "resync": f"{s.longest_resync_tokens:,} t · margin {margin:,}",
        "regions": f"{s.phase_shift_regions:,}",
    }


def external_cells(row) -> dict[str, str]:
    """An external chunker's compact cells (ChunkerChurn, by hash)."""
    return {
        "reused_chunks": f"{row.reused_chunks:,}/{row.chunks_b:,}",
        "reused_tokens": f"{row.reused_tokens:,} t",
        "to_embed": f"{row.tokens_to_embed:,} t",
        **{key: "n/a" for key in NOT_EXTERNAL},
    }


def external_tips(row) -> dict[str, str]:
    share = row.reused_chunks / row.chunks_b if row.chunks_b else 1.0
    return {
        "reused_chunks": f"{row.reused_chunks:,} / {row.chunks_b:,} · {_pct(share)}: B chunks whose hash occurs in A",
        "reused_tokens": f"{row.reused_tokens:,} t · {_pct(row.reused_token_ratio)} of B's {row.tokens_b:,} t",
        "to_embed": f"{row.tokens_to_embed:,} t · {row.chunks_to_embed:,} chunks",
        **{key: "does not apply: an external chunker has no word alignment or locality margin, "
                "only hashes" for key in NOT_EXTERNAL},
    }


def verdict_text(comparison) -> tuple[str, str]:
    """(verdict, one line) for the locality check (SPEC §9); the verdict is the core's
    "held", "violated" or "nothing to check"."""
    s = comparison.summary
    if s.violations:
        n = s.violations
        return s.verdict, (f"✗ locality did not hold: {n:,} chunk{'s' if n != 1 else ''} inside shared "
                           f"regions changed")
    if s.checked_ranges == 0:  # no test ran: say so, neither a pass nor a failure
        return s.verdict, (f"– locality: nothing to check (no shared region of 2 × margin = "
                           f"{2 * comparison.margin:,} t)")
    n = s.checked_ranges
    return s.verdict, f"✓ locality held: every chunk deep inside {n:,} shared region{'s' if n != 1 else ''} was reused"


def region_label(r, k: int) -> str:
    b0, b1 = r.b_chunks
    a0, a1 = r.a_chunks
    chunks = f"B {b0}" if b1 - b0 == 1 else f"B {b0}–{b1 - 1}"
    a = f"A {a0}" if a1 - a0 == 1 else f"A {a0}–{a1 - 1}"
    n = r.shifted_chunks
    tokens = r.b_tokens[1] - r.b_tokens[0]
    if r.resynced:
        resync = f"resync {r.resync_distance_tokens:,} t after the edit at B {r.resync_b}"
    else:
        resync = f"never resyncs (≥ {r.resync_distance_tokens:,} t)"
    if r.starts_before_edit:
        resync = f"starts {r.starts_before_edit_tokens:,} t before the edit; {resync}"
    return f"#{k + 1}  {chunks} ↔ {a}: {n} shifted, {tokens:,} t; {resync}"


class _StagedLabel:
    """A label's text, tooltip, style and visibility, collected first and applied once
    where they changed: the panel used to blank every cell and fill it again, and each
    change of a label's text, style or visibility re-lays the dock out."""

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


class ChurnPanel(QWidget):
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

        self.regions_title = QLabel()
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
        lay.addLayout(shows)
        lay.addWidget(self.grid_scroll)
        lay.addWidget(self.external_note)
        lay.addLayout(verdicts)
        lay.addWidget(self.regions_title)
        lay.addWidget(self.regions, 1)
        self.regions.setMinimumHeight(60)
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

    # -- external chunkers ------------------------------------------------------------------
    def _build_compare_menu(self) -> QMenu:
        menu = QMenu(self)
        menu.setObjectName("churnCompareMenu")
        menu.setToolTipsVisible(True)
        self.external_actions: dict[str, QAction] = {}
        for key in SPLITTERS:
            act = QAction(f"{key}", menu)
            act.setCheckable(True)
            act.setToolTip(SPLITTER_TITLES.get(key, key))
            act.toggled.connect(lambda on, k=key: self.external_toggled.emit(k, on))
            menu.addAction(act)
            self.external_actions[key] = act
        act = QAction("JSONL spans…", menu)
        act.setCheckable(True)
        act.setToolTip("Spans your own pipeline wrote, one file for A and one for B: one JSON object a line, "
                       '{"start": s, "end": e} in code points, or {"text": …}')
        act.toggled.connect(lambda on: self.external_toggled.emit(JSONL, on))
        menu.addAction(act)
        self.external_actions[JSONL] = act
        menu.addSeparator()
        group = QActionGroup(menu)
        self.sizing_actions: dict[str, QAction] = {}
        for sizing, text, tip in (
                ("matched", "Size: match the shown rule's mean chunk",
                 "Each splitter gets the chunk_size whose mean chunk on A comes closest to the rule's: like with like"),
                ("own", "Size: one chunk_size for every splitter…",
                 "Every splitter runs at the chunk_size you give (tokens of the rule's counter)")):
            act = QAction(text, group)
            act.setCheckable(True)
            act.setToolTip(tip)
            act.triggered.connect(lambda _=False, z=sizing: self.sizing_requested.emit(z))
            menu.addAction(act)
            self.sizing_actions[sizing] = act
        self.set_installed(None)
        return menu

    def set_installed(self, installed) -> None:
        """Mark the splitters whose library is missing (None: ask the core)."""
        if installed is None:
            installed = installed_splitters()
        for key, act in self.external_actions.items():
            if key == JSONL:
                continue
            present = key in installed
            act.setEnabled(present or act.isChecked())  # a chosen one can always be unchecked
            act.setText(key if present else f"{key} — not installed")
            act.setToolTip(SPLITTER_TITLES.get(key, key) + ("" if present else f". {install_hint(key)}"))

    def set_external_choice(self, choice: ExternalChoice) -> None:
        """The session's choice: menu checks, columns and the pane selector follow."""
        self.choice = choice
        for key, act in self.external_actions.items():
            with signals_blocked(act):
                act.setChecked(key in choice.chunkers)
        self.sizing_actions[choice.sizing].setChecked(True)
        self.sizing_actions["own"].setText(f"Size: chunk_size {choice.chunk_size:,} t for every splitter…")
        n = len(choice.chunkers)
        self.compare_button.setText(f"Compare with… ({n})" if n else "Compare with…")
        self.set_installed(None)
        if choice.chunkers != self.external_keys:
            self._set_external_columns(choice.chunkers)
        self._sync_pane_combo()

    def _set_external_columns(self, keys: tuple[str, ...]) -> None:
        for w in self._external_widgets:
            self.grid.removeWidget(w)
            w.deleteLater()
        self._external_widgets = []
        for old in self.external_keys:
            for key, _, _ in ROWS:
                self.values.pop((old, key), None)
            self.heads.pop(old, None)
        self.external_keys = tuple(keys)
        first = 1 + len(self.columns)
        for c, column in enumerate(self.external_keys, start=first):
            head = QLabel(f"<b>{SHORT_LABELS.get(column, column)}</b>")
            head.setObjectName(f"churnHead_{column}")
            self.heads[column] = head
            self.grid.addWidget(head, 0, c)
            self.grid.setColumnStretch(c, 1)
            self._external_widgets.append(head)
            for r, (key, _, _) in enumerate(ROWS, start=1):
                v = QLabel("–")
                v.setObjectName(f"churn_{column}_{key}")
                v.setWordWrap(True)
                v.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
                self.values[(column, key)] = v
                self.grid.addWidget(v, r, c)
                self._external_widgets.append(v)
        self._fit_grid()

    def _sync_pane_combo(self) -> None:
        """The selector lists the rules, then the chosen external chunkers; it shows what the panes show."""
        combo = self.rule_combo
        with signals_blocked(combo):
            combo.clear()
            for rule in BOUNDARY_RULES:
                combo.addItem(rule, f"rule:{rule}")
            for key in self.choice.chunkers:
                combo.addItem(f"{SHORT_LABELS.get(key, key)} (ext.)", f"external:{key}")
            shown = f"external:{self.choice.shown}" if self.choice.shown else f"rule:{self.shown_rule}"
            combo.setCurrentIndex(max(0, combo.findData(shown)))
        for r in BOUNDARY_RULES:
            if r in self.heads:
                mark = " ◂" if r == self.shown_rule and not self.choice.shown else ""
                self.heads[r].setText(f"<b>{r}</b>{mark}")
                self.heads[r].setToolTip(f"{r}{' (shown in the panes)' if mark else ''}, with its parameters in force")
        for key in self.external_keys:
            mark = " ◂" if key == self.choice.shown else ""
            self.heads[key].setText(f"<b>{SHORT_LABELS.get(key, key)}</b>{mark}")

    def _on_pane_choice(self, index: int) -> None:
        what, _, name = self.rule_combo.itemData(index).partition(":")
        if what == "rule":
            self.external_shown.emit(None)
            self.rule_selected.emit(name)
        else:
            self.external_shown.emit(name)

    def _show_externals(self, columns, values: dict) -> None:
        self.externals = {col.key: col for col in columns}
        notes, sizes = [], []
        for key in self.external_keys:
            col = self.externals.get(key)
            head = self.heads[key]
            if col is None:  # the rules' result comes first; the splitters follow
                values[(key, "reused_chunks")].setText("…")
                values[(key, "reused_chunks")].setToolTip(f"{key}: running in the background")
                head.setToolTip(f"{key}: running in the background")
                continue
            if col.row is None:
                short = "not installed" if col.error.startswith("not installed") else "error"
                values[(key, "reused_chunks")].setText(short)
                for k, _, _ in ROWS:
                    values[(key, k)].setToolTip(f"{key}: {col.error}")
                values[(key, "reused_chunks")].setStyleSheet(f"color: {self.theme.error_text}")
                head.setToolTip(f"{key}: {col.error}")
                notes.append(f"<b>{SHORT_LABELS.get(key, key)}</b>: {col.error}")
                continue
            tips = external_tips(col.row)
            for k, text in external_cells(col.row).items():
                cell = values[(key, k)]
                cell.setText(text)
                cell.setToolTip(f"{col.name}: {tips[k]}")
                if k in NOT_EXTERNAL:
                    cell.setStyleSheet(f"color: {self.theme.muted}")
            head.setToolTip(f"{col.name}\n{col.sizing}\nmeasured by hash: a B chunk is reused when its hash "
                            "occurs among A's (what an embedding cache keyed by chunk hash hits)")
            size = re.search(r"chunk_size=(\d+)", col.name)
            if size:
                sizes.append(f"{SHORT_LABELS.get(key, key)} {int(size.group(1)):,} t")
        if self.external_keys:
            muted = self.theme.muted
            summary = f"External columns, by hash; {sizing_label(self.choice, self.shown_rule)}"
            if self.choice.sizing == "matched" and self.comparison is not None:
                chunks = self.comparison.a.chunks
                summary += f" ({sum(c.tokens for c in chunks) / max(len(chunks), 1):,.1f} t)"
            notes.insert(0, f"<span style='color:{muted}'>{summary}"
                            + (": " + " · ".join(sizes) if sizes else "") + ".</span>")
        self.external_note.setText("<br>".join(notes))
        self.external_note.setVisible(bool(self.external_keys) and self.comparison is not None)

    def _fit_grid(self) -> None:
        """The scroll area is as tall as the grid at the width it gets (it scrolls only
        sideways; wrapped labels make the grid taller when it is narrow)."""
        box, scroll = self.grid_box, self.grid_scroll
        box.layout().activate()
        width = max(scroll.viewport().width(), box.minimumSizeHint().width())
        height = box.heightForWidth(width) if box.hasHeightForWidth() else -1
        height = max(height, box.minimumSizeHint().height())
        bar = scroll.horizontalScrollBar()
        extra = bar.sizeHint().height() if box.minimumSizeHint().width() > scroll.viewport().width() else 0
        scroll.setFixedHeight(height + extra + 2)

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
            f"{s.edits:,} edit{'s' if s.edits != 1 else ''}: {s.changed_words_b:,} words new in B, "
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
        for label in (self.title, self.empty, self.external_note, *self.verdicts.values()):
            label.setMinimumHeight(label.heightForWidth(width) if label.text() else 0)
        self._fit_grid()

    def _on_item(self, item: QListWidgetItem) -> None:
        k = item.data(Qt.ItemDataRole.UserRole)
        if k is not None:
            self.region_activated.emit(int(k))
