"""Loading documents from files (SPEC §1: UTF-8, no newline translation, one BOM stripped)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .errors import LoadError

MAX_DOCUMENT_BYTES = 256 * 1024 * 1024


def decode_document(data: bytes, origin: object = "<bytes>") -> str:
    """Bytes of a document to text, or a LoadError saying what is wrong and where."""
    nul = data.find(b"\x00")
    if nul != -1:
        raise LoadError(origin, f"binary file (NUL byte at byte offset {nul}), not a text document")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad = data[e.start : e.start + 1].hex()
        raise LoadError(origin, f"not valid UTF-8: byte 0x{bad} at byte offset {e.start} ({e.reason})") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def load_text(path: str | os.PathLike, max_bytes: int = MAX_DOCUMENT_BYTES) -> str:
    """Read a UTF-8 document. Raises LoadError for missing, unreadable, binary,
    non-UTF-8 or over-large files. An empty file gives "".

    The file is opened once and read with a bound, so a pipe or a device (whose size
    the file system cannot tell) is also refused once it passes `max_bytes`. A named
    pipe is opened without waiting for a writer: with none, it reads as empty instead
    of blocking for ever (a GUI worker would never finish)."""
    p = Path(path)
    if not os.fspath(path):
        raise LoadError("''", "empty path: name a file to read")
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # only the open must not wait; reads may
        with os.fdopen(fd, "rb") as f:
            if stat.S_ISDIR(os.fstat(f.fileno()).st_mode):
                raise LoadError(p, "is a directory, not a file")
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise LoadError(p, "no such file") from None
    except PermissionError:
        raise LoadError(p, "permission denied") from None
    except IsADirectoryError:
        raise LoadError(p, "is a directory, not a file") from None
    except LoadError:
        raise
    except OSError as e:
        raise LoadError(p, f"cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise LoadError(p, f"too large (over {max_bytes / 2**20:.0f} MiB, the limit)")
    return decode_document(data, p)
