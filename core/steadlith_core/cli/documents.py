"""The documents a command reads: a file, or PATH@REV (a file at a git revision; see
history.revisions for the rule). One reader for every command that takes a document
(chunk, compare, explain, lab), and their sizes for the one line an out-of-memory
error shows."""

from __future__ import annotations

import os
from typing import Iterable, Optional

from ..chunking.loader import MAX_DOCUMENT_BYTES, LoadError, human_bytes, load_text, load_utf8, max_document_bytes
from ..chunking.loader import too_large


def _revision(arg: str):
    """ARG as a RevisionRef when it is PATH@REV (not an existing file), else None."""
    if "@" not in arg or os.path.isfile(arg):
        return None
    from ..history.revisions import parse_revision_arg

    return parse_revision_arg(arg)


def read_document(arg: str, utf8: bool = False, max_bytes: Optional[int] = None) -> tuple[str, str]:
    """(text, name to show) of a document argument: a file, or PATH@REV titled
    `path @ short — subject`. `utf8`: a file's checked UTF-8 bytes (loader.load_utf8),
    for commands that only chunk. `max_bytes`: the command's own limit
    (loader.max_document_bytes), the loader's generic one when None."""
    ref = _revision(arg)
    if ref is not None:
        from ..history.repository import blob_size, read_text_at

        size = blob_size(ref) if max_bytes is not None else None
        if size is not None and size > max_bytes:  # refused before the blob is read
            raise too_large(arg, max_bytes, size)
        return read_text_at(ref), ref.title()
    limit = MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes
    return (load_utf8(arg, limit) if utf8 else load_text(arg, limit)), arg


_HELD_TOGETHER = {"compare": "compared", "explain": "explained"}


def read_pair(a: str, b: str, command: str, rules: Iterable[str]) -> tuple[tuple[str, str], tuple[str, str]]:
    """read_document of both documents of a command that holds the two together
    (compare), within the command's limit for the pair (loader.max_document_bytes under
    `rules`): refused before either is read when their sizes are known to pass it."""
    limit = max_document_bytes(command, rules)
    size_a, size_b = document_size(a), document_size(b)
    if size_a is not None and size_b is not None and size_a + size_b > limit:
        raise LoadError(f"{a} and {b}", f"too large together: {human_bytes(size_a + size_b)}, over the limit of "
                                        f"{human_bytes(limit)} for two documents {_HELD_TOGETHER.get(command, 'held together')}")
    return read_document(a, max_bytes=limit), read_document(b, max_bytes=limit)


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
