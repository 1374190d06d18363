"""The package face: every public name resolves (lazily), to the object its module
defines, and importing the package alone loads none of the heavy dependencies."""

import importlib
import subprocess
import sys

import pytest

import steadlith_core

pytestmark = pytest.mark.kernel_independent


@pytest.mark.parametrize("name", sorted(set(steadlith_core.__all__) - {"KERNEL"}))
def test_every_public_name_is_the_object_its_module_defines(name):
    module = importlib.import_module(f"steadlith_core.{steadlith_core._WHERE[name]}")
    assert getattr(steadlith_core, name) is getattr(module, name)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'chunkk'"):
        steadlith_core.chunkk  # noqa: B018


def test_importing_the_package_loads_no_heavy_dependency():
    code = ("import sys, steadlith_core; "
            "print(sorted(m for m in ('numpy', 'pygit2', 'xxhash', 'bm25s', 'tqdm') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
