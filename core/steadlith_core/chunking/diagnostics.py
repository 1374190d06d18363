"""Per-run diagnostics of tttd-v1 and lmx2-v1 (docs/contract/index.md#diagnostics).

Both report the boundary classes of their cuts (paragraph, sentence, word) and the
share of interior cuts at paragraph and at sentence ends, so the two rules can be
compared on where they cut, not only on how much they reuse."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

HISTOGRAM_BINS = 16


class _AsDict:
    """to_dict() for both rules' diagnostics: the fields in order, histograms as lists (JSON)."""

    def to_dict(self) -> dict:
        d = asdict(self)
        d["histogram_edges"] = list(self.histogram_edges)
        d["histogram_counts"] = list(self.histogram_counts)
        return d


@dataclass(frozen=True)
class Diagnostics(_AsDict):
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
    paragraph_boundaries: int = 0
    sentence_boundaries: int = 0
    word_boundaries: int = 0
    paragraph_share: float = 0.0  # of the interior cuts (every chunk end but the last)
    sentence_share: float = 0.0
    boundary_rule: str = "tttd-v1"


@dataclass(frozen=True)
class Lmx2Diagnostics(_AsDict):
    """lmx2-v1's diagnostics, with the token sizes tttd-v1 reports too (docs/contract/index.md#diagnostics)."""

    chunk_count: int
    word_count: int
    total_tokens: int
    tokens_min: int | None
    tokens_mean: float | None
    tokens_median: float | None
    tokens_p90: int | None
    tokens_max: int | None
    histogram_edges: tuple[int, ...]
    histogram_counts: tuple[int, ...]
    primary: int
    fill: int
    long_word: int
    end: int
    paragraph_boundaries: int
    sentence_boundaries: int
    word_boundaries: int
    paragraph_share: float
    sentence_share: float
    chunks_under_min: int  # lmx2-v1 allows some (docs/contract/lmx2-v1.md#sizes) (between two edges, equal keys)
    chunks_over_max: int
    gate: int
    margin: int
    normalizer_version: str
    params_hash: str
    boundary_rule: str = "lmx2-v1"


def boundary_counts(boundaries: Sequence[str], codes: np.ndarray | None = None) -> dict:
    """Counts of paragraph, sentence and word boundaries, and the shares of the first
    two among interior cuts (0.0 when a document is one chunk). `codes`, when given, are
    the same boundaries as indices into vocabulary.BOUNDARIES (paragraph, sentence, word,
    end), counted in one numpy pass instead of a pass over the names per count."""
    if codes is not None:
        para, sent, word = np.bincount(codes, minlength=4)[:3].tolist()
    else:
        names = boundaries if isinstance(boundaries, list) else list(boundaries)
        para, sent, word = (names.count(name) for name in ("paragraph", "sentence", "word"))
    interior = para + sent + word
    return {
        "paragraph_boundaries": para, "sentence_boundaries": sent, "word_boundaries": word,
        "paragraph_share": para / interior if interior else 0.0,
        "sentence_share": sent / interior if interior else 0.0,
    }


def _sizes(sizes: Sequence[int] | np.ndarray, max_tokens: int) -> dict:
    """The size figures (docs/contract/index.md#diagnostics) of every chunk at once: numpy over the column of sizes,
    which a parameter change recomputes for thousands of chunks."""
    t = np.asarray(sizes, dtype=np.int64)
    n = int(t.size)
    edges, counts = histogram(t, max_tokens)
    out = {"chunk_count": n, "total_tokens": int(t.sum()), "histogram_edges": edges, "histogram_counts": counts,
           "tokens_min": None, "tokens_mean": None, "tokens_median": None, "tokens_p90": None, "tokens_max": None}
    if n:
        ordered = np.sort(t)
        half = n // 2
        # statistics.median: the middle value itself, or the mean of the two middle ones
        median = int(ordered[half]) if n % 2 else (int(ordered[half - 1]) + int(ordered[half])) / 2
        out.update(tokens_min=int(ordered[0]), tokens_mean=out["total_tokens"] / n, tokens_median=median,
                   tokens_p90=_nearest_rank_90(ordered), tokens_max=int(ordered[-1]))
    return out


