"""`steadlith` when its output or its memory fails, run as a user runs it (a real
process): a closed pipe ends quietly like a Unix tool, a full disk or a closed stdout is
one line on stderr with a non-zero exit, and running out of memory is one line naming the
document and what it needs. Never a traceback."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys

import pytest

from steadlith_core.chunking.loader import human_bytes, memory_per_input_byte

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/full and RLIMIT_AS are Linux's")

# PYTHONUNBUFFERED makes a text write to a closed pipe lose data without an error
# (a short write on an unbuffered stream); users do not run with it, neither do these tests
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
CLI = [sys.executable, "-m", "steadlith_core.cli.main"]


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """Two MB of words: far more output than a pipe buffers."""
    path = tmp_path_factory.mktemp("out") / "big.txt"
    path.write_text(" ".join(f"word{i}" for i in range(300_000)) + "\n", encoding="utf-8")
    return path


def assert_one_line(stderr: str) -> str:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl"])
def test_closed_pipe_ends_quietly(big, fmt):
    """`steadlith chunk big.txt | head -c 100`: the reader leaves, the command stops
    with the status of a process ended by SIGPIPE and writes nothing on stderr."""
    proc = subprocess.Popen([*CLI, "chunk", str(big), "--format", fmt], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=ENV)
    assert len(proc.stdout.read(100)) == 100
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 128 + signal.SIGPIPE  # what `yes | head -1` reports for yes
    assert err == ""


@pytest.mark.parametrize("command", [["chunk", "{big}"], ["chunk", "{big}", "--format", "jsonl"],
                                     ["compare", "{big}", "{big}", "--format", "json"], ["params"]])
def test_full_disk_is_one_error_line(big, command):
    """`… > /dev/full`: one line saying the output could not be written, exit 2."""
    argv = [a.format(big=big) for a in command]
    with open("/dev/full", "w") as full:
        r = subprocess.run([*CLI, *argv], stdout=full, stderr=subprocess.PIPE, text=True, env=ENV, timeout=120)
    assert r.returncode == 2
    line = assert_one_line(r.stderr)
    assert line == "steadlith: error: cannot write the output: No space left on device"


def test_closed_stdout_is_one_error_line(big):
    """Started with descriptor 1 closed (`steadlith chunk F >&-`), as `ls` would."""
    r = subprocess.run([*CLI, "chunk", str(big)], stdout=None, stderr=subprocess.PIPE, text=True, env=ENV,
                       timeout=120, preexec_fn=lambda: os.close(1))
    assert r.returncode == 2
    assert assert_one_line(r.stderr) == "steadlith: error: cannot write the output: standard output is closed"


def _limit_memory(megabytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (megabytes * 2**20, megabytes * 2**20))
    return apply


@pytest.mark.parametrize("command", [["chunk", "{doc}", "--format", "json"], ["compare", "{doc}", "{doc}"]])
def test_out_of_memory_names_the_document_and_what_it_needs(tmp_path, command):
    """With memory capped below what chunking takes, the user reads which document ran
    out of memory and about how much it would need, in one line, exit 2."""
    doc = tmp_path / "huge doc.txt"
    words = 4_000_000  # 36 MB of text: over a 500 MB cap on either kernel (numpy peaks near 0.4 GB at 22 MB)
    doc.write_text(" ".join(f"w{i:07d}" for i in range(words)), encoding="utf-8")
    size = doc.stat().st_size
    argv = [a.format(doc=doc) for a in command]
    r = subprocess.run([*CLI, *argv], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=ENV,
                       timeout=300, preexec_fn=_limit_memory(500))
    line = assert_one_line(r.stderr)
    assert r.returncode == 2
    assert line.startswith(f"steadlith: error: out of memory chunking {doc} ({size / 2**20:.1f} MiB)")
    documents = 2 if command[0] == "compare" else 1
    per_byte = memory_per_input_byte(command[0], ["tttd-v1"])  # the command's own measured figure
    assert f"about {human_bytes(documents * size * per_byte)} of memory ({per_byte} bytes per byte" in line
