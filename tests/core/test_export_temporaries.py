"""A write killed half way leaves a temporary a person can recognise
(`.report.html.steadlith-tmp-<pid>`), and the next write to the same target removes it;
a temporary of a process still running is left alone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from steadlith_core.report.export import write_text_atomic

pytestmark = pytest.mark.skipif(os.name == "nt", reason="SIGKILL and pid checks are POSIX")

KILLED_WRITER = textwrap.dedent("""
    import os, signal, sys
    from steadlith_core.report import export
    def killed(*args):  # the temporary is on disk, the rename never happens
        os.kill(os.getpid(), signal.SIGKILL)
    export.os.replace = killed
    export.write_text_atomic(sys.argv[1], "x" * 1_000_000)
""")


def kill_a_write(target) -> int:
    """Run a write that is killed between writing its temporary and renaming it; its pid."""
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)])
    assert proc.wait(timeout=60) == -signal.SIGKILL
    return proc.pid


def leftovers(folder):
    return sorted(p.name for p in folder.iterdir() if p.name != "report.html")


def test_a_killed_write_leaves_a_named_temporary_and_the_next_write_cleans_it(tmp_path):
    target = tmp_path / "report.html"
    target.write_text("the previous report", encoding="utf-8")
    first = kill_a_write(target)
    assert leftovers(tmp_path) == [f".report.html.steadlith-tmp-{first}"]
    second = kill_a_write(target)  # it cleaned the first one's before dying itself
    assert leftovers(tmp_path) == [f".report.html.steadlith-tmp-{second}"]
    assert target.read_text(encoding="utf-8") == "the previous report"  # never half a file

    write_text_atomic(target, "the new report")
    assert leftovers(tmp_path) == []
    assert target.read_text(encoding="utf-8") == "the new report"


def test_temporaries_of_running_processes_and_other_targets_are_kept(tmp_path):
    target = tmp_path / "report.html"
    live = tmp_path / f".report.html.steadlith-tmp-{os.getppid()}"  # our parent runs
    other = tmp_path / ".notes.html.steadlith-tmp-999999999"  # another target's
    mine = tmp_path / ".report.html.steadlith-tmp-999999999"  # no such process
    for p in (live, other, mine):
        p.write_text("partial", encoding="utf-8")
    write_text_atomic(target, "report")
    assert leftovers(tmp_path) == sorted([live.name, other.name])
