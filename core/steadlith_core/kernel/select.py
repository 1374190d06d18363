"""Which implementation runs the text-only stages: the compiled kernel or numpy.

`KERNEL` is "c" when the optional extension `_kernel` was built at install and "numpy"
otherwise, or when the environment variable STEADLITH_KERNEL=numpy forces the fallback
(then the process behaves as if the extension were absent).
Both paths return the same arrays bit for bit (tests/core/test_kernels.py compares
them); `use(name)` switches the process between them, which the tests and the benchmark
do to run both side by side.
"""

from __future__ import annotations

import codecs
from contextlib import contextmanager
from functools import lru_cache
from typing import Iterator, Sequence

import numpy as np

from ..vocabulary import KINDS
from . import bytescan, xxh3
from . import outputs as numpy_outputs
from .bytescan import RawScan
from .polynomial import degree, powmod_x
from .rabin import ConstMul, window_fingerprints as numpy_fingerprints
from .segment import Cut, SnapPoints, segment as python_segment, segment_columns as numpy_segment_columns
from .extension import ENV_VAR, FORCED_NUMPY as _FORCED_NUMPY, KERNEL_MODULE as _kernel
from .extension import MISSING_BECAUSE as _MISSING_BECAUSE, describe as _describe

KERNELS = ("c", "numpy") if _kernel is not None and not _FORCED_NUMPY else ("numpy",)
KERNEL = KERNELS[0]


def active() -> str:
    """The kernel in use now ("c" or "numpy")."""
    return KERNEL


def describe() -> str:
    """The kernel in use and, for the fallback, why: what `--version` prints."""
    return _describe(KERNEL, _FORCED_NUMPY, _kernel is not None, _MISSING_BECAUSE)


def use(name: str) -> None:
    """Run the text stages with kernel `name` from now on. Documents already cached
    by a Pipeline keep the arrays they were made with (both kernels agree anyway)."""
    global KERNEL
    if name not in ("c", "numpy"):
        raise ValueError(f"unknown kernel {name!r}; known: c, numpy")
    if name not in KERNELS:
        why = f"{ENV_VAR}=numpy is set" if _FORCED_NUMPY else "it was not built (no C compiler at install?)"
        raise ValueError(f"the compiled kernel is not available: {why}")
    KERNEL = name


@contextmanager
def using(name: str) -> Iterator[None]:
    previous = KERNEL
    use(name)
    try:
        yield
    finally:
        use(previous)


def release_pool() -> int:
    """Give the compiled kernel's free output blocks back to the system; the bytes of
    written pages they held (0 without the compiled kernel).

    The kernel's per-word outputs (offsets, flags, symbols, fingerprints, candidates,
    keys) live in large blocks that go back to a pool of the kernel's own when the last
    array viewing them dies, so the next chunking writes pages already in memory instead
    of faulting in fresh ones: it holds at most `pool_limit()` bytes. A program that is
    done chunking for a while can hand that memory back; `Pipeline.clear()` does. The
    numpy path's own kept blocks (outputs.py) are let go too, and counted."""
    return (_kernel.release_pool() if _kernel is not None else 0) + numpy_outputs.release()


def pool_limit(limit: int | None = None) -> int:
    """The most bytes of written pages the kernel's free blocks may hold (see
    release_pool); `limit` sets it (0: keep none) and is returned as the previous one."""
    if _kernel is None:
        return 0
    return _kernel.pool_limit(-1 if limit is None else limit)


def pool_stats() -> dict:
    """The kernel's pool: free blocks, the written bytes they hold, the bound, and how
    many blocks were taken (of them reused), returned and given back to the system."""
    return _kernel.pool_stats() if _kernel is not None else {}


def _readonly(a: np.ndarray) -> np.ndarray:
    a.flags.writeable = False
    return a


