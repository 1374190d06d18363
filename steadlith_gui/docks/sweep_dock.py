"""The Sweep dock's controller: runs a sweep over the two documents shown, the git
history of B's file or of a folder's files, off the GUI thread with progress and Cancel
(jobs.ProgressJob), shows the sets in the scatter, and applies a clicked set's
parameters to the panes through the session.

An external splitter's point has no rule parameters: a click on it says so and offers
to show that splitter in the panes, which the churn panel's "Panes show" does for its
external columns (Session.set_external). Accepting sizes the churn panel's splitters
at that row's chunk_size ("own" sizing), so the panes show the very chunking the point
measured; the rule's parameters stay as they were."""

from __future__ import annotations

import dataclasses


from PySide6.QtCore import QObject, Signal

from ..model.external_choice import CHUNK_SIZE_RANGE
from ..model.session import Session
from ..model.sweep_state import FOLDER, HISTORY, SweepSettings, SweepState, sweep_pair
from ..widgets.sweep_view import SweepView
from ..workers.jobs import ProgressJob


class SweepDock(QObject):
    finished = Signal()  # a sweep's result is shown
    applied = Signal(object)  # the parameters a click applied
    external_shown = Signal(str)  # the external splitter the panes were asked to show

    def __init__(self, view: SweepView, session: Session,
                 parent: QObject | None = None):
        """It holds the dock's view and the session (messages go out as its events), not the window;
        the dock's height when opened is the window's layout (dock_layout.grow_when_opened)."""
        super().__init__(parent)
        self.session = session
        self.show_message = session.tell
        self.state = SweepState()
        self.view = view
        self.view.set_grid_text(self.state.grid_text)
        self.view.set_source(self.state.source)
        self.view.set_chunkers(self.state.chunkers)
        self.view.set_status(self.state.summary())
        self.job = ProgressJob(self)
        self.view.run_requested.connect(self.run)
        self.view.cancel_requested.connect(self.job.cancel)
        self.view.point_clicked.connect(self.apply)
        self.view.show_external_requested.connect(self.show_external)
        self.job.progressed.connect(self.state.progressed)
        self.job.progressed.connect(self.view.set_progress)
        self.job.finished.connect(self._show)
        self.job.failed.connect(self._failed)
        self.job.cancelled.connect(self._cancelled)

    def _take_view(self) -> None:
        self.state.grid_text = self.view.grid_text()
        self.state.source = self.view.source()
        self.state.folder = self.view.folder()
        self.state.chunkers = self.view.chunkers()

    def settings(self) -> SweepSettings:
        """What a workspace keeps: the dock as it reads now, run or not."""
        self._take_view()
        return self.state.settings()

    def restore(self, settings: SweepSettings) -> None:
        self.state.restore(settings)
        self.view.set_grid_text(self.state.grid_text)
        self.view.set_source(self.state.source)
        self.view.set_folder(self.state.folder)
        self.view.set_chunkers(self.state.chunkers)

    def run(self) -> None:
        self._take_view()
        bases = self.session.params_by_rule
        try:
            if self.state.source == FOLDER:
                self.state.sets_for(bases)
                folder = self.state.folder
                work = lambda progress: sweep_pair(self.state.plan_for_folder(folder, bases), progress)  # noqa: E731
                what = f"the history of {folder}"
            elif self.state.source == HISTORY:
                # reading the history can take a while: it is planned in the job, not here
                self.state.sets_for(bases)
                path = self.session.identity("B")[1]
                work = lambda progress: sweep_pair(self.state.plan_for_history(path, bases), progress)  # noqa: E731
                what = "the history of B's file"
            else:
                plan = self.state.plan_for_pair(*(self.session.current_text(side) for side in ("A", "B")), bases)
                work = lambda progress: sweep_pair(plan, progress)  # noqa: E731
                what = f"{len(plan.sets)} sets over A → B"
        except ValueError as e:  # ParameterError is one too: one line a reason
            self.view.set_status(f"Nothing to run:\n{e}")
            return
        self.state.start(what)
        self.view.set_running(True)
        self.view.set_status(self.state.status)
        self.job.start(work)

    def _show(self, outcome) -> None:
        self.view.set_running(False)
        self.state.finish(outcome)
        rows = self.state.rows
        self.view.show_rows(rows, self.state.front(), {r.set: self.state.tooltip(r) for r in rows},
                            {name: self.state.colour(name) for name in self.state.rules()},
                            {r.set: self.state.series(r) for r in rows})
        self.view.set_status(self.state.status)
        self.finished.emit()

    def _failed(self, message: str) -> None:
        self.state.fail(message)
        self.view.set_running(False)
        self.view.set_status(self.state.status)

    def _cancelled(self) -> None:
        self.state.cancel()
        self.view.set_running(False)
        self.view.set_status(self.state.status)

    def apply(self, set_index: int) -> None:
        if self.state.outcome is None:
            return
        row = self.state.row(set_index)
        external = self.state.external_of(set_index)
        if external is not None:
            self._offer(set_index, row.label if row is not None else external[0], *external)
            return
        self.view.offer_external(None)  # a rule's point was chosen instead
        params = self.state.params_of(set_index)
        self.session.set_params(params, show=True)
        if row is not None:
            self.show_message(f"Sweep: applied {row.label}", "info")
        self.applied.emit(params)

    def _offer(self, set_index: int, label: str, kind: str, size: int) -> None:
        lo, hi = CHUNK_SIZE_RANGE
        if not lo <= size <= hi:  # the panes size splitters within this range only
            self.show_message(f"Sweep: {label} is an external splitter, not parameters of a rule: nothing "
                              f"to apply (the panes show splitters at chunk_size {lo} to {hi:,})", "info")
            return
        self.view.offer_external(set_index, f"Show {kind} at {size} in the panes")
        self.show_message(f"Sweep: {label} is an external splitter, not parameters of a rule: nothing to "
                          "apply. The button beside the sweep's summary shows its chunks in the panes.", "info")

    def show_external(self, set_index: int) -> None:
        """The panes show the splitter of an external row, at that row's chunk_size."""
        external = self.state.external_of(set_index)
        if external is None:
            return
        kind, size = external
        choice = self.session.external
        chunkers = choice.chunkers if kind in choice.chunkers else (*choice.chunkers, kind)
        self.session.set_external(dataclasses.replace(choice, chunkers=chunkers, sizing="own", chunk_size=size,
                                                      shown=kind))
        self.view.offer_external(None)
        self.show_message(f"Sweep: the panes show {kind} at chunk_size {size}; the churn panel's splitters "
                          "now run at that size (its menu sizes them again). The rule's parameters are "
                          "unchanged.", "info")
        self.external_shown.emit(kind)
