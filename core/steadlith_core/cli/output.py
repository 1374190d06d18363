"""Standard output for the command: write failures that say what they are.

A reader that went away (`steadlith chunk F | head -1`) ends the run quietly with the
shell's status; a full disk or an I/O error is one error line; an unbuffered Python's
short writes are finished or raise, so a lost output never exits 0.
"""

from __future__ import annotations

import io
import os
import sys

from ..errors import SteadlithError


class OutputError(SteadlithError):
    """Standard output could not be written (a full disk, an I/O error)."""


class ClosedPipe(Exception):
    """The reader of standard output went away (`steadlith chunk … | head -1`)."""


class GuardedOutput:
    """Standard output whose write failures say what they are: a closed pipe ends the
    run quietly, any other failure is one error line. Everything else is delegated."""

    def __init__(self, stream):
        self._stream = stream

    def _guard(self, op):
        if self._stream is None:  # started with descriptor 1 closed (`steadlith chunk F >&-`)
            raise OutputError("cannot write the output: standard output is closed")
        try:
            return op()
        except BrokenPipeError:
            raise ClosedPipe() from None
        except OSError as e:
            raise OutputError(f"cannot write the output: {e.strerror or e}") from None

    def write(self, text: str) -> int:
        return self._guard(lambda: self._stream.write(text))

    def flush(self) -> None:
        self._guard(lambda: self._stream.flush())

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def drop_stdout() -> None:
    """Point file descriptor 1 at /dev/null and empty Python's buffer, so the flush at
    interpreter exit neither fails again nor prints "Exception ignored"."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture): nothing is flushed at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    try:
        stream.flush()  # the pending bytes go to /dev/null now
    except OSError:
        pass


def buffered(stream):
    """`stream`, or the same descriptor behind a buffered writer when Python runs
    unbuffered (PYTHONUNBUFFERED, -u): there, a write the reader cut short (a pipe whose
    reader left) loses the rest of the text without an error, so a lost output would
    exit 0. A buffered writer finishes a short write or raises."""
    raw = getattr(stream, "buffer", None)
    if not isinstance(raw, io.RawIOBase):
        return stream
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=stream.line_buffering, write_through=True)
