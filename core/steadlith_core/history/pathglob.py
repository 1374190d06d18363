"""Path patterns for repository paths (`--paths`, `REPO@REV:GLOB`), as .gitignore reads them.

`*` and `?` stay inside one path component, `**/` matches any number of directories
(none included), `[...]` is a character class. A pattern without `/` matches the file
name in any directory (`*.md` is every markdown file, `README.md` every README.md); with
`/` it matches the whole path from the repository's root (`docs/*.md` is docs' own
files only, `/README.md` the top-level README alone).

The patterns are pathspec's gitignore patterns (`gitwildmatch`), with what a list of
files to read needs: a pattern matches files, not directories (gitignore's `docs` also
takes everything below a `docs` directory; here it is a file named `docs`, and `docs/*`
is docs' own files), each pattern matches on its own (a leading `!` or `#` is part of the
name, not a negation or a comment, and so are trailing spaces), and `\\` separates
directories as `/` does, for paths typed on Windows.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Callable, Iterable

from ..errors import ParameterError

if TYPE_CHECKING:  # pathspec is imported where a pattern is compiled: the command's help names DEFAULT_PATHS
    from pathspec.patterns.gitwildmatch import GitWildMatchPattern

DEFAULT_PATHS = ("**/*.md",)  # what an audit reads unless told: every markdown file


def path_pattern(pattern: str) -> GitWildMatchPattern:
    """One pattern, compiled (see the module's rules)."""
    from pathspec.patterns.gitwildmatch import GitWildMatchPattern, GitWildMatchPatternError

    if not pattern or not pattern.strip():
        raise ParameterError("--paths", "empty path pattern")
    pattern = pattern.replace("\\", "/")
    if pattern[0] in "!#":  # a name, not a negation or a comment
        pattern = "\\" + pattern
    if pattern.endswith(" ") and not pattern.endswith("\\ "):  # trailing spaces are part of the name
        pattern = pattern[:-1] + "\\ "
    try:
        return GitWildMatchPattern(pattern)
    except GitWildMatchPatternError as e:
        raise ParameterError("--paths", f"invalid pattern {pattern!r}: {e}") from None


def path_matcher(patterns: Iterable[str]) -> Callable[[str], bool]:
    """A predicate: does a repo-relative path match any of `patterns`?"""
    compiled = [path_pattern(p) for p in patterns]
    if not compiled:
        raise ParameterError("--paths", "give at least one path pattern")
    from pathspec.patterns.gitwildmatch import _DIR_MARK

    regexes = [p.regex for p in compiled]
    return lambda path: any(_matches_as_file(r, path, _DIR_MARK) for r in regexes)


def _matches_as_file(regex: re.Pattern[str] | None, path: str, dir_mark: str) -> bool:
    # pathspec marks the `/` after a matched directory with the _DIR_MARK group (dir_mark): such a
    # match is of a directory above the path, not of the path itself
    m = regex.match(path) if regex is not None else None  # None: a pattern that matches nothing
    return m is not None and (dir_mark not in regex.groupindex or m.group(dir_mark) is None)
