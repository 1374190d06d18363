"""`steadlith lab` refuses a count of edits or hunt trials it could never finish, at
once and with the reason, instead of starting work that runs for ever."""

from __future__ import annotations

import subprocess
import sys

import pytest

MAX_EDITS = MAX_HUNT_TRIALS = 1_000_000


@pytest.fixture
def doc(tmp_path):
    path = tmp_path / "doc.md"
    path.write_text("A sentence of words. Another one follows.\n\nA second paragraph here.\n", encoding="utf-8")
    return path


@pytest.mark.parametrize("option,value,limit", [("--edits", "99999999999999999999999", MAX_EDITS),
                                                ("--edits", str(MAX_EDITS + 1), MAX_EDITS),
                                                ("--hunt", str(10**9), MAX_HUNT_TRIALS)])
def test_count_past_the_bound_is_refused_with_its_reason(doc, option, value, limit):
    """A real process with a timeout: a count it does not refuse fails the test, not hangs it."""
    r = subprocess.run([sys.executable, "-m", "steadlith_core.cli.main", "lab", str(doc), option, value],
                       capture_output=True, text=True, timeout=30)
    code, out, err = r.returncode, r.stdout, r.stderr
    assert code == 2 and out == ""
    assert err.startswith(f"steadlith: error: {option}: must be <= {limit:,}, got {int(value):,} (")
    assert "takes hours" in err and len(err.splitlines()) == 1


def test_bound_itself_is_accepted_by_the_check():
    from steadlith_core.cli.lab import check_counts

    class Args:
        edits, hunt = MAX_EDITS, MAX_HUNT_TRIALS

    check_counts(Args())


@pytest.mark.parametrize("kwargs", ["edits=1_000_001", "hunt_trials=1_000_001"])
def test_run_lab_refuses_too(kwargs):
    """The library's bound, in a process of its own with a timeout, as above."""
    code = ("from steadlith_core.lab import LabError, run_lab\n"
            "try:\n"
            f"    run_lab('Some words here.', {{'fixed': None}}, {kwargs})\n"
            "except LabError as e:\n"
            "    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    assert "must be <= 1,000,000" in r.stdout, r.stdout + r.stderr
