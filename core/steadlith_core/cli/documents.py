"""The documents a command reads: a file, or PATH@REV (a file at a git revision; see
history.revisions for the rule). One reader for every command that takes a document
(chunk, compare, explain, lab), and their sizes for the one line an out-of-memory
error shows."""

from __future__ import annotations

import os
from typing import Optional

from ..chunking.loader import load_text, load_utf8


def _revision(arg: str):
    """ARG as a RevisionRef when it is PATH@REV (not an existing file), else None."""
    if "@" not in arg or os.path.isfile(arg):
        return None
    from ..history.revisions import parse_revision_arg

    return parse_revision_arg(arg)


def read_document(arg: str, utf8: bool = False) -> tuple[str, str]:
    """(text, name to show) of a document argument: a file, or PATH@REV titled
    `path @ short — subject`. `utf8`: a file's checked UTF-8 bytes (loader.load_utf8),
    for commands that only chunk."""
    ref = _revision(arg)
    if ref is not None:
        from ..history.repository import read_text_at

        return read_text_at(ref), ref.title()
    return (load_utf8(arg) if utf8 else load_text(arg)), arg


def document_size(arg: str) -> Optional[int]:
    """The size in bytes of what read_document(arg) reads (a file, or the blob of
    PATH@REV), None when it cannot be told."""
    try:
        ref = _revision(arg)
        if ref is not None:
            from ..history.repository import blob_size

            return blob_size(ref)
        return os.stat(arg).st_size
    except Exception:  # a message is being made: never a second error
        return None
