"""xxh3_64 on numpy for many short inputs at once: the symbols of the numpy text scan
(`bytescan`), equal to what the compiled kernel and the `xxhash` package compute.

Vectorized over inputs of up to 128 bytes, grouped by the length classes of the xxHash
specification; only longer inputs, rare among the words of prose, are hashed one by one
by the `xxhash` package.
"""

from __future__ import annotations

import numpy as np
import xxhash

_SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e"
)  # the default secret of the xxHash specification
_U64 = np.uint64
_P64_1, _P64_2, _P64_3 = _U64(0x9E3779B185EBCA87), _U64(0xC2B2AE3D27D4EB4F), _U64(0x165667B19E3779F9)
_PMX_1, _PMX_2 = _U64(0x165667919E3779F9), _U64(0x9FB21C651E98DF25)
_M32 = _U64(0xFFFFFFFF)


def _s64(offset: int) -> np.uint64:
    return _U64(int.from_bytes(_SECRET[offset : offset + 8], "little"))


def _s32(offset: int) -> int:
    return int.from_bytes(_SECRET[offset : offset + 4], "little")


def _fold128(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """low ^ high of the 128-bit product a * b, from 32-bit halves (no overflow: the
    cross sum is at most 2^64 - 1)."""
    s32 = _U64(32)
    a_lo, a_hi, b_lo, b_hi = a & _M32, a >> s32, b & _M32, b >> s32
    ll, lh, hl, hh = a_lo * b_lo, a_lo * b_hi, a_hi * b_lo, a_hi * b_hi
    cross = (ll >> s32) + (lh & _M32) + hl
    high = hh + (lh >> s32) + (cross >> s32)
    low = (cross << s32) | (ll & _M32)
    return low ^ high


def _avalanche(x: np.ndarray) -> np.ndarray:
    x = x ^ (x >> _U64(37))
    x = x * _PMX_1
    return x ^ (x >> _U64(32))


def _avalanche_xxh64(x: np.ndarray) -> np.ndarray:
    x = x ^ (x >> _U64(33))
    x = x * _P64_2
    x = x ^ (x >> _U64(29))
    x = x * _P64_3
    return x ^ (x >> _U64(32))


def _rotl(x: np.ndarray, r: int) -> np.ndarray:
    return (x << _U64(r)) | (x >> _U64(64 - r))


_C1_3 = _U64(_s32(0) ^ _s32(4))  # the constants of each short length class
_C4_8 = _s64(8) ^ _s64(16)
_C9_16_LO, _C9_16_HI = _s64(24) ^ _s64(32), _s64(40) ^ _s64(48)

# Words per pass of the short-word hash: each temporary of a pass is 128 KB, so the
# dozen of them stay in the L2 cache between operations.
BLOCK_WORDS = 16384  # (threads.PASS_WORDS on several threads)
_SEED_ONE_4_8 = _U64(0x0100000000000001)  # seed ^ (swap32(seed) << 32) for seed 1


def _load64(aligned: np.ndarray, at: np.ndarray) -> np.ndarray:
    """The little-endian uint64 of the 8 bytes at each byte offset `at` of the buffer
    that `aligned` views as uint64: two aligned gathers and a funnel shift. A gather
    through a view with a stride of one byte measured four times as long as an aligned
    one (numpy copies unaligned items one at a time). Shifts by 64 give 0 in numpy, so
    offsets already aligned need no case of their own."""
    q = at >> 3
    shift = ((at & 7) << 3).view(np.uint64)
    lo = aligned.take(q, mode="clip")  # "clip": every index is in range, so no check
    q += 1
    hi = aligned.take(q, mode="clip")
    lo >>= shift
    np.subtract(_U64(64), shift, out=shift)
    hi <<= shift
    lo |= hi
    return lo


def _xxh3_short(aligned: np.ndarray, starts: np.ndarray, lengths: np.ndarray, seeds: np.ndarray, out: np.ndarray,
                binary_seeds: bool) -> None:
    """out[k] = xxh3_64 of input k when it has 1 to 16 bytes (a value to be written
    over for any other length); `starts` index the padded buffer. Inputs of up to 8
    bytes lie whole in their first 8 bytes, so one load per word serves the two short
    classes; only 9 to 16 bytes read a second 8 bytes, at the end. The 4-8 class, most
    words of prose, is computed over the whole block (cheaper than picking its words
    out); the other two are picked out and written over it."""
    n = lengths.view(np.uint64)
    first = _load64(aligned, starts)

    # 4 to 8 bytes: the first 4 bytes above the last 4
    h = (n - _U64(4)) << _U64(3)  # for n < 4 a shift past 63: 0, and the lane is overwritten below
    np.right_shift(first, h, out=h)
    h &= _M32
    h |= first << _U64(32)
    if binary_seeds:
        modified = seeds * _SEED_ONE_4_8
    else:
        swapped = (seeds & _M32).astype(np.uint32).byteswap().astype(np.uint64)
        modified = seeds ^ (swapped << _U64(32))
    h ^= np.subtract(_C4_8, modified, out=modified)
    t = _rotl(h, 49)
    t ^= _rotl(h, 24)
    h ^= t
    h *= _PMX_2
    np.right_shift(h, _U64(35), out=t)
    t += n
    h ^= t
    h *= _PMX_2
    np.right_shift(h, _U64(28), out=t)
    np.bitwise_xor(h, t, out=out)

    c = np.flatnonzero(n - _U64(1) < _U64(3))  # 1 to 3 bytes: the first, middle and last bytes
    if c.size:
        f, nc = first[c], n[c]
        combined = ((f >> ((nc >> _U64(1)) << _U64(3))) & _U64(0xFF)) << _U64(24)
        combined |= (f & _U64(0xFF)) << _U64(16)
        combined |= (f >> ((nc - _U64(1)) << _U64(3))) & _U64(0xFF)
        combined |= nc << _U64(8)
        out[c] = _avalanche_xxh64((_C1_3 + seeds[c]) ^ combined)

    c = np.flatnonzero(n - _U64(9) < _U64(8))  # 9 to 16 bytes: the first 8 and the last 8
    if c.size:
        nc, seed = n[c], seeds[c]
        lo = (_C9_16_LO + seed) ^ first[c]
        hi = (_C9_16_HI - seed) ^ _load64(aligned, starts[c] + lengths[c] - 8)
        acc = nc + lo.byteswap()
        acc += hi
        acc += _fold128(lo, hi)
        out[c] = _avalanche(acc)


def xxh3_64_many(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, seeds: np.ndarray,
                 block_words: int | None = None) -> np.ndarray:
    """xxh3_64(data[starts[k]:starts[k]+lengths[k]], seeds[k]) for every k (uint64), the
    short ones `block_words` (default BLOCK_WORDS) at a time. `starts` and `lengths` may
    be any integer type and `seeds` bool (seed 0 or 1): each block is widened on its own,
    so no int64 or uint64 copy of a whole array is made."""
    block_words = block_words or BLOCK_WORDS
    out = np.empty(starts.size, dtype=np.uint64)
    # 8 zero bytes before the data (a short input's "last 8 bytes" may start before
    # it) and at least 16 after; a whole number of aligned uint64s. Only the padding is
    # zeroed: np.zeros of a large block is calloc, which may take fresh pages each time.
    padded = np.empty(8 + ((data.size + 23) & ~7), dtype=np.uint8)
    padded[:8] = 0
    padded[8 : 8 + data.size] = data
    padded[8 + data.size :] = 0
    aligned = padded.view("<u8")
    # r64[i + 8] is the little-endian value of data[i : i + 8], for every i from -8 on
    r64 = np.ndarray((padded.size - 7,), dtype="<u8", buffer=padded, strides=(1,))
    binary_seeds = seeds.dtype == np.bool_ or not seeds.size or int(seeds.max()) <= 1
    with np.errstate(over="ignore"):
        for lo in range(0, starts.size, block_words):
            block = slice(lo, lo + block_words)
            at = starts[block].astype(np.int64)
            at += 8
            _xxh3_short(aligned, at, lengths[block].astype(np.int64), seeds[block].astype(np.uint64), out[block],
                        binary_seeds)

        # the other lengths, few in prose, are written over what that pass left in their lanes
        other = np.flatnonzero((lengths == 0) | (lengths > 16))
        if not other.size:
            return out
        other_lengths = lengths[other].astype(np.int64)
        other_starts, other_seeds = starts[other].astype(np.int64), seeds[other].astype(np.uint64)
        k = other_lengths == 0
        if k.any():
            out[other[k]] = _avalanche_xxh64(other_seeds[k] ^ _s64(56) ^ _s64(64))

        k = (other_lengths >= 17) & (other_lengths <= 128)
        if k.any():
            s, n, seed = other_starts[k], other_lengths[k], other_seeds[k]
            acc = n.astype(np.uint64) * _P64_1
            rounds = ((n - 1) >> 5) + 1
            # the spec adds round i for i = rounds-1 .. 0; addition mod 2^64 commutes
            for i in range(4):
                m = rounds > i
                sm, nm, seedm = s[m], n[m], seed[m]
                front = r64[sm + 16 * i + 8] ^ (_s64(32 * i) + seedm), r64[sm + 16 * i + 16] ^ (_s64(32 * i + 8) - seedm)
                tail = sm + nm - 16 * i - 16
                back = r64[tail + 8] ^ (_s64(32 * i + 16) + seedm), r64[tail + 16] ^ (_s64(32 * i + 24) - seedm)
                acc[m] += _fold128(*front) + _fold128(*back)
            out[other[k]] = _avalanche(acc)

    long_words = np.flatnonzero(other_lengths > 128)
    if long_words.size:
        view = memoryview(np.ascontiguousarray(data))  # slices of it are not copies
        for k, a, n, seed in zip(other[long_words].tolist(), other_starts[long_words].tolist(),
                                 other_lengths[long_words].tolist(), other_seeds[long_words].tolist()):
            out[k] = xxhash.xxh3_64_intdigest(view[a : a + n], seed)
    return out
