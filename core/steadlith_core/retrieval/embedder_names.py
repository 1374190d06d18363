"""Embedders named on a command line (`steadlith sync --embedder NAME`): the bundled
model by its name, or any Embedder the caller's own module builds."""

from __future__ import annotations

import importlib

from .embedders import Embedder, EmbeddingError


# What `--embedder NAME` accepts besides MODULE:ATTRIBUTE. Each is built when named, so
# naming one loads only its own dependencies.
BUILTIN_EMBEDDERS = {"minilm": "all-MiniLM-L6-v2, offline in numpy (extra dense)"}


def embedder_named(spec: str) -> Embedder:
    """The embedder a command line names: `minilm` (the bundled all-MiniLM-L6-v2), or
    `MODULE:ATTRIBUTE`, an importable object that is an Embedder or, called with no
    arguments, returns one (a class or a factory). The second form is how a command
    reaches a model the core does not ship: the caller's module builds it and gives it a
    model id that pins it (see the module doc)."""
    if spec == "minilm":
        from .minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    module_name, colon, attribute = spec.partition(":")
    if not colon or not module_name or not attribute:
        raise EmbeddingError(f"--embedder {spec!r}: expected {' or '.join(BUILTIN_EMBEDDERS)} "
                             "or MODULE:ATTRIBUTE (an Embedder, or a callable returning one)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as e:
        raise EmbeddingError(f"--embedder {spec}: cannot import {module_name}: {e}") from None
    found = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise EmbeddingError(f"--embedder {spec}: {module_name} has no attribute {attribute}")
        found = getattr(found, part)
    embedder = found() if callable(found) and not _is_embedder(found) else found
    if not _is_embedder(embedder):
        raise EmbeddingError(f"--embedder {spec}: {type(embedder).__name__} is not an Embedder "
                             "(it needs a non-empty model_id string and embed(texts))")
    return embedder


def _is_embedder(obj: object) -> bool:
    model_id = getattr(obj, "model_id", None)
    return (not isinstance(obj, type) and isinstance(model_id, str) and bool(model_id.strip())
            and callable(getattr(obj, "embed", None)))
