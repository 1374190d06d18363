"""The numpy path's threads: how many, set how, and where they are not used."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from steadlith_core.kernel import threads as numpy_threads
from steadlith_core.errors import ParameterError


def _count_in_child(value: str | None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    env.pop(numpy_threads.ENV_VAR, None)
    if value is not None:
        env[numpy_threads.ENV_VAR] = value
    return subprocess.run([sys.executable, "-c", "from steadlith_core.kernel import threads; print(threads.count())"],
                          env=env, capture_output=True, text=True)


def test_the_environment_variable_sets_the_count_and_a_bad_one_is_named():
    assert _count_in_child("3").stdout.strip() == "3"
    # the count it sets is what work of the threshold's size or more is split over
    env = dict(os.environ, **{numpy_threads.ENV_VAR: "3"})
    sizes = subprocess.run([sys.executable, "-c", "from steadlith_core.kernel import threads as t; "
                            "print(t.for_bytes(t.MIN_THREADED_BYTES), t.for_bytes(t.MIN_THREADED_BYTES - 1), "
                            "t.for_words(t.MIN_THREADED_WORDS))"], env=env, capture_output=True, text=True)
    assert sizes.stdout.split() == ["3", "1", "3"], sizes.stderr
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

    from steadlith_core.history import batch
    from steadlith_core.sweep import run as sweep_run

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
from steadlith_core.kernel import bytescan
from steadlith_core.kernel import threads as numpy_threads
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


def _exactly(text: str, size: int) -> str:
    """`text` cut or padded with "x" to `size` UTF-8 bytes, no character split."""
    cut = text.encode()[:size].decode(errors="ignore").rstrip()
    return cut + "x" * (size - len(cut.encode()))


def test_a_document_chunked_on_threads_gives_the_chunks_of_one_thread_and_of_the_compiled_kernel(monkeypatch):
    """A 600 kB document with paragraphs, CRLF lines and astral characters, cut in
    pieces of the default sizes (two on two threads, four on four), the cut between the
    first two falling between the two line breaks of a paragraph break: the same words,
    paragraph flags, fingerprints and chunks, to the hash, as on one thread and, where
    it is built, from the compiled kernel."""
    from steadlith_core import ChunkerParams, Pipeline
    from steadlith_core.kernel import bytescan
    from steadlith_core.kernel import select as kernel
    from steadlith_core.bench.examples import generate_prose, scattered_edits

    # threads even at this size (by default a document this small runs on one)
    monkeypatch.setattr(numpy_threads, "MIN_THREADED_BYTES", 0)
    monkeypatch.setattr(numpy_threads, "MIN_THREADED_WORDS", 0)
    prose = scattered_edits(generate_prose(620_000, seed=3), n_edits=20).replace("\n\n", "\r\n\r\n", 50)
    half = 300_000
    # two threads cut at the first space, tab or \n from half the bytes on: the first
    # line break of the paragraph break, so the second piece starts with the other one
    text = _exactly(prose, half) + "\n\n" + _exactly(prose[len(prose) // 2 :], half - 2)
    assert bytescan._pieces(text.encode(), bytescan._piece_size(2 * half, 2))[0] == (0, half + 1)
    runs = {}
    for name, threads in (("numpy", 1), ("numpy", 2), ("numpy", 4), ("c", 1)):
        if name not in kernel.KERNELS:
            continue
        with kernel.using(name), numpy_threads.using(threads):
            result = Pipeline().chunk(text, ChunkerParams())
            runs[name, threads] = ([(c.start, c.end, c.hash) for c in result.chunks], result.fingerprints.tolist(),
                                   result.words.para.tolist())
    first = runs["numpy", 1]
    assert len(first[0]) > 300
    assert all(run == first for run in runs.values()), [key for key, run in runs.items() if run != first]


def test_documents_below_the_threshold_run_on_one_thread():
    """The default thread count is never slower than one thread: below the measured
    threshold the numpy path does not hand pieces to threads."""
    with numpy_threads.using(2):
        assert numpy_threads.for_bytes(numpy_threads.MIN_THREADED_BYTES - 1) == 1
        assert numpy_threads.for_bytes(numpy_threads.MIN_THREADED_BYTES) == 2
        assert numpy_threads.for_words(numpy_threads.MIN_THREADED_WORDS - 1) == 1
        assert numpy_threads.for_words(numpy_threads.MIN_THREADED_WORDS) == 2
        seen = set()
        numpy_threads.run(lambda k: seen.add(__import__("threading").current_thread()), range(4), threads=1)
        assert seen == {__import__("threading").current_thread()}


def test_the_scan_and_the_window_go_to_threads_only_from_the_measured_size_on(monkeypatch):
    """The rule of docs/guide/speed.md: a document under MIN_THREADED_BYTES (3 MB) is
    scanned on the calling thread whatever the count, and a window of under
    MIN_THREADED_WORDS words rolled there; larger work goes to count() threads (what
    bytescan and rabin hand over is what this sees)."""
    from steadlith_core.bench.examples import generate_prose
    from steadlith_core.chunking.params import ChunkerParams
    from steadlith_core.kernel import bytescan, rabin

    assert numpy_threads.MIN_THREADED_BYTES == 3_000_000  # docs/guide/speed-figures.md#numpy-threads
    asked: list[int] = []
    real_run = numpy_threads.run

    def spy(fn, items, threads=None):
        asked.append(threads)
        return real_run(fn, items, threads)

    monkeypatch.setattr(numpy_threads, "run", spy)
    p = ChunkerParams()
    prose = generate_prose(numpy_threads.MIN_THREADED_BYTES + 800_000, seed=5).encode()
    small = prose[: prose.rindex(b" ", 0, numpy_threads.MIN_THREADED_BYTES - 100_000) + 1]
    with numpy_threads.using(2):
        for text, want in ((small, 1), (prose, 2)):
            asked.clear()
            raw = bytescan.scan(text, sentence_ends=False)
            rabin.window_fingerprints(raw.symbols, p.window_words, p.polynomial)
            assert asked and set(asked) == {want}, (len(text), raw.symbols.size, asked)


def test_a_run_does_not_wait_for_pool_threads_that_are_busy():
    """The calling thread takes items too: with every pool thread held elsewhere (a busy
    machine, where they wake late), a run still ends, each item done once, in order."""
    import threading

    with numpy_threads.using(2):
        release = threading.Event()
        pool = numpy_threads._executor()
        held = [pool.submit(release.wait, 30) for _ in range(2)]
        try:
            seen: list = []
            runner = threading.Thread(target=lambda: seen.append(numpy_threads.run(lambda k: (k, threading.get_ident()),
                                                                                   range(6))))
            runner.start()
            runner.join(10)
            assert not runner.is_alive(), "the run waited for pool threads that never came"
            assert [k for k, _ in seen[0]] == list(range(6))
            assert {ident for _, ident in seen[0]} == {runner.ident}  # all done by the caller
        finally:
            release.set()
            for f in held:
                f.result()
    with numpy_threads.using(2), pytest.raises(ZeroDivisionError):
        numpy_threads.run(lambda k: 1 // (k - 3), range(6))  # an item's error reaches the caller


def test_at_the_default_count_a_large_run_takes_only_the_cpus_idle_at_its_start(monkeypatch):
    """On a busy machine the default count drops to the idle CPUs (this thread among
    the runnable tasks); a count set by use() or the variable is taken as it is."""
    big_bytes, big_words = numpy_threads.MIN_THREADED_BYTES, numpy_threads.MIN_THREADED_WORDS
    monkeypatch.setattr(numpy_threads, "_count", 4)
    monkeypatch.setattr(numpy_threads, "_adaptive", True)
    monkeypatch.setattr(numpy_threads, "_cpus", lambda: 4)
    for runnable, want in ((1, 4), (2, 3), (4, 1), (9, 1)):
        monkeypatch.setattr(numpy_threads, "_runnable", lambda r=runnable: r)
        assert (numpy_threads.for_bytes(big_bytes), numpy_threads.for_words(big_words)) == (want, want), runnable
        assert numpy_threads.for_bytes(big_bytes - 1) == 1
    monkeypatch.setattr(numpy_threads, "_runnable", lambda: None)  # no /proc/loadavg: the count as it is
    assert numpy_threads.for_bytes(big_bytes) == 4
    monkeypatch.setattr(numpy_threads, "_runnable", lambda: 9)
    with numpy_threads.using(3):
        assert numpy_threads.for_bytes(big_bytes) == 3
    assert numpy_threads._adaptive and numpy_threads.count() == 4  # restored on leaving
    monkeypatch.undo()
    if os.path.exists("/proc/loadavg"):
        assert numpy_threads._runnable() >= 1  # this thread at least
