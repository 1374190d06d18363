"""A view of one document's original text with its chunks, their statuses and cuts;
editable on request.

Without a comparison, chunks are alternating background tints. With one, each chunk
is tinted by its status (reused quiet, shifted loudest, edited, new/removed), changed
words get a stronger background and an underline, and a stripe in the gutter repeats
the status. Every cut has a marker coloured and shaped by its kind; the gutter shows
chunk numbers.

The pane is split the way meld splits its text view: the session's `EditTracker`
(Qt-free, one per side, given to the pane by `follow_edits`) knows which revision of the
text the shown result belongs to and shifts its positions by the edits typed since (the
pane reports each change with `edited`; the session records it); `ChunkPainter` paints
tints, underlines, markers and the selection; `ChunkGutter` paints the numbers and the
status stripe; `PaneGeometry` maps positions to the screen and scrolls. This class holds the document and the
result shown, and turns mouse and keyboard into signals.

Editing: a keystroke costs O(1) here plus, at the next paint, one vectorized shift of
the chunk positions (O(chunks), numpy) so the decorations follow the text until the
next analysis arrives. Nothing per keystroke touches the whole document.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPoint, QRect, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QPainter, QTextOption
from PySide6.QtWidgets import QApplication, QPlainTextEdit, QWidget
from steadlith_core import Chunking

from ..model.documents import LoadedDocument
from ..model.edit_tracker import EditTracker
from ..model.highlight import SyntaxSpans
from ..model.layouts import ChunkLayout, PaneView, SideStatus
from ..model.long_lines import with_breaks
from .chunk_gutter import ChunkGutter
from .chunk_painter import ChunkPainter
from .file_drop import FileDropTarget
from .palette import LIGHT, Theme
from .pane_geometry import PaneGeometry
from .pane_mouse import PaneMouse
from .pane_text import PaneText
from .syntax_highlighter import PygmentsHighlighter

NO_GHOSTS = np.zeros(0, dtype=np.int64)


def document_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setPointSize(10)
    return font


#: Lines a pane always shows (the docks tab together before the panes get shorter).
MIN_LINES = 8


class DocumentPane(PaneText, PaneMouse, PaneGeometry, FileDropTarget, QPlainTextEdit):
    """One document, its chunks, statuses and cuts. Displays; computes nothing about chunking."""

    files_dropped = Signal(list)  # local paths dropped onto the pane
    edited = Signal(int, int, int)  # the user changed the text: Qt position, chars removed, chars added
    chunk_clicked = Signal(int)  # a click (not a drag) on a chunk
    focused = Signal()
    zoom_requested = Signal(int)  # Ctrl+wheel: steps in (+) or out (-), for both panes
    long_paste_refused = Signal(int)  # a paste or drop would have made a line of this many code points

    STRIPE = ChunkGutter.STRIPE

    def __init__(self, side: str, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.side = side
        self.setObjectName(f"pane{side}")
        self.setAccessibleName(f"Document {side}")
        self.theme = theme
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setFont(document_font())
        self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
        # a few lines whatever the docks ask for: the window's docks give way first
        self.setMinimumHeight(self.fontMetrics().height() * MIN_LINES)
        self.setPlaceholderText(f"Document {side}: drop a file here, or File → Open {side}…")
        self.setAcceptDrops(True)
        self.viewport().setAcceptDrops(True)
        self.viewport().setMouseTracking(True)
        self.editable = False
        self.soft_breaks = NO_GHOSTS  # Qt positions of the display breaks' separators (long_lines)
        self.set_editable(False)

        self.document_info: LoadedDocument | None = None  # the document the shown result was made from
        self.origin: LoadedDocument | None = None  # the document as loaded
        self.chunking: Chunking | None = None
        self.layout_info: ChunkLayout | None = None  # the result's layout (positions of document_info)
        self.status_info: SideStatus | None = None
        self.hovered: int | None = None
        self.selected: int | None = None
        self.partner_selected: int | None = None  # the selected chunk's partner shown in the other pane
        self.paint_count = 0  # for benchmarks and tests: paints of the viewport so far

        # the session's revisions and edits of this side (follow_edits); a pane shown alone
        # (no session: nothing is typed into it) keeps one that no edit reaches
        self.edits = EditTracker()
        self._loading = False
        self._formatting = False
        self._press_pos: QPoint | None = None

        self._syntax_enabled = True
        self._highlighter = PygmentsHighlighter(self)

        self.gutter = ChunkGutter(self)
        self.painter = ChunkPainter(self)
        self.ghosts = NO_GHOSTS
        self._clear_references()
        self.updateRequest.connect(self._on_update_request)
        self.document().contentsChange.connect(self._on_contents_change)
        self._update_gutter_width()

    # -- content ---------------------------------------------------------------------
    def set_document(self, doc: LoadedDocument, modified: bool = False) -> None:
        """Show a new text (original, not canonical). Its chunks come with the next result."""
        self._formatting = True
        self._highlighter.detach()
        self._formatting = False
        self.document_info = doc
        self.origin = doc.root
        self.chunking = None
        self.layout_info = None
        self.status_info = None
        self.hovered = self.selected = self.partner_selected = None
        self.ghosts = NO_GHOSTS
        self._clear_references()
        breaks = doc.offsets.breaks
        self.soft_breaks = (np.asarray(doc.offsets.to_display(breaks), dtype=np.int64) - 1 if breaks.size
                            else NO_GHOSTS)
        self._apply_editable()
        self.gutter.digits = 2
        self._loading = True
        try:
            self.setPlainText(with_breaks(doc.text, breaks))
        finally:
            self._loading = False
        self.edits.invalidate()
        self.document().setModified(modified)
        self._apply_syntax()
        self._update_gutter_width()
        self.viewport().update()

    def set_ghosts(self, positions: np.ndarray | None) -> None:
        """Where the other version cuts, in this text's positions (viewmodel.WordMap.ghost_cuts):
        faint dashed ticks, so a phase shift reads without reading words."""
        self.ghosts = NO_GHOSTS if positions is None else np.asarray(positions, dtype=np.int64)
        self.viewport().update()

    def set_references(self, starts: np.ndarray | None, ends: np.ndarray | None = None,
                       splits: np.ndarray | None = None) -> None:
        """A question set's reference excerpts in this text (sorted, disjoint Qt position
        runs [starts[k], ends[k])) and the cuts splitting one (Qt positions, ascending):
        underlined and notched (controllers/references.py). None: none."""
        if starts is None:
            if self.reference_starts is NO_GHOSTS and self.reference_splits is NO_GHOSTS:
                return  # none shown: every result asks again, and a repaint would draw the same
            self._clear_references()
        else:
            self.reference_starts, self.reference_ends = starts, ends
            self.reference_splits = NO_GHOSTS if splits is None else splits
        self.viewport().update()

    def _clear_references(self) -> None:
        self.reference_starts = self.reference_ends = self.reference_splits = NO_GHOSTS

    def set_display(self, wrap: bool, zoom: int) -> None:
        """Line wrapping and font size (default + zoom points), as the session says."""
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap)
        font = document_font()
        font.setPointSize(max(4, font.pointSize() + zoom))
        if font != self.font():
            self.setFont(font)
            self.setTabStopDistance(self.fontMetrics().horizontalAdvance(" ") * 4)
            self._update_gutter_width()
        self.viewport().update()

    def wheelEvent(self, event) -> None:  # noqa: N802
        """Ctrl+wheel zooms both panes together (through the session), never one alone."""
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            steps = 1 if event.angleDelta().y() > 0 else -1 if event.angleDelta().y() < 0 else 0
            if steps:
                self.zoom_requested.emit(steps)
            event.accept()
            return
        super().wheelEvent(event)

    def contextMenuEvent(self, event) -> None:  # noqa: N802
        """The text's own menu, with the chunk under the pointer's text and hash to copy."""
        menu = self.createStandardContextMenu(event.pos())
        index = self.chunk_at_point(event.pos())
        if index is not None and self.chunking is not None and index < len(self.chunking.chunks):
            menu.insertSeparator(menu.actions()[0] if menu.actions() else None)
            first = menu.actions()[0] if menu.actions() else None
            copy_text = menu.addAction(f"Copy chunk {index}'s text")
            copy_hash = menu.addAction(f"Copy chunk {index}'s hash")
            if first is not None:
                menu.insertAction(first, copy_text)
                menu.insertAction(first, copy_hash)
            copy_text.triggered.connect(lambda: self.copy_chunk(index, "text"))
            copy_hash.triggered.connect(lambda: self.copy_chunk(index, "hash"))
        self.context_menu = menu  # tests look at it
        menu.exec(event.globalPos())

    def copy_chunk(self, index: int, what: str) -> str:
        """Put chunk `index`'s text (as in the document) or its hash on the clipboard."""
        c = self.chunking.chunks[index]
        value = c.hash if what == "hash" else self.chunking.text[c.start:c.end]
        QApplication.clipboard().setText(value)
        return value

    def clear_document(self) -> None:
        self.ghosts = NO_GHOSTS
        self._clear_references()
        self.soft_breaks = NO_GHOSTS
        self.gutter.digits = 2
        self._apply_editable()
        self.document_info = self.origin = None
        self._loading = True
        try:
            self.clear()
        finally:
            self._loading = False
        self.edits.invalidate()
        self.document().setModified(False)
        self.show_result(None, None, None, None)

    def show_result(self, doc: LoadedDocument | None, chunking: Chunking | None, layout: ChunkLayout | None,
                    status: SideStatus | None) -> None:
        """Show an analysis of this pane's document (as loaded, or edited at revision
        doc.revision). Whether it applies is the session's decision (Session.accept_result),
        made before the presenter hands it here."""
        if doc is not None:
            self.document_info = doc
            if doc.syntax is not None and self.syntax_active:
                self._highlighter.configure(doc.syntax, self.theme.pygments_style)
        self.chunking = chunking
        self.layout_info = layout
        self.status_info = status if layout is not None else None
        self.edits.invalidate()
        n = layout.count if layout is not None else 0
        for attr in ("hovered", "selected", "partner_selected"):
            if getattr(self, attr) is not None and getattr(self, attr) >= n:
                setattr(self, attr, None)
        self._update_gutter_width()
        self.viewport().update()
        self.gutter.update()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._apply_syntax()
        self.viewport().update()
        self.gutter.update()

    @property
    def long_lines(self) -> bool:
        """The text is shown with display breaks in its long lines (long_lines), and so
        is read-only."""
        return bool(self.soft_breaks.size)

    def set_editable(self, editable: bool) -> None:
        """Editable: a caret, typing, undo. Read-only: selectable with the mouse, no caret
        (it would look like a cut marker). A text shown with display breaks stays
        read-only until another text replaces it: an edit across a break would have to
        be told from a typed line break, and a mistake would change the user's text."""
        self._editable_wanted = editable
        self._apply_editable()

    def _apply_editable(self) -> None:
        editable = self._editable_wanted and not self.soft_breaks.size
        self.editable = editable
        self.setReadOnly(not editable)
        # read-only, Tab moves on to the next part of the window; editable, Tab types a
        # tab (code and TSV hold them) and Ctrl+Tab moves on (keyPressEvent)
        self.setTabChangesFocus(not editable)
        if editable:
            self.setTextInteractionFlags(Qt.TextInteractionFlag.TextEditorInteraction)
        else:
            self.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

    def keyPressEvent(self, event) -> None:  # noqa: N802
        """Ctrl+Tab / Ctrl+Shift+Tab leave the pane even while Tab types a tab into it."""
        key, mods = event.key(), event.modifiers()
        if key in (Qt.Key.Key_Tab, Qt.Key.Key_Backtab) and mods & Qt.KeyboardModifier.ControlModifier:
            back = key == Qt.Key.Key_Backtab or bool(mods & Qt.KeyboardModifier.ShiftModifier)
            # QPlainTextEdit's own focusNextPrevChild refuses while Tab types: QWidget's moves on
            QWidget.focusNextPrevChild(self, not back)
            event.accept()
            return
        super().keyPressEvent(event)

    @property
    def modified(self) -> bool:
        return self.document().isModified()

    @property
    def has_pending_edits(self) -> bool:
        """The text differs from the one the shown result was made from."""
        return self.edits.has_pending_edits

    @property
    def syntax_active(self) -> bool:
        return self._highlighter.attached

    def set_syntax_enabled(self, enabled: bool) -> None:
        if enabled == self._syntax_enabled:
            return  # re-highlighting is O(document): never for a no-op
        self._syntax_enabled = enabled
        self._apply_syntax()

    def _apply_syntax(self) -> None:
        doc = self.document_info
        spans = doc.syntax if doc is not None else None
        self._formatting = True
        try:
            if spans is None or not self._syntax_enabled:
                self._highlighter.detach()
                return
            self._highlighter.configure(spans, self.theme.pygments_style)
            self.edits.invalidate()
            if not self._highlighter.attached:
                self._highlighter.attach()
            self._highlighter.rehighlight()
        finally:
            self._formatting = False

    # -- edits -------------------------------------------------------------------------
    def follow_edits(self, edits: EditTracker) -> None:
        """Read the revisions and the edits since the shown result from `edits`, which
        the session keeps for this side (the pane only reports changes: `edited`)."""
        self.edits = edits
        self.viewport().update()

    def _on_contents_change(self, pos: int, removed: int, added: int) -> None:
        if self._loading or self._formatting or removed == added == 0:
            return
        self.edited.emit(pos, removed, added)

    def view(self) -> PaneView | None:
        """The chunks, statuses and changed words in current Qt positions."""
        return self.edits.view(self.layout_info, self.status_info)

    def current_syntax(self, spans: SyntaxSpans) -> tuple[np.ndarray, np.ndarray]:
        return self.edits.syntax(spans)

    # -- statuses ------------------------------------------------------------------------
    def status_of(self, index: int) -> str | None:
        st = self.status_info
        return st.statuses[index] if st is not None and 0 <= index < len(st.statuses) else None

    def set_selected(self, index: int | None, partner: int | None = None) -> None:
        if (index, partner) != (self.selected, self.partner_selected):
            self.selected, self.partner_selected = index, partner
            self.viewport().update()
            self.gutter.update()

    # -- geometry helpers (also used by tests and the link map) --------------------------
    def cut_position(self, index: int) -> int:
        """Qt position of the cut after chunk `index` (the end of its last word)."""
        v = self.view()
        return int(v.ends[index]) if v is not None else int(self.layout_info.ends[index])

    def chunk_span(self, index: int) -> tuple[int, int]:
        v = self.view()
        return int(v.starts[index]), int(v.ends[index])

    # -- painting --------------------------------------------------------------------
    def paintEvent(self, event) -> None:  # noqa: N802
        view = self.view()
        visible = self.visible_blocks() if view is not None else []
        if visible:
            p = QPainter(self.viewport())
            self.painter.paint_under_text(p, visible, view)
            p.end()
        super().paintEvent(event)
        if visible:
            p = QPainter(self.viewport())
            self.painter.paint_over_text(p, visible, view)
            p.end()
        self.paint_count += 1

    # -- gutter placement --------------------------------------------------------------
    def gutter_width(self) -> int:
        return self.gutter.preferred_width()

    def _update_gutter_width(self) -> None:
        w = self.gutter_width()
        if self.viewportMargins().left() != w:
            self.setViewportMargins(w, 0, 0, 0)
        self._place_gutter()

    def _place_gutter(self) -> None:
        cr = self.contentsRect()
        self.gutter.setGeometry(QRect(cr.left(), cr.top(), self.gutter_width(), cr.height()))

    def resizeEvent(self, event) -> None:  # noqa: N802
        super().resizeEvent(event)
        self._place_gutter()

    def _on_update_request(self, rect: QRect, dy: int) -> None:
        if dy:
            self.gutter.scroll(0, dy)
        else:
            self.gutter.update(0, rect.y(), self.gutter.width(), rect.height())

    # -- hover, click ------------------------------------------------------------------