def compute_lmx2(sizes: Sequence[int] | np.ndarray, kinds: Sequence[str], boundaries: Sequence[str], word_count: int,
                 min_tokens: int, max_tokens: int, gate: int, margin: int, normalizer_version: str,
                 params_hash: str, *, kind_codes: np.ndarray | None = None,
                 boundary_codes: np.ndarray | None = None) -> Lmx2Diagnostics:
    """lmx2-v1's diagnostics. `kind_codes` and `boundary_codes`, when given, are `kinds`
    and `boundaries` as indices into vocabulary.LMX2_KINDS and BOUNDARIES: the counts are
    taken from them in one numpy pass each."""
    if kind_codes is not None:
        primary, fill, long_word, end = np.bincount(kind_codes, minlength=4)[:4].tolist()
    else:
        kinds = kinds if isinstance(kinds, list) else list(kinds)
        primary, fill, long_word, end = (kinds.count(name) for name in ("primary", "fill", "long-word", "end"))
    t = np.asarray(sizes, dtype=np.int64)
    return Lmx2Diagnostics(
        word_count=word_count, **_sizes(t, max_tokens),
        primary=primary, fill=fill, long_word=long_word, end=end, **boundary_counts(boundaries, boundary_codes),
        chunks_under_min=int(np.count_nonzero(t < min_tokens)),
        chunks_over_max=int(np.count_nonzero(t > max_tokens)),
        gate=gate, margin=margin, normalizer_version=normalizer_version, params_hash=params_hash,
    )


def p90_nearest_rank(sizes: Sequence[int] | np.ndarray) -> int:
    return _nearest_rank_90(np.sort(np.asarray(sizes, dtype=np.int64)))


def _nearest_rank_90(ordered: np.ndarray) -> int:
    return int(ordered[math.ceil(0.9 * ordered.size) - 1])


def histogram(sizes: Sequence[int] | np.ndarray, max_tokens: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    step = max(1, math.ceil(max_tokens / HISTOGRAM_BINS))
    edges = tuple(min(max_tokens, i * step) for i in range(HISTOGRAM_BINS + 1))
    t = np.asarray(sizes, dtype=np.int64)
    # bin i holds sizes in (edges[i], edges[i + 1]] (a size of 0 joins the first); the
    # last bin everything over max_tokens
    bins = np.where(t > max_tokens, HISTOGRAM_BINS, np.clip((t - 1) // step, 0, HISTOGRAM_BINS - 1))
    counts = np.bincount(bins, minlength=HISTOGRAM_BINS + 1)
    top = max(max_tokens, int(t.max()) if t.size else 0)
    return edges + (top,), tuple(counts.tolist())


def compute(
    sizes: Sequence[int] | np.ndarray,
    kinds: Sequence[str],
    snapped: Sequence[bool],
    word_count: int,
    max_tokens: int,
    normalizer_version: str,
    params_hash: str,
    snapping: bool,
    boundaries: Sequence[str] = (),
    *,
    kind_codes: np.ndarray | None = None,
    boundary_codes: np.ndarray | None = None,
) -> Diagnostics:
    """tttd-v1's diagnostics. `kind_codes` and `boundary_codes`, when given, are `kinds` and
    `boundaries` as indices into vocabulary.KINDS and BOUNDARIES: the counts are taken
    from them in one numpy pass each."""
    t = np.asarray(sizes, dtype=np.int64)
    figures = _sizes(t, max_tokens)
    if kind_codes is not None:
        primary, backup, hard, end = np.bincount(kind_codes, minlength=4)[:4].tolist()
    else:
        kinds = kinds if isinstance(kinds, list) else list(kinds)
        primary, backup, hard, end = (kinds.count(name) for name in ("primary", "backup", "hard", "end"))
    n = figures["chunk_count"]
    return Diagnostics(
        word_count=word_count,
        **figures,
        primary=primary,
        backup=backup,
        hard=hard,
        end=end,
        snapped=int(np.count_nonzero(np.asarray(snapped, dtype=bool))) if len(snapped) else 0,
        hard_cut_rate=hard / n if n else 0.0,
        chunks_over_max=int(np.count_nonzero(t > max_tokens)),
        normalizer_version=normalizer_version,
        params_hash=params_hash,
        snapping=snapping,
        **boundary_counts(boundaries, boundary_codes),
    )
