"""Memory for the numpy text path's large per-word outputs, kept for the next chunking.

The joined scan (offsets, flags, symbols, canonical ends) and the fingerprints of a long
document are arrays as large as its words: 45 MB for 10 MB of Markdown. From glibc,
under its own settings, most of that is fresh pages on every chunking (the heap is
trimmed when a chunking's arrays die, and blocks past the mmap threshold go back to the
system at once), and faulting them in costs the numpy path about a tenth of its time at
10 MB. The compiled kernel keeps a pool of its output blocks for that reason
(select.release_pool); this is the numpy path's, without a process-wide allocator
setting either.

A block is a uint8 array owned here; an output is a view of it, and every view of a
view refers to the block (numpy's `base`), so the block is free again exactly when
nothing but this pool refers to it. A block is taken for a request it fits with at
most a quarter to spare; free blocks beyond LIMIT bytes, and blocks larger than a
quarter of LIMIT, are not kept.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

LIMIT = 128 << 20  # bytes of free blocks kept, as the compiled kernel's pool holds
MIN_BYTES = 1 << 20  # smaller outputs come from the allocator, which reuses them well

_blocks: list[np.ndarray] = []  # oldest first
_lock = threading.Lock()


def _is_free(i: int) -> bool:
    # a free block is referred to by the list and by getrefcount's argument only
    return sys.getrefcount(_blocks[i]) == 2


def empty(n: int, dtype: type | np.dtype) -> np.ndarray:
    """np.empty(n, dtype), in a kept block when the output is large."""
    dtype = np.dtype(dtype)
    size = n * dtype.itemsize
    if size < MIN_BYTES or size > LIMIT // 4:
        return np.empty(n, dtype=dtype)
    with _lock:
        for i in range(len(_blocks)):
            if size <= _blocks[i].size <= size + size // 4 and _is_free(i):
                found = _blocks.pop(i)
                break
        else:
            found = np.empty(size, dtype=np.uint8)
        _blocks.append(found)  # the most recently taken last: let go last
        _trim(LIMIT)
        return found[:size].view(dtype)


def _trim(limit: int) -> int:
    """Let the oldest free blocks go until at most `limit` bytes are free; the bytes let go."""
    free = [i for i in range(len(_blocks)) if _is_free(i)]
    held = sum(_blocks[i].size for i in free)
    gone = []
    for i in free:
        if held <= limit:
            break
        held -= _blocks[i].size
        gone.append(i)
    dropped = sum(_blocks[i].size for i in gone)
    for i in reversed(gone):
        del _blocks[i]
    return dropped


def release() -> int:
    """Let every free block go; the bytes they held (select.release_pool calls this)."""
    with _lock:
        return _trim(0)


def stats() -> dict:
    """Blocks kept, those free, and the bytes of each."""
    with _lock:
        free = [_blocks[i].size for i in range(len(_blocks)) if _is_free(i)]
        return {"blocks": len(_blocks), "bytes": sum(block.size for block in _blocks),
                "free_blocks": len(free), "free_bytes": sum(free)}
