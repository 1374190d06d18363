"""The Retrieval dock's work, run off the GUI thread by jobs.ProgressJob: read the corpora
and the question file, chunk every corpus with each rule's parameters, rank with BM25
and score (steadlith_core.retrieval.evaluate). Cancel stops it at the next progress call
(after each corpus chunked and each ranking)."""

from __future__ import annotations

import time
from typing import Any

from steadlith_core.progress import Progress
from steadlith_core.retrieval import RULE, ChunkingSpec, QuestionSet, evaluate, get_retriever, load_corpora, load_questions

from ..model.reference_cuts import ReferenceIndex
from ..model.retrieval_state import RETRIEVER, RetrievalOutcome, RetrievalRequest, RetrievalRow


def load_inputs(questions: str, corpora: str) -> tuple[dict[str, str], QuestionSet]:
    """The corpora and the question set, checked. A problem raises the core's
    RetrievalDataError, one line naming the file and the row, which the job hands on as
    its message (workers.analysis.describe_error) without a traceback."""
    texts = load_corpora(corpora)
    return texts, load_questions(questions, texts)


def load_references(questions: str, corpora: str) -> ReferenceIndex:
    """The question set's references by corpus, for the panes' underlines."""
    texts, question_set = load_inputs(questions, corpora)
    return ReferenceIndex.of(question_set, texts)


def run_retrieval(request: RetrievalRequest, progress: Progress | None = None, retriever: Any = None) -> RetrievalOutcome:
    """Every rule of the request at its parameters, scored on the question set.
    `retriever`: BM25 unless given (tests hold a run in it)."""
    started = time.perf_counter()
    texts, question_set = load_inputs(request.questions, request.corpora)
    specs = [ChunkingSpec(rule, RULE, params, params.to_dict()) for rule, params in request.rules]
    # Cancelled (raised by `progress` once Cancel was pressed) goes through to the job
    run = evaluate(specs, texts, question_set, retriever or get_retriever(RETRIEVER), request.top_k,
                   progress=progress)
    rows = tuple(RetrievalRow(r.name, r.chunks, r.mean_tokens, r.overall.recall.mean, r.overall.precision.mean,
                              r.overall.iou.mean, r.overall.precision_omega.mean) for r in run.results)
    return RetrievalOutcome(rows, ReferenceIndex.of(question_set, texts), len(question_set.questions), time.perf_counter() - started)
