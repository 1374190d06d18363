"""The compiled text kernel is an optional extension. Where it cannot be built (no C
compiler, no Python headers, no little-endian 64-bit target) the package still installs
and runs every stage on numpy, bit for bit the same but several times slower; the
install then says so in a banner instead of passing quietly, and `steadlith --version`
names the kernel in use. STEADLITH_REQUIRE_KERNEL=1 turns a failed build into a failed
install (CI and release builds set it).
"""

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

REQUIRE_VAR = "STEADLITH_REQUIRE_KERNEL"

BANNER = """
{rule}
WARNING: steadlith-core's compiled kernel could not be built:
    {error}
steadlith-core is installed without it and runs on its numpy fallback: the same
results, several times slower. To build the kernel, install a C compiler and the
Python headers (Debian/Ubuntu: apt install build-essential python3-dev) and
reinstall. `steadlith --version` names the kernel in use. Set {var}=1 to make
this a hard error.
{rule}
"""


class OptionalBuildExt(build_ext):
    """Build the kernel if possible; otherwise warn loudly (or fail when required)."""

    def run(self):
        try:
            super().run()
        except Exception as error:  # the compiler is missing altogether
            self._failed(error)

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as error:  # the compiler ran and failed
            self._failed(error)

    def _failed(self, error):
        if os.environ.get(REQUIRE_VAR, "").strip() not in ("", "0"):
            raise
        sys.stderr.write(BANNER.format(rule="*" * 78, error=str(error).strip() or type(error).__name__,
                                       var=REQUIRE_VAR))


setup(
    ext_modules=[
        Extension(
            "steadlith_core.kernel._kernel",
            ["steadlith_core/kernel/_kernel.c"],
            extra_compile_args=["-O3", "-std=c11"],
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
