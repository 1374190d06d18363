"""Boundary rule `lmx2-v1` (SPEC-lmx2 §2-§8): every cut decided from the words near it.

Stages and what each depends on, so a pipeline can cache them separately:
    classes   text                                      (paragraph / sentence / word)
    keys      text, token counter, key_tokens, boundary_preference
    cuts      keys + token counter + min/max/horizon/fill_horizon
    chunks    cuts + params hash
All per-cut work is vectorized: the Horner hashes of the key windows come from one
prefix sum (B is odd, so invertible mod 2^64), and the local maxima over a token
distance are range-maximum queries on a sparse table. Nothing runs per word in Python
except the sentence test of the few words that end in a mark or a closer.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import NamedTuple

import numpy as np

from . import tokens as token_counters
from .diagnostics import histogram, p90_nearest_rank
from .identity import chunk_hash_prefix
from .lmx2_params import LMX2_RULE, Lmx2Params
from .normalize import NORMALIZER_VERSION, WordStream, code_points, normalize
from .pipeline import CanonicalText, Chunk, build_chunks, compute_symbols, utf8_words
from .segment import SENTENCE_CLOSERS, SENTENCE_ENDS, ends_sentence

CHUNKER_FAMILY = "cdc-lmx2"
KEY_BASE = 0x9E3779B97F4A7C15
_FMIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_FMIX_2 = np.uint64(0x94D049BB133111EB)

PRIMARY, FILL, LONG_WORD, END = "primary", "fill", "long-word", "end"
KINDS = (PRIMARY, FILL, LONG_WORD, END)
WORD, SENTENCE, PARAGRAPH = "word", "sentence", "paragraph"
BOUNDARIES = (PARAGRAPH, SENTENCE, WORD, END)
CLASS_NAMES = (WORD, SENTENCE, PARAGRAPH)  # indexed by the class r of SPEC-lmx2 §2

_MARK_CODE_POINTS = np.array(sorted({ord(ch) for ch in SENTENCE_CLOSERS + "".join(SENTENCE_ENDS)}), dtype=np.uint32)


# -- stage 1: boundary classes (text only) ---------------------------------------------


def boundary_classes(text: str, words: WordStream) -> np.ndarray:
    """r(c) of SPEC-lmx2 §2 with the preference on, for every cut c in 0..n (uint8):
    2 where word c starts a paragraph, else 1 where word c-1 ends a sentence (closers
    stripped, SPEC §5), else 0. Entries 0 and n are meaningless (edges have no class)."""
    n = len(words)
    r = np.zeros(n + 1, dtype=np.uint8)
    if n == 0:
        return r
    last = code_points(text)[words.ends - 1]
    texts = words.texts
    maybe = np.flatnonzero(np.isin(last, _MARK_CODE_POINTS)).tolist()
    ends = [k + 1 for k in maybe if ends_sentence(texts[k])]
    r[ends] = 1
    r[:n][words.para] = 2
    r[n] = 0
    return r


# -- stage 2: keys ----------------------------------------------------------------------


def _fmix(z: np.ndarray) -> np.ndarray:
    z = z ^ (z >> np.uint64(30))
    z = z * _FMIX_1
    z = z ^ (z >> np.uint64(27))
    z = z * _FMIX_2
    return z ^ (z >> np.uint64(31))


def _powers(base: int, count: int) -> np.ndarray:
    """base^0 .. base^(count-1) mod 2^64."""
    out = np.full(count, base, dtype=np.uint64)
    if count:
        out[0] = 1
    return np.multiply.accumulate(out, dtype=np.uint64)


def window_hashes(symbols: np.ndarray, cum: np.ndarray, key_tokens: int) -> tuple[np.ndarray, np.ndarray]:
    """(a, h) for every cut c in 0..n: `a[c]` the first word of c's key window and
    `h[c]` the Horner hash of symbols a..c-1 (SPEC-lmx2 §2); meaningful for interior
    cuts only. h(c) = B^(c-1) * (P[c] - P[a]) with P the prefix sums of s_i * B^-i."""
    n = symbols.size
    a = np.searchsorted(cum, cum - key_tokens, "left")
    a[1:] = np.minimum(a[1:], np.arange(n))  # word c-1 is always in the window
    with np.errstate(over="ignore"):
        inverse = pow(KEY_BASE, -1, 2**64)
        prefix = np.zeros(n + 1, dtype=np.uint64)
        np.cumsum(symbols * _powers(inverse, n), dtype=np.uint64, out=prefix[1:])
        scale = np.empty(n + 1, dtype=np.uint64)
        scale[0] = 0
        scale[1:] = _powers(KEY_BASE, n)  # B^(c-1) for c >= 1
        h = scale * (prefix - prefix[a])
    return a, h


class Lmx2Keys(NamedTuple):
    """The keys stage: arrays over cuts 0..n (edges hold 0, below every real key)."""

    h: np.ndarray
    key_1: np.ndarray
    key_2: np.ndarray


def compute_keys(
    symbols: np.ndarray, cum: np.ndarray, classes: np.ndarray, key_tokens: int, prefer_boundaries: bool
) -> Lmx2Keys:
    """key_j(c) = (r(c) << 61) | (fmix(h(c) ^ j) >> 3) | 1 (SPEC-lmx2 §2)."""
    _, h = window_hashes(symbols, cum, key_tokens)
    top = (classes.astype(np.uint64) << np.uint64(61)) if prefer_boundaries else np.uint64(0)
    keys = []
    with np.errstate(over="ignore"):
        for j in (1, 2):
            k = (top | (_fmix(h ^ np.uint64(j)) >> np.uint64(3)) | np.uint64(1)).astype(np.uint64)
            if k.size:
                k[0] = k[-1] = 0
            keys.append(k)
    return Lmx2Keys(h, keys[0], keys[1])


# -- stage 3: cuts -----------------------------------------------------------------------


def _floor_log2(v: np.ndarray) -> np.ndarray:
    return np.frexp(v)[1].astype(np.int64) - 1  # exact for positive ints below 2^53


DENSE_SPAN_SLACK = 4096  # token spans this much past 4 per position are searched instead


def _reach_bounds(pos: np.ndarray, at: np.ndarray, reach: int) -> tuple[np.ndarray, np.ndarray]:
    """[lo, hi): the indices j with |pos[j] - a| <= reach, for each a in `at` (a value
    of `pos`). Token positions are integers: when they span few tokens (any real text)
    a running count of positions answers each query with one lookup, cheaper than two
    binary searches; long words can make positions sparse, and then it searches."""
    span = int(pos[-1] - pos[0])
    if span > 4 * pos.size + DENSE_SPAN_SLACK:
        return np.searchsorted(pos, at - reach, "left"), np.searchsorted(pos, at + reach, "right")
    below = np.zeros(span + 2, dtype=np.int64)  # below[t]: how many positions lie below pos[0] + t
    below[pos - pos[0] + 1] = 1
    np.cumsum(below, out=below)
    rel = at - pos[0]
    return below[np.maximum(rel - reach, 0)], below[np.minimum(rel + reach + 1, span + 1)]


def local_maxima(values: np.ndarray, pos: np.ndarray, reach: int, candidates: np.ndarray) -> np.ndarray:
    """For each index i in `candidates`, whether values[i] >= values[j] for every j with
    |pos[j] - pos[i]| <= reach (`pos` strictly increasing; equal values both qualify).

    A candidate smaller than a neighbour in reach is dropped first (two comparisons a
    cut remove most); the rest get a range-maximum query on a sparse table."""
    m = values.size
    if candidates.size == 0:
        return np.zeros(0, dtype=bool)
    near = np.diff(pos) <= reach
    left_ok = np.ones(m, dtype=bool)
    left_ok[1:] = ~near | (values[1:] >= values[:-1])
    right_ok = np.ones(m, dtype=bool)
    right_ok[:-1] = ~near | (values[:-1] >= values[1:])
    keep = left_ok[candidates] & right_ok[candidates]
    cand = candidates[keep]
    result = np.zeros(candidates.size, dtype=bool)
    if cand.size == 0:
        return result
    lo, hi = _reach_bounds(pos, pos[cand], reach)
    level = _floor_log2(hi - lo)
    top = int(level.max())
    table = np.empty((top + 1, m), dtype=values.dtype)
    table[0] = values
    for k in range(1, top + 1):
        step = 1 << (k - 1)
        table[k, : m - step] = np.maximum(table[k - 1, : m - step], table[k - 1, step:])
        table[k, m - step :] = table[k - 1, m - step :]  # never read by a query
    flat = table.ravel()
    row = level * m
    best = np.maximum(flat[row + lo], flat[row + hi - (1 << level)])
    result[keep] = values[cand] >= best
    return result


def _within(marked: np.ndarray, cum: np.ndarray, distance: int) -> np.ndarray:
    """Mask over cuts 0..n: some cut in `marked` (sorted cut indices) lies at token
    distance < `distance`. Each marked cut covers an index range; a running count of
    range starts minus range ends tells which cuts are covered."""
    n1 = cum.size
    at = cum[marked]
    first = np.searchsorted(cum, at - distance, "right")
    stop = np.searchsorted(cum, at + distance, "left")
    cover = np.bincount(first, minlength=n1 + 1)[:n1] - np.bincount(stop, minlength=n1 + 1)[:n1]
    return np.cumsum(cover) > 0


class Lmx2Cuts(NamedTuple):
    """The cuts stage: boolean masks over cuts 0..n, and the cut positions in order."""

    edges: np.ndarray  # E
    primary: np.ndarray  # S
    fill: np.ndarray  # Q
    positions: np.ndarray  # E | S | Q, sorted


def compute_cuts(
    keys: Lmx2Keys, word_tokens: np.ndarray, cum: np.ndarray, min_tokens: int, gate: int, horizon: int, fill_horizon: int
) -> Lmx2Cuts:
    """E, S, Z, Q of SPEC-lmx2 §3."""
    n = word_tokens.size
    edges = np.zeros(n + 1, dtype=bool)
    edges[0] = edges[n] = True
    primary = np.zeros(n + 1, dtype=bool)
    fill = np.zeros(n + 1, dtype=bool)
    if n < 2:
        return Lmx2Cuts(edges, primary, fill, np.flatnonzero(edges) if n else np.zeros(0, dtype=np.int64))
    long_word = word_tokens >= min_tokens
    edges[1:n] = long_word[:-1] | long_word[1:]
    x = cum[1:n]  # interior cut c sits at index c - 1 of x and of the key slices

    # S: away from every edge, and a maximum of key_1 among all interior cuts in reach
    blocked = edges | _within(np.flatnonzero(edges), cum, min_tokens)
    candidates = np.flatnonzero(~blocked[1:n])
    primary[candidates[local_maxima(keys.key_1[1:n], x, horizon, candidates)] + 1] = True

    # Z, then Q: a maximum of key_2 among the zone's cuts in reach (only those compete)
    chosen = edges | primary
    zone = np.flatnonzero(~(chosen | _within(np.flatnonzero(chosen), cum, gate))[1:n]) + 1
    every = np.arange(zone.size)
    fill[zone[local_maxima(keys.key_2[zone], cum[zone], fill_horizon, every)]] = True
    return Lmx2Cuts(edges, primary, fill, np.flatnonzero(chosen | fill))


class Lmx2Span(NamedTuple):
    start_word: int
    end_word: int
    kind: str
    boundary: str


def spans(cuts: Lmx2Cuts, classes: np.ndarray) -> list[Lmx2Span]:
    """The chunks between consecutive cuts, named by their end cut (SPEC-lmx2 §4)."""
    pos = cuts.positions.tolist()
    if len(pos) < 2:
        return []
    n = pos[-1]
    ends = cuts.positions[1:]
    kind_code = np.where(cuts.edges[ends], 2, np.where(cuts.primary[ends], 0, 1))
    kind_code[-1] = 3
    boundary_code = np.where(classes[ends] == 2, 0, np.where(classes[ends] == 1, 1, 2))
    boundary_code[-1] = 3
    new = tuple.__new__
    return [
        new(Lmx2Span, (s, e, KINDS[k], BOUNDARIES[b]))
        for s, e, k, b in zip(pos, pos[1:], kind_code.tolist(), boundary_code.tolist())
    ]


# -- diagnostics and the result ------------------------------------------------------------


@dataclass(frozen=True)
class Lmx2Diagnostics:
    """SPEC-lmx2 §8, with the token sizes of SPEC §8."""

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
    chunks_under_min: int
    chunks_over_max: int
    gate: int
    margin: int
    normalizer_version: str
    params_hash: str
    boundary_rule: str = LMX2_RULE

    def to_dict(self) -> dict:
        d = asdict(self)
        d["histogram_edges"] = list(self.histogram_edges)
        d["histogram_counts"] = list(self.histogram_counts)
        return d


def diagnose(chunks: tuple[Chunk, ...], boundaries: tuple[str, ...], word_count: int, p: Lmx2Params) -> Lmx2Diagnostics:
    sizes = [c.tokens for c in chunks]
    kinds = [c.kind for c in chunks]
    n = len(sizes)
    edges, counts = histogram(sizes, p.max_tokens)
    return Lmx2Diagnostics(
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
        primary=kinds.count(PRIMARY),
        fill=kinds.count(FILL),
        long_word=kinds.count(LONG_WORD),
        end=kinds.count(END),
        paragraph_boundaries=boundaries.count(PARAGRAPH),
        sentence_boundaries=boundaries.count(SENTENCE),
        word_boundaries=boundaries.count(WORD),
        chunks_under_min=sum(1 for t in sizes if t < p.min_tokens),
        chunks_over_max=sum(1 for t in sizes if t > p.max_tokens),
        gate=p.gate,
        margin=p.margin,
        normalizer_version=NORMALIZER_VERSION,
        params_hash=p.params_hash,
    )


@dataclass(frozen=True, eq=False)
class Lmx2Chunking:
    """The immutable result of chunking one text under lmx2-v1. Shaped like Chunking;
    `boundaries[i]` is the boundary class of `chunks[i]` until Chunk carries it."""

    text: str
    words: WordStream
    params: Lmx2Params
    params_hash: str
    chunks: tuple[Chunk, ...]
    boundaries: tuple[str, ...]
    diagnostics: Lmx2Diagnostics
    word_tokens: np.ndarray
    cum_tokens: np.ndarray
    keys: Lmx2Keys
    cuts: Lmx2Cuts
    canonical: CanonicalText
    normalizer_version: str = NORMALIZER_VERSION
    boundary_rule: str = LMX2_RULE

    @property
    def word_count(self) -> int:
        return len(self.words)


def chunk_lmx2(text: str, params: Lmx2Params | None = None) -> Lmx2Chunking:
    """Chunk `text` under lmx2-v1 with `params` (the defaults when None), cold."""
    if not isinstance(text, str):
        raise TypeError(f"chunk_lmx2() takes a str, not {type(text).__name__}")
    p = params if params is not None else Lmx2Params()
    if not isinstance(p, Lmx2Params):
        raise TypeError(f"params must be Lmx2Params, not {type(p).__name__}")
    words = normalize(text)
    encoded = utf8_words(words)
    symbols = compute_symbols(words, encoded)
    canonical = CanonicalText(words, encoded)
    del encoded
    tok = token_counters.get_counter(p.token_counter).count(words)
    cum = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(tok, out=cum[1:])
    classes = boundary_classes(text, words)
    keys = compute_keys(symbols, cum, classes, p.key_tokens, p.prefers_boundaries)
    cuts = compute_cuts(keys, tok, cum, p.min_tokens, p.gate, p.horizon, p.fill_horizon)
    found = spans(cuts, classes)
    phash = p.params_hash
    chunks = build_chunks(
        words, canonical, [(s.start_word, s.end_word, s.kind, False) for s in found], cum,
        chunk_hash_prefix(phash, CHUNKER_FAMILY),
    )
    boundaries = tuple(s.boundary for s in found)
    diagnostics = diagnose(chunks, boundaries, len(words), p)
    return Lmx2Chunking(text, words, p, phash, chunks, boundaries, diagnostics, tok, cum, keys, cuts, canonical)


__all__ = [
    "CHUNKER_FAMILY", "KINDS", "BOUNDARIES", "Lmx2Chunking", "Lmx2Cuts", "Lmx2Diagnostics", "Lmx2Keys",
    "Lmx2Span", "boundary_classes", "chunk_lmx2", "compute_cuts", "compute_keys", "spans", "window_hashes",
    "window_max",
]
