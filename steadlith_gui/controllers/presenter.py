"""Renders the session: documents into the panes, an analysis result into the panes,
link map, overview, churn, chunk table and diagnostics, and the headers, title and
status bar. It reads the session and the result, never a widget's state back."""

from __future__ import annotations

import html
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Mapping

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QStatusBar

from ..model.long_lines import LINE_LIMIT
from ..model.pane_header import pane_header
from ..model.session import SIDES, Session
from ..model.viewmodel import few_spaces_warning, first_change, first_look_message
from ..widgets.names import MESSAGE_WORD_CHARS, elide_middle, shown_name
from ..widgets.overview_map import side_data

if TYPE_CHECKING:
    from ..widgets.chunk_table import ChunkTable
    from ..widgets.churn import ChurnPanel
    from ..widgets.diagnostics import DiagnosticsView
    from ..widgets.document_pane import DocumentPane
    from ..widgets.legend import Legend
    from ..widgets.link_map import LinkMap
    from ..widgets.message_bar import MessageBar
    from ..widgets.overview_map import OverviewMap
    from ..widgets.palette import Theme
    from ..widgets.pane_column import PaneColumn
    from ..workers.worker import Analyzer
    from .navigation import NavigationController


@dataclass(frozen=True)
class PresenterWidgets:
    """What the presenter draws on: the widgets a result reaches, and the status bar
    with its label of the shown parameters."""

    panes: Mapping[str, DocumentPane]
    columns: Mapping[str, PaneColumn]
    link_map: LinkMap
    overview: OverviewMap
    legend: Legend
    churn: ChurnPanel
    table: ChunkTable
    diagnostics: DiagnosticsView
    message_bar: MessageBar
    busy_label: QLabel
    shown_label: QLabel
    status_bar: QStatusBar


def _completes(result, shown) -> bool:
    """`result` adds only churn columns (the baseline, other rules, external chunkers) to
    the result on screen: the same analysis, the same chunkings, layouts and links."""
    return (result.generation == shown.generation and result.a is shown.a and result.b is shown.b
            and result.layout_a is shown.layout_a and result.layout_b is shown.layout_b and result.links is shown.links
            and result.word_map is shown.word_map)


