"""Threads for the numpy text path (the fallback of the compiled kernel).

numpy lets go of the GIL inside its array loops (ufuncs, take, compress, cumsum,
searchsorted), and the scan and the Rabin doubling are long runs of such loops over
pieces of a document that do not depend on each other. So a document split in pieces
is scanned on several cores by plain threads, with no copies and no pickling. What is
left in Python between the loops is short, so two threads on two cores come close to
twice one.

The count is STEADLITH_NUMPY_THREADS when set, else the CPUs this process may run on,
at most 4 (past that the stitching and the stages left in one thread dominate). A
default count is lowered for each large run to the CPUs idle at its start (_free_now):
on a busy machine threads cost CPU time and win nothing. A count set by the variable
or by use() is taken as it is. Pools of processes that already use every core (sweeps,
batches) set one thread in each worker: threads there would only compete with the
other workers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import TypeVar

from ..errors import ParameterError

ENV_VAR = "STEADLITH_NUMPY_THREADS"
MAX_DEFAULT = 4

# Words per numpy pass in work split over threads (xxh3's short-word hash, the Rabin
# blocks). Each pass hands the GIL to the other threads and back: a handoff costs tens
# of microseconds on a virtual machine (the waiting core must be woken), as much as a
# pass over a cache-sized block of 16,384 words. Fewer, larger passes, though they
# leave the cache, go faster there (1 MB scanned on two threads: 14.6 ms with passes
# of 16,384 words, 11.6 with 131,072).
PASS_WORDS = 1 << 17

# Below these sizes the numpy path runs in the calling thread whatever count() says:
# there two threads cost more CPU time than one (pieces to join, passes larger than the
# cache, the GIL handed back and forth), so on a busy machine they can only lose.
# Measured on real Markdown, tttd-v1 cold, a fresh str a call, one thread and two
# (forced past this threshold) in interleaved rounds on a shared two-core machine
# (load 4-5): CPU time of two threads over one, medians of 9-11 rounds, 1.51 at 1 MB,
# 1.12 at 1.5 MB, 1.26 at 2 MB, 0.86 at 2.5 MB, 0.98-1.03 at 3 MB, 0.86-0.97 at 4-10
# MB (docs/guide/speed-figures.md#numpy-threads). A word of Markdown is about 6 bytes.
MIN_THREADED_BYTES = 3_000_000
MIN_THREADED_WORDS = MIN_THREADED_BYTES // 6

T = TypeVar("T")
R = TypeVar("R")


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _default() -> tuple[int, bool]:
    """The count, and whether it is the default (not set by ENV_VAR)."""
    value = os.environ.get(ENV_VAR, "").strip()
    if value:
        if not value.isdigit() or int(value) < 1:
            raise ParameterError(ENV_VAR, f"the environment variable must be a whole number of threads, 1 or more; "
                                          f"got {value!r}", value)
        return int(value), False
    return max(1, min(MAX_DEFAULT, _cpus())), True


def _runnable() -> int | None:
    """Tasks the system has running or ready to run now, this thread among them
    (/proc/loadavg's fourth field); None where it cannot be read."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def _free_now(n: int) -> int:
    """`n` threads, or fewer when the CPUs this process may use are busy: a pool thread
    that finds no idle core only waits its turn and takes the GIL back and forth, which
    costs the caller more CPU time than the piece it scans (measured at 10 MB with the
    other core busy: 2 threads 1.14x the CPU time of one, and no sooner done)."""
    runnable = _runnable()
    if runnable is None:
        return n
    return max(1, min(n, 1 + _cpus() - runnable))


_count: int | None = None
_adaptive = True  # the default count: lowered to the idle CPUs for each large run
# one pool for each count used: a pool's threads, and the memory glibc has given their
# arenas, stay warm across a switch of count (the bench alternates 1 and 2)
_pools: dict[int, ThreadPoolExecutor] = {}
_workers: set[threading.Thread] = set()  # the pools' threads: a run started in one runs in place
_lock = threading.Lock()


def count() -> int:
    """How many threads the numpy path runs pieces on."""
    global _count, _adaptive
    if _count is None:
        _count, _adaptive = _default()
    return _count


def _for(size: int, threshold: int) -> int:
    n = count()  # read (and checked) whatever the size
    if n == 1 or size < threshold:
        return 1
    return _free_now(n) if _adaptive else n


def for_bytes(n_bytes: int) -> int:
    """The threads to scan a text of `n_bytes` on: 1 below MIN_THREADED_BYTES, else
    count(), fewer at the default count when the CPUs are busy (_free_now)."""
    return _for(n_bytes, MIN_THREADED_BYTES)


def for_words(n_words: int) -> int:
    """The threads for a pass over `n_words` words: as for_bytes, from MIN_THREADED_WORDS."""
    return _for(n_words, MIN_THREADED_WORDS)


def use(n: int) -> None:
    """Run the numpy path on `n` threads from now on (1: all in the calling thread),
    whether or not the CPUs are busy, as a count set by ENV_VAR is."""
    global _count, _adaptive
    if n < 1:
        raise ParameterError("threads", f"the numpy path needs at least 1 thread; got {n}", n)
    _count, _adaptive = n, False


@contextmanager
def using(n: int) -> Iterator[None]:
    """Run the numpy path on `n` threads inside the block (the bench's side-by-side runs).
    The count is the process's, not the calling thread's: blocks of several threads
    that overlap restore each other's counts in the order they end."""
    global _count, _adaptive
    previous = count(), _adaptive
    use(n)
    try:
        yield
    finally:
        _count, _adaptive = previous


def run(fn: Callable[[T], R], items: Iterable[T], threads: int | None = None) -> list[R]:
    """[fn(item) for item in items], on the threads when there are several (`threads`,
    default count(): 1 runs all in the calling thread).

    The calling thread works too: it and the pool's threads each take the next item
    not yet taken until none is left, and the caller then waits only for the items a
    pool thread took. A pool thread that is slow to wake (the other core is busy) takes
    none, and the run costs what one thread costs, not that plus the wait."""
    items = list(items)
    n = min(threads or count(), len(items))
    if n <= 1 or threading.current_thread() in _workers:
        return [fn(item) for item in items]  # (a worker waiting on its own pool would deadlock)
    results: list = [None] * len(items)
    errors: list[BaseException] = []
    state = {"next": 0, "left": len(items)}
    lock, done = threading.Lock(), threading.Event()

    def work() -> None:
        while True:
            with lock:
                i = state["next"]
                if i >= len(items) or errors:
                    return
                state["next"] = i + 1
            try:
                results[i] = fn(items[i])
            except BaseException as exc:  # re-raised in the caller
                errors.append(exc)
            with lock:
                state["left"] -= 1
                if state["left"] == 0 or errors:
                    done.set()

    try:
        pool = _executor()
        for _ in range(n - 1):
            pool.submit(work)
    except RuntimeError:
        pass  # the interpreter is exiting (its pools refuse work): the caller does it all
    work()
    done.wait()
    if errors:
        raise errors[0]
    return results


def _register_worker() -> None:
    _workers.add(threading.current_thread())


def _executor() -> ThreadPoolExecutor:
    n = count()
    with _lock:
        pool = _pools.get(n)
        if pool is None:
            pool = _pools[n] = ThreadPoolExecutor(n, thread_name_prefix=f"steadlith-numpy-{n}",
                                                  initializer=_register_worker)
        return pool


def _forget_pools_after_fork() -> None:
    # a forked child has none of the parent's threads: a pool copied into it would
    # never run what it is given
    global _lock
    _pools.clear()
    _lock = threading.Lock()
    _workers.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pools_after_fork)
