"""A retrieval run: chunk every corpus with each chunking, rank the chunks of all
corpora together for every question, score the top k (metrics.py) and measure why
(diagnose.py).

The JSON (`run_json`) carries, per question, its references and, per chunking, the
retrieved chunks (corpus id, start, end) and the chunks of the question's corpus that
meet a reference (what precision_Ω reads), with the question's scores: `recompute`
gets every score back from that JSON alone.
"""

from __future__ import annotations

import bisect
import os
import time
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from ..errors import ParameterError
from ..progress import Progress, report
from .chunkers import ChunkingSpec, ChunkSet, RetrievalChunk, chunk_corpora
from .data import QuestionSet
from .diagnose import Diagnostics, diagnose
from .metrics import QuestionScores, Scores, question_scores
from .retrievers import Retriever, check_rankings, text_key

SCHEMA = "steadlith-retrieval/1"
DEFAULT_TOP_K = 5


@dataclass(frozen=True)
class QuestionResult:
    index: int
    corpus_id: str
    retrieved: tuple[tuple[str, int, int], ...]  # (corpus id, start, end), best first
    omega_chunks: tuple[tuple[int, int], ...]  # chunks of its corpus meeting a reference
    scores: QuestionScores


@dataclass(frozen=True)
class ChunkingResult:
    name: str
    family: str
    settings: dict
    chunks: int
    mean_tokens: float
    mean_chars: float
    overall: Scores
    per_corpus: dict  # {corpus id: Scores}, in the question set's corpus order
    questions: tuple[QuestionResult, ...]
    diagnostics: Diagnostics
    chunk_seconds: float
    rank_seconds: float
    # a retriever that embeds through a cache says how many chunk texts it embedded and
    # how many it found there; None for one that does not (BM25)
    embedded: int | None = None
    reused: int | None = None


@dataclass(frozen=True)
class RetrievalRun:
    retriever: str
    top_k: int
    question_set: QuestionSet
    corpora: dict  # {corpus id: code points}
    results: tuple[ChunkingResult, ...]
    load_average: tuple[float, float, float] | None
    budget: int | None = None  # code points per question instead of top_k chunks


class _CorpusIndex:
    """One corpus's chunks sorted by start, with the farthest end reached up to each."""

    def __init__(self, chunks: Sequence[RetrievalChunk]):
        self.chunks = sorted(chunks, key=lambda c: (c.start, c.end))
        self.starts = [c.start for c in self.chunks]
        self.reach: list[int] = []
        top = -1
        for c in self.chunks:
            top = max(top, c.end)
            self.reach.append(top)

    def meeting(self, refs) -> list[tuple[int, int]]:
        """The chunks that intersect or touch a reference (end >= its start and start <=
        its end, as the metric's intersection), in corpus order."""
        picked: set[int] = set()
        for r in refs:
            i = bisect.bisect_right(self.starts, r.end) - 1
            while i >= 0 and self.reach[i] >= r.start:  # no chunk at or before i reaches the reference
                if self.chunks[i].end >= r.start:
                    picked.add(i)
                i -= 1
        return [(self.chunks[i].start, self.chunks[i].end) for i in sorted(picked)]


def within_budget(chunks: Sequence[RetrievalChunk], ranked: Sequence[int],
                  budget: int) -> tuple[tuple[str, int, int], ...]:
    """The ranked chunks, best first, until their lengths sum to `budget` code points: the
    last one is cut to fit (its start kept), as a context window would cut it."""
    out = []
    left = budget
    for i in ranked:
        if left <= 0:
            break
        c = chunks[i]
        end = min(c.end, c.start + left)
        out.append((c.corpus_id, c.start, end))
        left -= end - c.start
    return tuple(out)


def score_chunk_set(chunk_set: ChunkSet, question_set: QuestionSet, corpora: Mapping[str, str],
                    rankings: Sequence[Sequence[int]], rank_seconds: float = 0.0,
                    budget: int | None = None) -> ChunkingResult:
    """Score one chunking's rankings. With `budget`, each question gets the ranked chunks
    up to that many code points (within_budget) instead of the ranking as given."""
    chunks = chunk_set.chunks
    by_corpus: dict[str, list[RetrievalChunk]] = {}
    for c in chunks:
        by_corpus.setdefault(c.corpus_id, []).append(c)
    indexes = {cid: _CorpusIndex(items) for cid, items in by_corpus.items()}
    empty = _CorpusIndex([])
    results = []
    for q, ranked in zip(question_set.questions, rankings):
        refs = [(r.start, r.end) for r in q.references]
        if budget is None:
            retrieved = tuple((chunks[i].corpus_id, chunks[i].start, chunks[i].end) for i in ranked)
        else:
            retrieved = within_budget(chunks, ranked, budget)
        omega = tuple(indexes.get(q.corpus_id, empty).meeting(q.references))
        results.append(QuestionResult(q.index, q.corpus_id, retrieved, omega,
                                      question_scores(refs, retrieved, q.corpus_id, omega)))
    per_corpus = {cid: Scores.of([r.scores for r in results if r.corpus_id == cid])
                  for cid in question_set.corpus_ids}
    spec = chunk_set.spec
    return ChunkingResult(spec.name, spec.family, dict(spec.settings), len(chunks), chunk_set.mean_tokens,
                          chunk_set.mean_chars, Scores.of([r.scores for r in results]), per_corpus, tuple(results),
                          diagnose(chunks, corpora, question_set, [r.retrieved for r in results]),
                          chunk_set.seconds, rank_seconds)


