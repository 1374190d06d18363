"""The inspector window: two documents, their cuts by kind, live parameters, identity
and diagnostics.

Layout: the central widget holds the message bar, the legend and a horizontal row
[pane A | gap | pane B]; the gap is where the link map of the next issue goes
(`panes_row`, index 1). Parameters and diagnostics are docks, so more docks can join.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QApplication,
    QDockWidget,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QMainWindow,
    QScrollArea,
    QSizePolicy,
    QStyleFactory,
    QToolBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from steadlith_core import ChunkerParams

from .demo import EXAMPLE_TITLES, EXAMPLES, demo_paths
from .models import AnalysisResult, LoadedDocument
from .palette import LIGHT, THEMES, Theme, qt_palette
from .widgets.diagnostics import DiagnosticsView
from .widgets.document_pane import DocumentPane, PaneColumn
from .widgets.legend import Legend
from .widgets.message_bar import MessageBar
from .widgets.params_panel import ParamsPanel
from .worker import Analyzer, DocumentLoader, LoadBatch

SIDES = ("A", "B")
PANE_GAP = 14  # room between the panes; the link map (next issue) takes this slot


def apply_theme(app: QApplication, theme: Theme) -> None:
    """Fusion style with the theme's palette, for the whole application."""
    style = QStyleFactory.create("Fusion")
    if style is not None and app.style().name().lower() != "fusion":
        app.setStyle(style)
    app.setPalette(qt_palette(theme))