# Offsets in what scan() returns are int32 (half the memory of int64): a document is
# below 2^31 bytes (loader.MAX_DOCUMENT_BYTES), and the compiled scan refuses more.
OFFSET = np.int32


def scan(text: str | bytes, sentence_ends: bool = True, lean: bool = False) -> RawScan:
    """Words, paragraph flags, symbols and canonical text of `text`
    (docs/contract/normalizer.md#words, docs/contract/tttd-v1.md#symbols): a
    str, or UTF-8 bytes that check_utf8 accepted (offsets are code points either way).
    Both kernels return the same dtypes: int32 offsets, bool flags, uint64 symbols.

    `sentence_ends=False` lets the numpy scan leave that field None, to be computed by
    CanonicalText for the words asked about (tttd-v1 asks for its chunks' last words:
    2 ms of a 30 ms chunking of 1 MB saved). The compiled scan finds them in passing and
    always returns them.

    `lean=True`, for UTF-8 bytes under the compiled kernel, writes no canonical text:
    `canonical` and `canonical_ends` are None, and a chunk's canonical text is made from
    the document when it is needed (canonical_hashes, canonical_slice). Elsewhere it
    changes nothing."""
    if KERNEL == "c":
        # the compiled scan reads a str in place: no UTF-8 copy
        lean = lean and not isinstance(text, str)
        n, starts, ends, para, symbols, canonical, canonical_ends, sentence = (_kernel.scan_lean if lean else
                                                                              _kernel.scan)(text)
        raw = RawScan(
            np.frombuffer(starts, dtype=OFFSET),
            np.frombuffer(ends, dtype=OFFSET),
            np.frombuffer(para, dtype=np.bool_),
            np.frombuffer(symbols, dtype=np.uint64),
            None if lean else canonical,
            None if lean else np.frombuffer(canonical_ends, dtype=OFFSET),
            np.frombuffer(sentence, dtype=np.bool_),
        )
    else:  # a str is encoded a piece at a time as it is scanned; int32 offsets already (bytescan.MAX_BYTES)
        raw = bytescan.scan(text, sentence_ends)
    for a in (raw.starts, raw.ends, raw.para, raw.symbols, raw.canonical_ends, raw.sentence_ends):
        if a is not None and a.flags.writeable:
            a.flags.writeable = False
    return raw


# The longest window the compiled scan rolls in passing (a ring of its last symbols);
# a longer one is rolled apart, over the stored symbols. The scan totals chars4/1 in
# passing for documents up to FUSED_CHARS4_MAX bytes (its total then fits int32).
FUSED_WINDOW_MAX = 1 << 20
FUSED_CHARS4_MAX = 1 << 30


def scan_candidates(data: bytes, window: int, p: int, masks: tuple[int, int, int, int], chars4: bool = False
                    ) -> tuple[RawScan, np.ndarray, np.ndarray, np.ndarray | None] | None:
    """(scan, primary, backup, cum): scan(data, lean=True) of UTF-8 bytes, and the candidates
    of window_fingerprints(symbols, window, p) under `masks` (primary mask, remainder,
    backup mask, remainder), from one pass of the compiled kernel that rolls the window
    as it makes each symbol and stores none (the scan's symbols are None: a Document
    scans again if they are asked for). The bytes are checked as UTF-8 in the same pass:
    bytes that are not raise check_utf8's UnicodeDecodeError. With `chars4`, `cum` is
    chars4_totals(starts, ends, False, narrow=True)'s running total (int32), made in the
    same pass; None without it, or past FUSED_CHARS4_MAX bytes.

    None where that pass does not run (the numpy kernel, the table form of the window,
    a CPU without carry-less multiplication, a window over FUSED_WINDOW_MAX, masks past
    the polynomial's degree): the caller checks, scans and rolls apart."""
    if (KERNEL != "c" or not CARRYLESS or not _kernel.HAS_CLMUL or window > FUSED_WINDOW_MAX
            or max(masks) >> degree(p)):
        return None
    got = _kernel.scan_rabin(data, window, _carryless_constants(p, window), masks,
                             chars4 and len(data) <= FUSED_CHARS4_MAX)
    if isinstance(got, int):  # the offset of a byte that is not UTF-8
        bytes(data).decode("utf-8")  # raises the codec's own error, offsets and reason included
        raise AssertionError("the scan rejected what the codec accepts")
    n, starts, ends, para, _, _, _, sentence, primary, backup, cum = got
    view = np.frombuffer  # views of bytes objects: read-only
    raw = RawScan(view(starts, dtype=OFFSET), view(ends, dtype=OFFSET), view(para, dtype=np.bool_), None, None, None,
                  view(sentence, dtype=np.bool_))
    return (raw, view(primary, dtype=np.int64), view(backup, dtype=np.int64),
            None if cum is None else view(cum, dtype=np.int32))


