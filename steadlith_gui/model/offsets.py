"""The one place where core offsets become Qt text positions, and back.

The core counts code points of the source text. A QTextDocument filled by
`setPlainText(text)` counts UTF-16 code units, and it also turns every line break
into one block separator: "\\r\\n" becomes a single position. So a code point takes

    2 positions  if it is astral (> U+FFFF: emoji, rare CJK),
    0 positions  if it is the "\\r" of a "\\r\\n" pair,
    1 position   otherwise ("\\n", a lone "\\r", U+2028/U+2029 included).

A long line is shown with display breaks (`long_lines`): each is one more position,
taken by the code point before it, so `OffsetMap(text, breaks)` converts to and from
the displayed document and nothing else needs to know about them.

`OffsetMap(text)` records only the code points that do not take exactly one position,
so a conversion is a binary search, and whole arrays convert at once (numpy). Every
widget converts through this module; nothing else in the GUI does offset arithmetic
across the core/Qt boundary.
"""

from __future__ import annotations

import numpy as np


def code_points(text: str) -> np.ndarray:
    return np.frombuffer(text.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def qt_units(text: str, breaks: np.ndarray | None = None, cp: np.ndarray | None = None) -> np.ndarray:
    """Positions each code point of `text` takes in a QTextDocument (0, 1 or 2; one
    more before each display break). `cp`: code_points(text), if the caller has them."""
    cp = code_points(text) if cp is None else cp
    units = np.ones(cp.size, dtype=np.int64)
    units[cp > 0xFFFF] = 2
    if cp.size > 1:
        crlf = np.flatnonzero((cp[:-1] == 0x0D) & (cp[1:] == 0x0A))
        units[crlf] = 0
    if breaks is not None and len(breaks):
        units[np.asarray(breaks, dtype=np.int64) - 1] += 1
    return units


class OffsetMap:
    """Code-point offsets of one source text <-> positions in its QTextDocument."""

    __slots__ = ("length", "display_length", "breaks", "_special", "_delta", "_dstart", "_dend")

    def __init__(self, text: str, breaks: np.ndarray | None = None, cp: np.ndarray | None = None):
        """`breaks`: code-point indices where the display breaks a long line (long_lines);
        `cp`: code_points(text), if the caller has them."""
        self.breaks = np.zeros(0, dtype=np.int64) if breaks is None else np.asarray(breaks, dtype=np.int64)
        units = qt_units(text, self.breaks, cp)
        special = np.flatnonzero(units != 1)
        delta = np.cumsum(units[special] - 1)  # display - source after each special
        before = np.concatenate(([0], delta[:-1])) if special.size else delta
        self.length = int(units.size)
        self.display_length = self.length + (int(delta[-1]) if delta.size else 0)
        self._special = special
        self._delta = delta
        self._dstart = special + before  # display position where each special starts
        self._dend = self._dstart + units[special]

    @property
    def identity(self) -> bool:
        """True when both coordinate systems agree everywhere (plain BMP, no CRLF)."""
        return self._special.size == 0

    def to_display(self, cp):
        """Code-point offset(s) -> Qt position(s). Accepts an int or an int array."""
        if self._special.size == 0:
            return cp if isinstance(cp, (int, np.integer)) else np.asarray(cp, dtype=np.int64)
        arr = np.asarray(cp, dtype=np.int64)
        k = np.searchsorted(self._special, arr, "left")  # specials strictly before cp
        out = arr + np.where(k > 0, self._delta[np.maximum(k - 1, 0)], 0)
        return int(out) if out.ndim == 0 else out

    def to_source(self, pos):
        """Qt position(s) -> code-point offset(s): the code point whose display range
        holds `pos` (the second half of an astral character maps to that character;
        the separator of a "\\r\\n" maps to its "\\n")."""
        if self._special.size == 0:
            return pos if isinstance(pos, (int, np.integer)) else np.asarray(pos, dtype=np.int64)
        arr = np.asarray(pos, dtype=np.int64)
        k = np.searchsorted(self._dend, arr, "right")  # specials whose range ends at or before pos
        out = arr - np.where(k > 0, self._delta[np.maximum(k - 1, 0)], 0)
        nxt = np.minimum(k, self._special.size - 1)
        inside = (k < self._special.size) & (self._dstart[nxt] < arr)
        out = np.where(inside, self._special[nxt], out)
        return int(out) if out.ndim == 0 else out
