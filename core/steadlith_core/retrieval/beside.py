"""Retrieval beside churn: the chunkers a sweep or the lab measures for cost, scored on a
question set at the same parameters (`steadlith sweep … --retrieval`, `steadlith lab …
--retrieval`).

Both commands name their chunkers their own way (a sweep's set number, the lab's rule
name) and may name one chunking twice (a grid repeating a value, a splitter given its
default size); `evaluate_named` chunks and ranks each distinct chunking once and hands
every name its result.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from ..comparison.baseline import FixedTokenParams
from ..comparison.external import SplitterChunker
from ..progress import Progress
from .chunkers import BASELINE, EXTERNAL, RULE, ChunkingSpec
from .data import QuestionSet, load_corpora, load_questions
from .evaluate import ChunkingResult, RetrievalRun, evaluate
from .retrievers import Retriever


def corpora_folder(questions: str | Path, corpora: str | Path | None) -> Path:
    """The corpora the questions refer to: given, or the `corpora` folder beside the
    question file (the layout of Chroma's benchmark)."""
    return Path(corpora) if corpora is not None else Path(questions).resolve().parent / "corpora"


def load_benchmark(questions: str | Path, corpora: str | Path | None = None) -> tuple[dict[str, str], QuestionSet]:
    """The corpora and the checked question set; a bad file is the retrieval layer's
    one-line error, raised before the command measures any cost. A missing question
    file is named as such, not as the corpora folder it would have been beside."""
    if not Path(questions).is_file():
        load_questions(questions, {})  # its one line: no such question file
    texts = load_corpora(corpora_folder(questions, corpora))
    return texts, load_questions(questions, texts)


def spec_for(name: str, params: Any) -> ChunkingSpec:
    """The retrieval chunking of a chunker given by its parameters: a rule's
    (ChunkerParams or Lmx2Params), the fixed-size baseline's (FixedTokenParams) or an
    external splitter (SplitterChunker), labelled `name`."""
    if isinstance(params, SplitterChunker):
        return ChunkingSpec(name, EXTERNAL, params, {"chunker": params.name, "chunk_size": params.chunk_size,
                                                     "chunk_overlap": params.chunk_overlap,
                                                     "token_counter": params.token_counter})
    if isinstance(params, FixedTokenParams):
        return ChunkingSpec(name, BASELINE, params, {"max_tokens": params.max_tokens,
                                                     "token_counter": params.token_counter})
    if hasattr(params, "params_hash") and hasattr(params, "to_dict"):
        return ChunkingSpec(name, RULE, params, params.to_dict())
    raise TypeError(f"{name}: no retrieval chunking for parameters of type {type(params).__name__}")


def spec_identity(spec: ChunkingSpec) -> object:
    """What decides a chunking's chunks: equal for two specs that must chunk alike."""
    p = spec.params
    if spec.family == EXTERNAL:
        return (EXTERNAL, p.name, p.chunk_size, p.chunk_overlap, p.token_counter)
    if spec.family == BASELINE:
        return (BASELINE, p.max_tokens, p.token_counter)
    return (RULE, p.params_hash)


@dataclass(frozen=True)
class Beside:
    """A retrieval run over named chunkers: `run` holds one result per distinct
    chunking (labelled by its first name), `results` each name's, in the names' order."""

    run: RetrievalRun
    results: dict[Any, ChunkingResult]

    def to_dict(self) -> dict:
        """The figures a command shows beside its churn, by name: sizes, the four scores
        (mean and std over questions, overall and per corpus) and the references cut."""
        run, qs = self.run, self.run.question_set
        return {
            "retriever": run.retriever, "top_k": run.top_k, "questions_file": qs.source,
            "questions": len(qs.questions), "corpora": run.corpora,
            "chunkers": {str(name): {
                "settings": r.settings, "chunks": r.chunks, "mean_chunk_tokens": r.mean_tokens,
                "mean_chunk_chars": r.mean_chars, "scores": r.overall.to_dict(),
                "per_corpus": {cid: x.to_dict() for cid, x in r.per_corpus.items()},
                "references": r.diagnostics.references, "references_cut": r.diagnostics.references_cut,
                "embedded": r.embedded, "reused": r.reused,
            } for name, r in self.results.items()},
        }


def evaluate_named(specs: Mapping[Any, ChunkingSpec], corpora: Mapping[str, str], question_set: QuestionSet,
                   retriever: Retriever, top_k: int, progress: Progress | None = None) -> Beside:
    """Every distinct chunking of `specs` ({name: spec}) chunked and ranked once, each
    name given its result."""
    first: dict[object, ChunkingSpec] = {}
    for spec in specs.values():
        first.setdefault(spec_identity(spec), spec)
    run = evaluate(list(first.values()), corpora, question_set, retriever, top_k, progress=progress)
    by_identity = {key: result for key, result in zip(first, run.results)}
    return Beside(run, {name: by_identity[spec_identity(spec)] for name, spec in specs.items()})
