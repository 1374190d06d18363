"""`fixed-tokens/1`: a fixed-size token-window chunker, the baseline CDC is measured against.

It cuts the same word stream with the same token counter as tttd-v1, greedily: each
chunk takes words while its tokens stay within `max_tokens`; a word is never split,
and a word larger than the window is a chunk of its own. Boundaries therefore depend
on absolute token positions, so one inserted word moves every later boundary: exactly
the churn content-defined chunking exists to avoid. `steadlith compare` reports its
churn beside tttd-v1's so users see what CDC saves.

It has its own identity (a params hash as in docs/contract/identity.md#params-hash, but its
own strategy id and field list) and its
own chunk-hash family, so its hashes can never be mistaken for tttd-v1 hashes.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np
import xxhash

from ..chunking import tokens as token_counters
from ..chunking.boundaries import cut_boundaries
from ..chunking.canonical import CanonicalText, utf8_words
from ..chunking.chunks import Chunk, ChunkColumns, Chunking, CutColumns
from ..chunking.identity import chunk_hash_prefix
from ..chunking.normalize import NORMALIZER_VERSION, WordStream, normalize
from ..chunking.params import check_token_counter, enc, token_counter_id
from ..errors import ParameterError

BASELINE_STRATEGY = "fixed-tokens/1"
BASELINE_FAMILY = "fixed-tokens"
WINDOW, END = "window", "end"  # chunk kinds: a full window, or the final tail


@dataclass(frozen=True)
class FixedTokenParams:
    """The two parameters of the baseline: window size in tokens and the token counter."""

    max_tokens: int = 512
    token_counter: str = "chars4/1"

    def __post_init__(self) -> None:
        if type(self.max_tokens) is not int or self.max_tokens < 1:
            raise ParameterError("max_tokens", f"must be an integer >= 1, got {self.max_tokens!r}", self.max_tokens)
        check_token_counter(self.token_counter)

    def canonical_fields(self) -> list[tuple[str, str]]:
        return [
            ("boundary_rule", BASELINE_STRATEGY),
            ("token_counter", token_counter_id(self.token_counter)),
            ("max_tokens", str(self.max_tokens)),
        ]

    def canonical_bytes(self) -> bytes:
        out = [enc("steadlith-chunker-params")]
        out.extend(enc(k) + enc(v) for k, v in self.canonical_fields())
        return b"".join(out)

    @property
    def params_hash(self) -> str:
        return xxhash.xxh3_128_hexdigest(self.canonical_bytes())


@dataclass(frozen=True, eq=False)
class FixedChunking:
    """A baseline chunking: the fields of Chunking that a comparison reads. Like a
    Chunking it keeps its chunks column-wise (`columns`, which compare reads) and makes
    the Chunk objects when `chunks` is first read: the inspector compares a 10 MB pair's
    baselines (~10,000 chunks a side) whenever max_tokens changes, and needs no chunk."""

    words: WordStream
    params: FixedTokenParams
    params_hash: str
    columns: ChunkColumns
    # tokens of each word, or what makes them when first read (Chunking.word_tokens_of):
    # the cuts need only the running total, and a comparison reads neither
    word_tokens_of: np.ndarray | Callable[[], np.ndarray]
    cum_tokens: np.ndarray
    normalizer_version: str = NORMALIZER_VERSION
    boundary_rule: str = BASELINE_STRATEGY

    @cached_property
    def word_tokens(self) -> np.ndarray:
        """Tokens of each word."""
        t = self.word_tokens_of
        return t if isinstance(t, np.ndarray) else t()

    @cached_property
    def chunks(self) -> tuple[Chunk, ...]:
        """Every chunk, in order."""
        return self.columns.chunks()

    @property
    def word_count(self) -> int:
        return len(self.words)


def fixed_cuts(cum_tokens: np.ndarray, max_tokens: int) -> list[tuple[int, int]]:
    """Greedy windows [s, e) over cum_tokens (n + 1 cumulative counts)."""
    n = len(cum_tokens) - 1
    # A window past the document's total behaves like the total, and the search key
    # must stay inside int64: max_tokens may be anything up to 2^64 - 1.
    window = min(max_tokens, int(cum_tokens[-1]) + 1) if n else max_tokens
    cuts = []
    s = 0
    while s < n:
        # largest e with tokens[s, e) <= max_tokens; at least one word
        e = int(np.searchsorted(cum_tokens, cum_tokens[s] + window, "right")) - 1
        e = max(e, s + 1)
        cuts.append((s, e))
        s = e
    return cuts


def fixed_chunking(words: WordStream, word_tokens: np.ndarray | Callable[[], np.ndarray], cum_tokens: np.ndarray,
                   params: FixedTokenParams, canonical: CanonicalText | None = None) -> FixedChunking:
    """Chunk an already normalized and counted stream (what compare() does, for free).
    `word_tokens` may be what makes them when first read (a lean Chunking keeps only the
    running total). `canonical` is the stream's canonical text when the caller has it (a
    Chunking does)."""
    if canonical is None:
        canonical = CanonicalText(words, utf8_words(words))
    cuts = np.asarray(fixed_cuts(cum_tokens, params.max_tokens), dtype=np.int64).reshape(-1, 2)
    n = len(cuts)
    kinds = [WINDOW] * (n - 1) + [END] if n else []
    cuts = CutColumns(cuts[:, 0].copy(), cuts[:, 1].copy(), kinds, None, cut_boundaries(canonical, cuts[:, 1]))
    phash = params.params_hash
    columns = ChunkColumns(words, canonical, cuts, cum_tokens, chunk_hash_prefix(phash, BASELINE_FAMILY))
    return FixedChunking(words, params, phash, columns, word_tokens, cum_tokens)


def baseline_for(result: Chunking) -> FixedChunking:
    """The baseline over a chunking's own stream (either rule): window = its max_tokens."""
    params = FixedTokenParams(result.params.max_tokens, result.params.token_counter)
    # the Chunking's own maker of its per-word tokens, unless it has made them
    tokens = result.__dict__.get("word_tokens", result.word_tokens_of)
    return fixed_chunking(result.words, tokens, result.cum_tokens, params, result.canonical)


def chunk_fixed(text: str, params: FixedTokenParams | None = None) -> FixedChunking:
    """Normalize, count and cut `text` with the baseline (standalone use)."""
    params = params or FixedTokenParams()
    words = normalize(text)
    tok = token_counters.get_counter(params.token_counter).count(words)
    cum = np.zeros(len(words) + 1, dtype=np.int64)
    np.cumsum(tok, out=cum[1:])
    return fixed_chunking(words, tok, cum, params)
