"""What the dense retriever asks of an embedding model, and adapters that give it.

An `Embedder` turns texts into an n x d float32 matrix of L2-normalised rows. Its
`model_id` is half of every embedding cache key (the chunk hash is the other half), so
it must change whenever the vectors could: it names the model and pins its weights.
The bundled all-MiniLM-L6-v2 (`minilm.py`) pins them by a content hash of its files;
a LangChain or LlamaIndex embedding object does not expose its weights, so the caller
names it (`LangChainEmbedder(obj, "openai/text-embedding-3-small@2024-01")`): two
different models under one id would share cache entries, and only the caller can
know.
"""

from __future__ import annotations

from typing import Any, Protocol, Sequence, runtime_checkable

import numpy as np

from ..errors import SteadlithError, import_extra


class EmbeddingError(SteadlithError, ValueError):
    """An embedding model, its files or its cache cannot be used: one line saying why."""


@runtime_checkable
class Embedder(Protocol):
    """A text embedding model.

    `embed` returns one float32 row per text, L2-normalised (cosine similarity is then
    a dot product). An embedder whose queries are embedded differently from documents
    (an instruction prefix, a separate query encoder) also has
    `embed_query(texts) -> np.ndarray` with the same contract, over a batch of queries;
    the retriever uses it for questions when present.
    """

    model_id: str

    def embed(self, texts: Sequence[str]) -> np.ndarray: ...


def require(module: str, extra: str, what: str) -> Any:
    """`module` imported, or one line naming the extra that installs it."""
    return import_extra(module, extra, what, EmbeddingError)


def normalized(rows: Any, count: int, source: str) -> np.ndarray:
    """`rows` as a (count x d) float32 matrix with unit rows (zero rows stay zero).

    Checks what a foreign model returned: the number of rows, one dimension for all,
    finite values. Normalising here, not trusting the model, keeps cosine similarity a
    dot product for every adapter."""
    try:
        matrix = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError):
        raise EmbeddingError(f"{source} returned vectors of different lengths or non-numbers") from None
    if count == 0:
        return np.zeros((0, matrix.shape[1] if matrix.ndim == 2 else 0), np.float32)
    if matrix.ndim != 2 or matrix.shape[0] != count or matrix.shape[1] == 0:
        raise EmbeddingError(f"{source} returned an array of shape {matrix.shape} for {count} texts; "
                             f"expected {count} vectors of one length")
    if not np.isfinite(matrix).all():
        raise EmbeddingError(f"{source} returned a vector with NaN or infinite values")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return (matrix / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def _check_id(model_id: object) -> str:
    if not isinstance(model_id, str) or not model_id.strip():
        raise EmbeddingError("model_id must be a non-empty string naming the model and its version "
                             f"(it keys the embedding cache), got {model_id!r}")
    return model_id


class LangChainEmbedder:
    """Any LangChain `Embeddings` (`embed_documents`, `embed_query`) as an Embedder.

    Documents go through `embed_documents` in one call; questions through `embed_query`,
    one call each, since LangChain models may embed queries differently."""

    def __init__(self, embeddings: Any, model_id: str):
        if not (callable(getattr(embeddings, "embed_documents", None))
                and callable(getattr(embeddings, "embed_query", None))):
            raise EmbeddingError(f"{type(embeddings).__name__} is not a LangChain Embeddings "
                                 "(it lacks embed_documents or embed_query)")
        self.embeddings = embeddings
        self.model_id = _check_id(model_id)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        rows = self.embeddings.embed_documents(texts) if texts else []
        return normalized(rows, len(texts), f"{type(self.embeddings).__name__}.embed_documents")

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        rows = [self.embeddings.embed_query(t) for t in texts]
        return normalized(rows, len(texts), f"{type(self.embeddings).__name__}.embed_query")


class LlamaIndexEmbedder:
    """Any LlamaIndex embedding (`get_text_embedding_batch`, `get_query_embedding`) as an
    Embedder."""

    def __init__(self, embedding: Any, model_id: str):
        if not (callable(getattr(embedding, "get_text_embedding_batch", None))
                and callable(getattr(embedding, "get_query_embedding", None))):
            raise EmbeddingError(f"{type(embedding).__name__} is not a LlamaIndex embedding "
                                 "(it lacks get_text_embedding_batch or get_query_embedding)")
        self.embedding = embedding
        self.model_id = _check_id(model_id)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        rows = self.embedding.get_text_embedding_batch(texts) if texts else []
        return normalized(rows, len(texts), f"{type(self.embedding).__name__}.get_text_embedding_batch")

    def embed_query(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        rows = [self.embedding.get_query_embedding(t) for t in texts]
        return normalized(rows, len(texts), f"{type(self.embedding).__name__}.get_query_embedding")
