"""The layers of ARCHITECTURE.md hold: the import contracts of pyproject.toml
([tool.importlinter]) are kept, and they see imports made inside functions.

No Qt is imported here: import-linter reads the source, it does not import it.
"""

from __future__ import annotations

from pathlib import Path

import grimp  # import-linter's graph builder; both come with the test extra
from importlinter import cli as importlinter_cli
import pytest

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

ROOT = Path(__file__).resolve().parents[2]


def test_import_contracts_are_kept(capsys):
    """`lint-imports` passes: the core's layers point one way, the core has no import
    cycle and no Qt, and steadlith_gui sits above steadlith_core. On failure the
    output names the offending import chain."""
    code = importlinter_cli.lint_imports(config_filenames=(str(ROOT / "pyproject.toml"),), no_cache=True,
                                         no_logo=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert ", 0 broken" in out, out


def test_the_graph_counts_imports_made_inside_functions():
    """A lazy import could hide a cycle (issue 9: pipeline imported compare inside a
    method). grimp, which the contracts run on, records such imports: cli.main imports
    bench.chunking only inside cmd_bench, and bench.chunking imports bench.examples only
    inside functions."""
    cli_source = (ROOT / "core" / "steadlith_core" / "cli" / "main.py").read_text(encoding="utf-8")
    assert "\n    from ..bench.chunking import run_bench" in cli_source  # still function-level
    assert "\nfrom ..bench.chunking" not in cli_source
    graph = grimp.build_graph("steadlith_core")
    assert graph.direct_import_exists(importer="steadlith_core.cli.main", imported="steadlith_core.bench.chunking")
    assert graph.direct_import_exists(importer="steadlith_core.bench.chunking", imported="steadlith_core.bench.examples")
