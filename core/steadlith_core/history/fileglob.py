"""A quoted glob (`'docs/**/*.md'`) expanded by the tool as the shell's globbing would,
with the rules of Python's `glob.glob(..., recursive=True)`: `*`, `?` and `[...]` within
one path component, `**` alone as a component for any number of directories, names
starting with a dot matched only by a component that starts with one.

The standard library's glob skips a directory it cannot read without a word, so a
batch would silently miss its files. This walk lists only the directories the pattern
has to enter (a directory `docs/*.md` cannot reach is never read), and yields each one
it cannot read as a LoadError among the matches, for the batch to name on stderr.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from typing import Iterator, Union

from ..errors import LoadError

MAGIC = frozenset("*?[")

Found = Union[str, LoadError]  # a matching file, or a directory that could not be read


def has_magic(text: str) -> bool:
    return bool(MAGIC & set(text))


def glob_files(pattern: str) -> Iterator[Found]:
    """Every regular file `pattern` matches (a path spelled from the pattern's own
    prefix, as glob spells it), and a LoadError for every directory the pattern has to
    enter that cannot be read, in walk order (the caller sorts)."""
    parts = [p for p in pattern.split(os.sep) if p]
    start = os.sep if pattern.startswith(os.sep) else ""
    seen: set[tuple[str, int]] = set()  # (real directory, part): a link cycle under ** is walked once
    named: set[str] = set()  # under **, one directory is tried for several parts: named once
    for found in _walk(start, parts, 0, seen):
        if isinstance(found, LoadError):
            if found.path in named:
                continue
            named.add(found.path)
        yield found


def _join(directory: str, name: str) -> str:
    return os.path.join(directory, name) if directory else name


def _unreadable(directory: str, e: OSError) -> LoadError:
    return LoadError(directory or os.curdir, f"cannot read this directory: {e.strerror or e}; its files are not "
                                             "in the output")


def _walk(directory: str, parts: list[str], i: int, seen: set[tuple[str, int]]) -> Iterator[Found]:
    key = (os.path.realpath(directory or os.curdir), i)
    if key in seen:
        return
    seen.add(key)
    part, last = parts[i], i == len(parts) - 1
    if part == "**":
        if last:  # `dir/**`: every file below
            yield from _below(directory, seen, i)
            return
        yield from _walk(directory, parts, i + 1, seen)  # ** as no directory at all
        for sub in _entries(directory, dirs_only=True, hidden=False):
            if isinstance(sub, LoadError):
                yield sub
            else:
                yield from _walk(sub, parts, i, seen)  # ** as one more directory
        return
    if not has_magic(part):  # a literal name: no need to list the directory
        path = _join(directory, part)
        try:
            st = os.stat(path)
        except (FileNotFoundError, NotADirectoryError):
            return
        except OSError as e:  # a parent without search permission: say so rather than "no match"
            yield _unreadable(directory, e)
            return
        if last and stat.S_ISREG(st.st_mode):
            yield path
        elif not last and stat.S_ISDIR(st.st_mode):
            yield from _walk(path, parts, i + 1, seen)
        return
    for found in _entries(directory, dirs_only=not last, hidden=part.startswith(".")):
        if isinstance(found, LoadError):
            yield found
            continue
        if not fnmatch.fnmatch(os.path.basename(found), part):
            continue
        if last:
            if os.path.isfile(found):
                yield found
        else:
            yield from _walk(found, parts, i + 1, seen)


def _entries(directory: str, *, dirs_only: bool, hidden: bool) -> Iterator[Found]:
    """The paths of `directory`'s entries (only its subdirectories with `dirs_only`; names
    starting with a dot only with `hidden`), or one LoadError if it cannot be listed."""
    try:
        with os.scandir(directory or os.curdir) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as e:
        yield _unreadable(directory, e)
        return
    for entry in entries:
        if entry.name.startswith(".") and not hidden:
            continue
        try:
            if dirs_only and not entry.is_dir():
                continue
        except OSError as e:
            yield LoadError(_join(directory, entry.name), f"cannot read: {e.strerror or e}")
            continue
        yield _join(directory, entry.name)


def _below(directory: str, seen: set[tuple[str, int]], i: int) -> Iterator[Found]:
    """Every file below `directory` (not hidden), for a pattern ending in `**`."""
    for found in _entries(directory, dirs_only=False, hidden=False):
        if isinstance(found, LoadError):
            yield found
        elif os.path.isdir(found):
            key = (os.path.realpath(found), i)
            if key not in seen:
                seen.add(key)
                yield from _below(found, seen, i)
        elif os.path.isfile(found):
            yield found
