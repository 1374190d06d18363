"""Per-run diagnostics (SPEC §8)."""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass
from typing import Sequence

HISTOGRAM_BINS = 16


@dataclass(frozen=True)
class Diagnostics:
    chunk_count: int
    word_count: int
    total_tokens: int
    tokens_min: int | None
    tokens_mean: float | None
    tokens_median: float | None
    tokens_p90: int | None
    tokens_max: int | None
    # Histogram of chunk sizes: HISTOGRAM_BINS equal bins over [0, max_tokens], then
    # one last bin for chunks over max_tokens. edges[i]..edges[i+1] is bin i.
    histogram_edges: tuple[int, ...]
    histogram_counts: tuple[int, ...]
    primary: int
    backup: int
    hard: int
    end: int
    snapped: int
    hard_cut_rate: float
    chunks_over_max: int
    normalizer_version: str
    params_hash: str
    snapping: bool

    def to_dict(self) -> dict:
        d = asdict(self)
        d["histogram_edges"] = list(self.histogram_edges)
        d["histogram_counts"] = list(self.histogram_counts)
        return d


def p90_nearest_rank(sizes: Sequence[int]) -> int:
    ordered = sorted(sizes)
    return ordered[math.ceil(0.9 * len(ordered)) - 1]


def histogram(sizes: Sequence[int], max_tokens: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    step = max(1, math.ceil(max_tokens / HISTOGRAM_BINS))
    edges = tuple(min(max_tokens, i * step) for i in range(HISTOGRAM_BINS + 1))
    counts = [0] * (HISTOGRAM_BINS + 1)
    for t in sizes:
        if t > max_tokens:
            counts[-1] += 1
        else:
            counts[min(HISTOGRAM_BINS - 1, max(0, (t - 1) // step))] += 1
    return edges + (max(max_tokens, max(sizes, default=0)),), tuple(counts)


def compute(
    sizes: Sequence[int],
    kinds: Sequence[str],
    snapped: Sequence[bool],
    word_count: int,
    max_tokens: int,
    normalizer_version: str,
    params_hash: str,
    snapping: bool,
) -> Diagnostics:
    n = len(sizes)
    edges, counts = histogram(sizes, max_tokens)
    kinds = list(kinds)
    hard = kinds.count("hard")
    return Diagnostics(
        chunk_count=n,
        word_count=word_count,
        total_tokens=int(sum(sizes)),
        tokens_min=min(sizes) if n else None,
        tokens_mean=sum(sizes) / n if n else None,
        tokens_median=statistics.median(sizes) if n else None,
        tokens_p90=p90_nearest_rank(sizes) if n else None,
        tokens_max=max(sizes) if n else None,
        histogram_edges=edges,
        histogram_counts=counts,
        primary=kinds.count("primary"),
        backup=kinds.count("backup"),
        hard=hard,
        end=kinds.count("end"),
        snapped=sum(1 for s in snapped if s),
        hard_cut_rate=hard / n if n else 0.0,
        chunks_over_max=sum(1 for t in sizes if t > max_tokens),
        normalizer_version=normalizer_version,
        params_hash=params_hash,
        snapping=snapping,
    )
