"""The inspector window: two versions of a document, their cuts by kind, how their
chunks line up, what the edit cost, live parameters and live editing.

Layout: the central widget holds the message bar, the legend and a horizontal row
`panes_row` = [pane A | link map | pane B | overview map]. Parameters (left), churn
(right), diagnostics and the chunk table (bottom) are docks.

Data flow: loads and edits become analysis requests (worker.py); a result carries the
two Chunkings, the core's Comparison and their layouts in Qt positions; the views only
display it. The GUI thread never computes chunks, diffs or statuses. While typing, a
keystroke restarts a single-shot timer; when it fires (EDIT_PAUSE_MS after the last
key) the edited text is sent to the worker. The result re-decorates the panes without
touching their text, caret or scroll position.

Reviewer workflow: File → Export writes the report (HTML), chunks (JSONL), the
comparison (JSON) or the window (PNG); `.steadlith` workspaces save and reopen the
documents, edits, parameters and view options; recent files, the layout, the last
parameters and the theme choice live in QSettings (settings.py); watched files reload
when they change on disk (after asking, if edited). Rendering, writing and reading
files run on the thread pool (worker.Jobs); this module only collects the immutable
inputs in the GUI thread and shows the outcome.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from PySide6.QtCore import QFileSystemWatcher, Qt, QTimer, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QMessageBox,
    QScrollArea,
    QStyleFactory,
    QVBoxLayout,
    QWidget,
)
from steadlith_core import ChunkerParams, ParameterError, load_text, parse_assignments
from steadlith_core.export import write_text_atomic

from . import exports
from .actions import build_menus, shortcut_rows
from .demo import EXAMPLES, PAIR_EXAMPLES, demo_paths
from .models import (
    STATUS_CODES,
    AnalysisResult,
    DocumentError,
    EditedSource,
    LoadedDocument,
    map_position,
    prepare_document,
)
from .palette import LIGHT, THEMES, Theme, qt_palette, system_theme_name
from .recent import RecentFilesMenu
from .settings import THEME_CHOICES, AppSettings
from .widgets.chunk_table import ChunkTable
from .widgets.churn import ChurnPanel
from .widgets.diagnostics import DiagnosticsView
from .widgets.document_pane import ABOVE, BELOW, DocumentPane, PaneColumn
from .widgets.legend import Legend
from .widgets.link_map import Band, LinkMap
from .widgets.message_bar import MessageBar
from .widgets.overview_map import OverviewMap, side_data
from .widgets.params_panel import ParamsPanel
from .worker import Analyzer, DocumentLoader, FileSource, Jobs, LoadBatch, TextSource
from .workspace import SUFFIX as WORKSPACE_SUFFIX
from .workspace import DocumentRef, Workspace, WorkspaceError, load_workspace, resolve_documents, save_workspace

SIDES = ("A", "B")
OTHER = {"A": "B", "B": "A"}
EDIT_PAUSE_MS = 300  # analysis starts this long after the last keystroke
DISK_CHANGE_PAUSE_MS = 150  # a change on disk is handled once the file was quiet this long
DISK_MISSING_RETRIES = 6  # a vanished file is looked for again this often (editors replace files)
NEEDS_COMPARISON = "it needs two analysed versions. Load A and B (or an example) and wait for the analysis."
EXPORT_WHAT = {"report": "report", "comparison": "comparison", "chunks-A": "chunks of A", "chunks-B": "chunks of B",
               "png": "picture of the window"}


def apply_theme(app: QApplication, theme: Theme) -> None:
    """Fusion style with the theme's palette, for the whole application."""
    style = QStyleFactory.create("Fusion")
    if style is not None and app.style().name().lower() != "fusion":
        app.setStyle(style)
    app.setPalette(qt_palette(theme))


def _read_workspace(path: str, assignments: Sequence[str] = ()) -> tuple[Workspace, dict]:
    """Read, check and index a workspace (thread pool): the Workspace and its documents
    as LoadedDocuments by side. All or nothing: any problem raises WorkspaceError."""
    ws = load_workspace(path)
    if assignments:
        try:
            ws = dataclasses.replace(ws, params=parse_assignments(list(assignments), base=ws.params))
        except ParameterError as e:
            raise WorkspaceError(path, None, f"invalid parameter given on top of it: {e}") from None
    docs = {}
    for side, (text, name, origin) in resolve_documents(ws).items():
        try:
            docs[side.upper()] = prepare_document(side.upper(), text, name=name, path=origin)
        except DocumentError as e:
            raise WorkspaceError(path, f"documents.{side}", str(e)) from None
    return ws, docs


