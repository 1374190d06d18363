"""The inspector window: two versions of a document, their cuts by kind, how their
chunks line up, what the edit cost, live parameters and live editing.

Layout (built in __init__ by _build_widgets; dock_layout.py fits it to the screen): the
central widget holds the message bar, the legend and a row `panes_row` = [pane A | link
map | pane B | overview map]. Parameters (left), churn (right), diagnostics and the chunk
table (bottom) are docks.

The state lives in a Qt-free `Session` (model/session.py); this window declares the
widgets and the parts that connect them to it (controllers/, docks/), which the app and
tests drive directly (window.documents_ctl, window.exports, window.workspaces, …):
- documents.py: loading and analysis requests; editing.py: typing and the edit pause;
- presenter.py: renders documents and results; chrome.py: pane headers, title, status
  line, churn columns; navigation.py: selection, navigation, synchronized scrolling;
  view_options.py: the widgets follow the view options; file_output.py: Save as… and exports; workspace_controller.py; disk_watch.py: reload
  on change; recent.py; theme.py; actions.py (beside this module): menus as data, built
  into `self.act`; dock_layout.py: the docks for the screen.
Each part is given the widgets, session, jobs and the few callables it must query, never
this window; parts talk through the session's events (session.events, also messages for
the user: session.tell), and the window forwards their own signals as its public ones
(exported, saved, workspace_opened, …).
A parameter edit: ParamsPanel.params_changed(params) → Session.set_params(params) →
events.analysis_wanted → DocumentController.submit (session.analysis_inputs()) → worker →
Analyzer.result_ready(result) → Session.accept_result → events.result_changed →
ResultPresenter renders the result's chunkings and layouts.
"""

from __future__ import annotations

from typing import Callable

from PySide6.QtCore import QThreadPool, Qt, Signal
from PySide6.QtWidgets import (QDockWidget, QHBoxLayout, QLabel, QMainWindow, QMessageBox, QScrollArea,
                               QVBoxLayout, QWidget)
from steadlith_core import ChunkerParams

from .actions import Actions
from .controllers.disk_watch import ReloadOnChange
from .controllers.documents import DocumentController
from .controllers.editing import EditController
from .controllers.external_controller import ExternalController
from .controllers.file_output import ExportController
from .controllers.navigation import NavigationController
from .controllers.chrome import ChurnColumns, PaneHeaders, StatusLine, WindowTitle
from .controllers.presenter import ResultPresenter, ResultViews
from .controllers.recent import RecentFilesMenu
from .controllers.references import ReferenceMarks
from .controllers.recovery import RecoveryController
from .controllers.revision_open import RevisionOpener
from .controllers.settings import AppSettings
from .controllers.theme import ThemeController, resolve
from .controllers.view_options import VIEW_ACTIONS, ViewOptionsController
from .controllers.why import WhyController
from .controllers.workspace_controller import WorkspaceController
from .dock_layout import AREA, DockLayout, Docks, DocumentFocus, ScreenFit, standard_docks
from .docks.history_dock import HISTORY_HEIGHT, HistoryController
from .docks.lab_dock import LAB_HEIGHT, LabController
from .docks.retrieval_dock import RetrievalDock
from .docks.sweep_dock import SweepDock
from .model.recovery import RecoveryStore
from .model.session import SIDES, Session
from .model.view_state import THEME_CHOICES
from .widgets.chunk_table import ChunkTable
from .widgets.churn import ChurnPanel
from .widgets.dock_scroll import DockScroll
from .widgets.diagnostics import DiagnosticsView
from .widgets.document_pane import DocumentPane
from .widgets.find_bar import FindBar
from .widgets.history_view import HistoryView
from .widgets.lab_view import LabView
from .widgets.legend import Legend
from .widgets.link_map import LinkMap
from .widgets.message_bar import MessageBar
from .widgets.overview_map import OverviewMap
from .widgets.palette import LIGHT, Theme
from .widgets.pane_column import PaneColumn
from .widgets.params_panel import ParamsPanel
from .widgets.retrieval_view import RetrievalView
from .widgets.sweep_view import SweepView
from .workers.worker import Jobs


#: The least height the Diagnostics dock keeps (its rows scroll below it).
DIAGNOSTICS_MIN_HEIGHT = 120


def _ask_discard(parent: QWidget, question: str) -> bool:
    answer = QMessageBox.question(
        parent, "Discard edits?", question,
        QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Cancel)
    return answer == QMessageBox.StandardButton.Discard


def _set_title(window: QWidget, title: str, modified: bool) -> None:
    window.setWindowTitle(title)
    window.setWindowModified(modified)


