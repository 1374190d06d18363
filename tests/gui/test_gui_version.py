"""`steadlith-gui --version`: one line with both packages, the core's kernel and Qt."""

import subprocess
import sys

import steadlith_core
import steadlith_gui


def test_gui_version_names_both_packages_the_kernel_and_qt():
    done = subprocess.run([sys.executable, "-m", "steadlith_gui", "--version"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    line = done.stdout
    assert line.count("\n") == 1
    assert line.startswith(f"steadlith-gui {steadlith_gui.__version__}, steadlith-core {steadlith_core.__version__} (")
    assert "kernel" in line or "fallback" in line
    assert ", Qt 6." in line
