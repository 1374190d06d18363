"""The Retrieval dock's state, without Qt: the question file and corpora folder chosen,
top k, the run going on, the last result as table rows, whether that result still
describes the parameters of the window, and the question set loaded for the underlines
in the panes (reference_cuts.ReferenceIndex).

A run scores the parameters each rule has in the window (tttd-v1 and lmx2-v1, as the
Parameters dock holds them) with BM25 over every corpus of the folder, as
`steadlith retrieval CORPORA --questions FILE --rules tttd-v1,lmx2-v1` would with those
parameters (docs/retrieval.md). The figures are those of steadlith_core.retrieval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from psygnal import Signal

from .job_state import CANCELLED, FAILED, RUNNING, JobState
from .reference_cuts import ReferenceIndex

DEFAULT_TOP_K, MAX_TOP_K = 5, 100
RETRIEVER = "bm25"
STALE_NOTE = "parameters changed — rerun"

#: The table's columns: header, tooltip.
COLUMNS = (
    ("rule", "The boundary rule, at the parameters the window held when Run was pressed"),
    ("chunks", "Chunks over every corpus of the folder"),
    ("mean tokens", "Mean chunk size in the rule's tokens"),
    ("recall", "Share of the reference text the top k chunks hold (mean over questions)"),
    ("precision", "Share of the retrieved text that is reference text (mean over questions)"),
    ("IoU", "Reference text retrieved over retrieved text plus reference text missed (mean)"),
    ("precision_Ω", "The best IoU this chunking allows: every chunk meeting a reference retrieved (mean)"),
)


@dataclass(frozen=True)
class RetrievalRequest:
    """What a run measures: the files, k, and every rule's parameters when Run was pressed."""

    questions: str
    corpora: str
    top_k: int
    rules: tuple[tuple[str, Any], ...]

    @property
    def rules_dict(self) -> dict[str, Any]:
        return dict(self.rules)


@dataclass(frozen=True)
class RetrievalRow:
    rule: str
    chunks: int
    mean_tokens: float
    recall: float
    precision: float
    iou: float
    precision_omega: float

    def cells(self) -> tuple[str, ...]:
        return (self.rule, f"{self.chunks:,}", f"{self.mean_tokens:,.1f}", *(
            percent(v) for v in (self.recall, self.precision, self.iou, self.precision_omega)))


def percent(value: float) -> str:
    return "–" if math.isnan(value) else f"{value * 100:.1f} %"


@dataclass(frozen=True)
class RetrievalOutcome:
    """A finished run: the rows, and what was loaded (for the panes' underlines)."""

    rows: tuple[RetrievalRow, ...]
    references: ReferenceIndex
    questions: int
    seconds: float


class RetrievalState(JobState):
    """One run at a time (JobState); the rows shown and why they may no longer apply.

    `changed` follows every change of what the dock shows; `references_changed` a new
    question set (or none) for the panes."""

    references_changed = Signal(object)  # ReferenceIndex | None
    pending: RetrievalRequest | None
    shown: RetrievalRequest | None  # the request the rows answer

    def __init__(self) -> None:
        super().__init__()
        self.questions_path = ""
        self.corpora_path = ""
        self.top_k = DEFAULT_TOP_K
        self.rows: tuple[RetrievalRow, ...] = ()
        self.stale = False
        self.references: ReferenceIndex | None = None
        self.seconds = 0.0
        self.question_count = 0

    def set_paths(self, questions: str, corpora: str) -> bool:
        """The files chosen; True when they differ from before (the underlines' question
        set no longer applies)."""
        if (questions, corpora) == (self.questions_path, self.corpora_path):
            return False
        self.questions_path, self.corpora_path = questions, corpora
        self.set_references(None)
        self.changed.emit()
        return True

    def request(self, rules: Mapping[str, Any]) -> RetrievalRequest:
        """A run's request, or ValueError naming what is missing."""
        if not self.questions_path:
            raise ValueError("choose a question file (Chroma's CSV or JSON Lines)")
        if not self.corpora_path:
            raise ValueError("choose the folder of corpora the questions refer to")
        return RetrievalRequest(self.questions_path, self.corpora_path, self.top_k, tuple(rules.items()))

    def _take(self, outcome: RetrievalOutcome) -> None:
        self.rows = outcome.rows
        self.seconds, self.question_count = outcome.seconds, outcome.questions
        self.stale = False
        shown = self.shown
        if shown is not None and (shown.questions, shown.corpora) == (self.questions_path, self.corpora_path):
            self.set_references(outcome.references)  # else other files were chosen meanwhile: theirs load

    def fail(self, message: str, doing: str = "run") -> None:
        """`doing`: what could not be done ("run", "read the question set")."""
        super().fail(f"Could not {doing}: {message}")

    def set_references(self, references: ReferenceIndex | None) -> None:
        if references is not self.references:
            self.references = references
            self.references_changed.emit(references)

    def check_rules(self, rules: Mapping[str, Any]) -> None:
        """The window's parameters now: the rows are stale when they differ from those
        the rows measured."""
        if self.shown is None:
            return
        stale = dict(rules) != self.shown.rules_dict
        if stale != self.stale:
            self.stale = stale
            self.changed.emit()

    @property
    def status(self) -> str:
        """One line for the dock: what is going on and what the table shows."""
        if self.phase == RUNNING:
            done, total = self.progress
            return f"Scoring each rule's parameters: step {done} of {total}…" if total else "Loading the questions…"
        if self.phase == CANCELLED:
            text = "Cancelled: that run left no result."
        elif self.phase == FAILED:
            text = str(self.error)
        elif self.shown is not None:
            r = self.shown
            text = f"{self.question_count:,} questions, BM25, top {r.top_k}, {self.seconds:.1f} s."
        else:
            return ("Scores each rule's current parameters for retrieval (BM25, Chroma's metrics): "
                    "choose a question file and its corpora, then Run.")
        if self.rows and self.stale:
            text += f" Stale: {STALE_NOTE}."
        return text
