"""What the window says around the documents: the pane headers, the window title, the
status line and the churn panel's rule columns. Each part is given the few widgets it
draws and the session it reads; none reads a widget's state back but a pane's own
`editable` (a text shown in pieces stays read-only whatever the session says)."""

from __future__ import annotations

import html
import os
from typing import TYPE_CHECKING, Callable, Mapping

from PySide6.QtWidgets import QLabel, QStatusBar

from ..model.pane_header import pane_header
from ..model.session import SIDES, Session
from ..widgets.names import MESSAGE_WORD_CHARS, elide_middle, shown_name

if TYPE_CHECKING:
    from ..widgets.churn import ChurnPanel
    from ..widgets.document_pane import DocumentPane
    from ..widgets.palette import Theme
    from ..widgets.pane_column import PaneColumn


class PaneHeaders:
    """Each pane's header (name, identity, counts, edit state) from the session. Listens
    to the session's document and edit events; the window also calls `update_all` when a
    result is shown, an analysis failed or the theme changed (the header's text holds
    the theme's colours)."""

    def __init__(self, columns: Mapping[str, PaneColumn], panes: Mapping[str, DocumentPane], session: Session,
                 theme: Callable[[], Theme]):
        self.columns = columns
        self.panes = panes
        self.session = session
        self.theme = theme
        events = session.events
        # connected after the presenter's: a pane shown in pieces is read-only by then
        events.document_replaced.connect(
            lambda side: self.update(side, "analysing…" if session.sides[side].doc is not None else ""))
        events.side_changed.connect(lambda side: self.update(side))
        events.edit_state_changed.connect(lambda side: self.update(side))
        events.load_started.connect(lambda side: self.update(side, "loading…"))

    def update(self, side: str, status: str = "") -> None:
        st = self.session.sides[side]
        if st.has_pending_edits and not status:
            status = "edited: analysis after a pause"
        # the session's state; editable is the pane's own (a text shown in pieces stays read-only)
        self.columns[side].update_header(pane_header(
            side, st.doc, st.identity if st.doc is not None else None, st.chunking, st.status, modified=st.modified,
            editable=self.panes[side].editable, status=status), self.theme())

    def update_all(self, *_args) -> None:
        for side in SIDES:
            self.update(side)


class WindowTitle:
    """The window's title: the workspace and the documents' names, and whether any side
    has unsaved edits; `set_title(title, modified)` shows it."""

    def __init__(self, session: Session, set_title: Callable[[str, bool], None]):
        self.session = session
        self.set_title = set_title
        events = session.events
        for event in (events.document_replaced, events.side_changed, events.edit_state_changed,
                      events.workspace_changed):
            event.connect(lambda *_args: self.update())

    def update(self) -> None:
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


class StatusLine:
    """The status bar's line about the result shown (chunk counts, timings), the label
    of the parameters it was made with, and the busy label while an analysis runs."""

    def __init__(self, status_bar: QStatusBar, shown_label: QLabel, busy_label: QLabel, session: Session,
                 theme: Callable[[], Theme]):
        self.status_bar = status_bar
        self.shown_label = shown_label
        self.busy_label = busy_label
        self.session = session
        self.theme = theme

    def set_busy(self, busy: bool) -> None:
        self.busy_label.setText("● analysing…" if busy else "")

    def update(self, *_args) -> None:
        r = self.session.result
        if r is None:
            self.shown_label.setText("")
            self.status_bar.showMessage(
                "Open two versions of a document (File → Open A / Open B), drop files, or try Examples.")
            return
        h = r.params.params_hash
        external = next((c.chunker for c in (r.a, r.b) if c is not None and c.boundary_rule == "external"), None)
        timing_html = f"<span style='color:{self.theme().muted}'>{r.ms_total:.1f} ms</span>"
        if external is not None:  # the rule's params hash would be a stale answer here
            self.shown_label.setText(f"shown: <code>{html.escape(external)}</code> (external) &nbsp; {timing_html}")
            self.shown_label.setToolTip(
                "The panes show an external chunker's spans: no params hash, cut kinds or snapping apply; a "
                "chunk's identity is the hash of its exact text. The parameters panel sets "
                f"{r.params.boundary_rule}, compared in the churn panel.")
        else:
            self.shown_label.setText(f"shown: params <code>{h[:8]}…{h[-4:]}</code> &nbsp; {timing_html}")
            self.shown_label.setToolTip(f"The chunks on screen were made with params hash {h}")
        parts = [f"{side}: {c.diagnostics.chunk_count:,} chunks" for side, c in (("A", r.a), ("B", r.b))
                 if c is not None]
        timing = f"analysis {r.ms_total:.1f} ms (A {r.ms_a:.1f} · B {r.ms_b:.1f}"
        if r.comparison is not None:
            timing += f" · compare {r.ms_compare:.1f}"
        parts.append(timing + ")")
        self.status_bar.showMessage("   ·   ".join(parts))


class ChurnColumns:
    """The churn panel's columns: one per boundary rule (the shown one selected), the
    baseline and the external chunkers, for each result the session takes; choosing a
    rule there makes the panes show it."""

    def __init__(self, churn: ChurnPanel, session: Session):
        self.churn = churn
        churn.rule_selected.connect(session.set_rule)
        churn.set_shown_rule(session.rule)
        # the panes will show another rule once its analysis arrives; the selectors follow now
        session.events.rule_changed.connect(churn.set_shown_rule)
        session.events.result_changed.connect(self._on_result)

    def _on_result(self, result, consistent: bool) -> None:
        comparison = result.comparison if consistent else None
        self.churn.show_rules(result.rules if comparison is not None else None, result.params.boundary_rule,
                              self._empty_message(result), result.externals, result.pending)

    @staticmethod
    def _empty_message(result) -> str:
        if result.comparison_error:
            return f"No comparison: {result.comparison_error}"
        if result.a is None or result.b is None:
            missing = "A" if result.a is None else "B"
            return (f"Load {missing} too: the churn of an edit needs two versions. "
                    "Reused chunks, tokens to re-embed, phase shifts and the locality check appear here.")
        return "Analysing the versions shown…"
