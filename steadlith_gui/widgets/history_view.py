"""The History dock's widget: a file's commits newest first, each with the tokens it
cost to re-embed under every rule as a bar and a number, a progress bar with Cancel
while the costs are computed, and a click that asks for the commit's pair.

It renders a history_state.HistoryState and reports clicks; the controller
(history_dock.py) owns the work."""

from __future__ import annotations

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QPainter
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..model.history_state import COST_COLUMNS, FIXED, PER_WORD, PER_WORD_RULE, WORDS, HistoryState
from .names import plain_tooltip, shown_name
from .palette import Theme

COLUMNS = ("Commit", "Date", *COST_COLUMNS, "Words", "t/word", "Subject")
#: What each column sorts by (history_state.HistoryState.sort_key).
SORT_KEYS = {"Commit": "log", "Date": "date", **{c: c for c in COST_COLUMNS}, "Words": WORDS, "t/word": PER_WORD,
             "Subject": "subject"}
COST_ROLE = Qt.ItemDataRole.UserRole + 1  # tokens to re-embed (int) or None
SPIKE_ROLE = Qt.ItemDataRole.UserRole + 2  # the cell is a spike in its column's series
ADDED_ROLE = Qt.ItemDataRole.UserRole + 3  # the commit added the file: its bar is off the scale
ADDED_NOTE = "added the file: every token is new, so its bar is hatched and not on the edits' scale"


class HistoryModel(QAbstractTableModel):
    """A thin table over a HistoryState; `refresh()` after the state changed."""

    def __init__(self, state: HistoryState, parent=None):
        super().__init__(parent)
        self.state = state
        self._spikes: dict[str, set[int]] = {}
        self.sort_column, self.descending = "Commit", False  # the log's order, newest first
        self.order: list[int] = []  # table row -> the state's row

    def refresh(self) -> None:
        self.beginResetModel()
        self._spikes = {column: set(self.state.spike_rows(column)) for column in COST_COLUMNS}
        self._order()
        self.endResetModel()

    def _order(self) -> None:
        key = SORT_KEYS[self.sort_column]
        # the log's own order reads newest first ascending, as the dock lists it
        descending = not self.descending if key == "log" else self.descending
        self.order = self.state.sorted_rows(key, descending)

    def sort(self, column: int, order=Qt.SortOrder.AscendingOrder) -> None:
        """Sort by a column: costs, words, t/word largest first when descending."""
        self.layoutAboutToBeChanged.emit()
        self.sort_column, self.descending = COLUMNS[column], order == Qt.SortOrder.DescendingOrder
        self._order()
        self.layoutChanged.emit()

    def state_row(self, view_row: int) -> int:
        return self.order[view_row] if 0 <= view_row < len(self.order) else view_row

    def view_row(self, state_row: int) -> int:
        try:
            return self.order.index(state_row)
        except ValueError:
            return state_row

    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(self.state.commits)

    def columnCount(self, parent=QModelIndex()) -> int:  # noqa: N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section, orientation, role=Qt.ItemDataRole.DisplayRole):  # noqa: N802
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section]
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.ToolTipRole:
            name = COLUMNS[section]
            if name in COST_COLUMNS:
                return f"Tokens to re-embed under {name} (the bars share one scale across the columns shown)"
            if name == "Words":
                return "Words the commit changed in the file (inserted, deleted or replaced; the larger side)"
            if name == "t/word":
                return (f"Tokens to re-embed under {PER_WORD_RULE} per changed word: sort by it to find the small "
                        "edits that cost the most")
        return None

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        row, name = self.state_row(index.row()), COLUMNS[index.column()]
        c = self.state.commits[row]
        if role == COST_ROLE:
            return self.state.tokens(row, name) if name in COST_COLUMNS else None
        if role == Qt.ItemDataRole.TextAlignmentRole and name in ("Words", "t/word"):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == SPIKE_ROLE:
            return row in self._spikes.get(name, ())
        if role == ADDED_ROLE:
            return self.state.added(row)
        if role == Qt.ItemDataRole.DisplayRole:
            if name == "Commit":
                return c.short
            if name == "Date":
                return self.state.date(row)
            if name == "Subject":
                return shown_name(c.subject)
            if name == "Words":
                w = self.state.words_changed(row)
                return "" if w is None else f"{w:,}"
            if name == "t/word":
                p = self.state.cost_per_word(row)
                return "" if p is None else f"{p:,.1f}"
            t = self.state.tokens(row, name)
            return "" if t is None else f"{t:,}"
        if role == Qt.ItemDataRole.ToolTipRole:
            tip = self.state.row_tooltip(row)
            return plain_tooltip(tip + "\n" + ADDED_NOTE[0].upper() + ADDED_NOTE[1:] if self.state.added(row) else tip)
        if role == Qt.ItemDataRole.AccessibleTextRole and name in COST_COLUMNS:
            t = self.state.tokens(row, name)
            if t is None:
                return f"{name}: not computed"
            return f"{name}: {t:,} tokens to embed, " + ADDED_NOTE if self.state.added(row) else \
                f"{name}: {t:,} tokens to re-embed"
        return None


