"""GF(2) polynomial arithmetic and vectorized Rabin window fingerprints (docs/contract/tttd-v1.md#fingerprint).

Polynomials are Python ints, bit i the coefficient of x^i. Multiplying by a constant
modulo P is linear over GF(2), so for a whole array it is a few byte-table lookups:
table[i][v] = (v * x^(8i) * c) mod P, XORed over the bytes of each element.

The window sum F_k = sum_{j<w} s_(k-j) x^(64j) mod P is built by doubling:
a window of a+b symbols is the window of a symbols XOR the window of b symbols ending
a words earlier, times x^(64a). That costs O(n log w) lookups, never a per-word loop.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np

from . import outputs
from . import threads as numpy_threads
from .polynomial import degree, polymod, powmod_x


class ConstMul:
    """Multiplication of uint64 arrays by a constant c modulo p, by tables of `width`
    bits: table[i][v] = v x^(width i) c mod p, XORed over the fields of each element.
    16-bit tables (512 KB each) halve the lookups of 8-bit ones; the compiled kernel
    takes 8-bit ones, which stay in its L1 cache."""

    def __init__(self, c: int, p: int, in_bits: int = 64, width: int = 8):
        self.width = width
        self.n_fields = (in_bits + width - 1) // width
        basis = []  # basis[b] = x^b * c mod p for input bit b
        v = polymod(c, p)
        for _ in range(self.n_fields * width):
            basis.append(v)
            v = polymod(v << 1, p)
        tables = np.zeros((self.n_fields, 1 << width), dtype=np.uint64)
        for i in range(self.n_fields):
            t = tables[i]
            for bit in range(width):
                size = 1 << bit
                t[size : 2 * size] = t[:size] ^ np.uint64(basis[width * i + bit])
        self.tables = tables

    def __call__(self, a: np.ndarray) -> np.ndarray:
        """c a mod p for every element of `a`, which has at most `in_bits` bits."""
        # Fields are cut out as unsigned shifts and taken through an int64 view: `take`
        # then indexes with them as they are, where a uint16 view would first be
        # converted to intp (a hidden extra pass). The top field needs no mask.
        a = np.ascontiguousarray(a, dtype=np.uint64)
        mask = np.uint64((1 << self.width) - 1)
        last = self.n_fields - 1
        out = self.tables[0].take((a & mask if last else a).view(np.int64), mode="clip")  # indices are in range
        for i in range(1, self.n_fields):
            field = a >> np.uint64(self.width * i)
            if i < last:
                field &= mask
            out ^= self.tables[i].take(field.view(np.int64), mode="clip")
        return out


@lru_cache(maxsize=12)
def _const_mul16(c: int, p: int, in_bits: int) -> ConstMul:
    return ConstMul(c, p, in_bits, width=16)


def _xor_delayed(acc: np.ndarray, block: np.ndarray, m: int, mul: ConstMul) -> None:
    """acc ^= mul(block delayed by m positions) in place, zeros entering at the start."""
    if m < block.size:
        acc[m:] ^= mul(block[: block.size - m])  # mul returns a new array: no overlap


class _Step(NamedTuple):
    """One bit of the window length, low to high, in the doubling: the block joins the
    result when the bit is set (`add`: the delay and x^(64 delay) mod p, None for the
    first block taken), then doubles (`double`: likewise; None after the top bit)."""

    take: bool
    add: tuple[int, int] | None
    double: tuple[int, int] | None


@lru_cache(maxsize=64)
def _doubling(w: int, p: int) -> tuple[_Step, ...]:
    """The steps of the doubling for a window of w symbols. Only the powers of x are
    kept (computing them costs more than a pass over 1 MB of words); their tables stay
    in _const_mul16's bounded cache."""
    steps = []
    block_len, result_len = 1, 0
    while w:
        take, add = bool(w & 1), None
        if take:
            if result_len:
                add = (result_len, powmod_x(64 * result_len, p))
            result_len += block_len
        w >>= 1
        double = (block_len, powmod_x(64 * block_len, p)) if w else None
        steps.append(_Step(take, add, double))
        block_len *= 2
    return tuple(steps)


