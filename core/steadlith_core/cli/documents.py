"""The documents a command reads: a file, or PATH@REV (a file at a git revision; see
history.revisions for the rule). One reader for every command that takes a document
(chunk, compare, explain, lab), and their sizes for the one line an out-of-memory
error shows."""

from __future__ import annotations

import os
from typing import Iterable, Optional

from ..chunking.loader import MAX_DOCUMENT_BYTES, LoadError, human_bytes, load_utf8, max_document_bytes, refuse_dense
from ..chunking.loader import too_large


def _revision(arg: str):
    """ARG as a RevisionRef when it is PATH@REV (not an existing file), else None."""
    if "@" not in arg or os.path.isfile(arg):
        return None
    from ..history.revisions import parse_revision_arg

    return parse_revision_arg(arg)


def read_document(arg: str, utf8: bool = False, max_bytes: Optional[int] = None, command: Optional[str] = None,
                  rules: Iterable[str] = ()) -> tuple[str | bytes, str]:
    """(text, name to show) of a document argument: a file, or PATH@REV titled
    `path @ short — subject`. `utf8`: its checked UTF-8 bytes (loader.load_utf8), for
    commands that chunk and compare but never need the whole text as a str.
    `max_bytes`: the command's own limit (loader.max_document_bytes), the loader's
    generic one when None. `command` (with the `rules` it runs): the document is also
    refused when its words would need more memory than the budget (loader.refuse_dense),
    before it is decoded."""
    data, name = _read_utf8(arg, max_bytes)
    if command is not None:
        refuse_dense([(arg, data)], command, rules)
    return (data if utf8 else _decoded(data)), name


def _read_utf8(arg: str, max_bytes: Optional[int]) -> tuple[bytes, str]:
    """The checked UTF-8 bytes of a document argument (a BOM stripped) and its name."""
    ref = _revision(arg)
    if ref is not None:
        from ..history.repository import blob_size, read_text_at

        size = blob_size(ref) if max_bytes is not None else None
        if size is not None and size > max_bytes:  # refused before the blob is read
            raise too_large(arg, max_bytes, size)
        return read_text_at(ref, utf8=True), ref.title()
    return load_utf8(arg, MAX_DOCUMENT_BYTES if max_bytes is None else max_bytes), arg


def _decoded(data: bytes) -> str:
    # checked UTF-8 without its BOM: what load_text gives of the same file
    return data.decode("utf-8")


_HELD_TOGETHER = {"compare": "compared", "explain": "explained"}


def read_pair(a: str, b: str, command: str, rules: Iterable[str],
              utf8: bool = True) -> tuple[tuple[str | bytes, str], tuple[str | bytes, str]]:
    """read_document of both documents of a command that holds the two together
    (compare, explain), within the command's limit for the pair
    (loader.max_document_bytes under `rules`): refused before either is read when their
    sizes are known to pass it, and after, when their words together would need more
    memory than the budget (loader.refuse_dense). As checked UTF-8 bytes unless `utf8`
    is False: the comparison chunks them lean and reads no str of either document (a
    report that shows the texts decodes them)."""
    rules = list(rules)
    limit = max_document_bytes(command, rules)
    size_a, size_b = document_size(a), document_size(b)
    if size_a is not None and size_b is not None and size_a + size_b > limit:
        raise LoadError(f"{a} and {b}", f"too large together: {human_bytes(size_a + size_b)}, over the limit of "
                                        f"{human_bytes(limit)} for two documents {_HELD_TOGETHER.get(command, 'held together')}")
    (data_a, name_a), (data_b, name_b) = _read_utf8(a, limit), _read_utf8(b, limit)
    refuse_dense([(a, data_a), (b, data_b)], command, rules)
    if not utf8:
        data_a, data_b = _decoded(data_a), _decoded(data_b)
    return (data_a, name_a), (data_b, name_b)


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
