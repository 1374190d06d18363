"""Churn by chunk hash, one measure for every chunker: the rules, the fixed-size baseline
and the external chunkers of `external`, side by side.

A B chunk whose hash occurs among A's chunks is reused (an embedding cache keyed by chunk
hash would hit it); the rest is to embed. `churn_by_hash` reads the rules' and the
baseline's chunks as it reads external spans, so every row of `compare_chunkers` is
measured the same way; for a rule it equals the comparison's reused chunks plus its
unaligned hash hits.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Protocol, Sequence

from ..chunking.chunks import AnyParams
from ..chunking.rules import rule_of
from ..vocabulary import NEW, REMOVED, REUSED
from .analysis import Analysis
from .baseline import baseline_for
from .external import ExternalChunker, ExternalChunkError, ExternalChunking

SCHEMA = "steadlith-compare-chunkers/1"

@dataclass(frozen=True)
class ChunkerChurn:
    """One row of the side-by-side table: a chunker's churn between A and B, by hash.

    family: "rule", "baseline" or "external". tokens_b is the sum of B's chunk tokens
    (more than the document's with overlapping spans: overlap is embedded twice).
    reused_*: B chunks whose hash occurs among A's; the rest is to embed."""

    chunker: str
    family: str
    chunks_a: int
    chunks_b: int
    tokens_a: int
    tokens_b: int
    mean_chunk_tokens_b: float
    reused_chunks: int
    reused_tokens: int
    reused_token_ratio: float
    chunks_to_embed: int
    tokens_to_embed: int
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


class _Hashed(Protocol):
    hash: str
    tokens: int


def churn_by_hash(chunker: str, family: str, chunks_a: Sequence[_Hashed], chunks_b: Sequence[_Hashed],
                  settings: Mapping[str, Any] | None = None) -> ChunkerChurn:
    seen = {c.hash for c in chunks_a}
    tokens_b = sum(c.tokens for c in chunks_b)
    hits = [c for c in chunks_b if c.hash in seen]
    reused_tokens = sum(c.tokens for c in hits)
    return ChunkerChurn(
        chunker=chunker, family=family,
        chunks_a=len(chunks_a), chunks_b=len(chunks_b),
        tokens_a=sum(c.tokens for c in chunks_a), tokens_b=tokens_b,
        mean_chunk_tokens_b=tokens_b / len(chunks_b) if chunks_b else 0.0,
        reused_chunks=len(hits), reused_tokens=reused_tokens,
        reused_token_ratio=reused_tokens / tokens_b if tokens_b else 1.0,
        chunks_to_embed=len(chunks_b) - len(hits), tokens_to_embed=tokens_b - reused_tokens,
        settings=dict(settings or {}),
    )


def statuses_by_hash(a: Sequence[_Hashed], b: Sequence[_Hashed]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Per-chunk statuses an external chunking can have, for a pane: a chunk whose hash
    the other version also has is reused; the rest is removed (A) or new (B). Spans need
    not follow words, so there is no "edited" or "shifted" here."""
    in_a, in_b = {c.hash for c in a}, {c.hash for c in b}
    return (tuple(REUSED if c.hash in in_b else REMOVED for c in a),
            tuple(REUSED if c.hash in in_a else NEW for c in b))


def compare_external(a: ExternalChunking, b: ExternalChunking) -> ChunkerChurn:
    """Churn of one external chunker between two versions."""
    if a.token_counter != b.token_counter:
        raise ExternalChunkError(f"{a.chunker}: A counted with {a.token_counter}, B with {b.token_counter}")
    return churn_by_hash(a.chunker, "external", a.chunks, b.chunks, {"token_counter": a.token_counter})


def compare_chunkers(text_a: str, text_b: str, chunkers: Sequence[AnyParams | ExternalChunker], *,
                     baseline: bool = True, analysis: Analysis | None = None) -> list[ChunkerChurn]:
    """The same two versions under boundary rules (their parameters) and external
    chunkers, one ChunkerChurn each in the order given; with `baseline`, the fixed-size
    baseline of each distinct window follows the last rule."""
    analysis = analysis if analysis is not None else Analysis()
    rows: list[ChunkerChurn] = []
    baselines: list[ChunkerChurn] = []
    windows: set[tuple[int, str]] = set()
    externals: list[ChunkerChurn] = []
    for item in chunkers:
        if hasattr(item, "chunk_pair"):
            externals.append(compare_external(*item.chunk_pair(text_a, text_b)))
            continue
        rule = rule_of(item)
        a, b = analysis.chunk(text_a, item), analysis.chunk(text_b, item)
        rows.append(churn_by_hash(rule, "rule", a.chunks, b.chunks, item.to_dict()))
        window = (item.max_tokens, item.token_counter)
        if baseline and window not in windows:
            windows.add(window)
            fa, fb = baseline_for(a), baseline_for(b)
            baselines.append(churn_by_hash(f"{fa.boundary_rule}({item.max_tokens})", "baseline", fa.chunks,
                                           fb.chunks, {"max_tokens": item.max_tokens,
                                                       "token_counter": item.token_counter}))
    return rows + baselines + externals


def chunkers_json(rows: Sequence[ChunkerChurn], name_a: str, name_b: str) -> dict:
    return {"schema": SCHEMA, "a": name_a, "b": name_b, "chunkers": [r.to_dict() for r in rows]}


def chunkers_table(rows: Sequence[ChunkerChurn]) -> list[str]:
    """The rows as aligned text lines (the CLI's table)."""
    head = ("chunker", "chunks A|B", "mean tok B", "reused chunks", "reused tokens", "to embed")
    body = [
        (r.chunker, f"{r.chunks_a}|{r.chunks_b}", f"{r.mean_chunk_tokens_b:.0f}",
         f"{r.reused_chunks} of {r.chunks_b}", f"{r.reused_tokens} of {r.tokens_b} ({100 * r.reused_token_ratio:.1f}%)",
         f"{r.tokens_to_embed} tokens")
        for r in rows
    ]
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [head, *body]]
