"""The numpy path's threads: how many, set how, and where they are not used."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from steadlith_core import numpy_threads
from steadlith_core.errors import ParameterError


def _count_in_child(value: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop(numpy_threads.ENV_VAR, None)
    if value is not None:
        env[numpy_threads.ENV_VAR] = value
    return subprocess.run([sys.executable, "-c", "from steadlith_core import numpy_threads; print(numpy_threads.count())"],
                          env=env, capture_output=True, text=True)


def test_the_environment_variable_sets_the_count_and_a_bad_one_is_named():
    assert _count_in_child("3").stdout.strip() == "3"
    default = int(_count_in_child(None).stdout)
    assert 1 <= default <= numpy_threads.MAX_DEFAULT
    assert default == min(numpy_threads.MAX_DEFAULT, len(os.sched_getaffinity(0)))
    bad = _count_in_child("two")
    assert bad.returncode != 0 and f"{numpy_threads.ENV_VAR}: " in bad.stderr and "'two'" in bad.stderr


def test_the_command_reports_a_bad_thread_count_without_a_traceback(tmp_path):
    doc = tmp_path / "doc.txt"
    doc.write_text("Some words.\n\nMore words here.\n" * 50)
    env = dict(os.environ, STEADLITH_KERNEL="numpy", **{numpy_threads.ENV_VAR: "0"})
    done = subprocess.run([sys.executable, "-m", "steadlith_core", "chunk", str(doc)], env=env,
                          capture_output=True, text=True)
    assert done.returncode != 0
    assert numpy_threads.ENV_VAR in done.stderr and "Traceback" not in done.stderr


def test_use_and_using():
    before = numpy_threads.count()
    with numpy_threads.using(3):
        assert numpy_threads.count() == 3
        seen = numpy_threads.run(lambda k: k * k, range(10))
        assert seen == [k * k for k in range(10)]
    assert numpy_threads.count() == before
    with pytest.raises(ParameterError, match="at least 1 thread"):
        numpy_threads.use(0)


def test_work_runs_on_several_threads_and_nested_runs_do_not_wait_on_themselves():
    import threading

    with numpy_threads.using(2):
        barrier = threading.Barrier(2, timeout=10)

        def meet(_):  # both items must be running at once to pass the barrier
            barrier.wait()
            return numpy_threads.run(lambda k: k + 1, range(3))  # a run inside a worker: in place

        assert numpy_threads.run(meet, range(2)) == [[1, 2, 3], [1, 2, 3]]


def test_pool_workers_run_the_numpy_path_on_one_thread():
    """A sweep's or a batch's pool has a process per core: threads there would compete."""
    import signal

    from steadlith_core import batch, sweep_run

    handler = signal.getsignal(signal.SIGINT)
    try:
        for start in (lambda: sweep_run._start_worker(()), batch._ignore_interrupts):
            with numpy_threads.using(4):
                start()
                assert numpy_threads.count() == 1
    finally:
        signal.signal(signal.SIGINT, handler)


def test_a_scan_still_running_when_the_interpreter_exits_finishes():
    """Python's pools refuse new work once the interpreter starts exiting, before it
    waits for the last threads: a window's analysis thread still scanning then must not
    fail for it."""
    script = """
import threading, time
from steadlith_core import bytescan, numpy_threads
numpy_threads.use(2)
text = ("alpha beta\\n\\n gamma " * 100000).encode()
def late():
    time.sleep(0.5)
    raw = bytescan.scan(text)
    print("words", raw.starts.size)
threading.Thread(target=late).start()
"""  # the main thread returns at once; the scan starts while the interpreter exits
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "words 300000" in done.stdout
