"""The widgets follow the session's view options and display: the View menu's checks,
which panes are editable, syntax colour, the legend, the chunk table's filter; wrap and
zoom alike in both panes, so their lines stay comparable."""

from __future__ import annotations

from typing import Mapping

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction

from ..model.session import Session
from ..model.view_state import Display, ViewOptions
from ..widgets.chunk_table import ChunkTable
from ..widgets.document_pane import DocumentPane
from ..widgets.legend import Legend
from ..widgets.link_map import LinkMap
from .editing import EditController
from .navigation import NavigationController

#: The view option each checkable View action shows (option -> the window's act_<name>).
VIEW_ACTIONS = {"sync_scroll": "sync", "syntax_colour": "syntax", "legend": "legend", "edit_a": "edit_a",
                "edit_b": "edit_b", "wrap": "wrap"}


class ViewOptionsController(QObject):
    """`actions`: the View menu's checkable actions by the option they show (VIEW_ACTIONS)."""

    def __init__(self, session: Session, panes: Mapping[str, DocumentPane], actions: Mapping[str, QAction],
                 legend: Legend, table: ChunkTable, link_map: LinkMap, editing: EditController,
                 navigation: NavigationController, parent: QObject | None = None):
        super().__init__(parent)
        self.panes, self.actions, self.legend, self.table = panes, actions, legend, table
        self.link_map, self.editing, self.navigation = link_map, editing, navigation
        self._shown: ViewOptions | None = None  # the view options last applied to the widgets
        session.events.view_changed.connect(self.show_view)
        session.events.display_changed.connect(self.show_display)

    def show_view(self, view: ViewOptions) -> None:
        """Widgets follow the session's view options (a workspace, or a menu toggle).
        Only what changed since the last call is applied: some of it is O(document)
        (syntax colouring), and a key typed in the table filter changes the view too."""
        shown, self._shown = self._shown, view

        def changed(name: str) -> bool:
            return shown is None or getattr(shown, name) != getattr(view, name)

        for name in ("sync_scroll", "syntax_colour", "legend", "edit_a", "edit_b"):
            if changed(name):
                self.actions[name].setChecked(getattr(view, name))  # its handler sets the same value again: no loop
        for side, name in (("A", "edit_a"), ("B", "edit_b")):
            if changed(name) and self.panes[side].editable != getattr(view, name):
                self.editing.set_editable(side, getattr(view, name))
        if changed("syntax_colour"):
            for pane in self.panes.values():
                pane.set_syntax_enabled(view.syntax_colour)
        if changed("legend"):
            self.legend.setVisible(view.legend)
        if changed("chunk_filter"):
            self.table.set_filter_state(view.chunk_filter)

    def show_display(self, display: Display) -> None:
        """Both panes wrap and zoom alike, so their lines stay comparable."""
        self.actions["wrap"].setChecked(display.wrap)
        for pane in self.panes.values():
            pane.set_display(display.wrap, display.zoom)
        self.link_map.update()
        self.navigation.sync_from(self.navigation.active_side)
