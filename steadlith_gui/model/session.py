"""The inspector's state, without Qt: both sides, the parameters per boundary rule, the
view options a workspace saves, and the last analysis result with whether it still
applies to what is shown.

Widgets never hold truth of their own: they report what the user did (a load arrived,
a key was typed, a parameter changed) and render what the session's events say. The
Qt-side controllers (loader, analyzer, timers, file watcher, dialogs) call into the
session; the session never calls Qt. It imports nothing from PySide6, so it is tested
without a QApplication (tests/gui/model/), as napari's ViewerModel is.

The editor buffer keeps the text while the user types (copying it per keystroke would
cost O(document)); the session reads it through `text_provider` when it is due: for an
analysis, a save, a workspace or a swap.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, NamedTuple

import numpy as np
from psygnal import Signal, SignalGroup
from steadlith_core.chunking.rules import PARAMS_TYPES, rule_of
from steadlith_core.vocabulary import STATUSES

from .edit_tracker import EditTracker
from .external_choice import ExternalChoice
from .session_params import SessionParams

SIDES = ("A", "B")
OTHER = {"A": "B", "B": "A"}
THEME_CHOICES = ("system", "light", "dark")
#: What the chunk table's filters can be set to ("" is "any"); the table offers exactly these.
FILTER_VERSIONS = ("", "A", "B")
FILTER_STATUSES = ("", "changed", *STATUSES)


class SessionEvents(SignalGroup):
    """What the session announces; controllers and widgets connect to these, the session
    never calls them directly. psygnal holds a bound-method slot weakly (a deleted part
    stops listening without disconnecting) and can block or pause the whole group."""

    document_replaced = Signal(str)  # (side): another document, or none; its chunks come with a result
    side_changed = Signal(str)  # (side): its name, path or load state changed, not its text
    documents_changed = Signal()  # (): a load or a workspace replaced documents
    params_changed = Signal(object)  # (params): new parameters for their rule
    rule_changed = Signal(str)  # (rule): the panes show another rule
    view_changed = Signal(object)  # (ViewOptions)
    analysis_wanted = Signal()  # (): the analysis inputs changed; see analysis_inputs()
    result_changed = Signal(object, bool)  # (result, consistent)
    message = Signal(str, str)  # (text, level): for the user
    status = Signal(str, int)  # (text, ms): a passing note for the status bar
    load_failed = Signal(str)  # (text)
    load_started = Signal(str)  # (side): a load for it is under way
    workspace_changed = Signal(str)  # (path): the workspace file opened or saved last
    display_changed = Signal(object)  # (Display): wrap or zoom changed, for both panes
    example_left = Signal(object)  # (params | None): the user's own parameters to show again
    external_changed = Signal(object)  # (ExternalChoice): chunkers compared with, or the one the panes show
    edit_state_changed = Signal(str)  # (side): first edit since the shown result, modified flag or editability


class EditedText(NamedTuple):
    """An edited side's text for the analysis, taken at editor revision `revision` (the
    worker indexes it; edits normalize line ends to "\\n")."""

    text: str
    origin: Any  # the LoadedDocument as loaded (LoadedDocument.root)
    revision: int
    name: str
    path: str | None


@dataclass
class SideState:
    """One side: what was loaded, where it lives now, how far the user typed, and which
    chunks of it are on screen."""

    doc: Any = None  # LoadedDocument: as loaded, or the edited version last analysed
    seq: int = 0  # the load that owns the side; a result or reload of an older one is stale
    saved_as: tuple[str, str] | None = None  # (name, path) after Save as…
    origin_clean: bool = True  # unmodified means "as loaded" (not: as saved after an edit)
    # the editor's revision, the revision the shown chunks were made from and the edits
    # between them: the pane reads them to move the shown chunks with the text
    edits: EditTracker = field(default_factory=EditTracker)
    modified: bool = False  # differs from the clean state (the editor's modified flag)
    chunking: Any = None  # the Chunking on screen (None: none yet)
    status: Any = None  # the SideStatus on screen with it (None: not compared, or no layout)

    @property
    def identity(self) -> tuple[str | None, str | None]:
        """(name, path): of the file after Save as…, else of the document as loaded (path
        None for a pasted text or a git revision; an edited revision is named "edited copy
        of PATH @ SHORT"); (None, None) when empty."""
        if self.doc is None:
            return None, None
        if self.saved_as:
            return self.saved_as
        root = self.doc.root
        ref = getattr(root, "git_ref", None)  # a file at a git commit (steadlith_core.history.repository.RevisionRef)
        if self.modified and ref is not None:  # no longer what the commit holds
            return f"edited copy of {ref.path} @ {ref.short}", None
        return root.name, root.path

    @property
    def path(self) -> str | None:
        path = self.identity[1]
        return os.path.abspath(path) if path else None

    @property
    def revision(self) -> int:
        """The editor's revision now: bumped by every change of the text."""
        return self.edits.revision

    @property
    def shown_revision(self) -> int:
        """The revision the shown chunks were made from."""
        return self.edits.shown_revision

    @property
    def has_pending_edits(self) -> bool:
        return self.doc is not None and self.edits.has_pending_edits


@dataclass
class ViewOptions:
    """The view part of a workspace."""

    syntax_colour: bool = True
    sync_scroll: bool = True
    theme: str = "system"
    edit_a: bool = False
    edit_b: bool = True
    legend: bool = True
    chunk_filter: dict = field(default_factory=lambda: {"text": "", "version": "", "status": ""})

    def as_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "chunk_filter": dict(self.chunk_filter)}

    def merged(self, view: Mapping[str, Any]) -> "ViewOptions":
        """These options with a workspace's on top; a value of the wrong type is ignored."""
        changes: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            value = view.get(f.name)
            if f.name == "theme":
                if value in THEME_CHOICES:
                    changes["theme"] = value
            elif f.name == "chunk_filter":
                if isinstance(value, dict):
                    changes[f.name] = {k: (value[k] if _filter_value_ok(k, value.get(k)) else old)
                                       for k, old in self.chunk_filter.items()}
            elif isinstance(value, bool):
                changes[f.name] = value
        return dataclasses.replace(self, **changes)


