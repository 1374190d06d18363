"""The dense retriever: chunks and questions embedded by one model, ranked by cosine.

Chunk vectors go through an embedding cache keyed by (model id, the key `rank` is given
for each chunk), so a chunking that shares most chunks with an earlier one embeds only
the chunks that changed; question vectors are cached too, keyed by a SHA-256 of the
question's text. Without a cache directory the retriever keeps its vectors in memory, for
the life of the object.

Which key: a chunk hash commits to the chunker's parameters (so that an index never mixes
chunks cut by different rules), so keyed by it a chunking made with other parameters
would reuse nothing, not even chunks whose text is unchanged. An embedding depends on the
model and the text alone, so the retrieval evaluation passes a hash of the text each
chunk embeds (`retrievers.text_key`): a sweep over min_tokens then embeds only texts it
has not seen. A caller indexing by chunk identity may pass chunk hashes instead.
"""

from __future__ import annotations

import hashlib
import os
from typing import Sequence

import numpy as np

from .embedders import Embedder, EmbeddingError
from .retrievers import register_retriever
from .embedding_cache import EmbedCounts, EmbeddingCache, MemoryEmbeddingCache, _Cache

CHUNK = "chunk"
QUERY = "query"


def question_key(question: str) -> str:
    """A question's cache key: its text's SHA-256 (questions have no chunk hash)."""
    return hashlib.sha256(question.encode("utf-8", "surrogatepass")).hexdigest()


class DenseRetriever:
    """Ranks chunks for each question by the cosine similarity of their embeddings.

    `cache` is an EmbeddingCache, or the directory of one, or None for vectors kept in
    memory while the retriever lives.

    `embedded` and `reused` are the last `rank` call's counts, chunks and questions
    together, over distinct keys; `chunk_counts` and `question_counts` split them."""

    name = "dense"

    def __init__(self, embedder: Embedder,
                 cache: EmbeddingCache | MemoryEmbeddingCache | str | os.PathLike | None = None):
        model_id = getattr(embedder, "model_id", None)
        if not isinstance(model_id, str) or not model_id or not callable(getattr(embedder, "embed", None)):
            raise EmbeddingError(f"{type(embedder).__name__} is not an Embedder (it needs a model_id string "
                                 "and embed(texts))")
        if isinstance(cache, (str, os.PathLike)):
            cache = EmbeddingCache(cache)
        if cache is not None and not isinstance(cache, _Cache):
            raise EmbeddingError(f"cache must be an EmbeddingCache, got {type(cache).__name__}")
        self.embedder = embedder
        self.cache = cache if cache is not None else MemoryEmbeddingCache()
        self.chunk_counts = EmbedCounts(0, 0)
        self.question_counts = EmbedCounts(0, 0)

    @property
    def embedded(self) -> int:
        return self.chunk_counts.embedded + self.question_counts.embedded

    @property
    def reused(self) -> int:
        return self.chunk_counts.reused + self.question_counts.reused

    def rank(self, chunk_texts: Sequence[str], chunk_hashes: Sequence[str], questions: Sequence[str],
             top_k: int) -> list[list[int]]:
        """For each question, the indices of its `top_k` most similar chunks, best first;
        equal scores keep chunk order."""
        if type(top_k) is not int or top_k < 1:
            raise EmbeddingError(f"top_k must be a positive integer, got {top_k!r}")
        if len(chunk_texts) != len(chunk_hashes):
            raise EmbeddingError(f"{len(chunk_texts)} chunk texts but {len(chunk_hashes)} chunk hashes")
        model = self.embedder.model_id
        self.chunk_counts = self.question_counts = EmbedCounts(0, 0)
        if not questions:
            return []
        if not chunk_texts:
            return [[] for _ in questions]
        # one vector per distinct hash: equal chunks then score exactly equal, and the
        # tie goes to the earlier one
        distinct = list(dict.fromkeys(chunk_hashes))
        position = {h: i for i, h in enumerate(distinct)}
        chunk_vectors, self.chunk_counts = self.cache.embed_through(
            model, CHUNK, list(chunk_hashes), list(chunk_texts), self.embedder.embed)
        unique_vectors = np.empty((len(distinct), chunk_vectors.shape[1]), np.float32)
        for i, h in enumerate(chunk_hashes):
            unique_vectors[position[h]] = chunk_vectors[i]
        embed_query = getattr(self.embedder, "embed_query", None) or self.embedder.embed
        question_vectors, self.question_counts = self.cache.embed_through(
            model, QUERY, [question_key(q) for q in questions], list(questions), embed_query)
        if question_vectors.shape[1] != unique_vectors.shape[1]:
            raise EmbeddingError(f"{model}: questions have dimension {question_vectors.shape[1]}, "
                                 f"chunks {unique_vectors.shape[1]}")
        scores = question_vectors @ unique_vectors.T
        columns = np.fromiter((position[h] for h in chunk_hashes), np.intp, len(chunk_hashes))
        k = min(top_k, len(chunk_hashes))
        ranked = []
        for row in scores:
            # a stable sort of the negated scores: best first, ties by chunk index
            order = np.argsort(-row[columns], kind="stable")[:k]
            ranked.append(order.tolist())
        return ranked


def default_cache_dir() -> str:
    """Where `--retriever dense` keeps its embedding cache: STEADLITH_EMBEDDING_CACHE, else
    the user's cache folder (XDG_CACHE_HOME or ~/.cache) under steadlith/embeddings."""
    explicit = os.environ.get("STEADLITH_EMBEDDING_CACHE")
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "steadlith", "embeddings")


def _default_retriever() -> DenseRetriever:
    """all-MiniLM-L6-v2 (the model of Chroma's report), offline, through the on-disk cache."""
    from .minilm import MiniLMEmbedder

    return DenseRetriever(MiniLMEmbedder(), cache=default_cache_dir())


register_retriever("dense", _default_retriever)
