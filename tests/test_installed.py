"""The suite tests what a user installs: under scripts/run_tests.py (which sets
STEADLITH_TEST_INSTALLED=1) both packages must come from the installed wheels, not from
this checkout, and the core wheel must hold every subpackage and the compiled kernel."""

import importlib.metadata
import os
import pkgutil
from pathlib import Path

import pytest

import steadlith_core
import steadlith_gui

CHECKOUT = Path(__file__).resolve().parent.parent
installed_run = pytest.mark.skipif(not os.environ.get("STEADLITH_TEST_INSTALLED"),
                                   reason="only under scripts/run_tests.py, which installs the wheels")


@installed_run
@pytest.mark.parametrize("package", [steadlith_core, steadlith_gui])
def test_the_packages_come_from_the_installed_wheels(package):
    where = Path(package.__file__).resolve()
    assert not where.is_relative_to(CHECKOUT), f"{package.__name__} was imported from the checkout: {where}"


@installed_run
def test_every_subpackage_of_the_checkout_is_in_the_installed_core():
    source = CHECKOUT / "core" / "steadlith_core"
    wanted = {p.parent.relative_to(source.parent).as_posix().replace("/", ".")
              for p in source.rglob("__init__.py")}
    installed = {"steadlith_core"} | {m.name for m in pkgutil.walk_packages(steadlith_core.__path__, "steadlith_core.")
                                      if m.ispkg}
    assert wanted <= installed, f"missing from the wheel: {sorted(wanted - installed)}"


@installed_run
def test_the_installed_core_carries_its_licence_and_no_c_source():
    files = [str(f) for f in importlib.metadata.files("steadlith-core")]
    assert any(f.endswith("licenses/LICENSE") for f in files), files
    assert not any(f.endswith(".c") for f in files), [f for f in files if f.endswith(".c")]


@installed_run
def test_the_compiled_kernel_is_active_in_the_installed_core():
    if os.environ.get("STEADLITH_KERNEL") == "numpy":
        pytest.skip("the numpy run forces the fallback")
    assert steadlith_core.KERNEL == "c"