class CostBarDelegate(QStyledItemDelegate):
    """A cost cell: a bar against the history's longest shown (one scale for every
    column), the number over it; a spike of its column in the loud shifted colour, not
    only longer."""

    def __init__(self, view: "HistoryView"):
        super().__init__(view)
        self.view = view

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index) -> None:
        tokens = index.data(COST_ROLE)
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        opt.text = ""
        style = opt.widget.style() if opt.widget is not None else None
        if style is not None:
            style.drawControl(QStyle.ControlElement.CE_ItemViewItem, opt, painter, opt.widget)
        if tokens is None:
            return
        theme = self.view.theme
        scale = self.view.state.scale
        r = QRectF(option.rect).adjusted(3, 4, -3, -4)
        painter.save()
        if index.data(ADDED_ROLE) and tokens > 0:
            # the whole file, drawn across the cell in hatching: past the scale, never a spike
            painter.fillRect(r, QBrush(QColor(theme.bar), Qt.BrushStyle.BDiagPattern))
        elif scale > 0 and tokens > 0:
            width = min(r.width(), max(2.0, r.width() * tokens / scale))  # a cost, however small, is visible
            colour = QColor(theme.status["shifted"] if index.data(SPIKE_ROLE) else theme.bar)
            painter.fillRect(QRectF(r.left(), r.top(), width, r.height()), colour)
        painter.setPen(QColor(theme.text))
        painter.drawText(r.adjusted(2, 0, -2, 0), Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                         f"{tokens:,}")
        painter.restore()

    def sizeHint(self, option, index) -> QSize:  # noqa: N802
        return QSize(96, super().sizeHint(option, index).height())


