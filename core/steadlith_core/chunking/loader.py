"""Loading documents from files: UTF-8, no newline translation, one BOM stripped
(docs/contract/normalizer.md#loading)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ..errors import LoadError
from ..kernel import select as kernel

# Peak memory of chunking one document, in bytes per byte of its UTF-8 text, net of the
# 51 MiB the import of the command costs, measured with `/usr/bin/time -f %M` on generated
# prose of 51.5 MB (every character four bytes in a str, as the prose has emoji): with the
# compiled kernel `steadlith compare FILE FILE` 14.7 per byte of the two documents
# together (it holds both as str, as the inspector does), `steadlith chunk FILE --format
# json` 6.9 (it reads checked UTF-8 bytes: load_utf8); with the numpy fallback `steadlith
# chunk` 22.2 (the numpy scan makes whole-text temporaries), compare 15.1. The limit
# follows the kernel in use and the costliest path.
MEMORY_PER_INPUT_BYTE = 16 if kernel.KERNEL == "c" else 24
# What a document may ask of memory: the loader refuses files that would need more.
MEMORY_BUDGET = 8 * 2**30
MAX_DOCUMENT_BYTES = MEMORY_BUDGET // MEMORY_PER_INPUT_BYTE  # 512 MiB compiled, 341 MiB on numpy


def memory_needed(n_bytes: int) -> int:
    """About how much memory chunking a document of `n_bytes` UTF-8 bytes takes at its peak."""
    return n_bytes * MEMORY_PER_INPUT_BYTE


def human_bytes(n: float) -> str:
    """1536 -> "1.5 KiB": sizes in messages."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def out_of_memory_message(documents: "list[tuple[str, int | None]]") -> str:
    """The one line shown when memory runs out: which document(s), how large, and about
    how much memory they would need. `documents` holds (name, size in bytes) pairs; a
    size of None is unknown, and is said so rather than counted as nothing."""
    if not documents:
        return "out of memory; free some memory or give the command a smaller document"
    what = " and ".join(f"{name} ({'size unknown' if size is None else human_bytes(size)})"
                        for name, size in documents)
    sizes = [size for _, size in documents if size is not None]
    if not sizes:
        return f"out of memory chunking {what}; free some memory or split the document"
    need = sum(memory_needed(size) for size in sizes)
    return (f"out of memory chunking {what}: this needs about {human_bytes(need)} of memory "
            f"({MEMORY_PER_INPUT_BYTE} bytes per byte of text); free some memory or split the document")


def decode_document(data: bytes, origin: object = "<bytes>") -> str:
    """Bytes of a document to text, or a LoadError saying what is wrong and where."""
    _refuse_binary(data, origin)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8(data, e, origin) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def checked_utf8(data: bytes, origin: object = "<bytes>") -> bytes:
    """decode_document without the str: the document's UTF-8 bytes after the same
    checks (same errors), less a leading BOM. Chunking them gives what chunking
    decode_document(data) gives."""
    _refuse_binary(data, origin)
    try:
        kernel.check_utf8(data)
    except UnicodeDecodeError as e:
        raise _not_utf8(data, e, origin) from None
    return data[len(_BOM):] if data.startswith(_BOM) else data


_BOM = "\ufeff".encode()


def _refuse_binary(data: bytes, origin: object) -> None:
    nul = data.find(b"\x00")
    if nul != -1:
        raise LoadError(origin, f"binary file (NUL byte at byte offset {nul}), not a text document")


def _not_utf8(data: bytes, e: UnicodeDecodeError, origin: object) -> LoadError:
    bad = data[e.start : e.start + 1].hex()
    return LoadError(origin, f"not valid UTF-8: byte 0x{bad} at byte offset {e.start} ({e.reason})")


def load_text(path: str | os.PathLike, max_bytes: int = MAX_DOCUMENT_BYTES) -> str:
    """Read a UTF-8 document. Raises LoadError for missing, unreadable, binary,
    non-UTF-8 or over-large files. An empty file gives "".

    The file is opened once and read with a bound, so a pipe or a device (whose size
    the file system cannot tell) is also refused once it passes `max_bytes`. A named
    pipe is opened without waiting for a writer: with none, it reads as empty instead
    of blocking for ever (a GUI worker would never finish)."""
    return decode_document(read_document_bytes(path, max_bytes), Path(path))


def load_utf8(path: str | os.PathLike, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """load_text, as the checked UTF-8 bytes (checked_utf8): what a command that only
    chunks reads, so the document is never a str (four bytes a character when it
    holds one emoji). chunk(load_utf8(p)) gives exactly what chunk(load_text(p)) does."""
    return checked_utf8(read_document_bytes(path, max_bytes), Path(path))


def read_document_bytes(path: str | os.PathLike, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of a document file, unchecked: the file errors of load_text."""
    if not os.fspath(path):
        raise LoadError("''", "empty path: name a file to read")
    if ("\0" if isinstance(os.fspath(path), str) else b"\0") in os.fspath(path):
        raise LoadError(os.fsdecode(path), "the path holds a NUL character, which no file name can contain")
    p = Path(path)
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
        raise LoadError(p, f"too large: over {human_bytes(max_bytes)}, the limit (chunking it would need over "
                           f"{human_bytes(memory_needed(max_bytes))} of memory)")
    return data
