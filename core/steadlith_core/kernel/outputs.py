"""Memory for the numpy text path's large per-word outputs, kept for the next chunking.

The joined scan (offsets, flags, symbols, canonical ends) and the fingerprints of a long
document are arrays as large as its words: 45 MB for 10 MB of Markdown. From glibc,
under its own settings, most of that is fresh pages on every chunking (the heap is
trimmed when a chunking's arrays die, and blocks past the mmap threshold go back to the
system at once), and the kernel zeroing them cost the numpy path about a tenth of its
time at 10 MB (docs/guide/speed-figures.md#numpy-threads). The compiled kernel keeps a
pool of its output blocks for that reason (select.release_pool); this is the numpy
path's, without a process-wide allocator setting either.

An output is an array over a memoryview of a block (a uint8 array); every view of the
output refers to that memoryview, which dies with the last of them. A finalizer then
puts the block back among the free ones, which a later output it fits (with at most a
quarter to spare) takes again; the oldest free blocks beyond LIMIT bytes are let go
at once, and blocks over a quarter of LIMIT are never kept.
"""

from __future__ import annotations

import threading
import weakref

import numpy as np

LIMIT = 128 << 20  # bytes of free blocks kept, as the compiled kernel's pool holds
MIN_BYTES = 1 << 20  # smaller outputs come from the allocator, which reuses them well

_free: list[np.ndarray] = []  # blocks no output uses, oldest first
_taken = 0  # blocks outputs use now
# reentrant: a block comes back when the last view of its output dies, which may be in
# a garbage collection run while this thread holds the lock
_lock = threading.RLock()


def empty(n: int, dtype: type | np.dtype) -> np.ndarray:
    """np.empty(n, dtype), in a kept block when the output is large."""
    global _taken
    dtype = np.dtype(dtype)
    size = n * dtype.itemsize
    if size < MIN_BYTES or size > LIMIT // 4:
        return np.empty(n, dtype=dtype)
    with _lock:
        block = _take(size)
        _taken += 1
    if block is None:
        block = np.empty(size, dtype=np.uint8)
    out = np.frombuffer(memoryview(block), dtype=dtype, count=n)
    done = weakref.finalize(out.base, _returned, block)  # out.base: the memoryview numpy keeps
    done.atexit = False
    return out


def _take(size: int) -> np.ndarray | None:
    for i in range(len(_free)):
        if size <= _free[i].size <= size + size // 4:
            return _free.pop(i)
    return None


def _returned(block: np.ndarray) -> None:
    global _taken
    with _lock:
        _taken -= 1
        _free.append(block)
        _trim(LIMIT)


def _trim(limit: int) -> int:
    """Let the oldest free blocks go until at most `limit` bytes are free; the bytes let go."""
    held = sum(block.size for block in _free)
    dropped = 0
    while _free and held - dropped > limit:
        dropped += _free.pop(0).size
    return dropped


def release() -> int:
    """Let every free block go; the bytes they held (select.release_pool calls this)."""
    with _lock:
        return _trim(0)


def stats() -> dict:
    """Blocks in use by outputs, free blocks and the bytes these hold."""
    with _lock:
        return {"taken_blocks": _taken, "free_blocks": len(_free), "free_bytes": sum(block.size for block in _free)}