class HistoryView(QWidget):
    commit_activated = Signal(int)  # the row clicked: load its parent and it into A and B
    cancel_requested = Signal()
    refresh_requested = Signal()
    baseline_toggled = Signal(bool)  # the user showed or hid the fixed-size baseline

    def __init__(self, theme: Theme, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("historyView")
        self.theme = theme
        self.state = HistoryState()
        self.model = HistoryModel(self.state, self)
        v = QVBoxLayout(self)
        v.setContentsMargins(4, 4, 4, 4)
        v.setSpacing(4)
        top = QHBoxLayout()
        self.note = QLabel(self.state.note)
        self.note.setObjectName("historyNote")
        self.note.setTextFormat(Qt.TextFormat.PlainText)  # file names are data
        self.note.setWordWrap(True)
        top.addWidget(self.note, 1)
        self.progress = QProgressBar()
        self.progress.setObjectName("historyProgress")
        self.progress.setFormat("%v / %m commits")
        # room for its text at any scale: squeezed by the note beside it, the text wrapped
        # and was clipped inside the bar
        room = self.progress.fontMetrics().horizontalAdvance("00000 / 00000 commits")
        self.progress.setMinimumWidth(room + 2 * self.progress.fontMetrics().horizontalAdvance("0"))
        self.progress.setMaximumWidth(self.progress.minimumWidth() + 40)
        self.progress.hide()
        top.addWidget(self.progress)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop computing the costs; the commits stay listed")
        self.cancel_button.clicked.connect(self.cancel_requested)
        self.cancel_button.hide()
        top.addWidget(self.cancel_button)
        self.refresh_button = QPushButton("Recompute")
        self.refresh_button.setToolTip("Read the file's history again and compute its costs with the "
                                       "parameters now in force")
        self.refresh_button.clicked.connect(self.refresh_requested)
        top.addWidget(self.refresh_button)
        self.baseline_box = QCheckBox("Show baseline")
        self.baseline_box.setObjectName("historyBaseline")
        self.baseline_box.setToolTip("Show what a fixed-size chunker would re-embed: it re-embeds everything after "
                                     "an edit, so its bars set the scale and the rules' bars shrink")
        self.baseline_box.toggled.connect(self._baseline_toggled)
        top.addWidget(self.baseline_box)
        v.addLayout(top)
        self.table = QTableView()
        self.table.setObjectName("historyTable")
        self.table.setAccessibleName("Commits of the file in A, newest first, with tokens to re-embed per rule")
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.bars = CostBarDelegate(self)
        header = self.table.horizontalHeader()
        for col, name in enumerate(COLUMNS):
            if name in COST_COLUMNS:
                self.table.setItemDelegateForColumn(col, self.bars)
                header.setSectionResizeMode(col, QHeaderView.ResizeMode.Fixed)
                self.table.setColumnWidth(col, 110)
            elif name == "Subject":
                header.setSectionResizeMode(col, QHeaderView.ResizeMode.Stretch)
            else:
                header.setSectionResizeMode(col, QHeaderView.ResizeMode.ResizeToContents)
        header.setSortIndicator(COLUMNS.index("Commit"), Qt.SortOrder.AscendingOrder)
        self._sorted_section = COLUMNS.index("Commit")
        self.table.setSortingEnabled(True)  # e.g. t/word, largest first: the small edits that cost most
        header.sortIndicatorChanged.connect(self._largest_first)  # after the table's own slot, which sorts
        self.table.clicked.connect(lambda index: self.commit_activated.emit(self.model.state_row(index.row())))
        self.table.activated.connect(lambda index: self.commit_activated.emit(self.model.state_row(index.row())))
        v.addWidget(self.table, 1)
        self.set_show_baseline(self.state.show_baseline)

    def _largest_first(self, section: int, order) -> None:
        """A first click on a number's column sorts it largest first (one click to the
        small edits that cost most); the next click turns it round, as usual."""
        first = section != self._sorted_section
        self._sorted_section = section
        if first and COLUMNS[section] in (*COST_COLUMNS, "Words", "t/word") and order == Qt.SortOrder.AscendingOrder:
            self.table.horizontalHeader().setSortIndicator(section, Qt.SortOrder.DescendingOrder)

    def set_show_baseline(self, shown: bool) -> None:
        """Show or hide the baseline's column (the bars rescale to the columns shown)."""
        self.state.show_baseline = shown
        self.baseline_box.setChecked(shown)
        self.table.setColumnHidden(COLUMNS.index(FIXED), not shown)
        self.table.viewport().update()

    def _baseline_toggled(self, shown: bool) -> None:
        if shown != self.state.show_baseline:
            self.set_show_baseline(shown)
            self.baseline_toggled.emit(shown)

    def refresh(self) -> None:
        """Show the state again (its commits, costs or note changed)."""
        self.model.refresh()
        self.note.setText(self.state.note)

    def set_progress(self, done: int, total: int) -> None:
        self.progress.setRange(0, max(total, 1))
        self.progress.setValue(done)

    def set_running(self, running: bool) -> None:
        self.progress.setVisible(running)
        self.cancel_button.setVisible(running)
        if running:
            self.progress.setRange(0, 0)  # busy until the first progress report

    def select_commit(self, row: int | None) -> None:
        """Mark the commit B shows (without loading anything)."""
        if row is None:
            self.table.clearSelection()
            self.table.selectionModel().clearCurrentIndex()
            return
        self.table.selectRow(self.model.view_row(row))
        self.table.scrollTo(self.model.index(self.model.view_row(row), 0))

    def row_rect(self, row: int, column: str = "Commit"):
        """Where a row's cell is, in the table's viewport (tests click there)."""
        return self.table.visualRect(self.model.index(self.model.view_row(row), COLUMNS.index(column)))

    def sort_by(self, column: str, descending: bool = True) -> None:
        """Sort as a click on the column's header does (the header shows it)."""
        self.table.sortByColumn(COLUMNS.index(column),
                                Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self.table.viewport().update()