def scan_checked(data: bytes, chars4: bool = False) -> tuple[RawScan, np.ndarray | None] | None:
    """(scan, cum): scan(data, lean=True) of UTF-8 bytes with the check of check_utf8 in
    the same pass of the compiled kernel (bytes that are not UTF-8 raise its
    UnicodeDecodeError: the codec's message and offset), instead of a pass of its own
    before the scan. With `chars4`, `cum` is chars4_totals(starts, ends, False,
    narrow=True)'s running total (int32) made in the pass too; None without it, or past
    FUSED_CHARS4_MAX bytes. None under the numpy kernel: the caller checks and scans apart."""
    if KERNEL != "c":
        return None
    got = _kernel.scan_checked(data, chars4 and len(data) <= FUSED_CHARS4_MAX)
    if isinstance(got, int):  # the offset of a byte that is not UTF-8
        bytes(data).decode("utf-8")  # raises the codec's own error, offsets and reason included
        raise AssertionError("the scan rejected what the codec accepts")
    n, starts, ends, para, symbols, _, _, sentence, cum = got
    view = np.frombuffer  # views of read-only buffers
    raw = RawScan(view(starts, dtype=OFFSET), view(ends, dtype=OFFSET), view(para, dtype=np.bool_),
                  view(symbols, dtype=np.uint64), None, None, view(sentence, dtype=np.bool_))
    return raw, None if cum is None else view(cum, dtype=np.int32)


def check_utf8(data: bytes) -> None:
    """Raise UnicodeDecodeError (with the byte offset of the first bad byte) unless
    `data` is strict UTF-8, without making a str of the whole document."""
    if KERNEL == "c":
        bad = _kernel.utf8_error(data)
        if bad < 0:
            return
    else:  # decode a piece at a time: a str of the whole text is what this avoids
        decoder = codecs.getincrementaldecoder("utf-8")()
        view = memoryview(data)
        try:
            for i in range(0, len(view), _CHECK_PIECE):
                decoder.decode(view[i : i + _CHECK_PIECE])
            decoder.decode(b"", final=True)
            return
        except UnicodeDecodeError:
            pass
    bytes(data).decode("utf-8")  # raises the codec's own error, offsets and reason included
    raise AssertionError("the UTF-8 check rejected what the codec accepts")


_CHECK_PIECE = 1 << 20


def window_fingerprints(symbols: np.ndarray, window: int, p: int) -> np.ndarray:
    """F_k for every word (docs/contract/tttd-v1.md#fingerprint): a rolling window in C, by doubling in numpy."""
    symbols = np.ascontiguousarray(symbols, dtype=np.uint64)
    if KERNEL != "c":
        return numpy_fingerprints(symbols, window, p)
    # A window longer than the stream never drops a symbol.
    w = max(1, min(window, symbols.size))
    reduce, shift, drop = _rolling_tables(p, w)
    return np.frombuffer(_kernel.fingerprints(symbols, w, reduce, shift, drop, _carryless(p, w)), dtype=np.uint64)


