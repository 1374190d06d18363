"""File → Export: the HTML report, chunks as JSONL, the comparison as JSON, the window
as PNG; and the default file names offered for them.

The schemas and the HTML are the core's (steadlith_core.report's comparison and export
modules): the window writes exactly what `steadlith compare --html` and `--format json`
write. Each `*_job` returns a function to run on the thread pool (worker.Jobs): it renders
and writes the file atomically and returns the path, or raises ExportError naming the path
and the reason. The window only takes the immutable inputs (a Comparison, a Chunking, a
QImage grabbed in the GUI thread) and shows the outcome. Text goes through the core's
write_text_atomic; the PNG through write_png (write_bytes_atomic)."""

from __future__ import annotations

import os
import re
from typing import Callable

from steadlith_core import Chunking
from steadlith_core.errors import ExportError
from steadlith_core.report.export import chunks_jsonl, comparison_json, to_json_text, write_bytes_atomic, write_text_atomic
from steadlith_core.comparison.external import ExternalChunking, spans_jsonl
from steadlith_core.report.comparison import render_report

from .. import __version__

GENERATED_BY = f"Steadlith Inspector {__version__}"
REPORT_SUFFIX = ".steadlith-report.html"
_UNSAFE = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')


def safe_stem(name: str | None, fallback: str) -> str:
    """A document name as part of a file name: without its extension and without
    characters that file systems refuse ("v1.md" -> "v1", "a/b:c.txt" -> "a_b_c")."""
    if not name:
        return fallback
    stem = os.path.splitext(name.strip())[0]  # a display name: "/" in it is not a folder
    stem = _UNSAFE.sub("_", stem).strip(" ._")
    return stem[:80] or fallback


def default_name(kind: str, name_a: str | None = None, name_b: str | None = None) -> str:
    """The file name a save dialog offers. kind: report, comparison, chunks-A, chunks-B,
    png, workspace."""
    a, b = safe_stem(name_a, "A"), safe_stem(name_b, "B")
    pair = f"{a}-vs-{b}" if name_a or name_b else "steadlith"
    if kind == "report":
        return pair + REPORT_SUFFIX
    if kind == "comparison":
        return pair + ".comparison.json"
    if kind == "chunks-A":
        return f"{a}.chunks.jsonl"
    if kind == "chunks-B":
        return f"{b}.chunks.jsonl"
    if kind == "png":
        return pair + ".png"
    if kind == "workspace":
        return pair + ".steadlith"
    raise ValueError(f"unknown export kind {kind!r}")


def report_job(comparison, name_a: str, name_b: str, path: str, rules=None, chunkers=(),
               lab=None) -> Callable[[], str]:
    """The report of `comparison` (the rule the panes show); `rules` ({rule: Comparison}
    of every rule) adds the core's side-by-side table of the rules and the baseline,
    `chunkers` (ChunkerChurn of the external columns shown) more columns in it, and `lab`
    (the Locality lab's result on A) the lab's section."""
    def run() -> str:
        write_text_atomic(path, render_report(comparison, name_a, name_b, generated_by=GENERATED_BY,
                                              rules=rules if rules and len(rules) > 1 else None, chunkers=chunkers,
                                              lab=lab))
        return path

    return run


def chunks_job(chunking: Chunking | ExternalChunking, path: str) -> Callable[[], str]:
    """The chunks the pane shows: a rule's (the core's chunk records), or an external
    chunker's spans in the JSONL its import reads."""
    def run() -> str:
        write_text_atomic(path, spans_jsonl(chunking) if isinstance(chunking, ExternalChunking)
                          else chunks_jsonl(chunking))
        return path

    return run


def comparison_job(comparison, name_a: str | None, name_b: str | None, path: str) -> Callable[[], str]:
    def run() -> str:
        write_text_atomic(path, to_json_text(comparison_json(comparison, name_a, name_b)))
        return path

    return run


def png_job(image, path: str) -> Callable[[], str]:
    """Encode a QImage (grabbed in the GUI thread; QImage may be used from another thread)
    as PNG into a temporary file beside `path`, then rename it over `path`."""

    def run() -> str:
        write_png(image, path)
        return path

    return run


def png_bytes(image) -> bytes:
    """A QImage encoded as PNG (QImage and QBuffer may be used off the GUI thread)."""
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    ok = image.save(buffer, "PNG")
    buffer.close()
    return bytes(data.data()) if ok else b""


def write_png(image, path: str) -> None:
    """Write a QImage as PNG, all or nothing (steadlith_core's write_bytes_atomic).
    Raises ExportError naming the path and the reason."""
    shown = os.fspath(path)
    if image is None or image.isNull():
        raise ExportError(shown or "''", "the window could not be rendered")
    data = png_bytes(image)
    if not data:
        raise ExportError(shown or "''", "the window could not be encoded as PNG")
    write_bytes_atomic(path, data)
