"""Steadlith Inspector: a PySide6 window over `steadlith_core` that shows where and why
the content-defined chunker cut two versions of a document.

The package only displays core results: every chunking rule lives in `steadlith_core`.
"""

__version__ = "1.0.0"
