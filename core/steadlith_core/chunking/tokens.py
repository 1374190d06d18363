"""Token counters by id (docs/contract/tokens.md#builtin).

A counter maps each word to a positive integer. Built-in counters work on the whole
word stream at once; a registered counter may be a plain per-word function. Whatever
a counter returns is checked: a non-positive or non-integer count is an error naming
the word, and nothing is chunked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, NamedTuple

import numpy as np

from ..errors import ParameterError, TokenCountError
from ..kernel import select as kernel
from ..vocabulary import BUILTIN_TOKEN_COUNTERS
from . import model_tokens
from .normalize import WordStream

# Token counts are summed in int64; a document whose total exceeds this is rejected
# with a clear error instead of wrapping around (no real tokenizer comes near it).
MAX_TOTAL_TOKENS = 2**62


class Counted(NamedTuple):
    """A counter's tokens of each word (or None), their running total, and the counts' dtype."""

    counts: np.ndarray | None
    total: np.ndarray
    dtype: np.dtype


@dataclass(frozen=True)
class TokenCounter:
    id: str
    description: str
    per_word: Callable[[str], int] | None = None
    vectorized: Callable[[WordStream], np.ndarray] | None = None
    # (counts or None, running total) in one pass, already valid, counts in int32; None
    # when it cannot (then count() and running_total() do it): the compiled chars4/1.
    with_total: Callable[..., tuple[np.ndarray | None, np.ndarray] | None] | None = None
    # with_total takes a third argument, `narrow`: the total may be int32 where it surely fits
    narrow_total: bool = False

    def count_and_total(self, words: WordStream, keep_counts: bool = True, narrow: bool = False) -> Counted:
        """count(words) (None unless `keep_counts`) with its running total in int64,
        [0, c_0, c_0 + c_1, ...], and the dtype count() gives; arrays read-only.
        `narrow`: the total may be int32 where it surely fits (with_total decides; half
        the memory), for a caller that reads it only through the compiled kernel."""
        if self.with_total is None:
            both = None
        elif self.narrow_total:
            both = self.with_total(words, keep_counts, narrow)
        else:
            both = self.with_total(words, keep_counts)
        if both is not None:
            tok, cum = both
            dtype = np.dtype(np.int32)
        else:
            tok = self.count(words)
            cum, dtype = running_total(tok), tok.dtype
        for a in (tok, cum):
            if a is not None and a.flags.writeable:
                a.flags.writeable = False
        return Counted(tok if keep_counts else None, cum, dtype)

    def count(self, words: WordStream) -> np.ndarray:
        """Tokens of every word as a read-only array, validated: int32, or int64 when a
        count passes 2^31 - 1 (half the memory of int64 on a large document; sums and
        cumulative sums of int32 are int64 in numpy)."""
        if self.vectorized is not None:
            counts = np.asarray(self.vectorized(words))
            if counts.dtype.kind not in "iu":
                raise TokenCountError(self.id, 0, words.texts[0] if len(words) else "", counts.dtype)
            if counts.dtype.kind == "u" and counts.dtype.itemsize >= 8:
                counts = counts.astype(np.int64)  # too large a count turns negative: refused below
        else:
            raw = [self.per_word(w) for w in words.texts]
            total = 0
            for k, value in enumerate(raw):
                if type(value) is not int and not isinstance(value, np.integer):
                    raise TokenCountError(self.id, k, words.texts[k], value)
                total += int(value)
                if total > MAX_TOTAL_TOKENS:
                    raise TokenCountError(
                        self.id, k, words.texts[k], int(value),
                        f"the document's total passes {MAX_TOTAL_TOKENS} tokens",
                    )
            counts = np.array(raw, dtype=np.int64)
        bad = np.flatnonzero(counts <= 0)
        if bad.size:
            k = int(bad[0])
            raise TokenCountError(self.id, k, words.texts[k], int(counts[k]))
        if counts.size and int(counts.max()) > MAX_TOTAL_TOKENS // counts.size:
            running = np.cumsum(counts.astype(object))  # exact: int64 could wrap here
            over = np.flatnonzero(running > MAX_TOTAL_TOKENS)
            if over.size:
                k = int(over[0])
                raise TokenCountError(
                    self.id, k, words.texts[k], int(counts[k]),
                    f"the document's total passes {MAX_TOTAL_TOKENS} tokens",
                )
        narrow = np.int32 if not counts.size or int(counts.max()) <= np.iinfo(np.int32).max else np.int64
        counts = counts.astype(narrow, copy=False)
        counts.flags.writeable = False
        return counts


def _chars4(words: WordStream) -> np.ndarray:
    counts = words.ends - words.starts  # the offsets' dtype (int32): words are < 2^31 code points
    counts += 3  # in place: on a large document each temporary is 4 bytes per word
    counts //= 4
    return counts


def _chars4_with_total(words: WordStream, keep_counts: bool,
                       narrow: bool = False) -> tuple[np.ndarray | None, np.ndarray] | None:
    return kernel.chars4_totals(words.starts, words.ends, keep_counts, narrow)


def is_builtin_chars4(counter: "TokenCounter") -> bool:
    """Whether `counter` counts as the built-in chars4/1 does (compiled: the scan of a
    bytes document can total it in passing, select.scan_candidates)."""
    return counter.with_total is _chars4_with_total


def running_total(tok: np.ndarray, block: int = 1 << 20) -> np.ndarray:
    """[0, tok[0], tok[0] + tok[1], ...] in int64. By blocks: numpy's cumsum of int32
    into int64 first makes an int64 copy of the whole input (8 bytes a word)."""
    cum = np.zeros(tok.size + 1, dtype=np.int64)
    for i in range(0, tok.size, block):
        part = cum[i + 1 : i + 1 + block]
        np.cumsum(tok[i : i + block], out=part, dtype=np.int64)
        part += cum[i]
    return cum


def _words1(words: WordStream) -> np.ndarray:
    return np.ones(len(words), dtype=np.int32)


_COUNTERS: dict[str, TokenCounter] = {}


def register_counter(counter: TokenCounter) -> None:
    """Make a counter known by its id, e.g. a local tokenizer of an indexing pipeline.

    Its id becomes part of every params hash that uses it: pick a versioned id.
    """
    if counter.per_word is None and counter.vectorized is None:
        raise ValueError(f"token counter {counter.id!r} has no counting function")
    _COUNTERS[counter.id] = counter


def unregister_counter(counter_id: str) -> None:
    if counter_id in BUILTIN_COUNTERS:
        raise ValueError(f"cannot unregister built-in token counter {counter_id!r}")
    _COUNTERS.pop(counter_id, None)


# The counter a tokenizer spec was last built into, with the counting it wraps (a new
# counting, after its file changed, makes a new counter).
_MODEL_COUNTERS: dict[str, tuple[model_tokens.ModelCounting, TokenCounter]] = {}

SPEC_HINT = "or a tokenizer: hf:PATH/tokenizer.json, tiktoken:cl100k_base, tiktoken:o200k_base"


def get_counter(counter_id: str) -> TokenCounter:
    """The counter a `token_counter` value names: a registered id, or a tokenizer spec
    (`hf:PATH`, `tiktoken:NAME`, docs/contract/tokens.md#tokenizers), whose counter's id is
    the content-pinned one that the parameters' identity covers."""
    try:
        return _COUNTERS[counter_id]
    except (KeyError, TypeError):
        pass
    if model_tokens.is_spec(counter_id):
        counting = model_tokens.resolve(counter_id)
        hit = _MODEL_COUNTERS.get(counter_id)
        if hit is None or hit[0] is not counting:
            hit = _MODEL_COUNTERS[counter_id] = (counting, TokenCounter(
                counting.id, counting.description, vectorized=counting.per_word_counts))
        return hit[1]
    raise ParameterError(
        "token_counter", f"unknown token counter {counter_id!r}; known: {', '.join(_COUNTERS)}, {SPEC_HINT}",
        counter_id) from None


def counter_id(name: str) -> str:
    """The id that enters the canonical parameters for a `token_counter` value: the value
    itself for a registered counter, the content-pinned id for a tokenizer spec."""
    return name if name in _COUNTERS else get_counter(name).id


def known_counters() -> tuple[str, ...]:
    return tuple(_COUNTERS)


BUILTIN_COUNTERS = BUILTIN_TOKEN_COUNTERS
register_counter(TokenCounter("chars4/1", "ceil(code points / 4)", vectorized=_chars4, with_total=_chars4_with_total,
                              narrow_total=True))
register_counter(TokenCounter("words/1", "one token per word", vectorized=_words1))