def _reduced(symbols: np.ndarray, p: int) -> np.ndarray:
    """s mod p for every symbol: s = low + high x^d, low already reduced, high x^d mod p
    looked up (one 16-bit field for the default degree 53, four for degree 8)."""
    d = degree(p)
    out = symbols & np.uint64((1 << d) - 1)
    out ^= _const_mul16(powmod_x(d, p), p, 64 - d)(symbols >> np.uint64(d))
    return out


def _window_pass(symbols: np.ndarray, p: int, steps: tuple[_Step, ...]) -> np.ndarray:
    # The doubling runs on reduced values, below 2^d: the top 16-bit field of one has
    # d - 48 bits (5 at the default degree), so its table is small and stays cached,
    # where a lazily reduced 64-bit value would read a fourth 512 KB table.
    d = degree(p)
    block = _reduced(symbols, p)  # windows of one symbol
    result = None
    for step in steps:
        if step.take:
            if result is None:
                # a last step that only takes makes the block itself the result: no copy
                result = block if step.double is None else block.copy()
            else:
                delay, c = step.add
                _xor_delayed(result, block, delay, _const_mul16(c, p, d))
        if step.double is not None:
            delay, c = step.double
            _xor_delayed(block, block, delay, _const_mul16(c, p, d))
    return result


def _make_tables(p: int, steps: tuple[_Step, ...]) -> None:
    """Every table _window_pass reads (_reduced's and each step's), into the cache."""
    d = degree(p)
    _const_mul16(powmod_x(d, p), p, 64 - d)
    for step in steps:
        for delay_c in (step.add, step.double):
            if delay_c is not None:
                _const_mul16(delay_c[1], p, d)


# Words per pass of the doubling on a long stream: each pass reads 16-bit tables (512
# KB each) at random and streams a few arrays of 8 bytes a word, which at 256 KB an
# array still share the L2 cache with them. Measured alternately in one process
# (medians, malloc keeping freed memory: allocator.py): 10 MB of prose whole-stream
# blocks of 131,072 words 71.2 ms, of 65,536 62.0, of 32,768 57.2 (the previous,
# lazily reduced doubling: 79.4). Up to WHOLE_WORDS (about 1.8 MB of prose) one pass
# is as fast or faster: 1 MB whole 7.2 ms, in blocks of 32,768 8.0.
BLOCK_WORDS = 1 << 15
WHOLE_WORDS = 1 << 18


def window_fingerprints(symbols: np.ndarray, window: int, p: int) -> np.ndarray:
    """F_k for every word k (docs/contract/tttd-v1.md#fingerprint), as a uint64 array of values below 2^deg(p).
    A long stream runs in blocks, on numpy_threads' threads when there are several."""
    symbols = np.ascontiguousarray(symbols, dtype=np.uint64)
    n = symbols.size
    # A window longer than the stream holds every symbol so far, like a window of n.
    w = max(1, min(window, n))
    steps = _doubling(w, p)
    threads = numpy_threads.for_words(n)
    if threads == 1:  # blocks only where they beat one pass
        block_words, whole = BLOCK_WORDS, max(WHOLE_WORDS, BLOCK_WORDS + BLOCK_WORDS // 2)
    else:  # a block a thread, no larger than a pass on threads
        block_words = max(BLOCK_WORDS, min(numpy_threads.PASS_WORDS, -(-n // threads)))
        whole = block_words + block_words // 2
    if n <= whole or w > block_words // 4:  # (a block re-reads w - 1)
        return _window_pass(symbols, p, steps)
    if threads > 1:
        _make_tables(p, steps)  # here, not by threads racing to (up to what the cache holds)
    out = outputs.empty(n, np.uint64)  # kept for the next chunking when it dies (outputs.py)

    def fill(lo: int) -> None:
        # the w - 1 symbols before the block fill the windows of its first words
        a = max(0, lo - (w - 1))
        out[lo : lo + block_words] = _window_pass(symbols[a : lo + block_words], p, steps)[lo - a :]

    numpy_threads.run(fill, range(0, n, block_words), threads)
    return out
