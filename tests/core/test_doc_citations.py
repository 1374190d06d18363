"""Every page of the documentation the code cites exists, and every anchor it cites is
a heading of that page: the citations in core/ and steadlith_gui/ (source, templates,
README), in the `steadlith` command's --help texts and in the comparison report. A citation is a repository path
`docs/….md`, optionally with `#anchor` (one in quotes or backticks is an example path,
not a citation); the anchors are what mkdocs makes of the
headings (Python-Markdown's slugify: lowercase, punctuation dropped, spaces to `-`) or
their explicit `{#id}` attributes."""

from __future__ import annotations

import argparse
import re
import unicodedata
from functools import cache
from pathlib import Path

import pytest

from steadlith_core import compare_rules, render_report
from steadlith_core.bench.examples import tool_library_example
from steadlith_core.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[2]
# A path in quotes or backticks, or followed by @REV, is an example of a repository path
# (REPO@REV:docs/guide.md), not a citation.
CITATION = re.compile(r"(?<![`\"'/\w])(docs/[\w./-]+?\.md)(?:#([\w-]+))?(?![@`\"'\w])")
SOURCES = ("*.py", "*.j2", "*.md", "*.c", "*.css", "*.toml")


def slugify(heading: str) -> str:
    """Python-Markdown's toc slugify (what mkdocs uses): NFKD to ASCII, drop what is not a
    word character, a space or a hyphen, lowercase, runs of spaces and hyphens to one `-`."""
    text = unicodedata.normalize("NFKD", heading).encode("ascii", "ignore").decode("ascii")
    text = re.sub(r"[^\w\s-]", "", text).strip().lower()
    return re.sub(r"[-\s]+", "-", text)


@cache
def anchors(page: Path) -> frozenset[str]:
    found = set()
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            in_code = not in_code
        m = None if in_code else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if m is None:
            continue
        heading = m.group(1)
        explicit = re.search(r"\{[^}]*#([\w-]+)[^}]*\}\s*$", heading)
        if explicit:
            found.add(explicit.group(1))
            heading = heading[:explicit.start()].strip()
        found.add(slugify(heading.replace("`", "")))
    return frozenset(found)


def help_texts() -> str:
    parser = build_parser()
    texts = [parser.format_help()]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            texts += [p.format_help() for p in action.choices.values()]
    return "\n".join(texts)


def citations() -> list[tuple[str, str, str | None]]:
    """(where, page, anchor or None) of every citation."""
    out = []
    for top in ("core", "steadlith_gui"):
        for pattern in SOURCES:
            for path in sorted((ROOT / top).rglob(pattern)):
                if "build" in path.relative_to(ROOT).parts or ".egg-info" in str(path):
                    continue
                for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                    for m in CITATION.finditer(line):
                        out.append((f"{path.relative_to(ROOT)}:{n}", m.group(1), m.group(2)))
    for m in CITATION.finditer(help_texts()):
        out.append(("steadlith --help", m.group(1), m.group(2)))
    for rule, page in report_pages().items():
        for m in CITATION.finditer(page):
            out.append((f"the {rule} report", m.group(1), m.group(2)))
    return out


def report_pages() -> dict[str, str]:
    """The comparison report under each rule (its citations are data, not source lines)."""
    a, b, params = tool_library_example()
    return {rule: render_report(c, "a", "b") for rule, c in compare_rules(a, b, params).items()}


def test_the_code_cites_the_contract_pages():
    assert len(citations()) > 50


@pytest.mark.parametrize("where, page, anchor", citations(), ids=lambda x: str(x))
def test_each_cited_page_and_anchor_exists(where, page, anchor):
    path = ROOT / page
    assert path.is_file(), f"{where}: {page} does not exist"
    if anchor is not None:
        assert anchor in anchors(path), f"{where}: {page} has no heading #{anchor}"


def test_slugify_follows_python_markdown():
    assert slugify("Identity schema `1`".replace("`", "")) == "identity-schema-1"
    assert slugify("Where a region lies relative to its edit") == "where-a-region-lies-relative-to-its-edit"
    assert slugify("What is wire contract, and what is not") == "what-is-wire-contract-and-what-is-not"
