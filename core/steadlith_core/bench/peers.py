"""The peer chunkers `steadlith bench --peers` times beside Steadlith: each in its own fast
configuration, sized so that its mean chunk, counted in the rules' tokens, matches ours.
A peer that is not installed (or not compatible) is skipped with a note."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Sequence


@dataclass(frozen=True)
class NativePeer:
    """A peer chunker in its own fast configuration (sizes in characters or bytes, its
    default length function), `chunk_size` set by match_mean_tokens so that its mean
    chunk, counted in the rules' tokens, matches Steadlith's."""

    name: str
    chunk_size: int

    def with_chunk_size(self, chunk_size: int) -> "NativePeer":
        return replace(self, chunk_size=chunk_size)

    def make(self) -> Callable[[str], object]:
        return _PEER_MAKERS[self.name](self.chunk_size)

    def texts(self, text: str) -> list[str]:
        found = self.make()(text)
        return [x if isinstance(x, str) else x.text for x in found]


def _langchain(size: int) -> Callable[[str], object]:
    from langchain_text_splitters import RecursiveCharacterTextSplitter

    return RecursiveCharacterTextSplitter(chunk_size=size, chunk_overlap=0).split_text


def _chonkie_recursive(size: int) -> Callable[[str], object]:
    from chonkie import RecursiveChunker

    return RecursiveChunker(tokenizer="character", chunk_size=size).chunk


def _chonkie_fast(size: int) -> Callable[[str], object]:
    from chonkie import FastChunker

    return FastChunker(chunk_size=size).chunk


def _semchunk(size: int) -> Callable[[str], object]:
    import semchunk

    return semchunk.chunkerify(len, size)


_PEER_MAKERS: dict[str, Callable[[int], Callable[[str], object]]] = {
    "langchain RecursiveCharacterTextSplitter": _langchain,
    "chonkie RecursiveChunker": _chonkie_recursive,
    "chonkie FastChunker": _chonkie_fast,
    "semchunk": _semchunk,
}
PEER_NAMES = tuple(_PEER_MAKERS)


def installed_peers() -> tuple[list[str], list[str]]:
    """(peers that run here, notes on those skipped)."""
    ok, skipped = [], []
    for name, make in _PEER_MAKERS.items():
        try:
            make(2048)
            ok.append(name)
        except Exception as e:  # absent, or an incompatible version: skipped with a note
            skipped.append(f"{name}: skipped ({type(e).__name__}: {str(e)[:80]})")
    return ok, skipped


def mean_tokens(texts: Sequence[str]) -> float:
    from ..comparison.external import text_tokens

    return sum(text_tokens(t) for t in texts) / len(texts) if texts else 0.0


def matched_peers(text: str, target: float, names: Sequence[str]) -> dict[str, NativePeer]:
    """Each peer at the chunk_size whose mean chunk tokens (chars4/1) on `text` come
    closest to `target` (comparison.external.match_mean_tokens)."""
    from types import SimpleNamespace

    from ..comparison.external import match_mean_tokens

    out = {}
    for name in names:
        out[name] = match_mean_tokens(
            NativePeer(name, 2048), text, target, lo=16, hi=int(target * 16),  # type: ignore[arg-type]
            run=lambda c, t: SimpleNamespace(mean_chunk_tokens=mean_tokens(c.texts(t))))
    return out
