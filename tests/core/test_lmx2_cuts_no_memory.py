"""The compiled lmx2_cuts when an allocation fails: MemoryError, never a crash nor other
cuts. Each allocation of one call is made to fail in turn (CPython's _testcapi hooks
every allocator domain, the raw one the walks use without the GIL included), in a child
process, since a crash would take the test run with it."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from steadlith_core.kernel import select as kernel

compiled = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built")
testcapi = pytest.importorskip("_testcapi")

# Barriers dense enough, and a horizon wide enough, that the barrier store grows past its
# first size; long words make the E list grow too.
CHILD = textwrap.dedent("""
    import _testcapi, numpy as np
    from steadlith_core.chunking import lmx2
    from steadlith_core.kernel import _kernel
    rng = np.random.default_rng(1)
    n = 3000
    symbols = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    tokens = np.where(rng.random(n) < 0.05, 50, rng.integers(1, 4, size=n)).astype(np.int64)
    cum = np.concatenate(([0], np.cumsum(tokens))).astype(np.int64)
    para = (rng.random(n) < 0.05).view(np.uint8)
    sentence = (rng.random(n) < 0.6).view(np.uint8)
    args = (symbols, para, sentence, True, cum, None, None, 32, lmx2.KEY_BASE, 700, 20, 10, 96)
    want = [bytes(x) for x in _kernel.lmx2_cuts(*args, None)]
    refused = 0
    for k in range(1, 400):
        _testcapi.set_nomemory(k, k + 1)  # the k-th allocation from here fails, no other
        try:
            got = _kernel.lmx2_cuts(*args, None)
        except MemoryError:
            refused += 1
            continue
        finally:
            _testcapi.remove_mem_hooks()
        assert [bytes(x) for x in got] == want, f"other cuts when allocation {k} failed"
    print(refused)
""")


@compiled
def test_a_failed_allocation_in_lmx2_cuts_raises_memory_error():
    run = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"exit {run.returncode}: {run.stderr[-2000:]}"
    assert int(run.stdout) >= 10  # the failures reached the walks' lists, not only the call's setup
