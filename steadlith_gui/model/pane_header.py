"""What a pane's header says, as a value: the presenter gathers it from what the pane was
given to show, and the pane column renders it (widgets/pane_column.py) without reading
any pane's state itself. Qt-free."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np

from steadlith_core.vocabulary import REUSED, STATUSES


@dataclass(frozen=True)
class ChunkCounts:
    chunks: int
    words: int
    tokens: int
    by_status: Mapping[str, int] | None  # None until the two versions are compared


@dataclass(frozen=True)
class PaneHeader:
    side: str
    name: str | None = None  # None: no document
    path: str | None = None
    size_label: str = ""
    syntax: str | None = None  # the syntax colour's language, if any
    modified: bool = False
    editable: bool = False
    status: str = ""  # loading…, analysing…, edited: …
    counts: ChunkCounts | None = None  # None until the document is chunked

    def count_parts(self) -> list[tuple[str, str | None]]:
        """(text, status) of the second line's counts; status None: not a status count."""
        c = self.counts
        if c is None:
            return []
        parts: list[tuple[str, str | None]] = [(f"{c.chunks:,} chunks", None)]
        if c.by_status is None:
            return parts
        parts.append((f"{c.by_status.get(REUSED, 0):,} {REUSED}", None))
        parts += [(f"{n:,} {s}", s) for s in STATUSES if s != REUSED and (n := c.by_status.get(s, 0))]
        return parts


def pane_header(side: str, doc: Any, identity: tuple[str | None, str | None] | None, chunking: Any,
                statuses: Any, *, modified: bool, editable: bool, status: str = "") -> PaneHeader:
    """The header of a pane showing `doc` (a LoadedDocument, None: empty) under
    `identity` (name, path; None: the document's own), chunked as `chunking` with `statuses` (viewmodel.SideStatus)."""
    if doc is None:
        return PaneHeader(side)
    counts = None
    if chunking is not None:
        d = chunking.diagnostics
        by_status = None
        if statuses is not None:
            # one status code per chunk (~10,000 on a 10 MB document): counted in numpy
            by_status = dict(zip(STATUSES, np.bincount(statuses.codes, minlength=len(STATUSES)).tolist()))
        counts = ChunkCounts(d.chunk_count, d.word_count, d.total_tokens, by_status)
    name, path = identity or (doc.name, doc.path)
    return PaneHeader(side, name, path, doc.size_label, doc.syntax.lexer_name if doc.syntax is not None else None,
                      modified, editable, status, counts)
