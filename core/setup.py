"""The compiled text kernel is an optional extension: where no C compiler (or no
little-endian 64-bit target) exists, the build of it fails quietly and the package
installs without it, using the numpy path (steadlith_core.KERNEL says which)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "steadlith_core.kernel._kernel",
            ["steadlith_core/kernel/_kernel.c"],
            extra_compile_args=["-O3", "-std=c11"],
            optional=True,
        )
    ]
)
