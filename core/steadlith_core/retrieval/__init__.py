"""Retrieval evaluation: how well each chunking serves retrieval, scored with the metrics
of Chroma's chunking evaluation (recall, precision, precision_Ω, IoU over code-point
ranges), and why one chunking scores better than another (references cut, where cuts
fall, sizes). `steadlith retrieval` (cli/retrieval.py) runs it from a shell.

    >>> from steadlith_core.retrieval import load_corpora, load_questions, chunking_specs, evaluate, get_retriever
"""

from .chunkers import BASELINE, EXTERNAL, FIXED, RULE, ChunkingSpec, ChunkSet, RetrievalChunk, chunk_corpora, \
    chunking_specs, match_sizes
from .data import Question, QuestionSet, Reference, RetrievalDataError, load_corpora, load_questions
from .diagnose import CUT_PLACES, Diagnostics, cut_place, diagnose
from .evaluate import (DEFAULT_TOP_K, SCHEMA, ChunkingResult, QuestionResult, RetrievalRun, evaluate, recompute,
                       run_json, score_chunk_set)
from .metrics import QuestionScores, Scores, Stat, precision_omega, question_scores, retrieval_scores
from .retrievers import (BM25Retriever, Retriever, RetrieverError, bm25_tokens, get_retriever, known_retrievers,
                         register_retriever)

__all__ = [
    "BASELINE", "BM25Retriever", "CUT_PLACES", "ChunkSet", "ChunkingResult", "ChunkingSpec", "DEFAULT_TOP_K",
    "Diagnostics", "EXTERNAL", "FIXED", "Question", "QuestionResult", "QuestionScores", "QuestionSet", "RULE",
    "Reference", "RetrievalChunk", "RetrievalDataError", "RetrievalRun", "Retriever", "RetrieverError", "SCHEMA", "Scores", "Stat",
    "bm25_tokens", "chunk_corpora", "chunking_specs", "cut_place", "diagnose", "evaluate", "get_retriever",
    "known_retrievers", "load_corpora", "load_questions", "match_sizes", "precision_omega", "question_scores",
    "recompute", "register_retriever", "retrieval_scores", "run_json", "score_chunk_set",
]
