"""Retrievers: what ranks chunks for a question. Every retriever has a `name` and one
method, `rank(chunk_texts, chunk_hashes, questions, top_k)`, returning for each question
the indices of its top_k chunks, best first. `chunk_hashes` are keys a retriever that
embeds can cache by: equal keys mean equal texts (the evaluation passes `text_key` of each
chunk's text; a dense retriever, retrieval/dense.py, registers itself here when imported:
`register_retriever`).

BM25 (`bm25s`, Lucene's variant, k1 = 1.5, b = 0.75, float64 scores) is the default: it
needs no model and is deterministic. Its tokens are fixed here so results do not move
with the library's defaults: lower-cased, the regular expression ``\\b\\w\\w+\\b``
(Unicode word characters, two or more), Lucene's 33 English stop words removed, no
stemming. Ties (equal scores) go to the chunk that comes first.
"""

from __future__ import annotations

import importlib
import re
from typing import Callable, Protocol, Sequence

import xxhash

from ..errors import ParameterError, SteadlithError

TOKEN_PATTERN = re.compile(r"(?u)\b\w\w+\b")
# Lucene's EnglishAnalyzer.ENGLISH_STOP_WORDS_SET
STOPWORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it", "no", "not",
    "of", "on", "or", "such", "that", "the", "their", "then", "there", "these", "they", "this", "to", "was",
    "will", "with",
))


class Retriever(Protocol):
    name: str

    def rank(self, chunk_texts: Sequence[str], chunk_hashes: Sequence[str], questions: Sequence[str],
             top_k: int) -> list[list[int]]: ...


def bm25_tokens(text: str) -> list[str]:
    return [t for t in TOKEN_PATTERN.findall(text.lower()) if t not in STOPWORDS]


class BM25Retriever:
    name = "bm25"

    def __init__(self, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b

    def rank(self, chunk_texts: Sequence[str], chunk_hashes: Sequence[str], questions: Sequence[str],
             top_k: int) -> list[list[int]]:
        import bm25s  # imported when used: the rest of the core loads without it
        import numpy as np

        if not chunk_texts:
            return [[] for _ in questions]
        index = bm25s.BM25(k1=self.k1, b=self.b, method="lucene", dtype="float64")
        index.index([bm25_tokens(t) for t in chunk_texts], show_progress=False)
        k = min(top_k, len(chunk_texts))
        out = []
        for question in questions:
            scores = index.get_scores(bm25_tokens(question))
            # a stable sort of the negated scores: equal scores keep chunk order
            out.append(np.argsort(-scores, kind="stable")[:k].tolist())
        return out


def text_key(text: str) -> str:
    """The key a caching retriever is given for a chunk: xxh3-128 of the text it embeds,
    so equal texts share one embedding whatever chunking or parameters cut them."""
    return xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass"))


_RETRIEVERS: dict[str, Callable[[], Retriever]] = {"bm25": BM25Retriever}
# Retrievers living in their own module of this package, imported when first asked for
# (their dependencies are heavy); the module calls register_retriever on import.
_MODULES = {"dense": "dense"}


class RetrieverError(SteadlithError):
    """A retriever returned something that is not a ranking of the chunks it was given."""


def check_rankings(name: str, rankings: object, questions: int, chunks: int, top_k: int) -> list[list[int]]:
    """`rankings` as returned by a retriever's rank(), checked: one list a question, at
    most top_k distinct chunk indices each. A broken retriever is one error line, not a
    wrong score."""
    if not isinstance(rankings, list) or len(rankings) != questions:
        raise RetrieverError(f"retriever {name}: expected {questions} rankings, one a question")
    for q, ranked in enumerate(rankings, 1):
        if len(ranked) > top_k or len(set(ranked)) != len(ranked) or \
                any(type(i) is not int or not 0 <= i < chunks for i in ranked):
            raise RetrieverError(f"retriever {name}: question {q}: expected at most {top_k} distinct chunk indices "
                                 f"in [0, {chunks}), got {list(ranked)[:8]!r}")
    return rankings


def register_retriever(name: str, factory: Callable[[], Retriever]) -> None:
    _RETRIEVERS[name] = factory


def known_retrievers() -> list[str]:
    return list(dict.fromkeys([*_RETRIEVERS, *_MODULES]))


def get_retriever(name: str) -> Retriever:
    if name not in _RETRIEVERS and name in _MODULES:
        try:
            importlib.import_module(f"{__package__}.{_MODULES[name]}")
        except ImportError as e:
            raise ParameterError("--retriever", f"{name} is not available here ({e})", name) from None
        if name not in _RETRIEVERS:
            raise ParameterError("--retriever", f"retrieval/{_MODULES[name]}.py did not register a retriever "
                                                f"named {name!r} (register_retriever)", name)
    if name not in _RETRIEVERS:
        raise ParameterError("--retriever", f"unknown retriever {name!r}; known: {', '.join(known_retrievers())}",
                             name)
    return _RETRIEVERS[name]()