class ResultPresenter(QObject):
    """Draws on `view`; `navigation` keeps the selection across results and lands on
    the first change; `analyzer` reports failures and when it is busy; `theme()` is the
    theme shown; `set_title(title, modified)` titles the window. It holds these, not
    the window."""

    # each time a result reaches the widgets, also while the churn panel still waits for
    # the baseline or another rule (AnalysisResult.pending)
    result_shown = Signal(object)
    analysis_ready = Signal(object)  # the result on screen is complete, churn panel included

    def __init__(self, view: PresenterWidgets, session: Session, analyzer: Analyzer,
                 navigation: NavigationController, *, theme: Callable[[], Theme],
                 show_message: Callable[[str, str], None], set_title: Callable[[str, bool], None],
                 parent: QObject | None = None):
        super().__init__(parent)
        self.view = view
        self.theme = theme
        self.show_message = show_message
        self.set_title = set_title
        self.session = session
        self.navigation = navigation
        self._warned: dict[str, object] = {}  # side -> the loaded document last checked for few spaces
        self._warning = ""  # the few-spaces warning shown last: it leaves with its document
        self._first_look = ""  # the first-look line shown last (it counts chunks: kept current)
        session.events.document_replaced.connect(self._on_document_replaced)
        session.events.side_changed.connect(self._on_side_changed)
        self._shown = None  # the result rendered last
        session.events.result_changed.connect(self._on_result)
        session.events.rule_changed.connect(self._on_rule)
        session.events.edit_state_changed.connect(self._on_edit_state)
        session.events.load_started.connect(lambda side: self.update_header(side, "loading…"))
        session.events.workspace_changed.connect(lambda _path: self.update_title())
        session.events.example_left.connect(self._on_example_left)
        view.churn.rule_selected.connect(session.set_rule)
        view.churn.set_shown_rule(session.rule)
        view.legend.set_rule(session.rule)
        analyzer.failed.connect(self._on_analysis_failed)
        analyzer.busy_changed.connect(self._on_busy)

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
        self.update_header(side, "analysing…" if st.doc is not None else "")
        self.update_title()

    def _on_example_left(self, params) -> None:
        """The user's documents replaced an example: their parameters come back (the
        panel shows their rule), and the example's note no longer describes what is shown."""
        if params is not None:
            self.session.set_params(params, show=True)
        self.view.message_bar.withdraw(self.session.example_note)

    def _on_side_changed(self, side: str) -> None:
        self.update_header(side)
        self.update_title()

    def _on_result(self, result, consistent: bool) -> None:
        shown, self._shown = self._shown, result
        if shown is not None and _completes(result, shown):
            self._show_completion(result, consistent)
        else:
            self._show_result(result, consistent)
        self.result_shown.emit(result)
        if not result.pending:
            self.analysis_ready.emit(result)

    def _show_completion(self, result, consistent: bool) -> None:
        """The second phase of the result on screen: only the churn panel's columns change."""
        self._show_churn(result, result.comparison if consistent else None)
        self.update_status()

    def _show_churn(self, result, comparison) -> None:
        self.view.churn.show_rules(result.rules if comparison is not None else None, result.params.boundary_rule,
                                     self._empty_churn_message(result), result.externals, result.pending)

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
        self._show_churn(result, comparison)
        shown = next((c.boundary_rule for c in (result.b, result.a) if c is not None), rule)  # or "external"
        w.legend.set_rule(shown)
        # the layouts carry their chunkings' fields: the table reads its rows from them
        w.table.set_result(sides["A"].chunking, sides["B"].chunking,
                           *(st.statuses if comparison is not None and st is not None else None
                             for st in (result.status_a, result.status_b)),
                           *(layout.fields if layout is not None and sides[side].chunking is chunking else None
                             for side, chunking, layout in (("A", result.a, result.layout_a),
                                                            ("B", result.b, result.layout_b))))
        for side in SIDES:
            self.update_header(side)
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
        self.update_status()

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

    def _on_rule(self, rule: str) -> None:
        """The panes will show another rule once its analysis arrives; the selectors follow now."""
        self.view.churn.set_shown_rule(rule)

    @staticmethod
    def _empty_churn_message(result) -> str:
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
            self.update_header(side)

    def _on_busy(self, busy: bool) -> None:
        self.view.busy_label.setText("● analysing…" if busy else "")

    def _on_edit_state(self, side: str) -> None:
        self.update_header(side)
        self.update_title()

    def update_header(self, side: str, status: str = "") -> None:
        st = self.session.sides[side]
        if st.has_pending_edits and not status:
            status = "edited: analysis after a pause"
        # the session's state; editable is the pane's own (a text shown in pieces stays read-only)
        self.view.columns[side].update_header(pane_header(
            side, st.doc, st.identity if st.doc is not None else None, st.chunking, st.status, modified=st.modified,
            editable=self.view.panes[side].editable, status=status), self.theme())

    def update_title(self) -> None:
        # names isolated and escaped; "[[*]]" is how a title shows a literal "[*]"
        # a very long name elided in its middle (the isolates at its ends kept)
        names = [elide_middle(shown_name(st.identity[0]), MESSAGE_WORD_CHARS).replace("[*]", "[[*]]")
                 for st in self.session.sides.values() if st.doc is not None]
        title = "Steadlith Inspector"
        ws = self.session.workspace_path
        if ws:
            title += " — " + shown_name(os.path.basename(ws)).replace("[*]", "[[*]]")
        if names:
            title += (": " if ws else " — ") + " ↔ ".join(names)
        self.set_title(title + "[*]", any(st.modified for st in self.session.sides.values()))

    def redraw_themed(self) -> None:
        """The pane headers and the status line hold the theme's colours in their text."""
        for side in SIDES:
            self.update_header(side)
        self.update_status()

    def update_status(self) -> None:
        w, r = self.view, self.session.result
        if r is None:
            w.shown_label.setText("")
            w.status_bar.showMessage(
                "Open two versions of a document (File → Open A / Open B), drop files, or try Examples.")
            return
        h = r.params.params_hash
        external = next((c.chunker for c in (r.a, r.b) if c is not None and c.boundary_rule == "external"), None)
        if external is not None:  # the rule's params hash would be a stale answer here
            w.shown_label.setText(f"shown: <code>{html.escape(external)}</code> (external) &nbsp; "
                                  f"<span style='color:{self.theme().muted}'>{r.ms_total:.1f} ms</span>")
            w.shown_label.setToolTip("The panes show an external chunker's spans: no params hash, cut kinds or "
                                     "snapping apply; a chunk's identity is the hash of its exact text. The "
                                     f"parameters panel sets {r.params.boundary_rule}, compared in the churn panel.")
        else:
            w.shown_label.setText(f"shown: params <code>{h[:8]}…{h[-4:]}</code> &nbsp; "
                                  f"<span style='color:{self.theme().muted}'>{r.ms_total:.1f} ms</span>")
            w.shown_label.setToolTip(f"The chunks on screen were made with params hash {h}")
        parts = [f"{side}: {c.diagnostics.chunk_count:,} chunks" for side, c in (("A", r.a), ("B", r.b))
                 if c is not None]
        timing = f"analysis {r.ms_total:.1f} ms (A {r.ms_a:.1f} · B {r.ms_b:.1f}"
        if r.comparison is not None:
            timing += f" · compare {r.ms_compare:.1f}"
        parts.append(timing + ")")
        w.status_bar.showMessage("   ·   ".join(parts))
