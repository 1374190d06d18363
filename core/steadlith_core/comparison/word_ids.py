"""Dense word ids for the word diff of a one-shot comparison (`steadlith compare`).

The word diff compares words by their symbols (diff.py): 8 bytes a word of each
document, held while both documents are. A WordIds gives every distinct symbol of the
documents it reads one uint32 id instead (a document's new symbols take the next ids,
in sorted order), so each document keeps 4 bytes a word and its symbols go once its chunking's candidates
exist. Ids are equal exactly when the symbols are, so the diff on ids is the diff on
symbols.

The first document's distinct symbols are found by sorting a copy of them; each later
document's are looked up among those already known a block at a time, and only the
symbols never seen before are sorted.
"""

from __future__ import annotations

import numpy as np

# Symbols looked up at a time: the temporaries of a block are all a lookup allocates
# beside the ids it writes.
LOOKUP_BLOCK = 1 << 18


class WordIds:
    """The ids of the symbols read so far (see the module). Not thread-safe: the caller
    (Analysis) holds its lock."""

    def __init__(self) -> None:
        # sorted distinct symbols, in parts: the ids of a part follow those of the parts before it
        self._parts: list[np.ndarray] = []
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def ids(self, symbols: np.ndarray) -> np.ndarray:
        """A uint32 id for each of `symbols` (uint64), read-only."""
        symbols = np.ascontiguousarray(symbols, dtype=np.uint64)
        out = np.empty(symbols.size, dtype=np.uint32)
        missing = np.zeros(symbols.size, dtype=bool)
        if self._parts:
            for lo in range(0, symbols.size, LOOKUP_BLOCK):
                found = self._look_up(symbols[lo : lo + LOOKUP_BLOCK])
                missing[lo : lo + found.size] = found < 0
                out[lo : lo + found.size] = np.maximum(found, 0)
        else:
            missing[:] = True
        if missing.any():
            new = symbols[missing]  # the first document: all of them, sorted in place
            new.sort()
            if new.size:
                first = np.empty(new.size, dtype=bool)
                first[0] = True
                np.not_equal(new[1:], new[:-1], out=first[1:])
                new = new[first]
                del first
            if self._count + new.size > np.iinfo(np.uint32).max:
                raise OverflowError("more distinct words than uint32 ids")
            base = self._count
            self._parts.append(new)
            self._count += new.size
            for lo in range(0, symbols.size, LOOKUP_BLOCK):
                miss = missing[lo : lo + LOOKUP_BLOCK]
                if miss.any():
                    part = symbols[lo : lo + LOOKUP_BLOCK][miss]
                    out[lo : lo + miss.size][miss] = np.searchsorted(new, part) + base
        out.flags.writeable = False
        return out

    def _look_up(self, part: np.ndarray) -> np.ndarray:
        """The id of each symbol of `part` already known, -1 for the others (the parts
        hold no symbol twice)."""
        found = np.full(part.size, -1, dtype=np.int64)
        base = 0
        for values in self._parts:
            at = np.searchsorted(values, part)
            at[at == values.size] = 0
            hit = values[at] == part
            found[hit] = at[hit] + base
            base += values.size
        return found
