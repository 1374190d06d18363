"""`.steadlith` workspaces: what is shown, saved from the session; a saved one read on
the thread pool and applied to the session all at once (or not at all).

Trust: a workspace names the files it shows, and whoever wrote it chose them. When any
lies outside the workspace's folder (symbolic links resolved), nothing is read until
the person opening it has seen the real paths and said yes, the way editors ask before
trusting a folder; a headless run needs --trust-workspace instead."""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Protocol, Sequence

from PySide6.QtCore import QObject, Qt, Signal
from PySide6.QtWidgets import QFileDialog, QMessageBox, QWidget
from steadlith_core import ParameterError, parse_assignments
from steadlith_core.errors import visible

from ..model.documents import DocumentError, prepare_document
from ..model.session import SIDES, Session
from ..model.workspace import SUFFIX as WORKSPACE_SUFFIX
from ..model.workspace import DocumentRef, Workspace, WorkspaceError, save_workspace
from ..model.workspace_documents import outside_documents, renamed_documents, resolve_sources
from ..model.workspace_loading import load_workspace
from ..widgets.names import shown_name
from ..workers import exports
from ..workers.worker import Jobs
from .editing import EditController
from .file_output import ExportController
from .chrome import PaneHeaders
from .recent import RecentFilesMenu
from .settings import AppSettings


@dataclasses.dataclass(frozen=True)
class TrustNeeded:
    """A checked workspace whose documents were not read: some lie outside its folder.
    `outside` holds (side, real path) pairs."""

    path: str
    outside: list[tuple[str, str]]

    def listing(self) -> str:
        return "; ".join(f"{side.upper()} {real}" for side, real in self.outside)


def read_workspace(path: str, assignments: Sequence[str] = (), trusted: bool = True) -> tuple[Workspace, dict] | TrustNeeded:
    """Read, check and index a workspace (thread pool): the Workspace and its documents
    as LoadedDocuments by side. All or nothing: any problem raises WorkspaceError. Unless
    `trusted`, a workspace naming files outside its folder is returned as TrustNeeded
    before any of them is read."""
    ws = load_workspace(path)
    if assignments:
        try:
            ws = dataclasses.replace(ws, params=parse_assignments(list(assignments), base=ws.params))
        except ParameterError as e:
            raise WorkspaceError(path, None, f"invalid parameter given on top of it: {e}") from None
    if not trusted:
        outside = outside_documents(ws, os.path.dirname(os.path.abspath(path)))
        if outside:
            return TrustNeeded(path, outside)
    docs = {}
    for side, doc in resolve_sources(ws).items():
        try:
            if doc.git_ref is None:
                docs[side.upper()] = prepare_document(side.upper(), doc.text, name=doc.name, path=doc.path)
            else:  # the file's own path picks the syntax colour
                prepared = prepare_document(side.upper(), doc.text, name=doc.git_ref.path)
                docs[side.upper()] = dataclasses.replace(prepared, name=doc.name, git_ref=doc.git_ref)
        except DocumentError as e:
            raise WorkspaceError(path, f"documents.{side}", str(e)) from None
    return ws, docs


class DockSettings(Protocol):
    """A dock whose settings a workspace keeps (the Sweep and Lab docks)."""

    def settings(self) -> Any: ...

    def restore(self, settings: Any) -> None: ...


