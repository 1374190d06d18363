"""Output that is lost is never a success, on every path that writes: the commands'
output, --help and usage (argparse prints those itself, inside parse_args), --version,
and files named by --html/--json. A full disk or a closed standard output is one error
line and exit 2; a reader that went away ends the run quietly with 141, as git does.
Run as real processes, with and without PYTHONUNBUFFERED (under which Python drops the
rest of a write a pipe's reader cut short, without an error)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/dev/full is Linux's")

CLI = [sys.executable, "-m", "steadlith_core.cli.main"]
BUFFERED = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
UNBUFFERED = {**BUFFERED, "PYTHONUNBUFFERED": "1"}
FULL = "steadlith: error: cannot write the output: No space left on device"
CLOSED = "steadlith: error: cannot write the output: standard output is closed"


@pytest.fixture(scope="module")
def docs(tmp_path_factory):
    root = tmp_path_factory.mktemp("docs")
    (root / "big.md").write_text(" ".join(f"word{i}" for i in range(300_000)) + "\n", encoding="utf-8")
    (root / "small.md").write_text("A short paragraph. It has two sentences.\n\nAnd a second one.\n", encoding="utf-8")
    return root


COMMANDS = [
    ["--help"], ["--version"], ["chunk", "--help"], ["compare", "--help"], ["audit", "--help"], ["lab", "--help"],
    ["chunk", "{small}"], ["chunk", "{small}", "--format", "json"], ["chunk", "{small}", "--format", "jsonl"],
    ["params", "--format", "json"], ["compare", "{small}", "{small}"], ["lab", "{small}", "--edits", "3"],
    ["chunk", "{root}", "--format", "jsonl", "--jobs", "1"],
]


def argv(command, docs):
    return [a.format(small=docs / "small.md", big=docs / "big.md", root=docs) for a in command]


def one_line(stderr: str) -> str:
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr
    lines = stderr.splitlines()
    assert len(lines) == 1, stderr
    return lines[0]


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_full_disk(docs, command):
    with open("/dev/full", "w") as full:
        r = subprocess.run([*CLI, *argv(command, docs)], stdout=full, stderr=subprocess.PIPE, text=True,
                           env=BUFFERED, timeout=120)
    assert r.returncode == 2
    assert one_line(r.stderr) == FULL


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_closed_stdout(docs, command):
    r = subprocess.run([*CLI, *argv(command, docs)], stdout=None, stderr=subprocess.PIPE, text=True, env=BUFFERED,
                       timeout=120, preexec_fn=lambda: os.close(1))
    assert r.returncode == 2
    assert one_line(r.stderr) == CLOSED


@pytest.mark.parametrize("env", [BUFFERED, UNBUFFERED], ids=["buffered", "unbuffered"])
@pytest.mark.parametrize("fmt", ["text", "json", "jsonl"])
def test_reader_gone(docs, fmt, env):
    """`steadlith chunk big.md --format jsonl | head -c 100`: 141, nothing on stderr."""
    proc = subprocess.Popen([*CLI, "chunk", str(docs / "big.md"), "--format", fmt], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    assert len(proc.stdout.read(100)) == 100
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 128 + signal.SIGPIPE
    assert err == ""


def test_unbuffered_full_disk(docs):
    with open("/dev/full", "w") as full:
        r = subprocess.run([*CLI, "chunk", str(docs / "big.md"), "--format", "jsonl"], stdout=full,
                           stderr=subprocess.PIPE, text=True, env=UNBUFFERED, timeout=120)
    assert r.returncode == 2 and one_line(r.stderr) == FULL


@pytest.mark.parametrize("option,command", [("--html", ["compare", "{small}", "{small}"]),
                                            ("--html", ["lab", "{small}", "--edits", "3"])])
def test_report_file_on_a_full_disk(docs, option, command):
    r = subprocess.run([*CLI, *argv(command, docs), option, "/dev/full"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True, env=BUFFERED, timeout=120)
    assert r.returncode == 2
    assert one_line(r.stderr) == "steadlith: error: /dev/full: cannot write: No space left on device"


def test_exit_statuses_are_in_help(docs):
    r = subprocess.run([*CLI, "--help"], capture_output=True, text=True, env=BUFFERED, timeout=60)
    assert r.returncode == 0
    flat = " ".join(r.stdout.split())
    assert "141 the reader of the output went away" in flat and "2 an error" in flat
