"""steadlith_core stays Qt-free: an indexing pipeline can install and run it without
PySide6 (the napari-style layering rule of ARCHITECTURE.md)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import steadlith_core
import pytest

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

QT_ROOTS = ("PySide6", "shiboken6", "PyQt5", "PyQt6", "PySide2", "shiboken2")

PROBE = r"""
import contextlib, importlib, io, json, pkgutil, runpy, sys
import steadlith_core

def qt_modules():
    return sorted(m for m in sys.modules if m.startswith(("PySide6", "shiboken6")))

imported = []
for info in pkgutil.walk_packages(steadlith_core.__path__, "steadlith_core."):
    if info.name != "steadlith_core.__main__":  # runs the CLI; exercised below
        importlib.import_module(info.name)
        imported.append(info.name)

from steadlith_core import ChunkerParams, chunk
result = chunk("A short text.\r\n\r\nWith \U0001F680 two paragraphs.", ChunkerParams(min_tokens=1, max_tokens=4))
with contextlib.redirect_stdout(io.StringIO()):
    sys.argv = ["steadlith", "params"]
    try:
        runpy.run_module("steadlith_core", run_name="__main__")
    except SystemExit as e:
        assert e.code == 0, e.code

report = {"imported": imported, "chunks": len(result.chunks), "qt": qt_modules()}
# The check itself must be able to see Qt: import it now and look again.
try:
    import PySide6.QtCore  # noqa: F401
    report["qt_after_importing_it"] = qt_modules()
except ImportError:
    report["qt_after_importing_it"] = None
print(json.dumps(report))
"""


def test_importing_and_running_the_core_loads_no_qt():
    """Importing every module of steadlith_core, chunking and running the CLI in a
    fresh interpreter leave no PySide6/shiboken6 module in sys.modules."""
    proc = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert {"steadlith_core.chunking.pipeline", "steadlith_core.cli.main", "steadlith_core.kernel.segment"} <= set(report["imported"])
    assert report["chunks"] >= 2
    assert report["qt"] == []
    if report["qt_after_importing_it"] is not None:  # PySide6 is in the dev env: the probe sees it
        assert any(m.startswith("PySide6") for m in report["qt_after_importing_it"])


def _imported_names(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
        elif isinstance(node, ast.Call):  # importlib.import_module("...") / __import__("...")
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and node.args and isinstance(node.args[0], ast.Constant):
                yield str(node.args[0].value)


def test_core_source_never_imports_qt():
    """No module of steadlith_core imports a Qt binding, even lazily inside a function."""
    root = Path(steadlith_core.__file__).resolve().parent
    files = sorted(root.rglob("*.py"))
    assert len(files) >= 10
    offenders = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name in _imported_names(tree):
            if name.split(".")[0] in QT_ROOTS:
                offenders.append(f"{path.relative_to(root)}: {name}")
    assert offenders == []