class WorkspaceController(QObject):
    """Save and open workspaces. It holds the session, the jobs that read and write off
    the GUI thread, the settings (the folder last opened), the recent-files menu, the
    export controller (its save dialog), the edit controller (a pending edit pause is
    dropped on open), the pane headers, the Sweep and Lab docks' settings,
    message and status callables and the widget its dialogs belong to; not the window."""

    saved = Signal(str)  # path
    opened = Signal(str)  # path
    failed = Signal(str)  # message (or "cancelled"): nothing was changed

    def __init__(self, session: Session, jobs: Jobs, settings: AppSettings, *, recent: RecentFilesMenu,
                 exports: ExportController, editing: EditController, headers: PaneHeaders,
                 sweep: DockSettings, lab: DockSettings,
                 dialogs: QWidget | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.jobs = jobs
        self.settings = settings
        self.recent = recent
        self.exports = exports
        self.editing = editing
        self.headers = headers
        self.sweep = sweep
        self.lab = lab
        self.show_message = session.tell
        self.status = session.note
        self.dialogs = dialogs
        self._seq = 0  # latest Open workspace request; older ones are dropped

    def document_ref(self, side: str) -> DocumentRef | None:
        """A side as a workspace entry: a file by its path, an edited file with its text, a
        pasted text (examples, load_texts) with its text, a git revision by repository,
        path and commit (with its text when edited)."""
        st = self.session.sides[side]
        if st.doc is None:
            return None
        name, path = st.identity[0], st.path
        ref = st.doc.root.git_ref
        if ref is not None and not st.saved_as:  # a file at a commit: stored as such, edited or not
            return DocumentRef.at_revision(ref, st.doc.root.name, self.session.current_text(side) if st.modified
                                           else None)
        if st.modified:
            text = self.session.current_text(side)
            return DocumentRef.edited(path, text, name) if path else DocumentRef.pasted(text, name)
        if path:
            return DocumentRef.from_file(path, name)
        return DocumentRef.pasted(st.doc.root.text, name)  # as given: line ends kept exactly

    def current_workspace(self) -> Workspace:
        return Workspace({s.lower(): self.document_ref(s) for s in SIDES}, self.session.params,
                         self.session.view.as_dict(), self.session.params_by_rule, self.session.external,
                         self.sweep.settings(), self.lab.settings())

    def save(self, path: str | os.PathLike | None = None) -> int | None:
        path = path or self.session.workspace_path
        if not path:
            return self.save_as()
        return self._write(os.fspath(path))

    def save_as(self) -> int | None:
        name_a, name_b = self.exports.shown_names()
        start = self.session.workspace_path or exports.default_name("workspace", name_a, name_b)
        path = self.exports.ask_save_path("Save workspace as", start,
                                          f"Steadlith workspaces (*{WORKSPACE_SUFFIX});;All files (*)", "open")
        if not path:
            return None
        if not os.path.splitext(path)[1]:
            path += WORKSPACE_SUFFIX
        return self._write(path)

    def _remember(self, path: str) -> None:
        self.session.set_workspace_path(os.path.abspath(path))
        self.settings.set_folder("open", os.path.dirname(self.session.workspace_path))
        self.recent.add({"workspace": self.session.workspace_path})

    def _write(self, path: str) -> int:
        ws = self.current_workspace()  # the texts are taken now; JSON and the write run below

        def done(_value) -> None:
            self._remember(path)
            self.show_message(f"Saved the workspace to {visible(path)}", "info")
            self.saved.emit(path)

        def failed(message: str) -> None:
            self.show_message(f"Could not save the workspace: {message}", "error")
            self.failed.emit(message)

        return self.jobs.start(lambda: save_workspace(ws, path), done, failed)

    def trust_box(self, need: TrustNeeded) -> tuple[QMessageBox, object]:
        """The question of ask_trust, and its "read" button: the real paths, as plain text."""
        listing = "\n".join(f"  {side.upper()}: {shown_name(real)}" for side, real in need.outside)
        box = QMessageBox(QMessageBox.Icon.Warning, "Open workspace",
                          f"The workspace {shown_name(need.path)} reads files outside its folder:\n{listing}\n\n"
                          "Read them only if you trust whoever made it: it could show (and, exported, carry "
                          "away) any file you can read.", parent=self.dialogs)
        box.setTextFormat(Qt.TextFormat.PlainText)  # paths are data, never markup
        read = box.addButton("Read these files", QMessageBox.ButtonRole.AcceptRole)
        box.addButton(QMessageBox.StandardButton.Cancel)
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        return box, read

    def ask_trust(self, need: TrustNeeded) -> bool:
        """Show the real paths a workspace would read and ask whether to read them."""
        box, read = self.trust_box(need)
        box.exec()
        return box.clickedButton() is read

    def open(self, path: str | os.PathLike | None = None, *, keep_theme: bool = False,
             assignments: Sequence[str] = (), trust: bool | None = None) -> int | None:
        """Open a workspace on the thread pool. `trust`: True reads files outside its
        folder without asking, False refuses them (headless runs without
        --trust-workspace), None asks (the window)."""
        session = self.session
        if path is None:
            folder = self.settings.folder("open") or os.getcwd()
            path, _ = QFileDialog.getOpenFileName(self.dialogs, "Open workspace", folder,
                                                  f"Steadlith workspaces (*{WORKSPACE_SUFFIX});;All files (*)")
            if not path:
                return None
        path = os.fspath(path)
        if not session.confirm_discard(SIDES):
            return None
        revisions = {s: session.sides[s].revision for s in SIDES}
        self._seq += 1
        seq = self._seq
        sets = tuple(assignments)

        def done(value) -> None:
            if seq != self._seq:
                return  # a later Open workspace replaced this one
            if isinstance(value, TrustNeeded):
                if trust is None and self.ask_trust(value):
                    self.open(path, keep_theme=keep_theme, assignments=sets, trust=True)
                    return
                reason = (f"it reads files outside its folder ({value.listing()}); "
                          + ("run with --trust-workspace to allow it" if trust is False else "not opened"))
                failed(reason)
                return
            ws, docs = value
            typed = [s for s in SIDES if session.sides[s].revision != revisions[s] and session.sides[s].modified]
            if typed and not session.confirm_discard(typed):
                self.show_message("Opening the workspace was cancelled: your edits are kept.", "info")
                self.failed.emit("cancelled")
                return
            self._apply(path, ws, docs, keep_theme)

        def failed(message: str) -> None:
            if seq != self._seq:
                return
            self.show_message(f"Cannot open the workspace: {message}\nNothing was changed.", "error")
            self.failed.emit(message)

        trusted = bool(trust)
        return self.jobs.start(lambda: read_workspace(path, sets, trusted), done, failed)

    def _apply(self, path: str, ws: Workspace, docs: dict, keep_theme: bool) -> None:
        session = self.session
        self.editing.cancel_pause()
        with session.hold_analysis():
            for side in SIDES:
                session.sides[side].seq = session.new_private_seq()  # loads still on their way are stale
                ref = ws.documents[side.lower()]
                session.set_document(side, docs.get(side), modified=bool(ref is not None and ref.modified))
            session.leave_example(restore=False)  # the workspace's parameters are the user's now
            session.set_all_params(ws.params_by_rule, ws.params.boundary_rule)
            session.apply_view(ws.view, keep_theme)
            session.set_external(ws.external)
        self.sweep.restore(ws.sweep)
        self.lab.restore(ws.lab)
        self._remember(path)
        self.headers.update_all()
        session.land_on_change()
        session.events.documents_changed.emit()
        session.request_analysis()
        self.status(f"Opened the workspace {shown_name(path)}")
        renamed = renamed_documents(ws)
        if renamed:  # the real file stays visible whatever name the workspace gives it
            # the bar keeps a message's own line breaks: a name's are escaped here
            self.show_message("This workspace shows " + "; ".join(
                f"{side.upper()} {visible(real)} as “{visible(name)}”" for side, name, real in renamed), "info")
        self.opened.emit(path)
