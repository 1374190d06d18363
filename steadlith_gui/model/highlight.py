"""Pygments in the inspector: syntax spans of code documents and the highlighted JSON
of the canonical parameters. Lexing runs in the worker (it is Qt-free); the widgets
only turn token types into QTextCharFormats of the current pygments style."""

from __future__ import annotations

import html
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import JsonLexer, get_lexer_for_filename
from pygments.styles import get_style_by_name
from pygments.util import ClassNotFound

from .offsets import OffsetMap

# Documents larger than this are shown without syntax colour (the highlighter would
# have to format every block of the document on the GUI thread).
MAX_SYNTAX_CHARS = 600_000


@dataclass(frozen=True)
class SyntaxSpans:
    """Token spans in Qt positions: [starts[i], ends[i]) has pygments token type types[kinds[i]]."""

    lexer_name: str
    starts: np.ndarray
    ends: np.ndarray
    kinds: np.ndarray
    types: tuple


#: How the window names a document made from another, after the other's name: a git
#: revision `doc.md @ a6e7281 — subject` (RevisionRef.title, "edited copy of …" once
#: typed into) and an edit the locality lab opens `doc.md + tttd-v1 worst #1: …`.
DERIVED_NAME_SEPARATORS = (" + ", " @ ")


def lexer_for(name: str | None):
    """A pygments lexer chosen from the file name, or None (plain text or unknown). A
    derived document's name is looked up by the file name it starts with, so an edited
    revision or a lab edit is coloured like the file it came from."""
    if not name:
        return None
    candidates = [name]
    for separator in DERIVED_NAME_SEPARATORS:
        candidates.append(candidates[-1].split(separator, 1)[0])
    for candidate in dict.fromkeys(candidates):
        try:
            lexer = get_lexer_for_filename(candidate, stripnl=False, ensurenl=False)
        except ClassNotFound:
            continue
        return None if lexer.name == "Text only" else lexer
    return None


def syntax_spans(text: str, name: str | None, offsets: OffsetMap) -> SyntaxSpans | None:
    lexer = lexer_for(name)
    if lexer is None or len(text) > MAX_SYNTAX_CHARS:
        return None
    type_index: dict = {}
    starts: list[int] = []
    ends: list[int] = []
    kinds: list[int] = []
    for index, ttype, value in lexer.get_tokens_unprocessed(text):
        if not value or value.isspace():
            continue
        k = type_index.setdefault(ttype, len(type_index))
        starts.append(index)
        ends.append(index + len(value))
        kinds.append(k)
    types = tuple(sorted(type_index, key=type_index.get))
    return SyntaxSpans(
        lexer.name,
        np.asarray(offsets.to_display(np.asarray(starts, dtype=np.int64)), dtype=np.int64),
        np.asarray(offsets.to_display(np.asarray(ends, dtype=np.int64)), dtype=np.int64),
        np.asarray(kinds, dtype=np.int32),
        types,
    )


@lru_cache(maxsize=8)
def style_of(style_name: str):
    return get_style_by_name(style_name)


def token_style(style_name: str, ttype) -> dict:
    """pygments' style for a token type: {'color': 'rrggbb' | None, 'bold': bool, ...}."""
    return style_of(style_name).style_for_token(ttype)


@lru_cache(maxsize=8)
def _html_formatter(style_name: str) -> HtmlFormatter:
    return HtmlFormatter(noclasses=True, nobackground=True, nowrap=True, style=style_name)


def json_html(text: str, style_name: str, foreground: str) -> str:
    """JSON text as HTML with inline colours (for a QTextBrowser)."""
    body = highlight(text, JsonLexer(), _html_formatter(style_name))
    # pre-wrap: long values wrap inside the dock instead of needing a horizontal scroll bar
    return f'<pre style="white-space: pre-wrap; margin: 0; color: {html.escape(foreground)}">{body}</pre>'
