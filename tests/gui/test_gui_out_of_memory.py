"""The window's edge when memory runs out: one line naming the documents and what they
would need, never "Unexpected error: MemoryError" with a traceback.
Run as a user runs it: `steadlith-gui A B --export-report` in a process whose address
space is capped (RLIMIT_AS)."""

from __future__ import annotations

import os
import resource
import subprocess
import sys

import pytest

from steadlith_core.chunking.loader import memory_per_input_byte

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")

# Room for Qt and a small pair (which needs 900-1100 MB of address space here), and 200 MB
# short of what the 72 MB document's chunking needs: at 1500 its analysis sometimes fit
# once the per-chunk objects and lmx2's temporaries were gone, and the test then failed.
CAP_MB = 1300


def run_capped(a, b, out):
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (CAP_MB * 2**20, CAP_MB * 2**20))

    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return subprocess.run([sys.executable, "-m", "steadlith_gui", str(a), str(b), "--export-report", str(out)],
                          preexec_fn=cap, capture_output=True, text=True, env=env, timeout=300)


def test_out_of_memory_in_the_window_names_the_documents(tmp_path):
    small_a, small_b = tmp_path / "a.txt", tmp_path / "b.txt"
    small_a.write_text("one two three four\n", encoding="utf-8")
    small_b.write_text("one two three five\n", encoding="utf-8")
    control = run_capped(small_a, small_b, tmp_path / "small.html")
    assert control.returncode == 0, control.stderr  # the cap leaves room for the app itself

    big = tmp_path / "big notes.txt"
    big.write_text(" ".join(f"w{i:07d}" for i in range(8_000_000)), encoding="utf-8")  # 72 MB
    r = run_capped(big, small_b, tmp_path / "big.html")
    assert r.returncode == 2
    assert "Traceback" not in r.stderr and "Unexpected" not in r.stderr
    lines = [line for line in r.stderr.splitlines() if line.startswith("steadlith-gui:")]
    assert len(lines) == 1, r.stderr
    # refused while loading ("Cannot load A: … chunking /tmp/…/big notes.txt (68.7 MiB)") or
    # while analysing ("analysis failed: … chunking big notes.txt (68.7 MiB) and b.txt"),
    # depending on where the cap bites first: either way the document is named with its size
    assert "out of memory chunking " in lines[0] and "big notes.txt (68.7 MiB)" in lines[0]
    assert f"of memory ({memory_per_input_byte('window')} bytes per byte of text)" in lines[0]  # the window's figure
    assert not (tmp_path / "big.html").exists()


def test_out_of_memory_on_the_gui_thread_is_a_message_not_a_traceback(qtbot, window, monkeypatch, capsys):
    from steadlith_gui.app import install_excepthook

    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    install_excepthook(window)
    sys.excepthook(MemoryError, MemoryError(), None)
    assert window.message_bar.isVisible()
    assert window.message_bar.text().startswith("Out of memory: the window keeps running.")
    assert "Traceback" not in capsys.readouterr().err
