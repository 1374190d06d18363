"""Retrieval beside churn: every parameter set of a sweep also chunks a question set's
corpora and is scored for retrieval (`steadlith sweep … --retrieval QUESTIONS`).

Churn says what a set costs at each edit; it says nothing about whether its chunks still
answer questions. So each set's chunking of the corpora is ranked by BM25 and scored with
the retrieval layer's metrics (recall, precision, IoU over the top k), and the Pareto
front is drawn between tokens re-embedded and recall instead of mean chunk size, the
stand-in the front uses without questions.

Runs in this process after the sweep's tasks: BM25 over a benchmark of a megabyte or two
takes about a second a set, and sets with the same parameters (a grid that repeats a
value) share one chunking and one ranking.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from ..comparison.external import EXTERNAL_KIND
from ..progress import Progress
from ..retrieval import BM25Retriever, ChunkingSpec, QuestionSet
from ..retrieval.beside import corpora_folder, evaluate_named, load_benchmark, spec_for
from .results import SetRow, mark_front

__all__ = ["corpora_folder", "load_benchmark", "set_spec", "with_retrieval"]


def set_spec(param_set) -> ChunkingSpec:
    """The retrieval chunking of one sweep set: its rule's parameters, or its splitter."""
    params = param_set.params.chunker if param_set.rule == EXTERNAL_KIND else param_set.params
    return spec_for(f"set {param_set.index}", params)


def with_retrieval(rows: Sequence[SetRow], sets: Sequence, texts: dict[str, str], question_set: QuestionSet,
                   top_k: int = 5, progress: Progress | None = None) -> tuple[SetRow, ...]:
    """`rows` with each set's recall, precision and IoU (means over the questions) and
    the front re-drawn on tokens re-embedded against recall."""
    by_index = {s.index: s for s in sets}
    specs = {r.set: set_spec(by_index[r.set]) for r in rows if r.set in by_index}
    results = evaluate_named(specs, texts, question_set, BM25Retriever(), top_k, progress).results
    out = []
    for r in rows:
        if r.set not in results:
            out.append(r)
            continue
        overall = results[r.set].overall
        out.append(replace(r, recall=overall.recall.mean, precision=overall.precision.mean, iou=overall.iou.mean,
                           retrieval_top_k=top_k))
    return mark_front(out)
