"""Renders the session: documents into the panes, an analysis result into the panes,
link map, overview, legend, chunk table and diagnostics, and the notes about them in the
message bar. It reads the session and the result, never a widget's state back. The pane
headers, title, status line and churn columns are parts of their own (chrome.py), which
follow `result_shown`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Mapping

from PySide6.QtCore import QObject, Signal

from ..model.long_lines import LINE_LIMIT
from ..model.session import Session
from ..model.viewmodel import few_spaces_warning, first_change, first_look_message
from ..widgets.overview_map import side_data

if TYPE_CHECKING:
    from ..widgets.chunk_table import ChunkTable
    from ..widgets.diagnostics import DiagnosticsView
    from ..widgets.document_pane import DocumentPane
    from ..widgets.legend import Legend
    from ..widgets.link_map import LinkMap
    from ..widgets.message_bar import MessageBar
    from ..widgets.overview_map import OverviewMap
    from ..workers.worker import Analyzer
    from .navigation import NavigationController


@dataclass(frozen=True)
class ResultViews:
    """What the presenter draws on: the views a document and its chunks reach, and the
    message bar for the notes about them."""

    panes: Mapping[str, DocumentPane]
    link_map: LinkMap
    overview: OverviewMap
    legend: Legend
    table: ChunkTable
    diagnostics: DiagnosticsView
    message_bar: MessageBar


def _completes(result, shown) -> bool:
    """`result` adds only churn columns (the baseline, other rules, external chunkers) to
    the result on screen: the same analysis, the same chunkings, layouts and links."""
    return (result.generation == shown.generation and result.a is shown.a and result.b is shown.b
            and result.layout_a is shown.layout_a and result.layout_b is shown.layout_b and result.links is shown.links
            and result.word_map is shown.word_map)


class ResultPresenter(QObject):
    """Draws on `view`; `navigation` keeps the selection across results and lands on
    the first change; `analyzer` reports failures. It holds these, not the window."""

    # each time a result reaches the widgets, also while the churn panel still waits for
    # the baseline or another rule (AnalysisResult.pending)
    result_shown = Signal(object)
    analysis_ready = Signal(object)  # the result on screen is complete, churn panel included

    def __init__(self, view: ResultViews, session: Session, analyzer: Analyzer,
                 navigation: NavigationController, *,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.view = view
        self.show_message = session.tell
        self.session = session
        self.navigation = navigation
        self._warned: dict[str, object] = {}  # side -> the loaded document last checked for few spaces
        self._warning = ""  # the few-spaces warning shown last: it leaves with its document
        self._first_look = ""  # the first-look line shown last (it counts chunks: kept current)
        session.events.document_replaced.connect(self._on_document_replaced)
        self._shown = None  # the result rendered last
        session.events.result_changed.connect(self._on_result)
        session.events.example_left.connect(self._on_example_left)
        view.legend.set_rule(session.rule)
        analyzer.failed.connect(self._on_analysis_failed)

    def _on_document_replaced(self, side: str) -> None:
        w, st = self.view, self.session.sides[side]
        pane = w.panes[side]
        bar = w.message_bar
        if self._warning and bar.isVisible() and bar.text() == self._warning and self._warning.startswith(side):
            bar.dismiss()
        if st.doc is None:
            pane.clear_document()
        else:
            pane.set_document(st.doc, st.modified)
            if pane.long_lines:
                self.show_message(f"{side} has lines of more than {LINE_LIMIT:,} characters: they are shown in pieces "
                               "(↪ marks where a piece goes on; the text has no break there) and are read-only "
                               "here. Chunks, copies and saved files are those of the text.", "info")
        if self.navigation.selection is not None:
            self.navigation.select_chunk(self.navigation.selection[0], None, scroll=False)
        w.link_map.set_links(None)

    def _on_example_left(self, params) -> None:
        """The user's documents replaced an example: their parameters come back (the
        panel shows their rule), and the example's note no longer describes what is shown."""
        if params is not None:
            self.session.set_params(params, show=True)
        self.view.message_bar.withdraw(self.session.example_note)

    def _on_result(self, result, consistent: bool) -> None:
        shown, self._shown = self._shown, result
        if shown is None or not _completes(result, shown):  # a completion adds only churn columns
            self._show_result(result, consistent)
        self.result_shown.emit(result)
        if not result.pending:
            self.analysis_ready.emit(result)

    def _show_result(self, result, consistent: bool) -> None:
        w, session = self.view, self.session
        sides = session.sides
        for side, doc, chunking, layout in (("A", result.doc_a, result.a, result.layout_a),
                                            ("B", result.doc_b, result.b, result.layout_b)):
            if session.taken[side]:
                w.panes[side].show_result(doc, chunking, layout, result.side_status(side))
        comparison = result.comparison if consistent else None
        word_map = result.word_map if comparison is not None else None
        for side in ("A", "B"):
            w.panes[side].set_ghosts(None if word_map is None else word_map.ghosts_a if side == "A" else word_map.ghosts_b)
        w.link_map.set_links(result.links if comparison is not None else None, word_map)
        w.overview.set_result({
            side: side_data(layout if sides[side].chunking is chunking else None,
                            status if comparison is not None else None,
                            w.panes[side].document().characterCount())
            for side, chunking, layout, status in (("A", result.a, result.layout_a, result.status_a),
                                                   ("B", result.b, result.layout_b, result.status_b))
        })
        rule = result.params.boundary_rule
        shown = next((c.boundary_rule for c in (result.b, result.a) if c is not None), rule)  # or "external"
        w.legend.set_rule(shown)
        # the layouts carry their chunkings' fields: the table reads its rows from them
        w.table.set_result(sides["A"].chunking, sides["B"].chunking,
                           *(st.statuses if comparison is not None and st is not None else None
                             for st in (result.status_a, result.status_b)),
                           *(layout.fields if layout is not None and sides[side].chunking is chunking else None
                             for side, chunking, layout in (("A", result.a, result.layout_a),
                                                            ("B", result.b, result.layout_b))))
        if self.navigation.selection is not None:
            self.navigation.select_chunk(*self.navigation.selection, scroll=False)
        w.diagnostics.show_result(result)
        self._warn_few_spaces(result)
        if session.take_jump():
            first = first_change(comparison)
            if first is not None:
                self.navigation.show_first_change(first)
                # an example says what it shows, unless it has a note of its own; the
                # user's own documents keep the bar for their warnings
                if session.example is not None and not session.example_note:
                    self._first_look = first_look_message(comparison, first)
                    session.set_example_note(self._first_look)
                    self.show_message(session.example_note, "info")
        else:
            self._refresh_first_look(comparison)

    def _refresh_first_look(self, comparison) -> None:
        """The first-look line counts chunks: another result (new parameters, another
        rule) gives it that result's counts, so it never states the old ones."""
        bar, session = self.view.message_bar, self.session
        if not self._first_look or not bar.isVisible() or bar.text() != self._first_look:
            return
        first = first_change(comparison)
        if first is None:
            bar.dismiss()
            self._first_look = ""
            return
        self._first_look = first_look_message(comparison, first)
        session.set_example_note(self._first_look)
        self.show_message(self._first_look, "info")

    def _warn_few_spaces(self, result) -> None:
        """Once per loaded document: text with few spaces chunks coarsely (viewmodel.few_spaces_warning)."""
        for side, doc, chunking in (("A", result.doc_a, result.a), ("B", result.doc_b, result.b)):
            if doc is None or chunking is None or not self.session.taken[side] or not hasattr(chunking, "words"):
                continue  # an external chunking has no words of its own to judge
            root = doc.root
            if any(seen is root for seen in self._warned.values()):
                continue
            self._warned[side] = root
            text = few_spaces_warning(side, chunking)
            if text:
                self._warning = text
                self.show_message(text, "warning")

    def _on_analysis_failed(self, message: str) -> None:
        self.show_message(f"Analysis failed: {message}. The previous result stays on screen.", "error")
