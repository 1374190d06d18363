"""Whether the compiled extension `_kernel` loads, and the words `--version` uses for it,
without numpy: `select` imports numpy for its fallback paths, and the command's start-up
should not pay for that just to name the kernel. `select` takes its state from here, so
the two cannot disagree.
"""

from __future__ import annotations

import importlib
import os
from types import ModuleType

ENV_VAR = "STEADLITH_KERNEL"

try:
    # by name: the extension has no source for import-linter to find, and a plain
    # `from . import _kernel` would read as an import of the whole package
    KERNEL_MODULE: ModuleType | None = importlib.import_module(f"{__package__}._kernel")
    MISSING_BECAUSE = ""
except ImportError as error:  # no compiler at install time: the numpy path does everything
    KERNEL_MODULE = None
    MISSING_BECAUSE = str(error)

# STEADLITH_KERNEL=numpy makes the process behave as if the extension were not built.
FORCED_NUMPY = os.environ.get(ENV_VAR, "").strip().lower() == "numpy"
# the kernel a process starts with
INITIAL = "c" if KERNEL_MODULE is not None and not FORCED_NUMPY else "numpy"


def describe(kernel: str = INITIAL, forced_numpy: bool = FORCED_NUMPY, built: bool = KERNEL_MODULE is not None,
             missing_because: str = MISSING_BECAUSE) -> str:
    """The kernel in use and, for the fallback, why (by default: the kernel a process
    starts with). `select.describe()` passes the kernel in use now."""
    if kernel == "c":
        return "compiled kernel"
    if forced_numpy:
        return f"numpy fallback ({ENV_VAR}=numpy is set)"
    if not built:
        return f"numpy fallback (the compiled kernel was not built at install: {missing_because})"
    return "numpy fallback (selected with kernel.use)"
