"""Help → Keyboard shortcuts: a table of every key, built from the menus (so it can
never list a key the window does not have), and the keys of the widgets that have no
menu entry."""

from __future__ import annotations

from PySide6.QtWidgets import QAbstractItemView, QDialog, QHeaderView, QTableWidget, QTableWidgetItem, QVBoxLayout

#: Keys that belong to a widget, not to a menu entry.
WIDGET_KEYS = (
    ("Tab", "Move to the link map, the overview, the panes, the docks", "Window"),
    ("Ctrl+Tab", "Leave an editable pane (there Tab types a tab; Shift goes back)", "Document pane"),
    ("Down / Up", "Next / previous band (link map focused)", "Link map"),
    ("Home / End", "First / last band (link map focused)", "Link map"),
    ("Enter", "Show the current band again (link map focused)", "Link map"),
    ("Left / Right", "Choose strip A or B (overview focused)", "Overview"),
    ("Up / Down", "Scroll the chosen document (overview focused)", "Overview"),
    ("Alt+letter", "Open a menu by its underlined letter (Alt+F: File)", "Menus"),
)


class ShortcutsDialog(QDialog):
    def __init__(self, rows: list[tuple[str, str, str]], parent=None):
        """`rows`: (key, what it does, where) for every menu shortcut, in menu order."""
        super().__init__(parent)
        self.setObjectName("shortcutsDialog")
        self.setWindowTitle("Keyboard shortcuts")
        all_rows = [*rows, *WIDGET_KEYS]
        self.table = QTableWidget(len(all_rows), 3, self)
        self.table.setObjectName("shortcutsTable")
        self.table.setAccessibleName("Keyboard shortcuts")
        self.table.setHorizontalHeaderLabels(["Key", "Action", "Where"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        for r, row in enumerate(all_rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        lay = QVBoxLayout(self)
        lay.addWidget(self.table)
        self.resize(560, 520)

    def rows(self) -> list[tuple[str, str, str]]:
        return [tuple(self.table.item(r, c).text() for c in range(3)) for r in range(self.table.rowCount())]
