"""The chunk table: every chunk of A and B, sortable and filterable. Selecting a row
selects the chunk in its pane (and the other way round, through the main window)."""

from __future__ import annotations

from PySide6.QtCore import QItemSelectionModel, Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from ..model.view_state import FILTER_STATUSES, FILTER_VERSIONS
from .models import COLUMNS, ChunkFilterProxy, ChunkTableModel
from .palette import LIGHT, Theme

_VERSION_LABELS = {"": "A and B"}
_STATUS_LABELS = {"": "any status", "changed": "changed (not reused)"}
# the session accepts exactly these values, so a workspace cannot hold a filter not shown
VERSION_CHOICES = tuple((_VERSION_LABELS.get(v, v), v) for v in FILTER_VERSIONS)
STATUS_CHOICES = tuple((_STATUS_LABELS.get(s, s), s) for s in FILTER_STATUSES)


class ChunkTable(QWidget):
    chunk_selected = Signal(str, int)  # side, chunk index: the user selected a row
    filter_changed = Signal(dict)  # filter_state(), after the user or set_filter_state changed it

    def __init__(self, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("chunkTableBox")
        self.setAccessibleName("Chunks")
        self.model = ChunkTableModel(theme, self)
        self.proxy = ChunkFilterProxy(self)
        self.proxy.setSourceModel(self.model)
        self._quiet = False

        self.filter_edit = QLineEdit()
        self.filter_edit.setObjectName("chunkFilter")
        self.filter_edit.setPlaceholderText("filter: status, kind, hash…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setAccessibleName("Filter chunks")
        self.filter_edit.textChanged.connect(lambda t: self._filter(text=t))
        self.version_combo = QComboBox()
        self.version_combo.setObjectName("chunkVersionFilter")
        self.version_combo.setAccessibleName("Show chunks of version")
        for text, value in VERSION_CHOICES:
            self.version_combo.addItem(text, value)
        self.version_combo.currentIndexChanged.connect(
            lambda _i: self._filter(version=self.version_combo.currentData()))
        self.status_combo = QComboBox()
        self.status_combo.setObjectName("chunkStatusFilter")
        self.status_combo.setAccessibleName("Show chunks with status")
        for text, value in STATUS_CHOICES:
            self.status_combo.addItem(text, value)
        self.status_combo.currentIndexChanged.connect(
            lambda _i: self._filter(status=self.status_combo.currentData()))
        self.count_label = QLabel()
        self.count_label.setObjectName("chunkCount")

        self.view = QTableView()
        self.view.setObjectName("chunkTable")
        self.view.setAccessibleName("Chunk table")
        self.view.setAccessibleDescription("Every chunk of A and B: version, index, status, kind, tokens, words, "
                                           "offsets and hash. Selecting a row shows the chunk in its pane.")
        self.view.setModel(self.proxy)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # unsorted at first (A's chunks, then B's); a header click sorts
        self.view.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.view.setSortingEnabled(True)
        self.view.setAlternatingRowColors(False)
        self.view.verticalHeader().setVisible(False)
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 6)
        self.view.setWordWrap(False)
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        header.setStretchLastSection(True)
        widths = {"version": 54, "index": 48, "status": 78, "kind": 64, "snapped": 62, "tokens": 56,
                  "words": 52, "offsets": 110}
        for c, name in enumerate(COLUMNS):
            if name in widths:
                self.view.setColumnWidth(c, widths[name])
        self.view.selectionModel().selectionChanged.connect(self._on_selection)
        self.proxy.rowsInserted.connect(self._update_count)
        self.proxy.rowsRemoved.connect(self._update_count)
        self.proxy.modelReset.connect(self._update_count)
        self.proxy.layoutChanged.connect(self._update_count)
        # rows the filter hides come and go without a signal from the proxy: "N of M"
        # must follow the model too
        self.model.rowsInserted.connect(self._update_count)
        self.model.rowsRemoved.connect(self._update_count)
        self.model.modelReset.connect(self._update_count)

        row = QHBoxLayout()
        row.setSpacing(6)
        row.addWidget(self.version_combo)
        row.addWidget(self.status_combo, 1)
        row.addWidget(self.count_label)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(4, 4, 4, 4)
        lay.setSpacing(4)
        lay.addWidget(self.filter_edit)
        lay.addLayout(row)
        lay.addWidget(self.view, 1)
        self._update_count()

    def _filter(self, **changes) -> None:
        self.proxy.set_filters(**changes)
        self.filter_changed.emit(self.filter_state())

    def filter_state(self) -> dict[str, str]:
        """The filters as a workspace saves them: text, version ("", "A", "B") and status
        ("", "changed" or a status name)."""
        return {"text": self.filter_edit.text(), "version": self.version_combo.currentData() or "",
                "status": self.status_combo.currentData() or ""}

    def set_filter_state(self, state: dict) -> None:
        """Apply saved filters; an unknown version or status, or a value that is not a
        string, leaves that filter as it is."""
        for combo, key in ((self.version_combo, "version"), (self.status_combo, "status")):
            value = state.get(key, "")
            i = combo.findData(value) if isinstance(value, str) else -1
            if i >= 0 and i != combo.currentIndex():
                combo.setCurrentIndex(i)
        text = state.get("text")
        if isinstance(text, str) and text != self.filter_edit.text():
            self.filter_edit.setText(text)

    def set_result(self, a, b, status_a=None, status_b=None, fields_a=None, fields_b=None) -> None:
        """`fields_a`, `fields_b`: the chunkings' viewmodel.ChunkFields, if the caller has them."""
        self._quiet = True
        try:
            self.model.set_result(a, b, status_a, status_b, fields_a, fields_b)
        finally:
            self._quiet = False

    def set_theme(self, theme: Theme) -> None:
        self.model.set_theme(theme)

    def _update_count(self, *_args) -> None:
        self.count_label.setText(f"{self.proxy.rowCount():,} of {self.model.rowCount():,}")

    def row_for(self, side: str, index: int) -> int | None:
        """The view row showing a chunk (None if filtered out)."""
        src = self.model.row_of(side, index)
        if src is None:
            return None
        proxy_index = self.proxy.mapFromSource(self.model.index(src, 0))
        return proxy_index.row() if proxy_index.isValid() else None

    def selected_chunk(self) -> tuple[str, int] | None:
        rows = self.view.selectionModel().selectedRows()
        if not rows:
            return None
        src = self.proxy.mapToSource(rows[0])
        return self.model.chunk_at_row(src.row())

    def select_chunk(self, side: str, index: int | None) -> None:
        """Select (and scroll to) a chunk's row without emitting chunk_selected."""
        self._quiet = True
        try:
            sm = self.view.selectionModel()
            row = self.row_for(side, index) if index is not None else None
            if row is None:
                sm.clearSelection()
                return
            ix = self.proxy.index(row, 0)
            sm.select(ix, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows)
            sm.setCurrentIndex(ix, QItemSelectionModel.SelectionFlag.NoUpdate)
            self.view.scrollTo(ix, QAbstractItemView.ScrollHint.EnsureVisible)
        finally:
            self._quiet = False

    def _on_selection(self, *_args) -> None:
        if self._quiet:
            return
        chunk = self.selected_chunk()
        if chunk is not None:
            self.chunk_selected.emit(*chunk)
