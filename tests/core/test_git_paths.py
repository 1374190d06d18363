"""Path patterns of `steadlith audit --paths` and `REPO@REV:GLOB`, read as .gitignore does:
a name pattern matches in every directory, `*` stays in one directory, `**/` crosses any
number of them."""

from __future__ import annotations

import pytest

from steadlith_core.errors import ParameterError
from steadlith_core.history.pathglob import path_matcher


@pytest.mark.parametrize("pattern, yes, no", [
    ("*.md", ["README.md", "docs/a.md", "a/b/c.md"], ["README.txt", "md", "docs/a.md.bak"]),
    ("**/*.md", ["README.md", "docs/deep/a.md"], ["docs/a.txt"]),
    ("docs/*.md", ["docs/a.md"], ["docs/x/a.md", "a.md", "other/docs/a.md"]),
    ("docs/**/*.md", ["docs/a.md", "docs/x/y/a.md"], ["a.md", "src/docs/a.md"]),
    ("README.md", ["README.md", "sub/README.md"], ["README.mdx", "xREADME.md"]),
    ("/README.md", ["README.md"], ["sub/README.md"]),
    ("ch[0-9]?.md", ["ch01.md", "book/ch9a.md"], ["ch.md", "chx1.md"]),
    ("[!a]*.md", ["b.md"], ["a.md"]),
    # files, not directories: a pattern naming a directory takes nothing below it
    ("docs", ["docs", "x/docs"], ["docs/a.md"]),
    ("docs/*", ["docs/a.md"], ["docs/x/a.md"]),
    ("*.md", ["a.md"], ["x.md/y.txt"]),
    # a leading ! or # is part of the name (no negation, no comment)
    ("!a.md", ["!a.md", "x/!a.md"], ["a.md"]),
    ("#a.md", ["#a.md"], ["a.md"]),
])
def test_patterns_match_repository_paths_as_gitignore_does(pattern, yes, no):
    match = path_matcher([pattern])
    assert [p for p in yes if not match(p)] == []
    assert [p for p in no if match(p)] == []


def test_several_patterns_are_alternatives_and_none_is_an_error():
    match = path_matcher(["*.md", "docs/*.rst"])
    assert match("x/y.md") and match("docs/a.rst") and not match("a.rst")
    with pytest.raises(ParameterError, match="at least one"):
        path_matcher([])
    with pytest.raises(ParameterError, match="empty path pattern"):
        path_matcher(["  "])
