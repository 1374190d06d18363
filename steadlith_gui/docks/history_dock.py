"""The History dock's controller: follows the file shown in A, lists its commits, replays
them for their costs, and loads a clicked commit's pair.

- A shows a revision (or a file inside a git repository): the file's commits are listed
  (a quick job), then replayed through every rule on the ProgressJob's own thread, with
  progress and Cancel. Nothing runs while the dock is hidden; it catches up when shown.
- A shows another version of the same file (a click loads the parent there): the list
  stays, and the commit B shows is selected.
- A click on a commit loads the file at its parent into A and at the commit into B
  (A is emptied when the commit added the file).
- The dock shows itself the first time A shows a revision: the history is what a
  reviewer opening revisions came for. Closed afterwards, it stays closed.
"""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDockWidget
from steadlith_core.history.audit import replay_file

from ..model.history_state import HistoryState, HistoryTarget, locate, read_history
from ..model.session import Session
from ..widgets.history_view import HistoryView
from ..workers.jobs import ProgressJob
from ..workers.worker import Jobs

#: The height the dock asks for when it opens itself, in pixels.
HISTORY_HEIGHT = 260


class HistoryController(QObject):
    listed = Signal()  # the commits of a file are listed (their costs follow)
    costs_ready = Signal()  # the costs are shown
    history_failed = Signal(str)  # listing or replaying failed; the note says why

    def __init__(self, view: HistoryView, dock: QDockWidget, session: Session, *, settings, jobs: Jobs,
                 load_pair: Callable[[Any, Any], None],
                 show_dock: Callable[[], None], parent: QObject | None = None):
        """`settings`: where the baseline toggle is kept (controllers.settings.AppSettings);
        `load_pair(before, after)` loads two revisions as A and B; `show_dock()` opens
        the dock where the window's layout puts it. It holds these, not the window."""
        super().__init__(parent)
        self.session = session
        self.view = view
        self.dock = dock
        self.jobs = jobs
        self.show_message = session.tell
        self.load_pair = load_pair
        self.show_dock = show_dock
        self.state: HistoryState = self.view.state
        self.replay = ProgressJob(self)
        self._list_seq = 0
        self._wanted: tuple | None = None  # what A shows that the list does not follow yet
        self._replay_wanted = False
        self._shown_once = False
        self.replay.progressed.connect(self.view.set_progress)
        self.replay.finished.connect(self._on_costs)
        self.replay.failed.connect(self._on_replay_failed)
        self.replay.cancelled.connect(self._on_cancelled)
        self.view.commit_activated.connect(self.load_commit)
        self.view.cancel_requested.connect(self.replay.cancel)
        self.view.refresh_requested.connect(lambda: self.refresh(force=True))
        self.view.set_show_baseline(settings.history_baseline())
        self.view.baseline_toggled.connect(settings.set_history_baseline)
        self.dock.visibilityChanged.connect(lambda visible: visible and self.refresh())
        session.events.document_replaced.connect(self._on_document_replaced)
        session.events.params_changed.connect(lambda _p: self._note_stale())
        session.events.side_changed.connect(lambda _side: self._select_b())
        session.events.edit_state_changed.connect(lambda _side: self._select_b())

    # -- following A ----------------------------------------------------------------------
    def _on_document_replaced(self, side: str) -> None:
        doc = self.session.sides[side].doc
        self._select_b()
        if side == "B":
            return
        if doc is None:
            return  # emptied (B added the file): the list still describes B
        ref, path = doc.root.git_ref, doc.root.path
        if ref is not None:
            if self.state.covers(ref.repo, ref.path):
                return
            self._wanted = ("revision", ref)
            if not self._shown_once:
                self._shown_once = True
                self.show_dock()
        elif path is not None:
            self._wanted = ("file", path)
        else:
            self._wanted = None
            self._stop(f"A ({doc.root.name}) is not a file of a git repository: nothing to list.")
            return
        self.refresh()

    def refresh(self, force: bool = False) -> None:
        """List (and replay) what A shows, if the dock is visible; `force` reads the history
        again and recomputes the costs with the parameters now in force."""
        if force and self._wanted is None and self.state.target is not None:
            self._wanted = ("target", self.state.target)
        if not self.dock.isVisible():
            return
        if self._wanted is not None:
            wanted, self._wanted = self._wanted, None
            self._list(wanted, force)
        elif self._replay_wanted:
            self._start_replay()

    def _list(self, wanted: tuple, explicit: bool) -> None:
        self.replay.cancel()
        self._list_seq += 1
        seq = self._list_seq
        kind, what = wanted

        def read():
            if kind == "revision":
                return read_history(HistoryTarget(what.repo, what.path), fallback_rev=what.commit)
            if kind == "file":
                return read_history(locate(what))
            return read_history(what)

        def done(value) -> None:
            if seq != self._list_seq:
                return
            target, commits = value
            self.state.set_history(target, commits)
            self.view.refresh()
            self._select_b()
            self.listed.emit()
            self._replay_wanted = True
            self._start_replay()

        def failed(message: str) -> None:
            if seq != self._list_seq:
                return
            self._stop(f"No history: {message}")
            if explicit:
                self.show_message(f"History: {message}", "error")
            self.history_failed.emit(message)

        self.view.set_running(True)
        self.jobs.start(read, done, failed)

    def _select_b(self) -> None:
        """Highlight the commit the panes show: B at that commit, A at the version before
        it (empty when the commit added the file), neither typed into. Any other pair
        (another A, a swap, an edit) is no row's change, and no row stays highlighted."""
        self.view.select_commit(self._shown_row())

    def _shown_row(self) -> int | None:
        sides = self.session.sides
        a, b = sides["A"], sides["B"]
        if b.doc is None or b.doc.root.git_ref is None or a.modified or b.modified:
            return None
        row = self.state.row_of(b.doc.root.git_ref.commit)
        if row is None:
            return None
        before, _after = self.state.pair(row)
        if before is None:
            return row if a.doc is None else None
        ref_a = a.doc.root.git_ref if a.doc is not None else None
        older = self.state.commits[row + 1].commit  # holds the same version as the parent
        return row if ref_a is not None and ref_a.commit in (before.commit, older) else None

    def _stop(self, note: str) -> None:
        self.replay.cancel()
        self._list_seq += 1  # a listing still on its way is stale
        self._replay_wanted = False
        self.state.clear(note)
        self.view.set_running(False)
        self.view.refresh()

    # -- costs -----------------------------------------------------------------------------
    def _start_replay(self) -> None:
        target, commits = self.state.target, list(self.state.commits)
        if target is None or not commits or not self.dock.isVisible():
            self.view.set_running(False)
            return
        self._replay_wanted = False
        params = dict(self.session.params_by_rule)
        self._replay_params = params
        oldest_first = [c.commit for c in reversed(commits)]
        newest_path = commits[0].path
        self.view.set_running(True)
        self.replay.start(lambda progress: replay_file(target.repo, newest_path, oldest_first, params, progress))

    def _on_costs(self, costs) -> None:
        self.state.set_costs(costs, self._replay_params)
        self.view.set_running(False)
        self.view.refresh()
        self._select_b()
        self.costs_ready.emit()

    def _on_replay_failed(self, message: str) -> None:
        self.view.set_running(False)
        self.state.note = f"{self.state.note}. Costs could not be computed: {message}"
        self.view.refresh()
        self.history_failed.emit(message)

    def _on_cancelled(self) -> None:
        self.view.set_running(False)
        if self.state.target is not None and not self.state.costs:
            self.state.note = f"{self.state.note}. Costs cancelled (Recompute computes them)"
            self.view.refresh()

    def _note_stale(self) -> None:
        if self.state.stale(self.session.params_by_rule) and "other parameters" not in self.state.note:
            self.state.note += ". Costs computed with other parameters (Recompute)"
            self.view.refresh()

    # -- clicks -----------------------------------------------------------------------------
    def load_commit(self, row: int) -> None:
        """Load the row's commit into B and its parent into A."""
        if not 0 <= row < len(self.state.commits):
            return
        before, after = self.state.pair(row)
        if before is None:
            c = self.state.commits[row]
            self.show_message(f"{c.short} added {c.path}: there is no version before it, so A is empty.",
                              "info")
        self.load_pair(before, after)