def _scrolled(widget: QWidget, framed: bool = True) -> QScrollArea:
    """`widget` in a scroll area that resizes it: a dock's content scrolls rather than
    hold the window larger than its screen."""
    scroll = QScrollArea()
    scroll.setWidgetResizable(True)
    if not framed:
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
    scroll.setWidget(widget)
    return scroll


class MainWindow(QMainWindow):
    analysis_ready = Signal(object)  # AnalysisResult, emitted once the shown result updated, churn panel complete
    # emitted each time a result reaches the panes, docks and churn panel, also when the
    # churn panel still waits for the baseline or another rule (AnalysisResult.pending)
    result_shown = Signal(object)
    load_failed = Signal(str)  # a load left (one side of) the documents as they were
    documents_changed = Signal()
    chunk_selected = Signal(str, object)  # side, chunk index (None: cleared)
    exported = Signal(str, str)  # kind (report, comparison, chunks-A, chunks-B, png), path written
    export_failed = Signal(str, str)  # kind, message (also shown in the message bar)
    workspace_opened = Signal(str)  # path: documents, parameters and view applied, analysis started
    workspace_saved = Signal(str)  # path
    workspace_failed = Signal(str)  # message: nothing was changed
    disk_change_handled = Signal(str, str)  # side, outcome: reloaded, unchanged, kept, missing, failed
    theme_changed = Signal(str)  # the theme now shown: light or dark
    saved = Signal(str, str)  # side, path: Save as… wrote the pane's text
    save_failed = Signal(str, str)  # side, message (also shown in the message bar)

    def __init__(self, params: ChunkerParams | None = None, theme: Theme | str = LIGHT,
                 parent: QWidget | None = None, *, settings: AppSettings | None = None,
                 recovery: RecoveryStore | None = None):
        """`theme`: a Theme or a choice ("system", "light", "dark"). `settings`: where
        recent files, layout and last parameters are kept (default: in memory only;
        the app passes AppSettings.user()). `recovery`: where unsaved edits are kept for
        a crash (default: nowhere; the app passes the user's). Nothing is restored here:
        see restore_settings() and recovery.offer_left_behind()."""
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("Steadlith Inspector[*]")
        self.settings = settings if settings is not None else AppSettings.memory()
        self._recovery_store = recovery
        choice = theme if isinstance(theme, str) else theme.name
        if choice not in THEME_CHOICES:
            raise ValueError(f"unknown theme {theme!r}")
        theme = resolve(choice)
        # asked before edits are discarded (close, reload, load over them); tests replace it
        self.confirm_discard: Callable[[str], bool] = lambda question: _ask_discard(self, question)
        self.jobs = Jobs(self)
        self._build_widgets(params, theme)
        self.document_focus = DocumentFocus(self.docks, self.statusBar())
        self.session = Session(params, confirm=lambda q: self.confirm_discard(q),
                               text_provider=lambda side: self.panes[side].current_text())
        self.session.set_view(theme=choice)
        self.recent_menu = RecentFilesMenu(self.settings, self)
        self.act = Actions(self, self, recent_menu=self.recent_menu, docks=self.docks, theme_choice=choice,
                           toolbar_label=self.shown_label)
        self._build_parts(theme)
        self.setAcceptDrops(True)
        self.dock_layout.size_for_screen()
        self.screen_fit = ScreenFit(self, self.dock_layout, self.pane_b, self.document_focus)
        self.theme_ctl.show(theme)
        self.exports.update_actions()

    def _build_widgets(self, params: ChunkerParams | None, theme: Theme) -> None:
        """The widget tree: the central row of panes and maps, the docks and the status
        bar label. Only construction and placement; _build_parts wires them to the session."""
        self._build_central(theme)
        self._build_docks(params, theme)
        self.busy_label = QLabel("")
        self.busy_label.setObjectName("busyLabel")
        self.statusBar().addPermanentWidget(self.busy_label)
        self.shown_label = QLabel("")  # the parameters of the chunks shown, at the toolbar's end
        self.shown_label.setObjectName("shownHash")
        self.shown_label.setTextFormat(Qt.TextFormat.RichText)
        self.shown_label.setContentsMargins(0, 0, 8, 0)

    def _build_central(self, theme: Theme) -> None:
        """Message bar, legend, then [pane A | link map | pane B | overview] (`panes_row`)."""
        self.message_bar = MessageBar(theme)
        self.legend = Legend(theme)
        self.pane_a = DocumentPane("A", theme)
        self.pane_b = DocumentPane("B", theme)
        self.pane_b.set_editable(True)
        self.panes = {"A": self.pane_a, "B": self.pane_b}
        self.columns = {s: PaneColumn(self.panes[s], s, theme) for s in SIDES}
        self.link_map = LinkMap(self.pane_a, self.pane_b, theme)
        self.overview = OverviewMap(self.pane_a, self.pane_b, theme)
        central = QWidget()
        central.setObjectName("central")
        v = QVBoxLayout(central)
        v.setContentsMargins(6, 4, 6, 2)
        v.setSpacing(4)
        v.addWidget(self.message_bar)
        v.addWidget(self.legend)
        self.find_bar = FindBar()
        v.addWidget(self.find_bar)
        self.panes_row = QHBoxLayout()
        self.panes_row.setSpacing(0)
        self.panes_row.addWidget(self.columns["A"], 1)
        self.panes_row.addWidget(self.link_map)
        self.panes_row.addWidget(self.columns["B"], 1)
        self.panes_row.addSpacing(4)
        self.panes_row.addWidget(self.overview)
        v.addLayout(self.panes_row, 1)
        self.setCentralWidget(central)

    def _add_dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea,
                  hidden: bool = False) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        if hidden:
            dock.hide()
        return dock

    def _build_docks(self, params: ChunkerParams | None, theme: Theme) -> None:
        """Parameters left; churn over the chunk table right; diagnostics at the bottom."""
        self.params_panel = ParamsPanel(params, theme)
        scroll = _scrolled(self.params_panel)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(self.params_panel.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)
        self.params_dock = self._add_dock("Parameters", "paramsDock", scroll, AREA.LeftDockWidgetArea)
        self.churn = ChurnPanel(theme)
        # whole in a column; tabbed under the panes (a small screen, every dock open) it asks
        # for a few rows and scrolls, so it does not set the height of every bottom tab
        churn_scroll = DockScroll(self.churn, 10 * self.churn.fontMetrics().lineSpacing())
        self.churn_dock = self._add_dock("Churn  (A → B)", "churnDock", churn_scroll, AREA.RightDockWidgetArea)
        self.churn_dock.dockLocationChanged.connect(
            lambda area: churn_scroll.set_short(area == AREA.BottomDockWidgetArea))
        self.churn_dock.topLevelChanged.connect(lambda floating: floating and churn_scroll.set_short(False))
        self.diagnostics = DiagnosticsView(theme)
        self.diagnostics_a, self.diagnostics_b = self.diagnostics.panel_a, self.diagnostics.panel_b
        # scrolled, not squeezed: two side-by-side panels must not hold the window wide
        diag_scroll = _scrolled(self.diagnostics, framed=False)
        diag_scroll.setMinimumWidth(200)
        # whole rows where there is room; on a short screen a scroll bar rather than a
        # window taller than the screen (ScreenFit tabs the bottom docks)
        diag_scroll.setMinimumHeight(min(self.diagnostics.minimumSizeHint().height() + 2, DIAGNOSTICS_MIN_HEIGHT))
        self.diagnostics_dock = self._add_dock("Diagnostics  (A | B)", "diagnosticsDock", diag_scroll,
                                               AREA.BottomDockWidgetArea)
        self.lab_view = LabView(theme)
        # hidden until View → Locality lab (dock_layout.follow_openings tabs it with the diagnostics)
        self.lab_dock = self._add_dock("Locality lab  (edits of A)", "labDock", self.lab_view,
                                       AREA.BottomDockWidgetArea, hidden=True)
        self.retrieval_view = RetrievalView(theme)  # hidden until View → Retrieval
        self.retrieval_dock = self._add_dock("Retrieval", "retrievalDock", self.retrieval_view,
                                             AREA.BottomDockWidgetArea, hidden=True)
        self.table = ChunkTable(theme)
        self.chunk_table = self.table.view
        self.table_dock = self._add_dock("Chunks", "chunkTableDock", self.table, AREA.RightDockWidgetArea)
        standard_docks(self, self.params_dock, self.churn_dock, self.table_dock, self.diagnostics_dock)
        self.history = HistoryView(theme)  # hidden until asked for (View menu) or a revision is opened
        self.history_dock = self._add_dock("History  (file in A)", "historyDock", self.history,
                                           AREA.BottomDockWidgetArea, hidden=True)
        self.sweep_view = SweepView(theme)  # hidden until View → Sweep: the documents keep the room
        # scrolled when short: its chart keeps a readable height, the window its screen
        sweep_scroll = _scrolled(self.sweep_view, framed=False)
        sweep_scroll.setMinimumSize(260, 120)
        self.sweep_dock = self._add_dock("Sweep", "sweepDock", sweep_scroll, AREA.BottomDockWidgetArea, hidden=True)
        self.setCorner(Qt.Corner.BottomLeftCorner, AREA.LeftDockWidgetArea)
        self.setDockNestingEnabled(True)
        self.docks = Docks(self.params_dock, self.churn_dock, self.table_dock, self.diagnostics_dock,
                           self.history_dock, self.sweep_dock, self.lab_dock, self.retrieval_dock)
        self.dock_layout = DockLayout(self, self.docks)

    def _build_parts(self, theme: Theme) -> None:
        s = self.session
        s.events.message.connect(self.show_message)  # the parts tell the user through the session
        s.events.status.connect(self.show_status)
        self.theme_ctl = ThemeController(  # first: the other parts read the theme it shows
            s, theme, (self.message_bar, self.legend, self.pane_a, self.pane_b, self.params_panel, self.diagnostics,
                       self.link_map, self.overview, self.churn, self.table),
            self.settings, self.act.theme, parent=self)
        self.documents_ctl = DocumentController(s, self.recent_menu, dialogs=self, parent=self)
        self.analyzer, self.loader = self.documents_ctl.analyzer, self.documents_ctl.loader
        self.editing = EditController(self.panes, s, lambda: self.navigation.active_side, parent=self)
        self.navigation = NavigationController(
            s, self.panes, link_map=self.link_map, overview=self.overview, churn=self.churn, find_bar=self.find_bar,
            table=self.table, status=self.show_status, parent=self)
        self.churn_columns = ChurnColumns(self.churn, s)
        self.presenter = ResultPresenter(
            ResultViews(self.panes, self.link_map, self.overview, self.legend, self.table, self.diagnostics,
                        self.message_bar),
            s, self.analyzer, self.navigation, parent=self)
        # after the presenter: a pane shown in pieces is read-only before its header says so
        self.headers = PaneHeaders(self.columns, self.panes, s, lambda: self.theme_ctl.theme)
        self.window_title = WindowTitle(s, lambda title, modified: _set_title(self, title, modified))
        self.status_line = StatusLine(self.statusBar(), self.shown_label, self.busy_label, s,
                                      lambda: self.theme_ctl.theme)
        self.analyzer.failed.connect(self.headers.update_all)
        self.analyzer.busy_changed.connect(self.status_line.set_busy)
        for redraw in (self.headers.update_all, self.status_line.update):  # their texts hold the theme's colours
            self.presenter.result_shown.connect(redraw)
            self.theme_ctl.changed.connect(redraw)
        # after the presenter: the churn panel's list is rebuilt before the Why? section
        self.why = WhyController(self.panes, self.churn, s, self.navigation, parent=self)
        self.exports = ExportController(
            s, self.jobs, self.settings, self.panes,
            lab_result=lambda: self.lab.current_result(), picture=lambda: self.grab().toImage(),
            actions={"report": self.act["export_report"], "comparison": self.act["export_comparison"],
                     "chunks-A": self.act["export_chunks_a"], "chunks-B": self.act["export_chunks_b"]},
            dialogs=self, parent=self)
        self.reloader = ReloadOnChange(s, self.jobs, parent=self)
        self.watcher = self.reloader.disk.watcher
        self.external_ctl = ExternalController(self.churn, s, dialogs=self)
        self.history_ctl = HistoryController(
            self.history, self.history_dock, s, settings=self.settings, jobs=self.jobs,
            load_pair=self.documents_ctl.load_revision_pair,
            show_dock=lambda: self.dock_layout.open_before_diagnostics(self.history_dock, HISTORY_HEIGHT), parent=self)
        self.revisions = RevisionOpener(self.jobs, self.settings, self.documents_ctl, self.show_message, dialogs=self)
        self.sweep_ctl = SweepDock(self.sweep_view, s, parent=self)
        self.lab = LabController(self.lab_view, s, self.documents_ctl.load_texts, parent=self)
        self.workspaces = WorkspaceController(
            s, self.jobs, self.settings, recent=self.recent_menu, exports=self.exports, editing=self.editing,
            headers=self.headers, sweep=self.sweep_ctl, lab=self.lab, dialogs=self, parent=self)
        self.retrieval = RetrievalDock(self.retrieval_view, s, parent=self)
        self.dock_layout.follow_openings(LAB_HEIGHT, lambda: self.sweep_view.sizeHint().height() + 24)
        for view in (self.history, self.lab_view, self.retrieval_view):  # shown only when the theme changes
            self.theme_ctl.changed.connect(view.set_theme)
        self.references = ReferenceMarks(  # after the presenter: it reads the chunks the panes show
            self.panes, self.churn, s, self.retrieval.state, lambda: self.navigation.active_side,
            lambda side, index: self.navigation.select_chunk(side, index, scroll=False), parent=self)
        self.recovery = RecoveryController(self.panes, s, self._recovery_store, self.message_bar.show_offer,
                                           self.documents_ctl.restore_texts, parent=self)
        self.params_panel.bind(s)
        self.table.filter_changed.connect(lambda f: s.set_view(chunk_filter=f))
        self.view_follower = ViewOptionsController(
            s, self.panes, {name: self.act[key] for name, key in VIEW_ACTIONS.items()},
            self.legend, self.table, self.link_map, self.editing, self.navigation, parent=self)
        s.events.load_failed.connect(self.load_failed.emit)
        s.events.documents_changed.connect(self.documents_changed.emit)
        self.recent_menu.open_requested.connect(self._open_entry)
        self.recent_menu.missing.connect(lambda text: self.show_message(text, "warning"))
        for side, pane in self.panes.items():
            pane.zoom_requested.connect(s.zoom_by)
            pane.files_dropped.connect(lambda paths, sd=side: self.documents_ctl.files_dropped(paths, sd))
        # the parts' own outcomes as the window's signals; last, so that a listener to the
        # window sees every part done (every view in the new theme, say)
        ex, ws, nav, disk = self.exports, self.workspaces, self.navigation, self.reloader
        for ours, theirs in ((self.saved, ex.saved), (self.save_failed, ex.save_failed), (self.exported, ex.exported),
                             (self.export_failed, ex.export_failed), (self.workspace_saved, ws.saved),
                             (self.workspace_opened, ws.opened), (self.workspace_failed, ws.failed),
                             (self.chunk_selected, nav.chunk_selected), (self.disk_change_handled, disk.handled),
                             (self.result_shown, self.presenter.result_shown),
                             (self.analysis_ready, self.presenter.analysis_ready)):
            theirs.connect(ours.emit)
        self.theme_ctl.changed.connect(lambda t: self.theme_changed.emit(t.name))
        self.headers.update_all()
        self.status_line.update()

    # -- the window's own messages ---------------------------------------------------------
    def show_message(self, text: str, level: str = "error") -> None:
        self.message_bar.show_message(text, level)

    def show_status(self, text: str, ms: int = 5000) -> None:
        """A passing note in the status bar."""
        self.statusBar().showMessage(text, ms)

    def _open_entry(self, entry: dict) -> None:
        if "workspace" in entry:
            self.workspaces.open(entry["workspace"])
        else:
            self.documents_ctl.open_recent(entry)

    # -- settings, chrome ------------------------------------------------------------------
    def restore_settings(self, *, params: bool = True, theme: bool = True, layout: bool = True) -> None:
        """Restore what the settings remember: window geometry and docks, the last valid
        parameters, the theme choice (each unless the caller, i.e. the command line, decides it)."""
        if layout:
            geometry, state = self.settings.geometry(), self.settings.state()
            if geometry is not None:
                self.restoreGeometry(geometry)
            if state is not None:
                self.restoreState(state)
        saved = self.settings.saved_params() if params else None
        if saved is not None:
            self.session.set_all_params(*saved)
        elif params and self.settings.params_problem:
            self.show_message(self.settings.params_problem, "warning")
        if theme and self.settings.theme() is not None:
            self.theme_ctl.set_choice(self.settings.theme())
        self.recent_menu.rebuild()

    def save_settings(self) -> None:
        """Remember the layout and the last valid parameters (recent files and the theme
        choice are written when they change)."""
        self.settings.set_layout(self.saveGeometry(), self.saveState())
        self.settings.set_params(self.session.persisted_params, self.session.persisted_params_by_rule)
        self.settings.sync()

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        if hasattr(self, "screen_fit"):
            self.screen_fit.schedule()  # narrower panes: the side docks may have to give way

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self.documents_ctl.files_dropped(paths, None)

    def closeEvent(self, event) -> None:  # noqa: N802
        if not self.session.confirm_discard(SIDES):
            event.ignore()
            return
        self.editing.cancel_pause()
        self.recovery.close()  # closed on purpose: the user saved or chose to discard
        self.save_settings()
        for job in (self.lab.job, self.history_ctl.replay, self.sweep_ctl.job, self.why.job,  # each has a pool of its own
                    self.retrieval.job, self.retrieval.loader):
            job.shutdown(5000)
        QThreadPool.globalInstance().waitForDone(5000)
        super().closeEvent(event)
