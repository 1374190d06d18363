"""Path patterns for repository paths (`--paths`, `REPO@REV:GLOB`), as .gitignore reads them.

`*` and `?` stay inside one path component, `**/` matches any number of directories
(none included), `[...]` is a character class. A pattern without `/` matches the file
name in any directory (`*.md` is every markdown file, `README.md` every README.md); with
`/` it matches the whole path from the repository's root (`docs/*.md` is docs' own
files only, `/README.md` the top-level README alone). Python 3.11's
fnmatch lets `*` cross `/`, and pathlib's match has no `**`; hence this small translator.
"""

from __future__ import annotations

import re
from typing import Callable, Iterable

from ..errors import ParameterError

DEFAULT_PATHS = ("**/*.md",)  # what an audit reads unless told: every markdown file


def glob_regex(pattern: str) -> re.Pattern[str]:
    """The compiled regular expression of one pattern (see the module's rules)."""
    if not pattern or not pattern.strip():
        raise ParameterError("--paths", "empty path pattern")
    pattern = pattern.replace("\\", "/")
    if pattern.startswith("/"):  # anchored at the repository's root
        pattern = pattern.lstrip("/")
    elif "/" not in pattern:
        pattern = "**/" + pattern
    out, i, n = [], 0, len(pattern)
    while i < n:
        ch = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:[^/]*/)*")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif ch == "*":
            out.append("[^/]*")
            i += 1
        elif ch == "?":
            out.append("[^/]")
            i += 1
        elif ch == "[":
            end = pattern.find("]", i + 2 if pattern[i + 1:i + 2] in ("!", "]") else i + 1)
            if end == -1:
                out.append(re.escape(ch))
                i += 1
                continue
            body = pattern[i + 1:end]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append("[" + body.replace("\\", "\\\\") + "]")
            i = end + 1
        else:
            out.append(re.escape(ch))
            i += 1
    try:
        return re.compile("".join(out) + r"\Z")
    except re.error as e:
        raise ParameterError("--paths", f"invalid pattern {pattern!r}: {e}") from None


def path_matcher(patterns: Iterable[str]) -> Callable[[str], bool]:
    """A predicate: does a repo-relative path match any of `patterns`?"""
    regexes = [glob_regex(p) for p in patterns]
    if not regexes:
        raise ParameterError("--paths", "give at least one path pattern")
    return lambda path: any(r.match(path) for r in regexes)
