"""The Retrieval dock's widget: the question file, the corpora folder, top k, Run and
Cancel with a progress bar, and the table of each rule's scores (greyed with a note when
the parameters changed after the run).

Renders a RetrievalState (model/retrieval_state.py); what the user does leaves as
signals for the dock's controller (docks/retrieval_dock.py)."""

from __future__ import annotations

import os

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (QAbstractItemView, QBoxLayout, QFileDialog, QFormLayout, QHBoxLayout, QHeaderView, QLabel,
                               QLineEdit, QProgressBar, QPushButton, QSpinBox, QTableWidget, QTableWidgetItem,
                               QToolButton, QVBoxLayout, QWidget)

from ..model.job_state import CANCELLED, FAILED, RUNNING
from ..model.retrieval_state import COLUMNS, DEFAULT_TOP_K, MAX_TOP_K, STALE_NOTE, RetrievalState
from .palette import LIGHT, Theme

#: Below this width the table goes under the controls: beside them it would show two columns.
NARROW_BELOW = 640
QUESTION_FILTER = "Question sets (*.csv *.jsonl *.json);;All files (*)"


class RetrievalView(QWidget):
    run_requested = Signal()
    cancel_requested = Signal()
    paths_changed = Signal(str, str)  # question file, corpora folder (as typed or picked)
    top_k_changed = Signal(int)

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("retrievalView")
        self.setAccessibleName("Retrieval")
        self.theme = theme
        self.stale = False
        self._rows_shown: tuple = ()

        self.questions = QLineEdit()
        self.questions.setObjectName("retrievalQuestions")
        self.questions.setPlaceholderText("questions .csv or .jsonl")
        self.questions.setToolTip("Chroma's CSV (question, references, corpus_id) or JSON Lines with the same keys")
        self.corpora = QLineEdit()
        self.corpora.setObjectName("retrievalCorpora")
        self.corpora.setPlaceholderText("folder of corpora")
        self.corpora.setToolTip("One text file per corpus; its file stem is the corpus id the questions name")
        self.browse_questions = self._browse("Choose the question file", self._pick_questions)
        self.browse_corpora = self._browse("Choose the folder of corpora", self._pick_corpora)
        for edit in (self.questions, self.corpora):
            edit.editingFinished.connect(self._paths_edited)
        self.top_k = QSpinBox()
        self.top_k.setObjectName("retrievalTopK")
        self.top_k.setRange(1, MAX_TOP_K)
        self.top_k.setValue(DEFAULT_TOP_K)
        self.top_k.setToolTip("Chunks retrieved per question (Chroma's report: 5)")
        self.top_k.valueChanged.connect(self.top_k_changed.emit)
        self.run_button = QPushButton("&Run")
        self.run_button.setObjectName("retrievalRun")
        self.run_button.setToolTip("Score each rule at its current parameters: BM25 over every corpus")
        self.run_button.clicked.connect(self.run_requested.emit)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setObjectName("retrievalCancel")
        self.cancel_button.clicked.connect(self.cancel_requested.emit)
        self.progress = QProgressBar()
        self.progress.setObjectName("retrievalProgress")
        self.progress.setTextVisible(True)
        self.status = QLabel()
        self.status.setObjectName("retrievalStatus")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow("Questions", self._row(self.questions, self.browse_questions))
        form.addRow("Corpora", self._row(self.corpora, self.browse_corpora))
        buttons = QHBoxLayout()
        buttons.addWidget(QLabel("Top k"))
        buttons.addWidget(self.top_k)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.cancel_button)
        controls = QVBoxLayout()
        controls.setContentsMargins(0, 0, 0, 0)
        controls.addLayout(form)
        controls.addLayout(buttons)
        controls.addWidget(self.progress)
        controls.addWidget(self.status, 1)
        self.controls_box = QWidget()
        self.controls_box.setLayout(controls)
        self.controls_box.setMinimumWidth(220)

        self.stale_note = QLabel(STALE_NOTE)
        self.stale_note.setObjectName("retrievalStale")
        self.stale_note.setVisible(False)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("retrievalTable")
        self.table.setAccessibleName("Retrieval scores per rule")
        self.table.setHorizontalHeaderLabels([c for c, _ in COLUMNS])
        for c, (_, tip) in enumerate(COLUMNS):
            self.table.horizontalHeaderItem(c).setToolTip(tip)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 6)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.setToolTip("Each rule at the parameters it had when Run was pressed")
        results = QVBoxLayout()
        results.setContentsMargins(0, 0, 0, 0)
        results.addWidget(self.stale_note)
        results.addWidget(self.table, 1)

        self.box = QBoxLayout(QBoxLayout.Direction.LeftToRight, self)
        self.box.setContentsMargins(6, 4, 6, 4)
        self.box.addWidget(self.controls_box)
        self.box.addLayout(results, 1)
        self.set_theme(theme)

    def resizeEvent(self, event) -> None:  # noqa: N802
        """Side by side where the table keeps its columns beside the controls; in a narrow
        dock (every dock open on a small screen) the table goes under them."""
        super().resizeEvent(event)
        wide = self.width() >= NARROW_BELOW
        direction = QBoxLayout.Direction.LeftToRight if wide else QBoxLayout.Direction.TopToBottom
        if self.box.direction() != direction:
            self.box.setDirection(direction)
        self.controls_box.setMaximumWidth(340 if wide else 16_777_215)
        self._fit_status()

    def _fit_status(self) -> None:
        """The status text asks for the height it wraps to at its width (a dock's layout
        does not ask for height-for-width): a short dock keeps it whole."""
        status = self.status
        width = status.width() if status.width() > 0 else self.controls_box.width()
        status.setMinimumHeight(status.heightForWidth(width) if status.text() else 0)

    def _browse(self, tip: str, slot) -> QToolButton:
        button = QToolButton()
        button.setText("…")
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.clicked.connect(slot)
        return button

    @staticmethod
    def _row(edit: QLineEdit, button: QToolButton) -> QWidget:
        box = QWidget()
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.setSpacing(2)
        row.addWidget(edit, 1)
        row.addWidget(button)
        return box

    def _pick_questions(self) -> None:
        start = os.path.dirname(self.questions.text()) or os.path.dirname(self.corpora.text())
        path, _ = QFileDialog.getOpenFileName(self, "Question file", start, QUESTION_FILTER)
        if path:
            self.questions.setText(path)
            self._paths_edited()

    def _pick_corpora(self) -> None:
        start = self.corpora.text() or os.path.dirname(self.questions.text())
        path = QFileDialog.getExistingDirectory(self, "Folder of corpora", start)
        if path:
            self.corpora.setText(path)
            self._paths_edited()

    def _paths_edited(self) -> None:
        self.paths_changed.emit(self.questions.text().strip(), self.corpora.text().strip())

    def set_paths(self, questions: str, corpora: str) -> None:
        """Fill the fields (a test, a workspace) and say so as the user's choice would."""
        self.questions.setText(questions)
        self.corpora.setText(corpora)
        self._paths_edited()

    # -- rendering ---------------------------------------------------------------------
    def show_state(self, state: RetrievalState) -> None:
        running = state.phase == RUNNING
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)
        done, total = state.progress
        if running:
            self.progress.setRange(0, max(total, 1))
            self.progress.setValue(done)
            self.progress.setFormat("%v / %m steps" if total else "loading…")
        elif state.phase == CANCELLED:
            self.progress.setFormat("cancelled")
        elif state.phase == FAILED:
            self.progress.setFormat("failed")
        else:
            self.progress.setRange(0, 1)
            self.progress.setValue(1 if state.rows else 0)
            self.progress.setFormat("done" if state.rows else "")
        # before the first run the bar says nothing: its row goes to the status text, which
        # wraps to four lines in a short dock at the bottom of a small screen
        idle = not self.progress.format()
        if self.progress.isHidden() != idle:
            self.progress.setHidden(idle)
        self.status.setText(state.status)
        self._fit_status()
        if state.rows is not self._rows_shown:
            self._fill(state)
        self.set_stale(bool(state.rows) and state.stale)

    def _fill(self, state: RetrievalState) -> None:
        self._rows_shown = state.rows
        self.table.setRowCount(len(state.rows))
        for r, row in enumerate(state.rows):
            for c, text in enumerate(row.cells()):
                item = QTableWidgetItem(text)
                if c:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        self._colour_rows()

    def set_stale(self, stale: bool) -> None:
        """Greyed figures and the note: the parameters are not those the rows measured."""
        if stale == self.stale and self.stale_note.isVisible() == stale:
            return
        self.stale = stale
        self.stale_note.setVisible(stale)
        self._colour_rows()

    def _colour_rows(self) -> None:
        colour = QColor(self.theme.muted if self.stale else self.theme.text)
        for r in range(self.table.rowCount()):
            for c in range(self.table.columnCount()):
                item = self.table.item(r, c)
                if item is not None:
                    item.setForeground(colour)
                    font = item.font()
                    font.setItalic(self.stale)
                    item.setFont(font)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.stale_note.setStyleSheet(f"background: {theme.warning_bg}; color: {theme.text}; padding: 2px 6px;"
                                      " border-radius: 3px;")
        self._colour_rows()
