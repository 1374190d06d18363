"""The compiled kernel's output pool (kernel/_kernel.c, "the output pool"): a per-word
output's block goes back to the pool when the last array viewing it dies and the next
output takes it; never while a view still holds it; the free blocks never hold more
than the bound; release_pool() and Pipeline.clear() give them back."""

from __future__ import annotations

from importlib import resources

import numpy as np
import pytest

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.kernel import select as kernel

pytestmark = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built here")

NOTES = resources.files("steadlith_core.data").joinpath("tool-library.md").read_text(encoding="utf-8")


def document(n_bytes: int, variant: int = 0) -> str:
    """Real Markdown (the shipped tool library notes) repeated to about n_bytes, with a
    word that tells variants apart, each a fresh str."""
    text = f"variant{variant} " + NOTES
    return (text * (n_bytes // len(text) + 1))[:n_bytes]


def address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


@pytest.fixture
def pool():
    """A pool emptied before and after the test, with its bound restored."""
    limit = kernel.pool_limit()
    kernel.release_pool()
    yield
    kernel.pool_limit(limit)
    kernel.release_pool()


def test_a_block_comes_back_when_its_arrays_die_and_is_reused(pool):
    text = document(400_000)
    first = kernel.scan(text)
    held = {address(first.starts), address(first.symbols), address(first.canonical_ends)}
    returned = kernel.pool_stats()["returned"]
    del first
    stats = kernel.pool_stats()
    assert stats["returned"] - returned >= 3 and stats["free_blocks"] >= 3 and stats["free_bytes"] > 0
    second = kernel.scan(document(400_000, 1))
    # the same blocks, pages already written: no fresh mapping
    assert {address(second.starts), address(second.symbols), address(second.canonical_ends)} <= held
    assert kernel.pool_stats()["reused"] - stats["reused"] >= 3


def test_an_array_kept_from_one_run_keeps_its_values_through_many_later_runs(pool):
    kernel.scan(document(300_000, -1))  # dies at once: the pool now has blocks, the kept run takes them
    kept = kernel.scan(document(300_000))
    starts, symbols, para = kept.starts, kept.symbols, kept.para  # views of pool blocks
    want = (starts.copy(), symbols.copy(), para.copy())
    del kept
    mine = {address(starts), address(symbols), address(para)}
    for k in range(40):
        other = kernel.scan(document(300_000, k + 1))  # other words: other values in any reused block
        assert mine.isdisjoint({address(other.starts), address(other.symbols), address(other.para)})
        Pipeline().chunk(document(300_000, k + 1).encode(), Lmx2Params() if k % 2 else ChunkerParams())
        del other
    assert np.array_equal(starts, want[0]) and np.array_equal(symbols, want[1]) and np.array_equal(para, want[2])
    assert not starts.flags.writeable  # read-only, as the bytes they stand for


def test_a_memoryview_holds_its_block(pool):
    from steadlith_core.kernel.extension import KERNEL_MODULE

    view = memoryview(KERNEL_MODULE.scan(document(300_000).encode())[4])  # the symbols; the tuple dies here
    want = bytes(view)
    for k in range(20):
        KERNEL_MODULE.scan(document(300_000, k + 1).encode())
    assert view.readonly and view.tobytes() == want


def test_the_free_blocks_never_hold_more_than_the_bound(pool):
    kernel.pool_limit(3 << 20)
    for k in range(12):
        Pipeline().chunk(document(200_000 * (1 + k % 4), k), Lmx2Params() if k % 3 else ChunkerParams())
        stats = kernel.pool_stats()
        assert 0 < stats["free_bytes"] <= 3 << 20
    assert kernel.pool_stats()["dropped"] > 0  # more was freed than the bound keeps
    kernel.pool_limit(0)
    assert kernel.pool_stats()["free_blocks"] == 0  # lowering it gives back what is over
    Pipeline().chunk(document(200_000), ChunkerParams())
    assert kernel.pool_stats()["free_blocks"] == 0


def test_the_default_bound_holds_over_large_documents(pool):
    limit = kernel.pool_limit()
    assert limit == 128 << 20
    for k in range(3):
        Pipeline().chunk(document(6_000_000, k).encode(), Lmx2Params() if k % 2 else ChunkerParams())
        assert kernel.pool_stats()["free_bytes"] <= limit


def test_pipeline_clear_gives_the_blocks_back(pool):
    pipeline = Pipeline(max_documents=1)
    pipeline.chunk(document(500_000), ChunkerParams())
    pipeline.chunk(document(500_000, 1), ChunkerParams())  # the first document leaves the cache
    assert kernel.pool_stats()["free_blocks"] > 0
    pipeline.clear()  # its cached document's arrays die, then the pool is emptied
    assert kernel.pool_stats()["free_blocks"] == 0
    assert kernel.release_pool() == 0


def test_an_output_reads_as_the_bytes_it_stands_for(pool):
    from steadlith_core.kernel.extension import KERNEL_MODULE

    n, starts, *_ = KERNEL_MODULE.scan(b"one two  three")
    assert n == 3 and len(starts) == 12 and bytes(starts) == np.array([0, 4, 9], np.int32).tobytes()
    assert starts == np.array([0, 4, 9], np.int32).tobytes() and starts != b"x"
    with pytest.raises(TypeError):
        hash(starts)
    big = KERNEL_MODULE.scan(document(200_000).encode())[1]  # a pool block, trimmed to the words written
    assert len(big) == 4 * KERNEL_MODULE.scan(document(200_000).encode())[0]


def test_a_trimmed_output_counts_the_page_its_branch_free_writes_reached(pool):
    """candidates() writes its slot past the last candidate in every word (branch-free):
    an output trimmed to no candidate has written its first page, which the pool must
    count; at a bound of 0 ("keep nothing") no block stays."""
    from steadlith_core.kernel.extension import KERNEL_MODULE

    kernel.pool_limit(0)
    primary, backup = KERNEL_MODULE.candidates(np.zeros(100_000, np.uint64), 1, 1, 1, 1)  # none matches
    assert len(primary) == len(backup) == 0
    del primary, backup
    assert kernel.pool_stats()["free_blocks"] == 0
    kernel.pool_limit(1 << 20)
    primary, backup = KERNEL_MODULE.candidates(np.zeros(100_000, np.uint64), 1, 1, 1, 1)
    del primary, backup
    stats = kernel.pool_stats()
    assert stats["free_blocks"] == 2 and stats["free_bytes"] >= 2 * 4096  # a written page each
