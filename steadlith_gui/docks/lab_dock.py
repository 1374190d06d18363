"""The locality lab dock's controller: runs steadlith_core.lab.run_lab on document A with
every rule's current parameters, off the GUI thread (jobs.ProgressJob), keeps the dock's
LabState, marks a result stale when A or the parameters change, and opens a worst edit
in the panes (A, and A with the edit applied as B)."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject
from steadlith_core.lab import FIXED, run_lab
from steadlith_core.chunking.rules import PARAMS_TYPES

from ..model.lab_state import LabRequest, LabSettings, LabState
from ..model.session import Session
from ..widgets.lab_view import LabView
from ..workers.jobs import ProgressJob


#: The height the dock asks for when opened from the View menu, in pixels: charts
#: shorter than this read as a strip.
LAB_HEIGHT = 300


class LabController(QObject):
    def __init__(self, view: LabView, session: Session, load_texts: Callable[..., None],
                 parent: QObject | None = None):
        """`load_texts(text_a, text_b, name_a=, name_b=)` shows texts as A and B (None
        leaves a side). It holds these, not the window; where the dock opens is the
        window's layout (dock_layout.tab_with_diagnostics, LAB_HEIGHT high)."""
        super().__init__(parent)
        self.session = session
        self.view = view
        self.load_texts = load_texts
        self.state = LabState()
        self.job = ProgressJob(self)
        #: the function a run calls, run_lab's signature (tests put a slower or failing one here)
        self.runner: Callable[..., Any] = run_lab

        self.state.changed.connect(lambda: self.view.show_state(self.state))
        self.view.run_requested.connect(self.run)
        self.view.cancel_requested.connect(self.cancel)
        self.view.edit_chosen.connect(self.open_edit)
        self.job.progressed.connect(self.state.progressed)
        self.job.finished.connect(self._finished)
        self.job.cancelled.connect(self.state.cancel)
        self.job.failed.connect(self.state.fail)
        session.events.document_replaced.connect(lambda side: side == "A" and self._check())
        session.events.result_changed.connect(lambda result, consistent: self._check())  # after A was typed into
        session.events.params_changed.connect(lambda params: self._check())

    def settings(self) -> LabSettings:
        """What a workspace keeps of the dock: its edits and seed as they read now, run or not."""
        return self.view.settings()

    def restore(self, settings: LabSettings) -> None:
        self.view.set_settings(settings)

    def rules(self) -> dict[str, Any]:
        """Every rule at the parameters the session holds for it, and the fixed-size baseline."""
        return {**{rule: self.session.params_for(rule) for rule in PARAMS_TYPES}, FIXED: None}

    def run(self, edits: int, seed: int) -> None:
        if self.session.sides["A"].doc is None:
            self.state.fail("open a document as A first")
            return
        request = LabRequest(self.session.current_text("A"), self.session.identity("A")[0] or "A",
                             tuple(self.rules().items()), edits, seed)
        self.state.start(request)
        runner = self.runner
        self.job.start(lambda progress: runner(request.text, request.rules_dict, edits=request.edits,
                                               seed=request.seed, progress=progress))

    def cancel(self) -> None:
        self.job.cancel()

    def _finished(self, result: Any) -> None:
        self.state.finish(result)
        self._check()  # A may have been typed into while the run went on

    def _check(self) -> None:
        if self.state.result is None:
            return
        text = self.session.current_text("A") if self.session.sides["A"].doc is not None else None
        self.state.check_inputs(text, self.rules())

    def current_result(self) -> Any:
        """The last run's result if it still describes A at the current parameters, else
        None: a report must not present a stale run as the document's."""
        self._check()
        state = self.state
        return state.result if state.result is not None and state.stale is None else None

    def open_edit(self, rule: str, rank: int) -> None:
        """A as the lab measured it, and A with that worst edit as B; the panes show the
        edit's rule when it is a boundary rule."""
        request, result = self.state.shown, self.state.result
        if request is None or result is None:
            return
        outcome = result.rules[rule].worst[rank]
        edited = outcome.edit.apply(request.text)
        same_a = self.session.sides["A"].doc is not None and self.session.current_text("A") == request.text
        if rule in PARAMS_TYPES:
            with self.session.hold_analysis():  # the load below asks for the analysis
                self.session.set_rule(rule)
        self.load_texts(None if same_a else request.text, edited, name_a=request.name,
                        name_b=f"{request.name} + {rule} worst #{rank + 1}: {outcome.edit.describe()}")