class MainWindow(QMainWindow):
    analysis_ready = Signal(object)  # AnalysisResult, emitted once the shown result updated
    load_failed = Signal(str)  # a load left (one side of) the documents as they were
    documents_changed = Signal()

    def __init__(self, params: ChunkerParams | None = None, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("mainWindow")
        self.setWindowTitle("Steadlith Inspector")
        self.theme = theme
        self._docs: dict[str, LoadedDocument | None] = {"A": None, "B": None}
        self._side_seq = {"A": 0, "B": 0}
        self._result: AnalysisResult | None = None
        self.analyzer = Analyzer(self)
        self.loader = DocumentLoader(self)

        # central: message bar, legend, panes
        self.message_bar = MessageBar(theme)
        self.legend = Legend(theme)
        self.pane_a = DocumentPane("A", theme)
        self.pane_b = DocumentPane("B", theme)
        self.panes = {"A": self.pane_a, "B": self.pane_b}
        self.columns = {s: PaneColumn(self.panes[s]) for s in SIDES}
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
        self.panes_row.addSpacing(PANE_GAP)
        self.panes_row.addWidget(self.columns["B"], 1)
        v.addLayout(self.panes_row, 1)
        self.setCentralWidget(central)

        # docks
        self.params_panel = ParamsPanel(params, theme)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.params_panel)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        scroll.setMinimumWidth(self.params_panel.minimumSizeHint().width() + scroll.verticalScrollBar().sizeHint().width() + 4)
        self.params_dock = QDockWidget("Parameters", self)
        self.params_dock.setObjectName("paramsDock")
        self.params_dock.setWidget(scroll)
        self.addDockWidget(Qt.DockWidgetArea.LeftDockWidgetArea, self.params_dock)

        self.diagnostics = DiagnosticsView(theme)
        self.diagnostics_a = self.diagnostics.panel_a
        self.diagnostics_b = self.diagnostics.panel_b
        self.diagnostics_dock = QDockWidget("Diagnostics  (A | B)", self)
        self.diagnostics_dock.setObjectName("diagnosticsDock")
        self.diagnostics_dock.setWidget(self.diagnostics)
        self.addDockWidget(Qt.DockWidgetArea.BottomDockWidgetArea, self.diagnostics_dock)
        self.setCorner(Qt.Corner.BottomLeftCorner, Qt.DockWidgetArea.LeftDockWidgetArea)
        self.setDockNestingEnabled(True)

        self._build_actions()
        self._build_status()

        # wiring
        self.params_panel.params_changed.connect(self._on_params_changed)
        self.analyzer.result_ready.connect(self._on_result)
        self.analyzer.failed.connect(self._on_analysis_failed)
        self.analyzer.busy_changed.connect(self._on_busy)
        self.loader.loaded.connect(self._on_loaded)
        for side, pane in self.panes.items():
            pane.files_dropped.connect(lambda paths, s=side: self._on_files_dropped(paths, s))
        self.setAcceptDrops(True)
        self.resize(1500, 950)
        self.resizeDocks([self.params_dock], [330], Qt.Orientation.Horizontal)
        self.resizeDocks([self.diagnostics_dock], [250], Qt.Orientation.Vertical)
        self.set_theme(theme)

    # -- public API --------------------------------------------------------------------
    @property
    def result(self) -> AnalysisResult | None:
        """The shown result: result.a, result.b are the shown Chunkings of A and B."""
        return self._result

    @property
    def params(self) -> ChunkerParams:
        """The parameters in force (the last valid ones)."""
        return self.params_panel.params

    def documents(self) -> tuple[LoadedDocument | None, LoadedDocument | None]:
        return self._docs["A"], self._docs["B"]

    def load_texts(self, text_a: str | None, text_b: str | None, name_a: str | None = None, name_b: str | None = None) -> None:
        """Show texts as A and B (None leaves a side as it is). Asynchronous: wait for
        `analysis_ready` (or `load_failed`)."""
        sources = {}
        if text_a is not None:
            sources["A"] = ("text", text_a, name_a or "A (text)")
        if text_b is not None:
            sources["B"] = ("text", text_b, name_b or "B (text)")
        self._load(sources)

    def load_files(self, path_a=None, path_b=None) -> None:
        """Load files as A and B (None leaves a side as it is). Asynchronous."""
        sources = {}
        if path_a is not None:
            sources["A"] = ("file", str(path_a))
        if path_b is not None:
            sources["B"] = ("file", str(path_b))
        self._load(sources)

    def load_example(self, name: str = "prose") -> None:
        a, b = demo_paths(name)
        self.load_files(a, b)

    def set_params(self, params: ChunkerParams) -> None:
        """Show `params` in the panel and re-chunk both documents with them."""
        self.params_panel.set_params(params)

    def show_message(self, text: str, level: str = "error") -> None:
        self.message_bar.show_message(text, level)

    def set_theme(self, theme: Theme | str) -> None:
        theme = THEMES[theme] if isinstance(theme, str) else theme
        self.theme = theme
        app = QApplication.instance()
        if app is not None:
            apply_theme(app, theme)
        for w in (self.message_bar, self.legend, self.pane_a, self.pane_b, self.params_panel, self.diagnostics):
            w.set_theme(theme)
        for side in SIDES:
            self._update_header(side)
        self._update_status()
        if hasattr(self, "_theme_actions"):
            self._theme_actions[theme.name].setChecked(True)

    def swap(self) -> None:
        a, b = self._docs["A"], self._docs["B"]
        if a is None and b is None:
            return
        self._side_seq = {"A": self._side_seq["B"], "B": self._side_seq["A"]}
        self._set_document("A", b)
        self._set_document("B", a)
        self._submit()

    def reload(self) -> None:
        paths = {s: d.path for s, d in self._docs.items() if d is not None and d.path}
        if paths:
            self.load_files(paths.get("A"), paths.get("B"))

    # -- loading -----------------------------------------------------------------------
    def _load(self, sources: dict) -> None:
        if not sources:
            return
        seq = self.loader.load(sources)
        for side in sources:
            self._side_seq[side] = seq
            self._update_header(side, "loading…")

    def _on_loaded(self, batch: LoadBatch) -> None:
        changed = False
        for side, doc in batch.documents.items():
            if self._side_seq.get(side) != batch.seq:
                continue  # a later load of this side was requested: this one is stale
            self._set_document(side, doc)
            changed = True
        for side in SIDES:
            if self._side_seq[side] == batch.seq and side not in batch.documents:
                self._update_header(side)
        if batch.errors:
            kept = [s for s, _ in batch.errors if self._docs.get(s) is not None]
            text = "\n".join(msg for _, msg in batch.errors)
            if kept:
                text += f"\n{' and '.join(kept)} still show{'s' if len(kept) == 1 else ''} the document loaded before."
            self.show_message(text, "error")
            self.load_failed.emit(text)
        if changed:
            self.documents_changed.emit()
            self._submit()

    def _set_document(self, side: str, doc: LoadedDocument | None) -> None:
        self._docs[side] = doc
        pane = self.panes[side]
        if doc is None:
            pane.document_info = None
            pane.clear()
            pane.set_chunking(None, None)
        else:
            pane.set_document(doc)
        self._update_header(side, "analysing…" if doc is not None else "")
        names = [d.name for d in self._docs.values() if d is not None]
        self.setWindowTitle("Steadlith Inspector" + (" — " + " ↔ ".join(names) if names else ""))

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

    def _open_dialog(self, side: str) -> None:
        doc = self._docs[side]
        start = str(Path(doc.path).parent) if doc is not None and doc.path else ""
        path, _ = QFileDialog.getOpenFileName(self, f"Open {side}", start, "Text files (*);;All files (*)")
        if path:
            self.load_files(*(path, None) if side == "A" else (None, path))

    # -- analysis ----------------------------------------------------------------------
    def _on_params_changed(self, params: ChunkerParams) -> None:
        self._submit()

    def _submit(self) -> None:
        a, b = self._docs["A"], self._docs["B"]
        if a is None and b is None:
            return
        self.analyzer.submit(a, b, self.params_panel.params)

    def _on_result(self, result: AnalysisResult) -> None:
        for side, doc, chunking, layout in (
            ("A", result.doc_a, result.a, result.layout_a),
            ("B", result.doc_b, result.b, result.layout_b),
        ):
            if self.panes[side].document_info is doc:
                self.panes[side].set_chunking(chunking, layout)
            self._update_header(side)
        self._result = result
        self.diagnostics.show_result(result)
        self._update_status()
        self.analysis_ready.emit(result)

    def _on_analysis_failed(self, message: str) -> None:
        self.show_message(f"Analysis failed: {message}. The previous result stays on screen.", "error")
        for side in SIDES:
            self._update_header(side)

    def _on_busy(self, busy: bool) -> None:
        self._busy_label.setText("● analysing…" if busy else "")

    # -- chrome ------------------------------------------------------------------------
    def _update_header(self, side: str, status: str = "") -> None:
        self.columns[side].update_header(status)

    def _update_status(self) -> None:
        r = self._result
        if r is None:
            self._shown_label.setText("")
            self.statusBar().showMessage("Open two versions of a document (File → Open A / Open B), drop files, or try Examples.")
            return
        h = r.params.params_hash
        self._shown_label.setText(
            f"shown: params <code>{h[:8]}…{h[-4:]}</code> &nbsp; <span style='color:{self.theme.muted}'>"
            f"{r.ms_total:.1f} ms</span>"
        )
        self._shown_label.setToolTip(f"The chunks on screen were made with params hash {h}")
        parts = []
        for side, c in (("A", r.a), ("B", r.b)):
            if c is not None:
                parts.append(f"{side}: {c.diagnostics.chunk_count:,} chunks")
        parts.append(f"analysis {r.ms_total:.1f} ms (A {r.ms_a:.1f} · B {r.ms_b:.1f})")
        self.statusBar().showMessage("   ·   ".join(parts))

    def _build_status(self) -> None:
        self._busy_label = QLabel("")
        self._busy_label.setObjectName("busyLabel")
        self.statusBar().addPermanentWidget(self._busy_label)
        self._update_status()

    def _build_actions(self) -> None:
        mb = self.menuBar()
        file_menu = mb.addMenu("&File")
        self.act_open_a = QAction("Open &A…", self, shortcut=QKeySequence.StandardKey.Open)
        self.act_open_a.triggered.connect(lambda: self._open_dialog("A"))
        self.act_open_b = QAction("Open &B…", self, shortcut=QKeySequence("Ctrl+Shift+O"))
        self.act_open_b.triggered.connect(lambda: self._open_dialog("B"))
        self.act_swap = QAction("&Swap A and B", self, shortcut=QKeySequence("Ctrl+Shift+S"))
        self.act_swap.triggered.connect(self.swap)
        self.act_reload = QAction("&Reload from disk", self, shortcut=QKeySequence.StandardKey.Refresh)
        self.act_reload.triggered.connect(self.reload)
        self.act_screenshot = QAction("Save &screenshot…", self)
        self.act_screenshot.triggered.connect(self._save_screenshot_dialog)
        act_quit = QAction("&Quit", self, shortcut=QKeySequence.StandardKey.Quit)
        act_quit.triggered.connect(self.close)
        for a in (self.act_open_a, self.act_open_b, self.act_swap, self.act_reload):
            file_menu.addAction(a)
        file_menu.addSeparator()
        file_menu.addAction(self.act_screenshot)
        file_menu.addSeparator()
        file_menu.addAction(act_quit)

        view = mb.addMenu("&View")
        self.act_syntax = QAction("&Syntax colour for code", self, checkable=True, checked=True)
        self.act_syntax.toggled.connect(self._set_syntax)
        view.addAction(self.act_syntax)
        theme_menu = view.addMenu("&Theme")
        group = QActionGroup(self)
        self._theme_actions = {}
        for name in THEMES:
            act = QAction(name.capitalize(), self, checkable=True)
            act.setChecked(name == self.theme.name)
            act.triggered.connect(lambda _c=False, n=name: self.set_theme(n))
            group.addAction(act)
            theme_menu.addAction(act)
            self._theme_actions[name] = act
        view.addSeparator()
        view.addAction(self.params_dock.toggleViewAction())
        view.addAction(self.diagnostics_dock.toggleViewAction())
        self.act_legend = QAction("&Legend", self, checkable=True, checked=True)
        self.act_legend.toggled.connect(self.legend.setVisible)
        view.addAction(self.act_legend)

        self.examples_menu = mb.addMenu("E&xamples")
        for name in EXAMPLES:
            act = QAction(EXAMPLE_TITLES[name], self)
            act.triggered.connect(lambda _c=False, n=name: self.load_example(n))
            self.examples_menu.addAction(act)

        help_menu = mb.addMenu("&Help")
        act_about = QAction("&About Steadlith Inspector", self)
        act_about.triggered.connect(self._about)
        help_menu.addAction(act_about)

        tb = QToolBar("Main", self)
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        tb.addAction(self.act_open_a)
        tb.addAction(self.act_open_b)
        tb.addAction(self.act_swap)
        ex = QToolButton()
        ex.setText("Examples")
        ex.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        ex.setMenu(self.examples_menu)
        tb.addWidget(ex)
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        self._shown_label = QLabel("")
        self._shown_label.setObjectName("shownHash")
        self._shown_label.setTextFormat(Qt.TextFormat.RichText)
        self._shown_label.setContentsMargins(0, 0, 8, 0)
        tb.addWidget(self._shown_label)
        self.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)

    def _set_syntax(self, enabled: bool) -> None:
        for pane in self.panes.values():
            pane.set_syntax_enabled(enabled)

    def _save_screenshot_dialog(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save screenshot", "steadlith.png", "PNG images (*.png)")
        if path and not self.grab().save(path, "PNG"):
            self.show_message(f"Could not save the screenshot to {path}", "error")

    def _about(self) -> None:
        self.show_message(
            "Steadlith Inspector shows where and why the content-defined chunker (tttd-v1) cut two versions "
            "of a document. Hover a chunk for its details; change parameters on the left.",
            "info",
        )

    def closeEvent(self, event) -> None:  # noqa: N802
        from PySide6.QtCore import QThreadPool

        QThreadPool.globalInstance().waitForDone(5000)
        super().closeEvent(event)

