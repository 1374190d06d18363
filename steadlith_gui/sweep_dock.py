"""The Sweep dock's controller: runs a sweep over the two documents shown, the git
history of B's file or of a folder's files, off the GUI thread with progress and Cancel (jobs.ProgressJob), shows the sets in the scatter, and
applies a clicked set's parameters to the panes through the session."""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal

from .jobs import ProgressJob
from .session import Session
from .sweep_state import FOLDER, HISTORY, SweepState, sweep_pair
from .widgets.sweep_view import SweepView


class SweepDock(QObject):
    finished = Signal()  # a sweep's result is shown
    applied = Signal(object)  # the parameters a click applied

    def __init__(self, window, session: Session):
        super().__init__(window)
        self.window = window
        self.session = session
        self.state = SweepState()
        self.view: SweepView = window.sweep_view
        self.view.set_grid_text(self.state.grid_text)
        self.view.set_source(self.state.source)
        self.view.set_status(self.state.summary())
        self.job = ProgressJob(self)
        self.view.run_requested.connect(self.run)
        self.view.cancel_requested.connect(self.job.cancel)
        self.view.point_clicked.connect(self.apply)
        self.job.progressed.connect(self.view.set_progress)
        self.job.finished.connect(self._show)
        self.job.failed.connect(self._failed)
        self.job.cancelled.connect(self._cancelled)

    def run(self) -> None:
        self.state.grid_text = self.view.grid_text()
        self.state.source = self.view.source()
        self.state.folder = self.view.folder()
        bases = self.session.params_by_rule
        try:
            if self.state.source == FOLDER:
                self.state.grid_for(bases)
                folder = self.state.folder
                work = lambda progress: sweep_pair(self.state.plan_for_folder(folder, bases), progress)  # noqa: E731
                what = f"the history of {folder}"
            elif self.state.source == HISTORY:
                # reading the history can take a while: it is planned in the job, not here
                self.state.grid_for(bases)
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
        self.view.set_running(True)
        self.view.set_status(f"Sweeping {what}…")
        self.job.start(work)

    def _show(self, outcome) -> None:
        self.view.set_running(False)
        self.state.set_outcome(outcome)
        rows = self.state.rows
        self.view.show_rows(rows, self.state.front(), {r.set: self.state.tooltip(r) for r in rows},
                            {rule: self.state.colour(rule) for rule in self.state.rules()})
        self.view.set_status(self.state.summary())
        self.finished.emit()

    def _failed(self, message: str) -> None:
        self.view.set_running(False)
        self.view.set_status(f"The sweep failed: {message}")

    def _cancelled(self) -> None:
        self.view.set_running(False)
        self.view.set_status("Sweep cancelled.")

    def apply(self, set_index: int) -> None:
        if self.state.outcome is None:
            return
        params = self.state.params_of(set_index)
        self.session.set_params(params, show=True)
        row = self.state.row(set_index)
        if row is not None:
            self.window.show_message(f"Sweep: applied {row.label}", "info")
        self.applied.emit(params)