class MainWindow(QMainWindow):
    analysis_ready = Signal(object)  # AnalysisResult, emitted once the shown result updated
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
                 parent: QWidget | None = None, *, settings: AppSettings | None = None):
        """`theme`: a Theme or a choice ("system", "light", "dark"). `settings`: where
        recent files, layout and last parameters are kept (default: in memory only;
        the app passes AppSettings.user()). Nothing is restored here: see restore_settings()."""
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("Steadlith Inspector[*]")
        self.settings = settings if settings is not None else AppSettings.memory()
        self.theme_choice = theme if isinstance(theme, str) else theme.name
        if self.theme_choice not in THEME_CHOICES:
            raise ValueError(f"unknown theme {theme!r}")
        theme = THEMES[system_theme_name() if self.theme_choice == "system" else self.theme_choice]
        self.theme = theme
        self._docs: dict[str, LoadedDocument | None] = {"A": None, "B": None}
        self._side_seq = {"A": 0, "B": 0}
        self._result: AnalysisResult | None = None
        self._consistent = False  # both panes show the result's chunkings (the comparison applies)
        self._align: dict[str, np.ndarray] = {}
        self._active_side = "B"
        self._syncing = False
        self._suppress_submit = False
        self._jump_seq: int | None = None
        self._jump_docs: tuple | None = None
        self._modified_after_load: dict[int, dict[str, bool]] = {}
        self.selection: tuple[str, int] | None = None
        # asked before edits are discarded (close, reload, load over them); tests replace it
        self.confirm_discard: Callable[[str], bool] = self._ask_discard
        self.analyzer = Analyzer(self)
        self.loader = DocumentLoader(self)
        self.jobs = Jobs(self)
        self.workspace_path: str | None = None  # the .steadlith file opened or saved last
        self._workspace_seq = 0  # latest Open workspace request; older ones are dropped
        self._private_seq = 0  # side sequence numbers of workspace/reload loads (negative)
        self._pending_loads: set[int] = set()  # loader batches not arrived yet
        self._load_revisions: dict[int, dict[str, int]] = {}  # pane revisions when a batch was requested
        self._recent_seqs: set[int] = set()  # loader batches that count as "recent files"
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_file_changed)
        self._disk_timers: dict[str, QTimer] = {}
        self._disk_missing: dict[str, int] = {}
        self._asking_disk: set[str] = set()

        # central: message bar, legend, panes with the link map between and the overview beside
        self.message_bar = MessageBar(theme)
        self.legend = Legend(theme)
        self.pane_a = DocumentPane("A", theme)
        self.pane_b = DocumentPane("B", theme)
        self.pane_b.set_editable(True)
        self.panes = {"A": self.pane_a, "B": self.pane_b}
        self.columns = {s: PaneColumn(self.panes[s]) for s in SIDES}
        self.link_map = LinkMap(self.pane_a, self.pane_b, theme)
        self.overview = OverviewMap(self.pane_a, self.pane_b, theme)
        central = QWidget()
        central.setObjectName("central")
        v = QVBoxLayout(central)
        v.setContentsMargins(6, 4, 6, 2)
        v.setSpacing(4)
        v.addWidget(self.message_bar)
        v.addWidget(self.legend)
        self.panes_row = QHBoxLayout()
        self.panes_row.setSpacing(0)
        self.panes_row.addWidget(self.columns["A"], 1)
        self.panes_row.addWidget(self.link_map)
        self.panes_row.addWidget(self.columns["B"], 1)
        self.panes_row.addSpacing(4)
        self.panes_row.addWidget(self.overview)
        v.addLayout(self.panes_row, 1)
        self.setCentralWidget(central)

        # docks
        self.params_panel = ParamsPanel(params, theme)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.params_panel)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(self.params_panel.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)
        area = Qt.DockWidgetArea
        self.params_dock = self._add_dock("Parameters", "paramsDock", scroll, area.LeftDockWidgetArea)
        self.churn = ChurnPanel(theme)
        self.churn_dock = self._add_dock("Churn  (A → B)", "churnDock", self.churn, area.RightDockWidgetArea)
        self.diagnostics = DiagnosticsView(theme)
        self.diagnostics_a, self.diagnostics_b = self.diagnostics.panel_a, self.diagnostics.panel_b
        self.diagnostics_dock = self._add_dock("Diagnostics  (A | B)", "diagnosticsDock", self.diagnostics,
                                               area.BottomDockWidgetArea)
        self.table = ChunkTable(theme)
        self.chunk_table = self.table.view
        self.table_dock = self._add_dock("Chunks", "chunkTableDock", self.table, area.RightDockWidgetArea)
        self.splitDockWidget(self.churn_dock, self.table_dock, Qt.Orientation.Vertical)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setDockNestingEnabled(True)

        self._edit_timer = QTimer(self)
        self._edit_timer.setSingleShot(True)
        self._edit_timer.setInterval(EDIT_PAUSE_MS)
        self._edit_timer.timeout.connect(self._on_edit_pause)

        self.recent_menu = RecentFilesMenu(self.settings, self)
        self.recent_menu.open_requested.connect(self.open_recent)
        self.recent_menu.missing.connect(lambda text: self.show_message(text, "warning"))
        build_menus(self)
        self._build_status()

        # wiring
        self.params_panel.params_changed.connect(self._on_params_changed)
        self.analyzer.result_ready.connect(self._on_result)
        self.analyzer.failed.connect(self._on_analysis_failed)
        self.analyzer.busy_changed.connect(self._on_busy)
        self.loader.loaded.connect(self._on_loaded)
        for side, pane in self.panes.items():
            pane.files_dropped.connect(lambda paths, s=side: self._on_files_dropped(paths, s))
            pane.edited.connect(lambda s=side: self._on_pane_edited(s))
            pane.document().modificationChanged.connect(lambda _m, s=side: self._on_modification_changed(s))
            pane.chunk_clicked.connect(lambda i, s=side: self.select_chunk(s, i, scroll=False))
            pane.focused.connect(lambda s=side: self._set_active_side(s))
            pane.verticalScrollBar().valueChanged.connect(lambda _v, s=side: self._on_pane_scrolled(s))
        self.link_map.band_clicked.connect(self._on_band_clicked)
        self.overview.jump_requested.connect(self.jump_to_position)
        self.churn.region_activated.connect(self.show_region)
        self.table.chunk_selected.connect(lambda s, i: self.select_chunk(s, i, scroll=True, from_table=True))
        self.setAcceptDrops(True)
        self.resize(1500, 950)
        self.resizeDocks([self.params_dock, self.churn_dock], [330, 350], Qt.Orientation.Horizontal)
        self.resizeDocks([self.diagnostics_dock], [250], Qt.Orientation.Vertical)
        self.resizeDocks([self.churn_dock, self.table_dock], [470, 380], Qt.Orientation.Vertical)
        self._apply_theme(theme)
        self._update_actions()
        hints = QGuiApplication.styleHints()
        if hasattr(hints, "colorSchemeChanged"):
            hints.colorSchemeChanged.connect(self._on_color_scheme_changed)

    def _add_dock(self, title: str, name: str, widget: QWidget, area: Qt.DockWidgetArea) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(name)
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        return dock

    # -- public API --------------------------------------------------------------------
    @property
    def result(self) -> AnalysisResult | None:
        """The shown result: result.a, result.b are the shown Chunkings of A and B,
        result.comparison their Comparison."""
        return self._result

    @property
    def comparison(self):
        """The shown comparison, if it applies to what the panes show."""
        r = self._result
        return r.comparison if r is not None and self._consistent else None

    @property
    def params(self) -> ChunkerParams:
        """The parameters in force (the last valid ones)."""
        return self.params_panel.params

    @property
    def sync_scrolling(self) -> bool:
        return self.act_sync.isChecked()

    def documents(self) -> tuple[LoadedDocument | None, LoadedDocument | None]:
        return self._docs["A"], self._docs["B"]

    def load_texts(self, text_a: str | None, text_b: str | None, name_a: str | None = None, name_b: str | None = None) -> None:
        """Show texts as A and B (None leaves a side as it is). Asynchronous: wait for
        `analysis_ready` (or `load_failed`). Asks before discarding edits."""
        sources = {}
        if text_a is not None:
            sources["A"] = TextSource(text_a, name_a or "A (text)")
        if text_b is not None:
            sources["B"] = TextSource(text_b, name_b or "B (text)")
        if self._confirm_discard_sides(sources):
            self._load(sources)

    def load_files(self, path_a=None, path_b=None, *, remember: bool = True) -> None:
        """Load files as A and B (None leaves a side as it is). Asynchronous. With
        `remember`, the pair shown afterwards goes to the top of File → Recent files."""
        sources = {}
        if path_a is not None:
            sources["A"] = FileSource(str(path_a))
        if path_b is not None:
            sources["B"] = FileSource(str(path_b))
        if self._confirm_discard_sides(sources):
            seq = self._load(sources)
            if remember and seq is not None:
                self._recent_seqs.add(seq)

    def load_example(self, name: str = "prose", params: ChunkerParams | None = None) -> None:
        """A demo pair (prose, python) or a generated one (phase-shift, small-edit,
        snapping-off, snapping-on). Generated examples bring their parameters (`params`
        overrides them); the phase-shift ones jump to the first shifted region once analysed."""
        if name in EXAMPLES:
            a, b = demo_paths(name)
            self.load_files(a, b, remember=False)
            return
        ex = PAIR_EXAMPLES[name]
        if not self._confirm_discard_sides(SIDES):
            return
        text_a, text_b, ex_params = ex.make()
        params = params or ex_params
        if params is not None:
            self._suppress_submit = True  # the load below submits once, with these parameters
            try:
                self.set_params(params)
            finally:
                self._suppress_submit = False
        seq = self._load({"A": TextSource(text_a, ex.names[0]), "B": TextSource(text_b, ex.names[1])})
        self._jump_seq = seq if ex.jump_to_shift else None
        self._jump_docs = None
        if ex.note:
            self.show_message(ex.note, "info")

    def set_params(self, params: ChunkerParams) -> None:
        """Show `params` in the panel and re-chunk both documents with them."""
        self.params_panel.set_params(params)

    def show_message(self, text: str, level: str = "error") -> None:
        self.message_bar.show_message(text, level)

    def set_theme(self, theme: Theme | str) -> None:
        """Show a theme: a Theme, "light", "dark", or "system" (follow the desktop's
        colour scheme, now and when it changes). Not remembered: see set_theme_choice."""
        self.set_theme_choice(theme if isinstance(theme, str) else theme.name)

    def set_theme_choice(self, choice: str, remember: bool = False) -> None:
        """View → Theme: "system", "light" or "dark"; `remember` keeps it for the next start."""
        if choice not in THEME_CHOICES:
            raise ValueError(f"unknown theme {choice!r}; expected one of {', '.join(THEME_CHOICES)}")
        self.theme_choice = choice
        self._apply_theme(THEMES[system_theme_name() if choice == "system" else choice])
        if remember:
            self.settings.set_theme(choice)

    def _on_color_scheme_changed(self, scheme) -> None:
        """The desktop switched between light and dark (QStyleHints.colorSchemeChanged)."""
        if self.theme_choice == "system":
            self._apply_theme(THEMES[system_theme_name(scheme)])

    def _apply_theme(self, theme: Theme) -> None:
        changed = theme is not self.theme
        self.theme = theme
        app = QApplication.instance()
        if app is not None:
            apply_theme(app, theme)
        for w in (self.message_bar, self.legend, self.pane_a, self.pane_b, self.params_panel, self.diagnostics,
                  self.link_map, self.overview, self.churn, self.table):
            w.set_theme(theme)
        for side in SIDES:
            self._update_header(side)
        self._update_status()
        if hasattr(self, "_theme_actions"):
            self._theme_actions[self.theme_choice].setChecked(True)
        if changed:
            self.theme_changed.emit(theme.name)

    def swap(self) -> None:
        a, b = self._docs["A"], self._docs["B"]
        if a is None and b is None:
            return
        if self._pending_loads:
            self.show_message("Swap A and B: a document is still loading; wait for the load to finish.", "info")
            return
        if any(self.panes[s].modified or self.panes[s].has_pending_edits for s in SIDES):
            self._swap_edited()
            return
        # the identity (a Save as… target) goes with the text
        carried = {s: (self.panes[s].saved_as, self.panes[s].origin_clean) for s in SIDES}
        self._side_seq = {"A": self._side_seq["B"], "B": self._side_seq["A"]}
        self._set_document("A", b, identity=carried["B"])
        self._set_document("B", a, identity=carried["A"])
        self._submit()

    def _swap_edited(self) -> None:
        """Swap keeping the edits: the panes' texts are loaded on the other side."""
        sources, modified, emptied = {}, {}, []
        for src in SIDES:  # take both texts before a side is emptied
            dst = OTHER[src]
            if self._docs[src] is None:
                emptied.append(dst)
                continue
            name, path = self.side_identity(src)
            sources[dst] = TextSource(self.panes[src].current_text(), name, path)
            modified[dst] = self.panes[src].modified
        for dst in emptied:
            self._side_seq[dst] = self._new_private_seq()  # never a loader batch's number
            self._set_document(dst, None)
        seq = self._load(sources)
        self._modified_after_load[seq] = modified

    def side_identity(self, side: str) -> tuple[str | None, str | None]:
        """What a side is: (name, path) of its file after Save as…, else of the document as
        loaded (path None for a text); (None, None) for an empty side."""
        doc, pane = self._docs[side], self.panes[side]
        if doc is None:
            return None, None
        return pane.saved_as or (doc.root.name, doc.root.path)

    def reload(self) -> None:
        paths = {}
        for s in SIDES:
            path = self.side_identity(s)[1]
            if path:
                paths[s] = path
        if paths:
            self.load_files(paths.get("A"), paths.get("B"), remember=False)

    def save_as(self, side: str, path: str | Path | None = None) -> int | None:
        """Write the pane's text (UTF-8, "\\n" line ends) to `path` (asked if None),
        atomically on the thread pool; `saved` or `save_failed` tells the outcome. The
        pane then counts as saved: named after the file, and no longer modified unless
        typed in meanwhile. Returns the job key, or None if nothing started."""
        pane = self.panes[side]
        if pane.document_info is None:
            return None
        if path is None:
            name, start = self.side_identity(side)
            path, _ = QFileDialog.getSaveFileName(self, f"Save {side} as", str(start or name),
                                                  "Text files (*);;All files (*)")
            if not path:
                return None
        path = Path(path)
        text, revision, origin = pane.current_text(), pane.revision, pane.origin

        def write() -> str:
            write_text_atomic(path, text)
            return str(path)

        def done(_value) -> None:
            if pane.origin is origin:  # still the document that was saved
                pane.saved_as = (path.name, str(path))
                pane.origin_clean = False  # the clean state is now the saved text, not the loaded one
                if pane.revision == revision:  # not typed in since the text was taken
                    pane.document().setModified(False)
                self._update_header(side)
                self._update_title()
                self._update_watch()
            self.statusBar().showMessage(f"Saved {side} to {path}", 5000)
            self.saved.emit(side, str(path))

        def failed(message: str) -> None:
            self.show_message(f"Cannot save {side}: {message}", "error")
            self.save_failed.emit(side, message)

        return self.jobs.start(write, done, failed)

    # -- exports ---------------------------------------------------------------------------
    def shown_names(self) -> tuple[str | None, str | None]:
        """What the panes call their documents (file name, or the name given to a text)."""
        out = []
        for side in SIDES:
            out.append(self.side_identity(side)[0])
        return out[0], out[1]

    def export_report(self, path: str | os.PathLike | None = None) -> int | None:
        """Write the self-contained HTML report of the shown comparison (asked where if
        `path` is None). Rendering and writing run on the thread pool; `exported` or
        `export_failed` tells the outcome. Returns the job key, or None if nothing started."""
        comparison = self.comparison
        if comparison is None:
            self.show_message("Export report: " + NEEDS_COMPARISON, "warning")
            return None
        name_a, name_b = self.shown_names()
        path = path or self._ask_save_path("Export report", exports.default_name("report", name_a, name_b),
                                           "HTML files (*.html *.htm);;All files (*)")
        if not path:
            return None
        return self._run_export("report", exports.report_job(comparison, name_a, name_b, os.fspath(path)))

    def export_comparison(self, path: str | os.PathLike | None = None) -> int | None:
        """Write the shown comparison as JSON: the schema of `steadlith compare --format json`."""
        comparison = self.comparison
        if comparison is None:
            self.show_message("Export comparison: " + NEEDS_COMPARISON, "warning")
            return None
        name_a, name_b = self.shown_names()
        path = path or self._ask_save_path("Export comparison as JSON",
                                           exports.default_name("comparison", name_a, name_b),
                                           "JSON files (*.json);;All files (*)")
        if not path:
            return None
        return self._run_export("comparison", exports.comparison_job(comparison, name_a, name_b, os.fspath(path)))

    def export_chunks(self, side: str, path: str | os.PathLike | None = None) -> int | None:
        """Write the shown chunks of A or B as JSON Lines (one chunk a line, with its text)."""
        chunking = self.panes[side].chunking
        if chunking is None:
            self.show_message(f"Export chunks of {side}: load {side} and wait for its analysis.", "warning")
            return None
        name_a, name_b = self.shown_names()
        path = path or self._ask_save_path(f"Export chunks of {side} as JSONL",
                                           exports.default_name(f"chunks-{side}", name_a, name_b),
                                           "JSON Lines (*.jsonl);;All files (*)")
        if not path:
            return None
        return self._run_export(f"chunks-{side}", exports.chunks_job(chunking, os.fspath(path)))

    def export_png(self, path: str | os.PathLike | None = None) -> int | None:
        """Save a picture of the window as PNG (grabbed here, encoded and written on the
        thread pool). `--screenshot` uses this too."""
        name_a, name_b = self.shown_names()
        path = path or self._ask_save_path("Export window as PNG", exports.default_name("png", name_a, name_b),
                                           "PNG images (*.png)")
        if not path:
            return None
        image = self.grab().toImage()
        return self._run_export("png", exports.png_job(image, os.fspath(path)))

    def _run_export(self, kind: str, fn: Callable[[], str]) -> int:
        what = EXPORT_WHAT[kind]

        def done(path: str) -> None:
            self.settings.set_folder("export", os.path.dirname(os.path.abspath(path)))
            self.show_message(f"Exported the {what} to {path}", "info")
            self.exported.emit(kind, path)

        def failed(message: str) -> None:
            self.show_message(f"Could not export the {what}: {message}", "error")
            self.export_failed.emit(kind, message)

        return self.jobs.start(fn, done, failed)

    def _ask_save_path(self, title: str, name: str, filters: str, which: str = "export") -> str | None:
        folder = self.settings.folder(which)
        if folder is None:
            paths = [self._doc_path(s) for s in ("B", "A")]
            folder = next((os.path.dirname(p) for p in paths if p), None) or os.getcwd()
        path, _ = QFileDialog.getSaveFileName(self, title, os.path.join(folder, name), filters)
        return path or None

    def _update_actions(self) -> None:
        """Exports are enabled once there is something to export; a disabled one says why."""
        if not hasattr(self, "act_export_report"):
            return
        has_comparison = self.comparison is not None
        for act, tip in ((self.act_export_report, "Write one self-contained HTML file for reviewers: both "
                          "documents' chunks by kind and status, the legend, identity, churn, phase-shift "
                          "regions and the locality verdict"),
                         (self.act_export_comparison, "Write the comparison as JSON (the schema of "
                          "`steadlith compare --format json`)")):
            act.setEnabled(has_comparison)
            act.setToolTip(tip if has_comparison else "Not available yet: " + NEEDS_COMPARISON)
            act.setStatusTip(act.toolTip())
        for side, act in (("A", self.act_export_chunks_a), ("B", self.act_export_chunks_b)):
            ok = self.panes[side].chunking is not None
            act.setEnabled(ok)
            act.setToolTip(f"Write the chunks of {side} as JSON Lines, one chunk a line with its text and hash"
                           if ok else f"Not available yet: load {side} and wait for its analysis")
            act.setStatusTip(act.toolTip())

    # -- workspaces ------------------------------------------------------------------------
    def _doc_path(self, side: str) -> str | None:
        """The file a side shows (after Save as…, the saved one), absolute; None for a text."""
        path = self.side_identity(side)[1]
        return os.path.abspath(path) if path else None

    def document_ref(self, side: str) -> DocumentRef | None:
        """A side as a workspace entry: a file by its path, an edited file with its text, a
        pasted text (examples, load_texts) with its text."""
        doc, pane = self._docs[side], self.panes[side]
        if doc is None:
            return None
        name = self.side_identity(side)[0]
        path = self._doc_path(side)
        if pane.modified:
            text = pane.current_text()
            return DocumentRef.edited(path, text, name) if path else DocumentRef.pasted(text, name)
        if path:
            return DocumentRef.from_file(path, name)
        return DocumentRef.pasted(doc.root.text, name)  # as given: line ends kept exactly

    def view_options(self) -> dict[str, Any]:
        """The view part of a workspace."""
        return {
            "syntax_colour": self.act_syntax.isChecked(),
            "sync_scroll": self.act_sync.isChecked(),
            "theme": self.theme_choice,
            "edit_a": self.pane_a.editable,
            "edit_b": self.pane_b.editable,
            "legend": self.act_legend.isChecked(),
            "chunk_filter": self.table.filter_state(),
        }

    def apply_view_options(self, view: Mapping[str, Any], keep_theme: bool = False) -> None:
        """Apply a workspace's view options; a key of the wrong type is ignored."""
        for key, act in (("syntax_colour", self.act_syntax), ("sync_scroll", self.act_sync),
                         ("legend", self.act_legend)):
            if isinstance(view.get(key), bool):
                act.setChecked(view[key])
        for key, side in (("edit_a", "A"), ("edit_b", "B")):
            if isinstance(view.get(key), bool):
                self.set_editable(side, view[key])
        if not keep_theme and view.get("theme") in THEME_CHOICES:
            self.set_theme_choice(view["theme"])
        f = view.get("chunk_filter")
        if isinstance(f, dict):
            self.table.set_filter_state(f)

    def current_workspace(self) -> Workspace:
        """What is shown, as a workspace: documents (with text when edited or pasted), the
        parameters in force (the last valid ones) and the view options."""
        return Workspace({s.lower(): self.document_ref(s) for s in SIDES}, self.params, self.view_options())

    def save_workspace(self, path: str | os.PathLike | None = None) -> int | None:
        """Save the workspace to `path` (default: the workspace opened or saved last, else
        ask). Written atomically on the thread pool; `workspace_saved` tells success."""
        path = path or self.workspace_path
        if not path:
            return self.save_workspace_as()
        return self._write_workspace(os.fspath(path))

    def save_workspace_as(self) -> int | None:
        name_a, name_b = self.shown_names()
        start = self.workspace_path or exports.default_name("workspace", name_a, name_b)
        path = self._ask_save_path("Save workspace as", start,
                                   f"Steadlith workspaces (*{WORKSPACE_SUFFIX});;All files (*)", "open")
        if not path:
            return None
        if not os.path.splitext(path)[1]:
            path += WORKSPACE_SUFFIX
        return self._write_workspace(path)

    def _write_workspace(self, path: str) -> int:
        ws = self.current_workspace()  # the pane texts are taken now; JSON and the write run below

        def done(_value) -> None:
            self.workspace_path = os.path.abspath(path)
            self.settings.set_folder("open", os.path.dirname(self.workspace_path))
            self.recent_menu.add({"workspace": self.workspace_path})
            self._update_title()
            self.show_message(f"Saved the workspace to {path}", "info")
            self.workspace_saved.emit(path)

        def failed(message: str) -> None:
            self.show_message(f"Could not save the workspace: {message}", "error")
            self.workspace_failed.emit(message)

        return self.jobs.start(lambda: save_workspace(ws, path), done, failed)

    def open_workspace(self, path: str | os.PathLike | None = None, *, keep_theme: bool = False,
                       assignments: Sequence[str] = ()) -> int | None:
        """Open a `.steadlith` workspace (asked if `path` is None): its documents,
        parameters (with `assignments`, NAME=VALUE strings, applied on top) and view
        options (`keep_theme`: leave the theme alone). Reading, checking and indexing run
        on the thread pool; on any problem the message is shown, `workspace_failed` is
        emitted and nothing changes. Asks first if a pane has unsaved edits."""
        if path is None:
            folder = self.settings.folder("open") or os.getcwd()
            path, _ = QFileDialog.getOpenFileName(self, "Open workspace", folder,
                                                  f"Steadlith workspaces (*{WORKSPACE_SUFFIX});;All files (*)")
            if not path:
                return None
        path = os.fspath(path)
        if not self._confirm_discard_sides(SIDES):
            return None
        revisions = {s: self.panes[s].revision for s in SIDES}
        self._workspace_seq += 1
        seq = self._workspace_seq
        sets = tuple(assignments)

        def done(value) -> None:
            if seq != self._workspace_seq:
                return  # a later Open workspace replaced this one
            ws, docs = value
            typed = [s for s in SIDES if self.panes[s].revision != revisions[s] and self.panes[s].modified]
            if typed and not self._confirm_discard_sides(typed):
                self.show_message("Opening the workspace was cancelled: your edits are kept.", "info")
                self.workspace_failed.emit("cancelled")
                return
            self._apply_workspace(path, ws, docs, keep_theme)

        def failed(message: str) -> None:
            if seq != self._workspace_seq:
                return
            self.show_message(f"Cannot open the workspace: {message}\nNothing was changed.", "error")
            self.workspace_failed.emit(message)

        return self.jobs.start(lambda: _read_workspace(path, sets), done, failed)

    def _apply_workspace(self, path: str, ws: Workspace, docs: dict, keep_theme: bool) -> None:
        self._edit_timer.stop()
        self._jump_seq = None
        self._jump_docs = None
        self._suppress_submit = True
        try:
            for side in SIDES:
                self._side_seq[side] = self._new_private_seq()  # loads still on their way are stale
                ref = ws.documents[side.lower()]
                self._set_document(side, docs.get(side), modified=bool(ref is not None and ref.modified))
            self.set_params(ws.params)
            self.apply_view_options(ws.view, keep_theme)
        finally:
            self._suppress_submit = False
        self.workspace_path = os.path.abspath(path)
        self.settings.set_folder("open", os.path.dirname(self.workspace_path))
        self.recent_menu.add({"workspace": self.workspace_path})
        self._update_title()
        for side in SIDES:
            self._update_header(side)
        self.documents_changed.emit()
        self._submit()
        self.statusBar().showMessage(f"Opened the workspace {path}", 5000)
        self.workspace_opened.emit(path)

    def _new_private_seq(self) -> int:
        self._private_seq -= 1
        return self._private_seq

    # -- recent files ------------------------------------------------------------------------
    def recent_entries(self) -> list[dict]:
        return self.recent_menu.entries()

    def _remember_documents(self) -> None:
        a, b = self._doc_path("A"), self._doc_path("B")
        if a or b:
            self.recent_menu.add({"a": a, "b": b})

    def open_recent(self, entry: dict) -> None:
        if "workspace" in entry:
            self.open_workspace(entry["workspace"])
        else:
            self.load_files(entry.get("a"), entry.get("b"))

    # -- files changed on disk -------------------------------------------------------------------
    def _update_watch(self) -> None:
        """Watch exactly the files the panes show."""
        want = {p for p in (self._doc_path(s) for s in SIDES) if p}
        have = set(self.watcher.files())
        if have - want:
            self.watcher.removePaths(sorted(have - want))
        add = [p for p in sorted(want - have) if os.path.isfile(p)]
        if add:
            self.watcher.addPaths(add)

    def _on_file_changed(self, path: str) -> None:
        timer = self._disk_timers.get(path)
        if timer is None:
            timer = QTimer(self)
            timer.setSingleShot(True)
            timer.timeout.connect(lambda p=path: self._handle_disk_change(p))
            self._disk_timers[path] = timer
        timer.start(DISK_CHANGE_PAUSE_MS)  # an editor's save can be several events: handle them once

    def _handle_disk_change(self, path: str) -> None:
        sides = [s for s in SIDES if self._doc_path(s) == path]
        if not sides:
            return
        if not os.path.isfile(path):
            # editors may delete and then write, or rename over: look again a few times
            tries = self._disk_missing.get(path, 0)
            if tries < DISK_MISSING_RETRIES:
                self._disk_missing[path] = tries + 1
                self._disk_timers[path].start(DISK_CHANGE_PAUSE_MS * 2)
                return
            self._disk_missing.pop(path, None)
            for side in sides:
                self.show_message(f"{side}: {path} was removed from disk; the text stays as shown.", "warning")
                self.disk_change_handled.emit(side, "missing")
            return
        self._disk_missing.pop(path, None)
        self.watcher.addPath(path)  # a file replaced by rename is no longer watched: watch the new one
        for side in sides:
            self._disk_changed(side, path)

    def _disk_changed(self, side: str, path: str) -> None:
        pane, doc = self.panes[side], self._docs[side]
        if side in self._asking_disk or doc is None:
            return
        if pane.modified:
            if not self._ask_reload(side, path):
                return
            self._reload_side(side, path, None)
        else:
            # unchanged text (e.g. our own Save as…) needs no reload; compared on the thread pool
            shown = pane.current_text() if pane.saved_as else doc.root.text
            self._reload_side(side, path, shown)

    def _ask_reload(self, side: str, path: str) -> bool:
        self._asking_disk.add(side)
        try:
            yes = bool(self.confirm_discard(
                f"{side} ({os.path.basename(path)}) changed on disk, and you edited it here. "
                "Reload it from disk and discard your edits?"))
        finally:
            self._asking_disk.discard(side)
        if not yes:
            self.show_message(f"{side} changed on disk; your edits are kept (File → Reload from disk loads "
                              "the file).", "warning")
            self.disk_change_handled.emit(side, "kept")
        return yes

    def _reload_side(self, side: str, path: str, shown: str | None) -> None:
        before = self._docs[side]
        was_modified = self.panes[side].modified

        def read():
            text = load_text(path)
            if shown is not None and text == shown:
                return None
            return prepare_document(side, text, path=path)

        def done(doc) -> None:
            if self._docs[side] is not before or self._side_seq[side] in self._pending_loads:
                return  # the side shows something else by now
            if doc is None:
                self.disk_change_handled.emit(side, "unchanged")
                return
            if self.panes[side].modified and not was_modified and not self._ask_reload(side, path):
                return  # typed while the file was read
            self._side_seq[side] = self._new_private_seq()
            self._set_document(side, doc)
            self._submit()
            self.show_message(f"{side} reloaded: changed on disk", "info")
            self.disk_change_handled.emit(side, "reloaded")

        def failed(message: str) -> None:
            self.show_message(f"{side} changed on disk but cannot be reloaded: {message}. "
                              "The text stays as shown.", "error")
            self.disk_change_handled.emit(side, "failed")

        self.jobs.start(read, done, failed)

    # -- settings --------------------------------------------------------------------------
    def restore_settings(self, *, params: bool = True, theme: bool = True, layout: bool = True) -> None:
        """Restore what the settings remember: window geometry and docks, the last valid
        parameters, the theme choice (each unless the caller, i.e. the command line, decides it)."""
        if layout:
            geometry, state = self.settings.geometry(), self.settings.state()
            if geometry is not None:
                self.restoreGeometry(geometry)
            if state is not None:
                self.restoreState(state)
        if params:
            p = self.settings.params()
            if p is not None:
                self.set_params(p)
        if theme:
            choice = self.settings.theme()
            if choice is not None:
                self.set_theme_choice(choice)
        self.recent_menu.rebuild()

    def save_settings(self) -> None:
        """Remember the layout and the last valid parameters (recent files and the theme
        choice are written when they change)."""
        self.settings.set_layout(self.saveGeometry(), self.saveState())
        self.settings.set_params(self.params)
        self.settings.sync()

    # -- selection, navigation, scrolling ----------------------------------------------------
    def select_chunk(self, side: str, index: int | None, scroll: bool = True, from_table: bool = False) -> None:
        """Select a chunk: framed in its pane, its partner dashed in the other, its row in
        the table. With `scroll`, its pane scrolls to it (and the other follows when synced)."""
        pane, other = self.panes[side], self.panes[OTHER[side]]
        view = pane.view()
        if view is None or index is None or not 0 <= index < view.count:
            index = None
        partner = None
        if index is not None and self._consistent and pane.status_info is not None:
            partner = pane.status_info.partner[index]
        pane.set_selected(index)
        other.set_selected(None, partner)
        self.selection = (side, index) if index is not None else None
        if scroll and index is not None:
            pane.scroll_chunk_into_view(index)
            if partner is not None and not self.sync_scrolling:
                other.scroll_chunk_into_view(partner)
        if not from_table:
            self.table.select_chunk(side, index)
        self.chunk_selected.emit(side, index)

    def _set_active_side(self, side: str) -> None:
        self._active_side = side

    @property
    def active_side(self) -> str:
        """The pane navigation acts on: the one last focused (B at first)."""
        return self._active_side

    def navigate(self, what: str, direction: int, side: str | None = None) -> int | None:
        """Move the caret of the active pane (or `side`) to the next (+1) or previous (-1)
        boundary ("boundary"), changed chunk ("changed": not reused) or shifted chunk
        ("shifted"); scroll to it and select its chunk. Returns the chunk, or None."""
        side = side or self._active_side
        pane = self.panes[side]
        view = pane.view()
        if view is None:
            return None
        caret = pane.textCursor().position()
        n = view.count
        if what == "boundary":
            ends = view.ends
            if direction > 0:
                k = int(np.searchsorted(ends, caret, "right"))
            else:
                k = int(np.searchsorted(ends, caret, "left")) - 1
            if not 0 <= k < n:
                return None
            target, index = int(ends[k]), k
        else:
            if view.codes is None or not self._consistent:
                return None
            codes = view.codes
            mask = codes == STATUS_CODES["shifted"] if what == "shifted" else codes != STATUS_CODES["reused"]
            here = int(np.searchsorted(view.starts, caret, "right")) - 1
            if direction > 0:
                hits = np.flatnonzero(mask[here + 1:])
                if not hits.size:
                    return None
                index = here + 1 + int(hits[0])
            else:
                hits = np.flatnonzero(mask[: max(here, 0)])
                if not hits.size:
                    return None
                index = int(hits[-1])
            target = int(view.starts[index])
        pane.move_caret(target)
        lo, hi = pane.visible_position_range()
        if not lo <= target <= hi:
            pane.scroll_position_to_y(target, pane.viewport().height() * 0.3)
        self.select_chunk(side, index, scroll=False)
        return index

    def show_pair(self, a_index: int | None, b_index: int | None, fraction: float = 0.25) -> None:
        """Scroll both panes so chunk a_index of A and b_index of B start level, at
        `fraction` of the height (a None side is left alone)."""
        self._syncing = True
        try:
            for side, index in (("A", a_index), ("B", b_index)):
                pane = self.panes[side]
                view = pane.view()
                if view is None or index is None or not view.count:
                    continue
                index = min(max(index, 0), view.count)
                pos = int(view.starts[index]) if index < view.count else int(view.ends[-1])
                pane.scroll_position_to_y(pos, pane.viewport().height() * fraction)
        finally:
            self._syncing = False
        self.link_map.update()

    def _on_band_clicked(self, band: Band) -> None:
        self.show_pair(band.a_lo, band.b_lo)
        if band.b_hi > band.b_lo:
            self.select_chunk("B", band.b_lo, scroll=False)
        elif band.a_hi > band.a_lo:
            self.select_chunk("A", band.a_lo, scroll=False)

    def show_region(self, k: int) -> None:
        """Show phase-shift region k of the comparison in both panes and select its first B chunk."""
        comparison = self.comparison
        if comparison is None or not 0 <= k < len(comparison.phase_shift_regions):
            return
        r = comparison.phase_shift_regions[k]
        self.show_pair(r.a_chunks[0], r.b_chunks[0])
        self.select_chunk("B", r.b_chunks[0], scroll=False)

    def jump_to_position(self, side: str, position: int) -> None:
        """Scroll a pane so `position` is in the middle (the other follows when synced)."""
        pane = self.panes[side]
        if pane.document_info is None:
            return
        pane.scroll_position_to_y(position, pane.viewport().height() / 2)
        self.overview.update()

    def _on_pane_scrolled(self, side: str) -> None:
        self.overview.update()
        if self._syncing or not self.sync_scrolling:
            return
        self.sync_from(side)

    def sync_from(self, side: str) -> None:
        """Scroll the other pane so the chunk level with the middle of `side`'s viewport
        is level with its partner (or the matching place between partners)."""
        src, dst = self.panes[side], self.panes[OTHER[side]]
        vs, vd = src.view(), dst.view()
        if vs is None or vd is None or not self._consistent or side not in self._align:
            return
        self._syncing = True
        try:
            bar, dbar = src.verticalScrollBar(), dst.verticalScrollBar()
            if bar.value() == bar.minimum():
                dbar.setValue(dbar.minimum())
                return
            if bar.value() == bar.maximum() and bar.maximum() > 0:
                dbar.setValue(dbar.maximum())
                return
            h = src.viewport().height()
            pos = src.position_at_y(h / 2)
            y = src.y_locator()(pos)[0]
            if y in (ABOVE, BELOW):
                y = h / 2
            target = map_position(
                pos, vs.starts, vs.ends, src.document().characterCount(),
                vd.starts, vd.ends, dst.document().characterCount(),
                self._align[side], self._align[OTHER[side]],
            )
            dst.scroll_position_to_y(target, y)
        finally:
            self._syncing = False
        self.link_map.update()

    def _set_sync(self, on: bool) -> None:
        if on:
            self.sync_from(self._active_side)

    # -- loading -----------------------------------------------------------------------
    def _confirm_discard_sides(self, sides) -> bool:
        edited = [s for s in SIDES if s in sides and self.panes[s].modified]
        if not edited:
            return True
        names = " and ".join(edited)
        return bool(self.confirm_discard(
            f"{names} {'has' if len(edited) == 1 else 'have'} unsaved edits. Discard them?"))

    def _ask_discard(self, question: str) -> bool:
        answer = QMessageBox.question(
            self, "Discard edits?", question,
            QMessageBox.StandardButton.Discard | QMessageBox.StandardButton.Cancel,
            QMessageBox.StandardButton.Cancel)
        return answer == QMessageBox.StandardButton.Discard

    def _load(self, sources: dict) -> int | None:
        if not sources:
            return None
        seq = self.loader.load(sources)
        self._pending_loads.add(seq)
        self._load_revisions[seq] = {side: self.panes[side].revision for side in sources}
        for side in sources:
            self._side_seq[side] = seq
            self._update_header(side, "loading…")
        return seq

    def _on_loaded(self, batch: LoadBatch) -> None:
        changed = False
        self._pending_loads.discard(batch.seq)
        remember = batch.seq in self._recent_seqs
        self._recent_seqs.discard(batch.seq)
        swapping = batch.seq in self._modified_after_load
        modified = self._modified_after_load.pop(batch.seq, {})
        revisions = self._load_revisions.pop(batch.seq, {})
        documents = {s: d for s, d in batch.documents.items() if self._side_seq.get(s) == batch.seq}
        # typed in while the batch loaded: ask again; "no" keeps the edits (a swap is dropped whole)
        typed = [s for s in documents if self.panes[s].revision != revisions.get(s) and self.panes[s].modified]
        if typed and not self._confirm_discard_sides(typed):
            kept = SIDES if swapping else typed
            documents = {s: d for s, d in documents.items() if s not in kept}
            self.show_message(f"{'The swap' if swapping else 'Loading ' + ' and '.join(typed)} was cancelled: "
                              "your edits are kept.", "info")
        for side, doc in documents.items():
            self._set_document(side, doc, modified.get(side, False))
            changed = True
        for side in SIDES:
            if self._side_seq[side] == batch.seq and side not in documents:
                self._update_header(side)
        if batch.errors:
            kept = [s for s, _ in batch.errors if self._docs.get(s) is not None]
            text = "\n".join(msg for _, msg in batch.errors)
            if kept:
                text += f"\n{' and '.join(kept)} still show{'s' if len(kept) == 1 else ''} the document loaded before."
            self.show_message(text, "error")
            self.load_failed.emit(text)
        if self._jump_seq == batch.seq:
            self._jump_seq = None
            self._jump_docs = (self._docs["A"], self._docs["B"]) if changed else None
        if changed:
            if remember:
                self._remember_documents()
            self.documents_changed.emit()
            self._submit()

    def _set_document(self, side: str, doc: LoadedDocument | None, modified: bool = False,
                      identity: tuple[tuple[str, str] | None, bool] | None = None) -> None:
        """`identity`: the (saved_as, origin_clean) the pane takes (a swap carries them);
        default: a new document, named as loaded."""
        self._docs[side] = doc
        pane = self.panes[side]
        pane.saved_as, pane.origin_clean = identity or (None, not modified)
        if doc is None:
            pane.clear_document()
        else:
            pane.set_document(doc, modified)
        if self.selection is not None:
            self.select_chunk(self.selection[0], None, scroll=False)
        self._consistent = False
        self.link_map.set_links(None)
        self._update_header(side, "analysing…" if doc is not None else "")
        self._update_title()
        self._update_actions()
        self._update_watch()

    def _update_title(self) -> None:
        names = []
        for s in SIDES:
            d = self._docs[s]
            if d is not None:
                names.append(self.side_identity(s)[0])
        title = "Steadlith Inspector"
        if self.workspace_path:
            title += " — " + os.path.basename(self.workspace_path)
        if names:
            title += (": " if self.workspace_path else " — ") + " ↔ ".join(names)
        self.setWindowTitle(title + "[*]")
        self.setWindowModified(any(p.modified for p in self.panes.values()))

    def _on_files_dropped(self, paths: list[str], side: str | None) -> None:
        if len(paths) >= 2:
            self.load_files(paths[0], paths[1])
        elif paths:
            target = side or "A"
            self.load_files(*(paths[0], None) if target == "A" else (None, paths[0]))

    def dragEnterEvent(self, event) -> None:  # noqa: N802
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        paths = [u.toLocalFile() for u in event.mimeData().urls() if u.isLocalFile()]
        if paths:
            event.acceptProposedAction()
            self._on_files_dropped(paths, None)

    def open_dialog(self, side: str) -> None:
        path = self.side_identity(side)[1]
        start = str(Path(path).parent) if path else ""
        path, _ = QFileDialog.getOpenFileName(self, f"Open {side}", start, "Text files (*);;All files (*)")
        if path:
            self.load_files(*(path, None) if side == "A" else (None, path))

    # -- editing -------------------------------------------------------------------------
    def _on_pane_edited(self, side: str) -> None:
        """A keystroke (or undo, paste…): O(1) here; the analysis waits for a pause."""
        self._edit_timer.start()
        pane = self.panes[side]
        if pane.revision == pane.shown_revision + 1:  # the first edit since the shown result
            self._update_header(side)

    def _on_edit_pause(self) -> None:
        self._submit()

    def _on_modification_changed(self, side: str) -> None:
        self._update_header(side)
        self._update_title()

    def _source(self, side: str):
        """What to analyse for a side: its loaded document, or its edited text."""
        doc = self._docs[side]
        pane = self.panes[side]
        if doc is None or pane.origin is None or pane.origin is not doc.root:
            return doc
        if pane.revision == doc.revision:
            return doc
        root = doc.root
        name, path = self.side_identity(side)
        if not pane.modified and pane.origin_clean:  # undone back to the text as loaded
            return dataclasses.replace(root, revision=pane.revision, origin=root)
        return EditedSource(pane.current_text(), root, pane.revision, name, path)

    def set_editable(self, side: str, editable: bool) -> None:
        self.panes[side].set_editable(editable)
        act = self.act_edit_b if side == "B" else self.act_edit_a
        if act.isChecked() != editable:
            act.setChecked(editable)
        self._update_header(side)

    def _active_editor(self) -> DocumentPane | None:
        """The pane Undo/Redo act on: the focused one if editable, else an editable one."""
        pane = self.panes[self._active_side]
        if pane.editable:
            return pane
        return next((p for p in (self.pane_b, self.pane_a) if p.editable), None)

    def undo(self) -> None:
        pane = self._active_editor()
        if pane is not None:
            pane.undo()

    def redo(self) -> None:
        pane = self._active_editor()
        if pane is not None:
            pane.redo()

    # -- analysis ----------------------------------------------------------------------
    def _on_params_changed(self, params: ChunkerParams) -> None:
        self._submit()

    def _submit(self) -> None:
        if self._suppress_submit:
            return
        self._edit_timer.stop()
        a, b = self._source("A"), self._source("B")
        if a is None and b is None:
            return
        self.analyzer.submit(a, b, self.params_panel.params)

    def _on_result(self, result: AnalysisResult) -> None:
        for side, doc, chunking, layout in (
            ("A", result.doc_a, result.a, result.layout_a),
            ("B", result.doc_b, result.b, result.layout_b),
        ):
            pane = self.panes[side]
            if doc is None:
                if pane.origin is None:
                    pane.show_result(None, None, None, None)
            elif pane.show_result(doc, chunking, layout, result.side_status(side)):
                self._docs[side] = doc  # an edited version is now the analysed one
        self._result = result
        self._consistent = (
            result.comparison is not None
            and self.pane_a.chunking is result.a and self.pane_b.chunking is result.b
        )
        comparison = result.comparison if self._consistent else None
        if comparison is not None:
            self._align = {
                "A": np.fromiter((i for i, _ in comparison.alignment), np.int64, len(comparison.alignment)),
                "B": np.fromiter((j for _, j in comparison.alignment), np.int64, len(comparison.alignment)),
            }
        else:
            self._align = {}
        self.link_map.set_links(result.links if comparison is not None else None)
        self.overview.set_result({
            "A": side_data(result.layout_a if self.pane_a.chunking is result.a else None,
                           result.status_a if comparison is not None else None, self._doc_length("A")),
            "B": side_data(result.layout_b if self.pane_b.chunking is result.b else None,
                           result.status_b if comparison is not None else None, self._doc_length("B")),
        })
        self.churn.show_comparison(comparison, self._empty_churn_message(result))
        self.table.set_result(self.pane_a.chunking, self.pane_b.chunking,
                              comparison.status_a if comparison is not None else None,
                              comparison.status_b if comparison is not None else None)
        for side in SIDES:
            self._update_header(side)
        if self.selection is not None:
            self.select_chunk(*self.selection, scroll=False)
        self.diagnostics.show_result(result)
        if self._jump_docs is not None and comparison is not None:
            if (result.doc_a is not None and result.doc_a.root is self._jump_docs[0]
                    and result.doc_b is not None and result.doc_b.root is self._jump_docs[1]):
                self._jump_docs = None
                if comparison.phase_shift_regions:
                    self.show_region(0)
        self._update_status()
        self._update_actions()
        self.analysis_ready.emit(result)

    def _doc_length(self, side: str) -> int:
        return self.panes[side].document().characterCount()

    def _empty_churn_message(self, result: AnalysisResult) -> str:
        if result.comparison_error:
            return f"No comparison: {result.comparison_error}"
        if result.a is None or result.b is None:
            missing = "A" if result.a is None else "B"
            return (f"Load {missing} too: the churn of an edit needs two versions. "
                    "Reused chunks, tokens to re-embed, phase shifts and the locality check appear here.")
        return "Analysing the versions shown…"

    def _on_analysis_failed(self, message: str) -> None:
        self.show_message(f"Analysis failed: {message}. The previous result stays on screen.", "error")
        for side in SIDES:
            self._update_header(side)

    def _on_busy(self, busy: bool) -> None:
        self._busy_label.setText("● analysing…" if busy else "")

    # -- chrome ------------------------------------------------------------------------
    def _update_header(self, side: str, status: str = "") -> None:
        pane = self.panes[side]
        if pane.document_info is not None and pane.has_pending_edits and not status:
            status = "edited: analysis after a pause"
        self.columns[side].update_header(status, getattr(pane, "saved_as", None))

    def _update_status(self) -> None:
        r = self._result
        if r is None:
            self.shown_label.setText("")
            self.statusBar().showMessage("Open two versions of a document (File → Open A / Open B), drop files, or try Examples.")
            return
        h = r.params.params_hash
        self.shown_label.setText(
            f"shown: params <code>{h[:8]}…{h[-4:]}</code> &nbsp; <span style='color:{self.theme.muted}'>"
            f"{r.ms_total:.1f} ms</span>"
        )
        self.shown_label.setToolTip(f"The chunks on screen were made with params hash {h}")
        parts = []
        for side, c in (("A", r.a), ("B", r.b)):
            if c is not None:
                parts.append(f"{side}: {c.diagnostics.chunk_count:,} chunks")
        timing = f"analysis {r.ms_total:.1f} ms (A {r.ms_a:.1f} · B {r.ms_b:.1f}"
        if r.comparison is not None:
            timing += f" · compare {r.ms_compare:.1f}"
        parts.append(timing + ")")
        self.statusBar().showMessage("   ·   ".join(parts))

    def _build_status(self) -> None:
        self._busy_label = QLabel("")
        self._busy_label.setObjectName("busyLabel")
        self.statusBar().addPermanentWidget(self._busy_label)
        self._update_status()

    def _set_syntax(self, enabled: bool) -> None:
        for pane in self.panes.values():
            pane.set_syntax_enabled(enabled)

    def show_shortcuts(self) -> None:
        """Help → Keyboard shortcuts: every bound key, in the message bar."""
        self.show_message("Keyboard shortcuts — " + " · ".join(shortcut_rows(self)) + ". Every menu entry also "
                          "has an underlined letter (Alt+F opens File). In the link map (Tab to it), Down/Up step "
                          "through the bands; in the overview, Left/Right choose a strip and Up/Down scroll.", "info")

    def set_view_option(self, key: str, value: Any) -> None:
        """View menu toggles: sync_scroll, syntax_colour, legend."""
        {"sync_scroll": self._set_sync, "syntax_colour": self._set_syntax, "legend": self.legend.setVisible}[key](value)

    def about(self) -> None:
        self.show_message(
            "Steadlith Inspector shows where and why the content-defined chunker (tttd-v1) cut two versions "
            "of a document, which chunks an edit kept and which it cost (shifted chunks are the phase shift). "
            "Hover a chunk for its details; change parameters on the left; type into B to see the effect live.",
            "info",
        )

    def closeEvent(self, event) -> None:  # noqa: N802
        from PySide6.QtCore import QThreadPool

        if not self._confirm_discard_sides(SIDES):
            event.ignore()
            return
        self._edit_timer.stop()
        self.save_settings()
        QThreadPool.globalInstance().waitForDone(5000)
        super().closeEvent(event)

