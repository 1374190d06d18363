"""Let the C allocator keep freed memory for the next allocation, instead of handing it
back to the system (glibc only; elsewhere nothing changes).

The numpy text path (bytescan, rabin) makes a few hundred temporary arrays per chunking,
most of them about as large as the text or its word count (1 MB of prose: 1 MB of
bytes, 142,000 words). glibc gives every block above its mmap threshold (128 KB at
start, raised only up to the largest block freed so far) fresh pages from the system and
returns them when it is freed, and trims the top of its heap whenever more than twice
that threshold is free. Each temporary then pays its page faults again, on every
chunking.

`keep_freed_memory()` fixes the mmap threshold at 32 MB, the largest glibc accepts
(larger blocks, a long document's text, still come from the system and go back to it),
and trims the heap only when 256 MB are free at its top. What a run frees is reused by
the next run; the peak is unchanged (`steadlith bench --memory` checks it). It is
process-wide, so it is for callers that own their process, like `Pipeline(pause_gc=True)`:
the `steadlith` command, the inspector and their benchmarks call it at start.
"""

from __future__ import annotations

import ctypes
import os

# mallopt parameters (malloc.h)
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3

MMAP_THRESHOLD = 32 << 20  # glibc's DEFAULT_MMAP_THRESHOLD_MAX on 64-bit systems
TRIM_THRESHOLD = 256 << 20

_applied: bool | None = None


def keep_freed_memory() -> bool:
    """Apply the settings above once per process; True if the allocator took them."""
    global _applied
    if _applied is None:
        _applied = _mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) and _mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)
    return _applied


def _mallopt(param: int, value: int) -> bool:
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):  # glibc answers "glibc 2.36"
            return False
        libc = ctypes.CDLL("libc.so.6")
        return bool(libc.mallopt(ctypes.c_int(param), ctypes.c_int(value)))
    except (ValueError, OSError, AttributeError):  # no such name (macOS, musl, Windows), no libc.so.6
        return False


def return_freed_memory() -> bool:
    """Give the pages of memory the C allocator holds free back to the system, those in
    the middle of its heap too (glibc's malloc_trim; elsewhere nothing happens): for a
    caller about to allocate much in other ways, which would not reuse them (the text
    kernel takes its large outputs from the system). True if anything was given back."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
        return bool(ctypes.CDLL("libc.so.6").malloc_trim(ctypes.c_size_t(0)))
    except (ValueError, OSError, AttributeError):
        return False
