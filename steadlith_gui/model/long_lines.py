"""Display breaks for very long lines, free of Qt.

Qt lays out a text block (a line of the document) as a whole: a 1 MB paragraph
without line breaks takes most of a second to lay out and repaint, and a long run
without any space is worse than linear (a 100,000-character word takes 0.8 s, a
2 MB one minutes). So a line longer than `LINE_LIMIT` code points is shown as
several blocks: the document pane inserts a block separator at each *display
break*. The breaks are not in the text: the core, the saved file, copies and exports
never see them; `offsets.OffsetMap` counts each as one more Qt position taken by the
code point before it, so every position the widgets use already accounts for them.

A break goes after the last whitespace in a window of the line (what word wrap would
have done anyway, so the wrapped text looks the same), or, in a run without
whitespace, every `RUN_LIMIT` code points (Qt's fallback wrap of such a run is the
slow part, so those blocks are kept shorter). The gutter marks a line that goes on
after a break with "↪".

Why breaks in the document rather than a custom layout: QPlainTextEdit's layout is one
QTextLayout per block, and every other part of the pane (selection, find, scrolling,
hit tests) keeps working on small blocks with no code of ours. Why a pane showing
breaks is read-only (as Kate opens files with over-long lines): in an editable pane
every edit, undo, paste and Enter would have to tell a break from a typed line end
(a new block inherits the format of the one it splits), and one mistake would put a
line break into the user's text or drop one. An inspector of chunking does not need to
edit minified text; it needs to show it without freezing, exactly.
"""

from __future__ import annotations

import numpy as np

LINE_LIMIT = 4096  # longest line shown as one block (code points)
RUN_LIMIT = 2048  # block length inside a run without whitespace
SEPARATOR = "\u2029"  # what the pane inserts: QTextDocument's block separator

_SPACES = " \t\u3000\u00a0"  # where a display break may go (after one); others are rare in long lines
_NONE = np.zeros(0, dtype=np.int64)


def longest_line_after_insert(text: str, line_before: int, line_after: int) -> int:
    """Length of the longest line once `text` is inserted into a line that has
    `line_before` code points before the cursor and `line_after` after it (a selection
    being replaced already left out)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return line_before + len(text) + line_after
    inner = max((len(line) for line in lines[1:-1]), default=0)
    return max(line_before + len(lines[0]), inner, len(lines[-1]) + line_after)


def display_breaks(text: str, line_limit: int = LINE_LIMIT, run_limit: int = RUN_LIMIT,
                   cp: np.ndarray | None = None) -> np.ndarray:
    """Code-point indices where the display breaks a long line (a break at i shows
    text[i] at the start of a new block). Empty for a text without long lines; the
    common case costs one vectorized pass over the text. `cp`: its code points, if the
    caller has them (offsets.code_points)."""
    if len(text) <= line_limit:
        return _NONE
    if cp is None:
        cp = np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
    # a line is what a QTextDocument makes a block of: \n, \r and U+2029 end one
    ends = np.flatnonzero((cp == 0x0A) | (cp == 0x0D) | (cp == 0x2029))
    del cp
    starts = np.concatenate(([0], ends + 1))
    stops = np.concatenate((ends, [len(text)]))
    out: list[int] = []
    for k in np.flatnonzero(stops - starts > line_limit):
        pos, stop = int(starts[k]), int(stops[k])
        while stop - pos > line_limit:
            # the last whitespace before the limit, if it leaves a line worth the name
            space = max(text.rfind(c, pos + line_limit // 4, pos + line_limit) for c in _SPACES)
            pos = space + 1 if space >= 0 else pos + run_limit
            out.append(pos)
    return np.asarray(out, dtype=np.int64)


def with_breaks(text: str, breaks: np.ndarray) -> str:
    """The text as displayed: a SEPARATOR before each break index."""
    if not len(breaks):
        return text
    bounds = [0, *map(int, breaks), len(text)]
    return SEPARATOR.join(text[a:b] for a, b in zip(bounds, bounds[1:]))


def without_breaks(shown: str, breaks: np.ndarray) -> str:
    """`with_breaks` undone: the displayed text less the separators it inserted (the
    k-th inserted separator is at index breaks[k] + k of the displayed text)."""
    if not len(breaks):
        return shown
    at = [int(b) + k for k, b in enumerate(breaks)]
    bounds = [0, *at]
    pieces = [shown[a + (1 if i else 0):b] for i, (a, b) in enumerate(zip(bounds, bounds[1:]))]
    pieces.append(shown[at[-1] + 1:])
    return "".join(pieces)
