"""Names and paths are data, never markup nor layout: how the window shows them.

A file name, a workspace's display name or a path can hold `<b>`, `<img src=…>`, a
newline, an escape sequence or a bidi override. Shown as given, Qt would render the
markup (or load the image), and an override would reverse the words beside it
("18 chunks · 18 reused" read backwards). So every string the user controls goes
through one of these before it reaches a label, a title, a tooltip or the message bar:

- `shown_name`: controls escaped (steadlith_core.errors.visible), the whole name
  isolated (FSI … PDI) so right-to-left letters in it cannot move its neighbours;
  for plain-text places (window title, plain labels, menus).
- `name_html`: the same, HTML-escaped, for rich-text labels that style the name.
- `plain_tooltip`: a tooltip is rich text whenever Qt guesses so; this one never is.
"""

from __future__ import annotations

import html

from PySide6.QtGui import Qt  # QtGui's Qt namespace carries convertFromPlainText
from steadlith_core.errors import visible

FSI, PDI = "\u2068", "\u2069"  # first-strong isolate, pop directional isolate


def shown_name(name: str) -> str:
    return f"{FSI}{visible(name)}{PDI}"


def name_html(name: str) -> str:
    return html.escape(shown_name(name), quote=True)


ELLIPSIS = "…"
MESSAGE_WORD_CHARS = 120  # a longer run without spaces in a message (a path) is elided
MESSAGE_LINE_CHARS = 600  # and so is a longer line, whatever it holds


def elide_middle(text: str, limit: int) -> str:
    """`text` at most `limit` characters, its middle replaced by "…" when longer: a long
    path keeps its start (the folder) and its end (the file name, the reason after it)."""
    if len(text) <= limit:
        return text
    keep = max(limit - len(ELLIPSIS), 0)
    head = (keep + 1) // 2
    return text[:head] + ELLIPSIS + text[len(text) - (keep - head):]


def elide_line(line: str, word_limit: int = MESSAGE_WORD_CHARS, line_limit: int = MESSAGE_LINE_CHARS) -> str:
    """A message line short enough for one line of the window: each run of more than
    `word_limit` characters without a space (a path, a name) elided in its middle, then
    the whole line to `line_limit`; the words around a long path stay whole."""
    if len(line) > word_limit:
        line = " ".join(elide_middle(word, word_limit) for word in line.split(" "))
    return elide_middle(line, line_limit)


def visible_lines(text: str, elide: bool = False) -> str:
    """A message as plain lines: its own line breaks kept, every other control and bidi
    formatting character escaped (a file name's undecodable bytes as `\\xff`); with
    `elide`, each line shortened by elide_line."""
    lines = (visible(line) for line in text.split("\n"))
    return "\n".join(elide_line(line) if elide else line for line in lines)


def tooltip_lines(text: str) -> str:
    """The lines a tooltip of `text` shows: its non-empty lines, in order."""
    return "\n".join(line for line in text.split("\n") if line)


def plain_tooltip(text: str) -> str:
    """`text` as a tooltip that shows exactly these characters on these lines. Blank
    lines are dropped (Qt's rich text collapses them anyway, so say so here rather than
    let the tooltip differ from what the caller meant); a blank text is no tooltip."""
    text = tooltip_lines(text)
    if not text.strip():
        return ""
    return Qt.convertFromPlainText(visible_lines(text), Qt.WhiteSpaceMode.WhiteSpacePre)
