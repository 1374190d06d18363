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


def read_document(arg: str, utf8: bool = False, max_bytes: Optional[int] = None) -> tuple[str | bytes, str]:
    """(text, name to show) of a document argument: a file, or PATH@REV titled
    `path @ short — subject`. `utf8`: its checked UTF-8 bytes (loader.load_utf8), for
    commands that chunk and compare but never need the whole text as a str.
    `max_bytes`: the command's own limit (loader.max_document_bytes), the loader's
    generic one when None."""
    ref = _revision(arg)
    if ref is not None:
        from ..history.repository import blob_size, read_text_at

        size = blob_size(ref) if max_bytes is not None else None
        if size is not None and size > max_bytes:  # refused before the blob is read
            raise too_large(arg, max_bytes, size)
        return read_text_at(ref, utf8=utf8), ref.title()
    limit = MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes
    return (load_utf8(arg, limit) if utf8 else load_text(arg, limit)), arg


_HELD_TOGETHER = {"compare": "compared", "explain": "explained"}


def read_pair(a: str, b: str, command: str, rules: Iterable[str],
              utf8: bool = True) -> tuple[tuple[str | bytes, str], tuple[str | bytes, str]]:
    """read_document of both documents of a command that holds the two together
    (compare, explain), within the command's limit for the pair
    (loader.max_document_bytes under `rules`): refused before either is read when their
    sizes are known to pass it. As checked UTF-8 bytes unless `utf8` is False: the
    comparison chunks them lean and reads no str of either document (a report that
    shows the texts decodes them)."""
    limit = max_document_bytes(command, rules)
    size_a, size_b = document_size(a), document_size(b)
    if size_a is not None and size_b is not None and size_a + size_b > limit:
        raise LoadError(f"{a} and {b}", f"too large together: {human_bytes(size_a + size_b)}, over the limit of "
                                        f"{human_bytes(limit)} for two documents {_HELD_TOGETHER.get(command, 'held together')}")
    return read_document(a, utf8, limit), read_document(b, utf8, limit)


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
