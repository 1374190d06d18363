"""`steadlith --version` names the version and the kernel that runs (the numpy fallback
is several times slower, so a bug report needs both)."""

import os
import subprocess
import sys

import pytest

import steadlith_core
from cli_helpers import run
from steadlith_core.kernel import select as kernel

pytestmark = pytest.mark.kernel_independent


def test_version_names_the_release_and_the_kernel(capsys):
    code, out, err = run(capsys, "--version")
    assert code == 0 and err == ""
    assert out.startswith(f"steadlith {steadlith_core.__version__}, ")
    assert ("compiled kernel" if steadlith_core.KERNEL == "c" else "numpy fallback") in out
    assert out.count("\n") == 1


def test_version_says_why_the_fallback_runs_when_it_is_forced():
    env = dict(os.environ, STEADLITH_KERNEL="numpy")
    out = subprocess.run([sys.executable, "-m", "steadlith_core", "--version"], capture_output=True, text=True,
                         env=env, check=True).stdout
    assert "numpy fallback (STEADLITH_KERNEL=numpy is set)" in out


def test_a_kernel_that_was_not_built_is_named_with_the_reason(monkeypatch):
    monkeypatch.setattr(kernel, "KERNEL", "numpy")
    monkeypatch.setattr(kernel, "_FORCED_NUMPY", False)
    monkeypatch.setattr(kernel, "_kernel", None)
    monkeypatch.setattr(kernel, "_MISSING_BECAUSE", "No module named 'steadlith_core.kernel._kernel'")
    assert kernel.describe() == ("numpy fallback (the compiled kernel was not built at install: "
                                 "No module named 'steadlith_core.kernel._kernel')")