def evaluate(specs: Sequence[ChunkingSpec], corpora: Mapping[str, str], question_set: QuestionSet,
             retriever: Retriever, top_k: int = DEFAULT_TOP_K, *, progress: Progress | None = None,
             cache: Mapping[str, ChunkSet] | None = None, budget: int | None = None) -> RetrievalRun:
    """Every chunking of `specs` over all `corpora`, ranked by `retriever` for every
    question. `progress(done, total)` counts corpora chunked and rankings made.
    With `budget`, every question gets the same amount of text (code points) instead of
    top_k chunks: recall compared at equal text, whatever the chunk sizes.
    `cache` holds chunk sets already made, by spec name (and with the same spec)."""
    if top_k < 1:
        raise ParameterError("--top-k", f"must be >= 1, got {top_k}", top_k)
    if budget is not None and budget < 1:
        raise ParameterError("--budget", f"must be >= 1 code point, got {budget}", budget)
    total = len(specs) * (len(corpora) + 1)
    done = 0
    report(progress, done, total)
    texts = [q.text for q in question_set.questions]
    results = []
    for spec in specs:
        cached = (cache or {}).get(spec.name)
        if cached is not None and cached.spec == spec:
            chunk_set = cached
            done += len(corpora)
            report(progress, done, total)
        else:
            def step() -> None:
                nonlocal done
                done += 1
                report(progress, done, total)

            chunk_set = chunk_corpora(spec, corpora, step)
        started = time.perf_counter()
        # a budget may need more chunks than any k: the whole ranking is asked for
        k = top_k if budget is None else len(chunk_set.chunks)
        rankings = check_rankings(retriever.name, retriever.rank([c.text for c in chunk_set.chunks],
                                                                 [text_key(c.text) for c in chunk_set.chunks], texts, k),
                                  len(texts), len(chunk_set.chunks), k)
        seconds = time.perf_counter() - started
        result = score_chunk_set(chunk_set, question_set, corpora, rankings, seconds, budget)
        counts = getattr(retriever, "chunk_counts", None)
        if counts is not None:
            result = replace(result, embedded=counts.embedded, reused=counts.reused)
        results.append(result)
        done += 1
        report(progress, done, total)
    try:
        load = os.getloadavg()
    except OSError:
        load = None
    return RetrievalRun(retriever.name, top_k, question_set, {cid: len(t) for cid, t in corpora.items()},
                        tuple(results), load, budget)


def run_json(run: RetrievalRun) -> dict:
    qs = run.question_set
    return {
        "schema": SCHEMA,
        "retriever": run.retriever,
        "top_k": None if run.budget is not None else run.top_k,
        "budget": run.budget,
        "questions_file": qs.source,
        "corpora": run.corpora,
        "load_average": list(run.load_average) if run.load_average else None,
        "questions": [{"index": q.index, "question": q.text, "corpus_id": q.corpus_id,
                       "references": [[r.start, r.end] for r in q.references]} for q in qs.questions],
        "chunkings": [{
            "name": r.name, "family": r.family, "settings": r.settings, "chunks": r.chunks,
            "mean_chunk_tokens": r.mean_tokens, "mean_chunk_chars": r.mean_chars,
            "chunk_seconds": r.chunk_seconds, "rank_seconds": r.rank_seconds,
            "embedded": r.embedded, "reused": r.reused,
            "scores": r.overall.to_dict(),
            "per_corpus": {cid: s.to_dict() for cid, s in r.per_corpus.items()},
            "diagnostics": r.diagnostics.to_dict(),
            "questions": [{"index": x.index, "retrieved": [list(t) for t in x.retrieved],
                           "omega_chunks": [list(t) for t in x.omega_chunks],
                           "recall": x.scores.recall, "precision": x.scores.precision, "iou": x.scores.iou,
                           "precision_omega": x.scores.precision_omega} for x in r.questions],
        } for r in run.results],
    }


def recompute(data: Mapping) -> list[dict]:
    """Every chunking's scores (overall and per corpus, as in `run_json`) recomputed from
    the JSON's ranges alone, with each question's four scores."""
    questions = {q["index"]: q for q in data["questions"]}
    corpus_order = list(dict.fromkeys(q["corpus_id"] for q in data["questions"]))
    out = []
    for chunking in data["chunkings"]:
        scores = []
        for x in chunking["questions"]:
            q = questions[x["index"]]
            refs = [tuple(r) for r in q["references"]]
            retrieved = [(c, s, e) for c, s, e in x["retrieved"]]
            scores.append((q["corpus_id"], question_scores(refs, retrieved, q["corpus_id"],
                                                           [tuple(r) for r in x["omega_chunks"]])))
        out.append({
            "name": chunking["name"],
            "questions": [s.__dict__ for _, s in scores],
            "scores": Scores.of([s for _, s in scores]).to_dict(),
            "per_corpus": {cid: Scores.of([s for c, s in scores if c == cid]).to_dict() for cid in corpus_order},
        })
    return out
