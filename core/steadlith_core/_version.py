"""The version of steadlith_core, in a leaf module so that any module can name it."""

__version__ = "1.0.0"
