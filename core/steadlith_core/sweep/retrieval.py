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
from pathlib import Path
from typing import Sequence

from ..comparison.external import EXTERNAL_KIND
from ..progress import Progress
from ..retrieval import BM25Retriever, ChunkingSpec, QuestionSet, evaluate, load_corpora, load_questions
from ..retrieval.chunkers import EXTERNAL, RULE
from .results import SetRow, mark_front


def corpora_folder(questions: str | Path, corpora: str | Path | None) -> Path:
    """The corpora the questions refer to: given, or the `corpora` folder beside the
    question file (the layout of Chroma's benchmark)."""
    return Path(corpora) if corpora is not None else Path(questions).resolve().parent / "corpora"


def set_spec(param_set) -> ChunkingSpec:
    """The retrieval chunking of one sweep set: its rule's parameters, or its splitter."""
    if param_set.rule == EXTERNAL_KIND:
        chunker = param_set.params.chunker
        return ChunkingSpec(f"set {param_set.index}", EXTERNAL, chunker, {"chunker": chunker.name})
    return ChunkingSpec(f"set {param_set.index}", RULE, param_set.params, param_set.params.to_dict())


def _identity(param_set) -> object:
    """What decides a set's chunking: equal for two sets that must chunk alike."""
    if param_set.rule == EXTERNAL_KIND:
        c = param_set.params.chunker
        return ("external", c.name, c.chunk_size, c.chunk_overlap, c.token_counter)
    return ("rule", param_set.params.params_hash)


def load_benchmark(questions: str | Path, corpora: str | Path | None = None) -> tuple[dict[str, str], QuestionSet]:
    """The corpora and the checked question set; a bad file is the retrieval layer's
    one-line error, raised before the sweep runs a task."""
    texts = load_corpora(corpora_folder(questions, corpora))
    return texts, load_questions(questions, texts)


def with_retrieval(rows: Sequence[SetRow], sets: Sequence, texts: dict[str, str], question_set: QuestionSet,
                   top_k: int = 5, progress: Progress | None = None) -> tuple[SetRow, ...]:
    """`rows` with each set's recall, precision and IoU (means over the questions) and
    the front re-drawn on tokens re-embedded against recall."""
    by_index = {s.index: s for s in sets}
    wanted = [by_index[r.set] for r in rows if r.set in by_index]
    first_of: dict[object, int] = {}
    specs = []
    for s in wanted:
        key = _identity(s)
        if key not in first_of:
            first_of[key] = s.index
            specs.append(set_spec(s))
    run = evaluate(specs, texts, question_set, BM25Retriever(), top_k, progress=progress)
    scores = {spec.name: result.overall for spec, result in zip(specs, run.results)}
    out = []
    for r in rows:
        s = by_index.get(r.set)
        if s is None:
            out.append(r)
            continue
        overall = scores[f"set {first_of[_identity(s)]}"]
        out.append(replace(r, recall=overall.recall.mean, precision=overall.precision.mean, iou=overall.iou.mean,
                           retrieval_top_k=top_k))
    return mark_front(out)
