"""Shared by the adapter tests: the demo pair, an embedding cache, and no network."""

from __future__ import annotations

import socket
from importlib import resources

import pytest
import xxhash


def demo_pair() -> tuple[str, str]:
    root = resources.files("steadlith_gui") / "resources" / "demo"
    return ((root / "chunking-guide-v1.md").read_text(encoding="utf-8"),
            (root / "chunking-guide-v2.md").read_text(encoding="utf-8"))


class EmbeddingCache:
    """What a pipeline keeps: vectors keyed by (model id, chunk_hash). The model id sits
    outside the chunk hash (SPEC §7). `embedded` lists the texts the model was run on."""

    def __init__(self, model_id: str):
        self.model_id = model_id
        self.vectors: dict[tuple[str, str], tuple[int, ...]] = {}
        self.embedded: list[str] = []

    def _model(self, text: str) -> tuple[int, ...]:
        self.embedded.append(text)
        digest = xxhash.xxh3_128_digest(f"{self.model_id}\0{text}".encode())
        return tuple(digest[:8])

    def embed(self, chunk_hash: str, text: str) -> tuple[int, ...]:
        key = (self.model_id, chunk_hash)
        if key not in self.vectors:
            self.vectors[key] = self._model(text)
        return self.vectors[key]


@pytest.fixture()
def no_network(monkeypatch):
    """Any attempt to open a connection fails the test: the adapters must run offline."""

    def refuse(self, address, *args, **kwargs):
        raise AssertionError(f"network access attempted: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


def tool_library() -> str:
    """The example document shipped with the core (data/tool-library.md)."""
    return resources.files("steadlith_core").joinpath("data", "tool-library.md").read_text(encoding="utf-8")


def one_word_edit(text: str) -> str:
    """`text` with one word changed about halfway through the document ("parts passes
    half the price" becomes "parts exceeds half the price")."""
    anchor = "When the cost of parts passes half"
    assert text.count(anchor) == 1
    return text.replace(anchor, "When the cost of parts exceeds half")
