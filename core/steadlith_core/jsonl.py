"""JSON Lines read with bounds: every file of records the tool reads (external spans,
question sets, sweep journals) goes through `read_jsonl`.

A hostile or broken file must end in one line naming where it went wrong, never a hang,
a memory blow-up or a traceback. So a line longer than its limit (`/dev/zero` has no
newline at all), a file past its total size (`/dev/urandom` never ends), bytes that are
not UTF-8, nesting deeper than a record has (Python's parser recurses and would raise
RecursionError), an integer of more digits than any count (int() refuses 4,300 digits
with a ValueError), and NaN or Infinity (not JSON) are each a `JsonlError` carrying the
line number; the caller words it for its own file kind.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from itertools import accumulate
from typing import Any, BinaryIO, Iterator

from .errors import SteadlithError

MiB = 1 << 20
#: Digits of the longest integer a record may hold: 2**63 has 19; more is not a count.
MAX_INT_DIGITS = 20

_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


class JsonlError(SteadlithError, ValueError):
    """A JSON Lines file cannot be read: `line` is the 1-based line (None: the file as a
    whole), `problem` says what (e.g. "not JSON (Expecting value)"), `byte` the file
    offset of a UTF-8 error."""

    def __init__(self, line: int | None, problem: str, byte: int | None = None):
        self.line = line
        self.problem = problem
        self.byte = byte
        super().__init__(problem if line is None else f"line {line}: {problem}")


@dataclass(frozen=True)
class Limits:
    """How much a reader accepts: bytes in all, bytes a line, brackets deep."""

    max_bytes: int = 256 * MiB
    max_line_bytes: int = 16 * MiB
    max_depth: int = 8


def nesting_depth(line: bytes) -> int:
    """How deep the brackets of one JSON text go, outside its strings (0 for a scalar);
    a linear scan, so it can run before the recursive parser does."""
    brackets = _STRING.sub(b"", line).translate(None, _NOT_BRACKETS)
    if not brackets:
        return 0
    return max(accumulate(1 if b in b"[{" else -1 for b in brackets))


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits, more than any count")
    return int(text)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_line(line: bytes, number: int, limits: Limits = Limits()) -> Any:
    """One line's JSON value, within `limits` (its length is the caller's to bound)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JsonlError(number, f"not UTF-8 (byte {e.start} of the line)", e.start) from None
    depth = nesting_depth(line)
    if depth > limits.max_depth:
        raise JsonlError(number, f"nested {depth} deep (at most {limits.max_depth})")
    try:
        return json.loads(text, parse_int=_bounded_int, parse_constant=_no_constant)
    except json.JSONDecodeError as e:
        raise JsonlError(number, f"not JSON ({e.msg})") from None
    except (ValueError, RecursionError) as e:  # the hooks' refusals; depth is checked above
        raise JsonlError(number, f"not JSON ({e})") from None


def bounded_lines(stream: BinaryIO, limits: Limits = Limits()) -> Iterator[tuple[int, int, bytes]]:
    """(line number, file offset, bytes with the newline if any) of each line of `stream`
    (binary), within the total and per-line sizes of `limits`."""
    total = 0
    number = 0
    while True:
        line = stream.readline(limits.max_line_bytes + 1)
        if not line:
            return
        number += 1
        total += len(line)
        if total > limits.max_bytes:
            raise JsonlError(number, f"the file passes {_size(limits.max_bytes)}, more than this kind of "
                                     "file can hold")
        if len(line) > limits.max_line_bytes and not line.endswith(b"\n"):
            raise JsonlError(number, f"longer than {_size(limits.max_line_bytes)}, more than a record can be")
        yield number, total - len(line), line


def read_jsonl(stream: BinaryIO, limits: Limits = Limits()) -> Iterator[tuple[int, Any]]:
    """(line number, value) for each non-blank line of `stream` (binary), a byte-order
    mark before the first ignored. Raises JsonlError on the first line out of bounds."""
    for number, start, line in bounded_lines(stream, limits):
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line, start = line[3:], start + 3
        if line.strip():
            try:
                yield number, parse_line(line, number, limits)
            except JsonlError as e:
                if e.byte is not None:  # the offset in the file, as a whole-file decoder says it
                    raise JsonlError(number, e.problem, start + e.byte) from None
                raise


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n >= MiB and n % MiB == 0 else f"{n:,} bytes"
