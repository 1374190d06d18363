"""The churn panel's external chunkers: the "Compare with…" menu (which splitters are
installed, how they are sized, spans read from JSONL), one column per chosen chunker,
and the selector of what the panes show (a rule or an external chunker).

`ExternalColumns` is that part of `ChurnPanel` (churn.py), which inherits it; it uses
the panel's widgets and signals and is not used alone.
"""

from __future__ import annotations

import re

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QLabel, QMenu
from steadlith_core import BOUNDARY_RULES
from steadlith_core.comparison.external import SPLITTERS, install_hint, installed_splitters
from superqt.utils import signals_blocked

from ..model.external_choice import JSONL, SHORT_LABELS, ExternalChoice, sizing_label
from .churn_cells import NOT_EXTERNAL, ROWS, SPLITTER_TITLES, external_cells, external_tips


class ExternalColumns:
    """The external chunkers' part of ChurnPanel: the menu, the columns, the selector."""

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