def _filter_value_ok(key: str, value: Any) -> bool:
    """A chunk filter value the table can show: free text, or one of its choices."""
    if not isinstance(value, str):
        return False
    return key == "text" or value in {"version": FILTER_VERSIONS, "status": FILTER_STATUSES}.get(key, ())


@dataclass(frozen=True)
class Display:
    """How the panes show text, the same in both so lines stay comparable: wrapping and the
    zoom step (font points over the default). Not part of a workspace: it is about the
    screen, not the analysis."""

    wrap: bool = True
    zoom: int = 0


ZOOM_RANGE = (-6, 16)


class LoadOutcome(NamedTuple):
    applied: tuple[str, ...]  # sides that now show the loaded documents
    message: str | None  # errors (and what is still shown), or a cancelled load
    remember: bool  # the pair goes to Recent files


class Session(SessionParams):
    """Both sides, the parameters per rule, the view options and the latest result.
    Its events are synchronous and carry what changed (see __init__)."""

    def __init__(self, params: Any = None, *, confirm: Callable[[str], bool] | None = None,
                 text_provider: Callable[[str], str] | None = None):
        """`confirm(question)`: asked before edits are discarded (a dialog in the window).
        `text_provider(side)`: the side's text as the editor holds it now."""
        self.sides = {s: SideState() for s in SIDES}
        self._params: dict[str, Any] = {rule: typ() for rule, typ in PARAMS_TYPES.items()}
        self.rule = "tttd-v1"  # the rule the panes show; the churn panel compares every rule
        if params is not None:
            self.rule = rule_of(params)
            self._params[self.rule] = params
        self.view = ViewOptions()
        self.external = ExternalChoice()  # external chunkers in the churn panel; `shown` one in the panes
        self.display = Display()
        self.result: Any = None  # AnalysisResult of the latest analysis
        self.taken = {"A": False, "B": False}  # the sides that show the latest result
        self.consistent = False  # both sides show the result's chunkings: its comparison applies
        self.alignment: dict[str, np.ndarray] = {}  # the comparison's aligned pairs, by side, when consistent
        self.workspace_path: str | None = None  # the .steadlith file opened or saved last
        self.confirm = confirm or (lambda question: True)
        self.text_provider = text_provider or (lambda side: self.sides[side].doc.text)
        self._private_seq = 0
        self._pending: dict[int, dict] = {}  # load seq -> revisions at the request, remember, modified, swap
        self._jump_seq: int | None = None
        self._jump_docs: tuple | None = None
        self._held = 0
        # A pair example brings parameters of its own: they live only while the example is
        # shown. The user's own parameters wait here, come back when their documents load,
        # and are what the settings remember.
        self.example: str | None = None
        self.example_note = ""  # the info shown with the example on screen ("": none)
        self._example_seq: int | None = None
        self._user_params: dict[str, Any] | None = None

        self.events = SessionEvents()

    # -- sides ------------------------------------------------------------------------
    def documents(self) -> tuple[Any, Any]:
        return self.sides["A"].doc, self.sides["B"].doc

    def identity(self, side: str) -> tuple[str | None, str | None]:
        return self.sides[side].identity

    def current_text(self, side: str) -> str:
        return self.text_provider(side)

    def set_document(self, side: str, doc: Any, modified: bool = False,
                     identity: tuple[tuple[str, str] | None, bool] | None = None) -> None:
        """Show `doc` (None: empty) on a side. `identity`: the (saved_as, origin_clean)
        it takes (a swap carries them); default: a new document, named as loaded."""
        st = self.sides[side]
        st.doc = doc
        st.saved_as, st.origin_clean = identity or (None, not modified)
        st.edits.reset(doc.revision if doc is not None else 0)
        st.modified = modified if doc is not None else False
        st.chunking = None
        st.status = None
        self.consistent = False
        self.alignment = {}
        self.events.document_replaced.emit(side)

    def note_edit(self, side: str, pos: int, removed: int, added: int) -> None:
        """The user changed the text at Qt position `pos` (O(1): called per keystroke):
        the side's revision moves on, and the shown chunks move with the text."""
        st = self.sides[side]
        if not st.edits.record(pos, removed, added):
            return
        if st.revision == st.shown_revision + 1:  # the first edit since the shown result
            self.events.edit_state_changed.emit(side)

    def note_modified(self, side: str, modified: bool) -> None:
        self.sides[side].modified = modified
        self.events.edit_state_changed.emit(side)

    def set_editable(self, side: str, editable: bool) -> None:
        """Whether the user may type into a side (a view option a workspace saves)."""
        self.set_view(**{f"edit_{side.lower()}": editable})
        self.events.edit_state_changed.emit(side)

    def set_workspace_path(self, path: str) -> None:
        """The .steadlith file opened or saved last (the title names it; "" after other
        documents replaced its own)."""
        self.workspace_path = path
        self.events.workspace_changed.emit(path)

    def tell(self, text: str, level: str = "error") -> None:
        """A message for the user (the window's message bar shows it): the parts say what
        happened through the session, not through the window."""
        self.events.message.emit(text, level)

    def note(self, text: str, ms: int = 5000) -> None:
        """A passing note for the status bar."""
        self.events.status.emit(text, ms)

    def set_example_note(self, note: str) -> None:
        """The info shown with the example on screen ("": none); the message bar's
        info is dismissed with the example only while it still shows this note."""
        self.example_note = note

    def mark_saved(self, side: str, path: str, origin: Any, revision: int) -> bool:
        """Save as… wrote the side's text taken at `revision`: the side is now that file.
        False if the side shows another document by now."""
        st = self.sides[side]
        if st.doc is None or st.doc.root is not origin:
            return False
        st.saved_as = (os.path.basename(path), path)
        st.origin_clean = False  # the clean state is now the saved text, not the loaded one
        if st.revision == revision:
            st.modified = False
        self.events.side_changed.emit(side)
        return True

    def source(self, side: str) -> Any:
        """What to analyse for a side: its document, or its edited text."""
        st = self.sides[side]
        doc = st.doc
        if doc is None or st.revision == doc.revision:
            return doc
        root = doc.root
        if not st.modified and st.origin_clean:  # undone back to the text as loaded
            return dataclasses.replace(root, revision=st.revision, origin=root)
        name, path = st.identity
        return EditedText(self.current_text(side), root, st.revision, name, path)

    def edited_sides(self, sides=SIDES) -> list[str]:
        return [s for s in SIDES if s in sides and self.sides[s].modified]

    def confirm_discard(self, sides=SIDES) -> bool:
        """Ask (through `confirm`) before edits on these sides are thrown away."""
        edited = self.edited_sides(sides)
        if not edited:
            return True
        names = " and ".join(edited)
        return bool(self.confirm(f"{names} {'has' if len(edited) == 1 else 'have'} unsaved edits. Discard them?"))

    def new_private_seq(self) -> int:
        """A side sequence number no loader batch has (they count up from 1)."""
        self._private_seq -= 1
        return self._private_seq

    # -- loading ------------------------------------------------------------------------
    @property
    def loading(self) -> bool:
        return bool(self._pending)

    def load_pending(self, side: str) -> bool:
        """A load for this side has not arrived yet."""
        return self.sides[side].seq in self._pending

    def begin_load(self, seq: int, sides, *, remember: bool = False, modified: Mapping[str, bool] | None = None,
                   swap: bool = False, keeps_workspace: bool = False) -> None:
        """Loader batch `seq` will bring `sides`: older results and loads for them are stale.
        Documents it brings leave the workspace opened or saved last (its name leaves
        the title), unless `keeps_workspace` (a swap or a reload of the same files)."""
        self._pending[seq] = {"revisions": {s: self.sides[s].revision for s in sides}, "remember": remember,
                              "modified": dict(modified or {}), "swap": swap,
                              "keeps_workspace": keeps_workspace or swap}
        for s in sides:
            self.sides[s].seq = seq
        for s in sides:
            self.events.load_started.emit(s)

    def loaded(self, seq: int, documents: Mapping[str, Any], errors) -> LoadOutcome:
        """A loader batch arrived: show what is still wanted (asking again for sides typed
        in meanwhile; "no" keeps the edits, and a swap is then dropped whole)."""
        info = self._pending.pop(seq, {"revisions": {}, "remember": False, "modified": {}, "swap": False})
        docs = {s: d for s, d in documents.items() if self.sides[s].seq == seq}
        typed = [s for s in docs if self.sides[s].revision != info["revisions"].get(s) and self.sides[s].modified]
        message = None
        if typed and not self.confirm_discard(typed):
            kept = SIDES if info["swap"] else typed
            docs = {s: d for s, d in docs.items() if s not in kept}
            message = (f"{'The swap' if info['swap'] else 'Loading ' + ' and '.join(typed)} was cancelled: "
                       "your edits are kept.")
            self.events.message.emit(message, "info")
        for side, doc in docs.items():
            self.set_document(side, doc, info["modified"].get(side, False))
        for side in SIDES:
            if self.sides[side].seq == seq and side not in docs:
                self.events.side_changed.emit(side)
        if errors:
            kept = [s for s, _ in errors if self.sides.get(s) is not None and self.sides[s].doc is not None]
            text = "\n".join(msg for _, msg in errors)
            if kept:
                text += f"\n{' and '.join(kept)} still show{'s' if len(kept) == 1 else ''} the document loaded before."
            message = text
            self.events.message.emit(text, "error")
            self.events.load_failed.emit(text)
        if docs and self.example is not None and seq != self._example_seq:
            self.leave_example()
        if docs and self.workspace_path and not info.get("keeps_workspace", True):
            self.workspace_path = None
            self.events.workspace_changed.emit("")
        if self._jump_seq == seq:
            self._jump_seq = None
            self._jump_docs = self.documents() if docs else None
        if docs:
            self.events.documents_changed.emit()
            self.request_analysis()
        return LoadOutcome(tuple(docs), message, bool(docs) and info["remember"])

    def jump_to_first_shift_after(self, seq: int | None) -> None:
        """Once the documents of load `seq` are analysed, show their first change: the
        first shifted region, else the first edited chunk."""
        self._jump_seq = seq
        self._jump_docs = None

    def land_on_change(self) -> None:
        """Once the documents shown now are analysed, show their first change (documents
        set directly, as a workspace sets them, rather than through a load)."""
        self._jump_seq = None
        self._jump_docs = self.documents()

    def swap_plan(self) -> str:
        """How a swap can go: "refused" (a load is pending), "nothing", "identities"
        (no edits: documents and identities trade places) or "reload" (edited texts are
        loaded on the other side)."""
        if self.documents() == (None, None):
            return "nothing"
        if self.loading:
            return "refused"
        if any(st.modified or st.has_pending_edits for st in self.sides.values()):
            return "reload"
        return "identities"

    def swap_identities(self) -> None:
        a, b = self.sides["A"], self.sides["B"]
        carried = {"A": (a.doc, a.seq, (a.saved_as, a.origin_clean)), "B": (b.doc, b.seq, (b.saved_as, b.origin_clean))}
        for side in SIDES:
            doc, seq, identity = carried[OTHER[side]]
            self.sides[side].seq = seq
            self.set_document(side, doc, identity=identity)
        self.request_analysis()

    # -- view options ---------------------------------------------------------------------
    def set_view(self, **changes: Any) -> None:
        new = dataclasses.replace(self.view, **changes)
        if new != self.view:
            self.view = new
            self.events.view_changed.emit(new)

    def set_display(self, wrap: bool | None = None, zoom: int | None = None) -> None:
        new = Display(self.display.wrap if wrap is None else wrap,
                      self.display.zoom if zoom is None else min(max(zoom, ZOOM_RANGE[0]), ZOOM_RANGE[1]))
        if new != self.display:
            self.display = new
            self.events.display_changed.emit(new)

    def zoom_by(self, steps: int) -> None:
        self.set_display(zoom=0 if steps == 0 else self.display.zoom + steps)

    def apply_view(self, view: Mapping[str, Any], keep_theme: bool = False) -> None:
        new = self.view.merged(view)
        if keep_theme:
            new = dataclasses.replace(new, theme=self.view.theme)
        if new != self.view:
            self.view = new
            self.events.view_changed.emit(new)

    # -- analysis -------------------------------------------------------------------------
    @contextlib.contextmanager
    def hold_analysis(self) -> Iterator[None]:
        """Changes made inside ask for no analysis (the caller asks once, afterwards)."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1

    def request_analysis(self) -> None:
        if not self._held and self.documents() != (None, None):
            self.events.analysis_wanted.emit()

    def analysis_inputs(self) -> tuple[Any, Any, Any]:
        """A, B and the shown rule's parameters (see params_by_rule for the others)."""
        return self.source("A"), self.source("B"), self.params

    def accept_result(self, result: Any) -> dict[str, bool]:
        """An analysis arrived. A side takes it if it was made from the side's document
        (as loaded or edited, not older than what is shown); an empty side takes an empty
        result. Returns which sides took it; `result_changed` follows."""
        taken = {}
        for side, doc, chunking in (("A", result.doc_a, result.a), ("B", result.doc_b, result.b)):
            st = self.sides[side]
            if doc is None:
                taken[side] = st.doc is None
            else:
                taken[side] = (st.doc is not None and doc.root is st.doc.root
                               and doc.revision >= st.shown_revision)
                if taken[side]:
                    st.doc = doc  # an edited version is now the analysed one
                    st.edits.show(doc.revision)
            if taken[side]:
                st.chunking = chunking
                # the pane shows statuses only over a layout of its chunks
                layout = getattr(result, f"layout_{side.lower()}", None)
                st.status = result.side_status(side) if layout is not None else None
        self.result = result
        self.taken = taken
        c = result.comparison
        self.consistent = c is not None and self.sides["A"].chunking is result.a and self.sides["B"].chunking is result.b
        if self.consistent:
            links = getattr(result, "links", None)
            if links is not None:  # the link map's pairs: the comparison's alignment, or an external chunking's hashes
                self.alignment = {"A": links.a_lo[links.pairs], "B": links.b_lo[links.pairs]}
            else:
                self.alignment = {"A": np.fromiter((i for i, _ in c.alignment), np.int64, len(c.alignment)),
                                  "B": np.fromiter((j for _, j in c.alignment), np.int64, len(c.alignment))}
        else:
            self.alignment = {}
        self.events.result_changed.emit(result, self.consistent)
        return taken

    @property
    def comparison(self) -> Any:
        """The result's comparison, if it applies to what is shown."""
        return self.result.comparison if self.result is not None and self.consistent else None

    def take_jump(self) -> bool:
        """True once: the documents loaded with a jump are analysed and compared."""
        if self._jump_docs is None or self.comparison is None:
            return False
        r = self.result
        if r.doc_a is not None and r.doc_a.root is self._jump_docs[0] and r.doc_b is not None \
                and r.doc_b.root is self._jump_docs[1]:
            self._jump_docs = None
            return True
        return False
