"""The Retrieval dock's controller: scores the parameters each rule has in the window on a
question set (BM25, Chroma's metrics: workers/retrieval.py) off the GUI thread
(jobs.ProgressJob) with progress and Cancel, marks the table stale when a rule's
parameters change after the run, and loads the question set for the panes' reference
underlines (controllers/references.py reads `state.references`).

It holds the dock's view and the session (its messages go out through it), not the window."""

from __future__ import annotations

from typing import Any, Callable

from PySide6.QtCore import QObject
from steadlith_core.chunking.rules import PARAMS_TYPES

from ..model.retrieval_state import RetrievalState
from ..model.session import Session
from ..widgets.retrieval_view import RetrievalView
from ..workers.jobs import ProgressJob
from ..workers.retrieval import load_references, run_retrieval


class RetrievalDock(QObject):
    def __init__(self, view: RetrievalView, session: Session,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.view = view
        self.session = session
        self.show_message = session.tell
        self.state = RetrievalState()
        self.job = ProgressJob(self)  # a run
        self.loader = ProgressJob(self)  # the question set read for the underlines when files are chosen
        #: the function a run calls, run_retrieval's signature (tests hold a run in it)
        self.runner: Callable[..., Any] = run_retrieval

        self.state.changed.connect(lambda: self.view.show_state(self.state))
        self.view.run_requested.connect(self.run)
        self.view.cancel_requested.connect(self.cancel)
        self.view.paths_changed.connect(self.set_paths)
        self.view.top_k_changed.connect(lambda k: setattr(self.state, "top_k", k))
        self.job.progressed.connect(self.state.progressed)
        self.job.finished.connect(self.state.finish)
        self.job.cancelled.connect(self.state.cancel)
        self.job.failed.connect(self._failed)
        self.loader.finished.connect(self.state.set_references)
        self.loader.failed.connect(self._load_failed)
        session.events.params_changed.connect(lambda params: self.state.check_rules(self.rules()))
        self.view.show_state(self.state)

    def rules(self) -> dict[str, Any]:
        """Every boundary rule at the parameters the session holds for it."""
        return {rule: self.session.params_for(rule) for rule in PARAMS_TYPES}

    def set_paths(self, questions: str, corpora: str) -> None:
        """Files chosen: when both are given, the question set is read (off the GUI
        thread) so the panes can underline its references before any run."""
        if not self.state.set_paths(questions, corpora):
            return
        if questions and corpora:
            self.loader.start(lambda progress: load_references(questions, corpora))
        else:
            self.loader.cancel()

    def run(self) -> None:
        try:
            request = self.state.request(self.rules())
        except ValueError as e:
            self.state.fail(str(e))
            return
        self.state.start(request)
        runner = self.runner
        self.job.start(lambda progress: runner(request, progress))

    def cancel(self) -> None:
        self.job.cancel()

    def _failed(self, message: str) -> None:
        self.state.fail(message)
        self.show_message(f"Retrieval: {message}", "error")

    def _load_failed(self, message: str) -> None:
        self.state.set_references(None)
        self.state.fail(message, "read the question set")
        self.show_message(f"Retrieval: {message}", "error")

    def set_theme(self, theme) -> None:
        self.view.set_theme(theme)

    def shutdown(self, wait_ms: int) -> bool:
        return self.job.shutdown(wait_ms) and self.loader.shutdown(wait_ms)