def fingerprints_and_candidates(symbols: np.ndarray, window: int, p: int, primary_mask: int, primary_remainder: int,
                                backup_mask: int, backup_remainder: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(window_fingerprints, *candidates of them): in C in one pass that stores the
    fingerprints and tests the masks, instead of a second read of the fingerprints."""
    masks = (primary_mask, primary_remainder, backup_mask, backup_remainder)
    symbols = np.ascontiguousarray(symbols, dtype=np.uint64)
    if KERNEL != "c":
        fp = numpy_fingerprints(symbols, window, p)
        return (fp, *candidates(fp, *masks))
    w = max(1, min(window, symbols.size))
    fp, primary, backup = _kernel.fingerprints(symbols, w, *_rolling_tables(p, w), _carryless(p, w), masks)
    return (np.frombuffer(fp, dtype=np.uint64), np.frombuffer(primary, dtype=np.int64),
            np.frombuffer(backup, dtype=np.int64))


def candidates(fp: np.ndarray, primary_mask: int, primary_remainder: int, backup_mask: int,
               backup_remainder: int) -> tuple[np.ndarray, np.ndarray]:
    """Positions (int64) of the primary and the backup candidates (docs/contract/tttd-v1.md#candidates) among the
    fingerprints `fp`: one pass in C, two masked compares in numpy."""
    if KERNEL == "c":
        primary, backup = _kernel.candidates(np.ascontiguousarray(fp, dtype=np.uint64), primary_mask,
                                             primary_remainder, backup_mask, backup_remainder)
        return np.frombuffer(primary, dtype=np.int64), np.frombuffer(backup, dtype=np.int64)
    # a block at a time, into two block-sized buffers: tested whole, the masked copy of
    # the fingerprints and its flags would be 9 bytes a word of fresh memory
    fp = np.asarray(fp, dtype=np.uint64)
    masked = np.empty(min(fp.size, _CANDIDATE_BLOCK), dtype=np.uint64)
    hit = np.empty(masked.size, dtype=bool)
    found: tuple[list, list] = ([], [])
    for lo in range(0, fp.size, _CANDIDATE_BLOCK):
        block = fp[lo : lo + _CANDIDATE_BLOCK]
        m, h = masked[: block.size], hit[: block.size]
        for into, mask, remainder in ((found[0], primary_mask, primary_remainder),
                                      (found[1], backup_mask, backup_remainder)):
            np.bitwise_and(block, np.uint64(mask), out=m)
            np.equal(m, np.uint64(remainder), out=h)
            into.append(np.flatnonzero(h) + lo)
    return tuple(np.concatenate(parts) if parts else np.empty(0, dtype=np.int64) for parts in found)


_CANDIDATE_BLOCK = 1 << 16  # words of a block of the numpy candidate test: 512 KB of fingerprints


def window_candidates(symbols: np.ndarray, window: int, p: int, primary_mask: int, primary_remainder: int,
                      backup_mask: int, backup_remainder: int) -> tuple[np.ndarray, np.ndarray]:
    """candidates(window_fingerprints(symbols, window, p), masks...): in C in one pass
    that stores no fingerprint (8 bytes a word nobody else needs to read)."""
    symbols = np.ascontiguousarray(symbols, dtype=np.uint64)
    if KERNEL != "c":
        return candidates(numpy_fingerprints(symbols, window, p), primary_mask, primary_remainder, backup_mask,
                          backup_remainder)
    w = max(1, min(window, symbols.size))
    primary, backup = _kernel.fingerprint_candidates(symbols, w, *_rolling_tables(p, w), primary_mask,
                                                     primary_remainder, backup_mask, backup_remainder,
                                                     _carryless(p, w))
    return np.frombuffer(primary, dtype=np.int64), np.frombuffer(backup, dtype=np.int64)


@lru_cache(maxsize=16)
def _rolling_tables(p: int, w: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Byte tables of the rolling window: s -> s mod p, F -> F x^64 mod p and
    s -> s x^(64 w) mod p (building them costs more than rolling over 1 MB of words)."""
    return (
        ConstMul(1, p, 64).tables,
        ConstMul(powmod_x(64, p), p, degree(p)).tables,
        ConstMul(powmod_x(64 * w, p), p, 64).tables,
    )


# The compiled Rabin passes roll by carry-less multiplication where the CPU has it, by
# byte tables otherwise; CARRYLESS = False makes them use the tables (the tests run both).
CARRYLESS = True


@lru_cache(maxsize=16)
def _carryless_constants(p: int, w: int) -> tuple[int, int, int, int]:
    """(d, P' - x^64, (x^128 div P') - x^64, (x^(64 w) mod P) x^t) with t = 64 - d and
    P' = P x^t, the constants of the kernel's Barrett reduction (see _kernel.c)."""
    d = degree(p)
    t = 64 - d
    p_top = p << t  # degree 64
    mu, rem = 0, 1 << 128
    for i in range(64, -1, -1):  # x^128 div P', bit by bit
        if rem >> (64 + i) & 1:
            mu |= 1 << i
            rem ^= p_top << i
    low = (1 << 64) - 1
    return d, p_top & low, mu & low, powmod_x(64 * w, p) << t


def _carryless(p: int, w: int) -> tuple[int, int, int, int] | None:
    return _carryless_constants(p, w) if CARRYLESS else None


def segment(
    cum: np.ndarray,
    primary: Sequence[int],
    backup: Sequence[int],
    min_tokens: int,
    max_tokens: int,
    snap_window: int = 0,
    points: SnapPoints | None = None,
) -> list[Cut]:
    """tttd-v1 cuts (segment.segment): in C unless snapping is on or numpy runs."""
    if KERNEL != "c" or snap_window:
        return python_segment(_wide(cum), primary, backup, min_tokens, max_tokens, snap_window,
                              points)
    past_end = int(cum[-1]) + 1  # searching past the total finds n, as in segment.py
    count, starts, ends, kinds = _kernel.segment(
        _totals(cum),
        np.asarray(primary, dtype=np.int64),
        np.asarray(backup, dtype=np.int64),
        min(min_tokens, past_end),
        min(max_tokens, past_end),
    )
    new = tuple.__new__
    names = list(map(KINDS.__getitem__, kinds))
    return [
        new(Cut, (s, e, kind, False))
        for s, e, kind in zip(np.frombuffer(starts, np.int64).tolist(), np.frombuffer(ends, np.int64).tolist(), names)
    ]


def segment_columns(
    cum: np.ndarray,
    primary: np.ndarray,
    backup: np.ndarray,
    min_tokens: int,
    max_tokens: int,
    snap_window: int = 0,
    points: SnapPoints | None = None,
) -> tuple[np.ndarray, np.ndarray, list[str], list[bool] | None]:
    """The cuts of `segment`, column-wise: (first words, end words, kinds, snapped flags,
    None when nothing can be snapped), as chunks.CutColumns holds them: segment_codes
    with each kind named."""
    starts, ends, codes, snapped = segment_codes(cum, primary, backup, min_tokens, max_tokens, snap_window, points)
    return starts, ends, kind_names(codes), snapped


# the kind names as an object array: indexing it by codes makes the list of names in one
# numpy call (the same str objects), several times faster than a map over the codes
_KIND_NAMES = np.array(KINDS, dtype=object)
_KIND_CODES = {name: code for code, name in enumerate(KINDS)}


def kind_names(codes: np.ndarray) -> list[str]:
    """The names (vocabulary.KINDS) of kind codes."""
    return _KIND_NAMES[codes].tolist()


def segment_codes(
    cum: np.ndarray,
    primary: np.ndarray,
    backup: np.ndarray,
    min_tokens: int,
    max_tokens: int,
    snap_window: int = 0,
    points: SnapPoints | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[bool] | None]:
    """The cuts of `segment`, column-wise, each kind as its index in vocabulary.KINDS
    (uint8): what the compiled walk gives, and what a caller that counts the kinds
    (diagnostics) counts in one numpy pass. The candidate positions are int64 arrays;
    `cum` is int64, or int32 (a narrow running total, chars4_totals), which the compiled
    walk reads as it is."""
    if KERNEL != "c" or snap_window:
        # the numpy walk adds limits to totals: in int64, whatever the totals' width
        starts, ends, kinds, snapped = numpy_segment_columns(_wide(cum), primary, backup, min_tokens, max_tokens,
                                                             snap_window, points)
        return starts, ends, np.fromiter(map(_KIND_CODES.__getitem__, kinds), np.uint8, len(kinds)), snapped
    past_end = int(cum[-1]) + 1
    _, starts, ends, kinds = _kernel.segment(
        _totals(cum), np.ascontiguousarray(primary, dtype=np.int64),
        np.ascontiguousarray(backup, dtype=np.int64), min(min_tokens, past_end), min(max_tokens, past_end))
    return np.frombuffer(starts, np.int64), np.frombuffer(ends, np.int64), np.frombuffer(kinds, np.uint8), None


def chars4_totals(starts: np.ndarray, ends: np.ndarray, want_counts: bool,
                  narrow: bool = False) -> tuple[np.ndarray | None, np.ndarray] | None:
    """(chars4/1 count of every word as int32, or None unless `want_counts`; their
    running total, one longer: int64, or with `narrow` int32 when the total is sure to
    stay below 2^30) in one pass of the compiled kernel, or None when numpy runs
    (tokens.py then counts and sums in numpy)."""
    if KERNEL != "c":
        return None
    starts = np.ascontiguousarray(starts, dtype=OFFSET)
    tok, cum = _kernel.chars4_totals(starts, np.ascontiguousarray(ends, dtype=OFFSET), want_counts, narrow)
    wide = len(cum) == 8 * (starts.size + 1)
    return (None if tok is None else np.frombuffer(tok, dtype=np.int32)), np.frombuffer(cum, dtype=np.int64 if wide
                                                                                      else np.int32)


def _wide(cum: np.ndarray) -> np.ndarray:
    """A narrow (int32) running total widened to int64; any other as it is."""
    return cum.astype(np.int64) if isinstance(cum, np.ndarray) and cum.dtype == np.int32 else cum


def _totals(cum: np.ndarray) -> np.ndarray:
    """A running total as the compiled kernel reads it: int32 (a narrow one) or int64."""
    return cum if cum.dtype in (np.int32, np.int64) and cum.flags.c_contiguous else np.ascontiguousarray(cum, np.int64)


DENSE_SPAN_SLACK = 4096


def dense_span(count: int) -> int:
    """Token spans below this, over `count` words or positions, are laid out with a slot
    per token (lmx2-v1's windows are then looked up, not searched). Real text has a few
    tokens a word; long words can make the span sparse, and then it is searched."""
    return 4 * count + DENSE_SPAN_SLACK + 1


def lmx2_keys(symbols: np.ndarray, cum: np.ndarray, classes: np.ndarray, key_tokens: int, prefer: bool,
              base: int, keep_h: bool = True, keys: bool = True
              ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None] | None:
    """(h, key_1, key_2) of lmx2-v1 over cuts 0..n from the compiled kernel (h None
    unless `keep_h`: then no array is made for it; key_1 and key_2 None unless `keys`:
    then only h is made, and lmx2_key_of makes keys from it), or None when numpy runs
    (lmx2.compute_keys then computes them itself)."""
    if KERNEL != "c":
        return None
    # a window of every token holds every word before the cut: clamping keeps it in int64
    key_tokens = min(key_tokens, max(int(cum[-1]), 0))
    arrays = _kernel.lmx2_keys(
        np.ascontiguousarray(symbols, dtype=np.uint64), np.ascontiguousarray(cum, dtype=np.int64),
        np.ascontiguousarray(classes, dtype=np.uint8), key_tokens, prefer, base, pow(base, -1, 2**64),
        dense_span(symbols.size), keep_h, keys)
    return tuple(None if a is None else np.frombuffer(a, dtype=np.uint64) for a in arrays)  # type: ignore[return-value]


def lmx2_key_of(h: np.ndarray, classes: np.ndarray, prefer: bool, j: int, at: np.ndarray | None = None
                ) -> np.ndarray | None:
    """key_j (docs/contract/lmx2-v1.md#keys) of the cuts `at` (None: every cut) from
    their window hashes `h`, 0 at the edges, by the compiled kernel; None when numpy runs."""
    if _kernel is None:
        return None
    keys = _kernel.lmx2_key_of(np.ascontiguousarray(h, dtype=np.uint64), np.ascontiguousarray(classes, dtype=np.uint8),
                               prefer, j, None if at is None else np.ascontiguousarray(at, dtype=np.int64))
    return np.frombuffer(keys, dtype=np.uint64)


def lmx2_lean() -> bool:
    """Whether lmx2_cuts runs (the compiled kernel)."""
    return KERNEL == "c"


def lmx2_prefix(symbols: np.ndarray, base: int, in_place: bool) -> np.ndarray:
    """P[c] = sum of s_i B^-i over i < c (mod 2^64) for c = 1..n at index c - 1 (uint64),
    the prefix sums the window hashes of lmx2-v1 are differences of (lmx2.window_hashes)
    by the compiled kernel. `in_place`: written over `symbols`, whose memory the caller
    alone holds (that array then holds the sums, and is returned); symbols that may not
    be written (a read-only array) are refused with ValueError."""
    symbols = np.ascontiguousarray(symbols, dtype=np.uint64)
    out = _kernel.lmx2_prefix(symbols, pow(base, -1, 2**64), in_place)
    return symbols if in_place else np.frombuffer(out, dtype=np.uint64)


def lmx2_cuts(symbols: np.ndarray, para: np.ndarray, sentence_ends: np.ndarray, prefer: bool,
              cum: np.ndarray | None, starts: np.ndarray | None, ends: np.ndarray | None, key_tokens: int, base: int,
              horizon: int, min_tokens: int, gate: int, fill_horizon: int, maxima: np.ndarray | None
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(key_1 maxima of `horizon`, every cut in order, the kind of each: 0 S, 1 Q, 2 E)
    of docs/contract/lmx2-v1.md#cuts by the compiled kernel, from the word symbols, the
    per-word flags and the token positions (`cum`, or with `cum` None chars4/1 of the
    offsets); `maxima`, when known for this horizon, are not sought again."""
    # a window, a horizon past every token sees no more: clamped, they fit the kernel's int64
    far = 2**62
    maxima_out, positions, kinds = _kernel.lmx2_cuts(
        np.ascontiguousarray(symbols, dtype=np.uint64), np.ascontiguousarray(para, dtype=np.bool_), np.ascontiguousarray(sentence_ends, dtype=np.bool_),
        prefer, None if cum is None else _totals(cum), starts, ends, min(key_tokens, far), base, min(horizon, far),
        min_tokens, gate, min(fill_horizon, far), None if maxima is None else np.ascontiguousarray(maxima, dtype=np.int64))
    return (maxima if maxima is not None else np.frombuffer(maxima_out, dtype=np.int64),
            np.frombuffer(positions, dtype=np.int64), np.frombuffer(kinds, dtype=np.uint8))


def _kernel_reach(reach: int, pos: np.ndarray) -> int:
    """`reach` checked, and clamped to the span of `pos`: a reach past the span sees no
    more, and clamped it fits the kernel's unsigned 64 bits."""
    if reach < 0:
        raise ValueError(f"reach must be >= 0, got {reach}")
    return min(reach, int(pos[-1]) - int(pos[0])) if pos.size else reach


def local_maxima(values: np.ndarray, pos: np.ndarray, reach: int, candidates: np.ndarray | None) -> np.ndarray | None:
    """lmx2.local_maxima by the compiled kernel (candidates None: every index), or None
    when numpy runs."""
    if KERNEL != "c":
        return None
    reach = _kernel_reach(reach, pos)
    flags = _kernel.local_maxima(
        np.ascontiguousarray(values, dtype=np.uint64), np.ascontiguousarray(pos, dtype=np.int64), reach,
        None if candidates is None else np.ascontiguousarray(candidates, dtype=np.int64), dense_span(pos.size))
    return np.frombuffer(flags, dtype=np.bool_)


def local_maxima_at(values: np.ndarray, pos: np.ndarray, reach: int, offset: int) -> np.ndarray | None:
    """offset + the indices lmx2.local_maxima(values, pos, reach, None) flags (int64, in
    order) by the compiled kernel, or None when numpy runs."""
    if KERNEL != "c":
        return None
    reach = _kernel_reach(reach, pos)
    found = _kernel.local_maxima_at(
        np.ascontiguousarray(values, dtype=np.uint64), np.ascontiguousarray(pos, dtype=np.int64), reach, offset)
    return np.frombuffer(found, dtype=np.int64)


def chunk_hashes(data: bytes, byte_starts: np.ndarray, byte_ends: np.ndarray, prefix: bytes) -> list[str] | None:
    """The chunk hash (docs/contract/identity.md#chunk-hash) of every chunk
    data[byte_starts[k]:byte_ends[k]] under `prefix`, as hex, by the compiled kernel; None when numpy runs (the caller hashes each chunk)."""
    if KERNEL != "c":
        return None
    return _kernel.chunk_hashes(data, np.ascontiguousarray(byte_starts, dtype=np.int64),
                                np.ascontiguousarray(byte_ends, dtype=np.int64), prefix)


def canonical_hashes(document: bytes, byte_starts: np.ndarray, byte_ends: np.ndarray, prefix: bytes) -> list[str]:
    """chunk_hashes of the canonical text of every document[byte_starts[k]:byte_ends[k]]
    (word-aligned ranges of the UTF-8 document), each made in turn: for the canonical
    text of a lean scan, which exists only chunk by chunk. Compiled kernel only (a lean
    scan is made only there; the extension stays loaded when the process switches)."""
    return _kernel.canonical_hashes(document, np.ascontiguousarray(byte_starts, dtype=np.int64),
                                    np.ascontiguousarray(byte_ends, dtype=np.int64), prefix)


def canonical_slice(document: bytes, start: int, end: int) -> bytes:
    """The canonical text of the words of document[start:end] (a word-aligned byte range)."""
    return _kernel.canonical_slice(document, start, end)


def utf8_offsets(document: bytes, offsets: np.ndarray) -> np.ndarray:
    """The byte offset in the UTF-8 `document` of each code-point offset in `offsets`
    (ascending), int64: one forward walk, from a lean scan's code-point offsets to the
    document's bytes. Compiled kernel only, as canonical_hashes."""
    return np.frombuffer(_kernel.utf8_offsets(document, np.ascontiguousarray(offsets, dtype=np.int64)), dtype=np.int64)


def xxh3_64(data: bytes, seed: int = 0) -> int:
    """xxh3_64 of the active kernel (the C one, or the numpy one on one input)."""
    if KERNEL == "c":
        return _kernel.xxh3_64(data, seed)
    b = np.frombuffer(data, dtype=np.uint8)
    one = np.zeros(1, dtype=np.int64)
    return int(xxh3.xxh3_64_many(b, one, np.array([len(data)]), np.array([seed], dtype=np.uint64))[0])
