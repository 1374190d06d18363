"""Thin, Qt-free adapters between core results and the widgets.

- `LoadedDocument`: a document as shown (source text, name, offset map, syntax spans).
- `ChunkLayout`: a `Chunking`'s chunk spans and cut markers in Qt positions.
- `AnalysisResult`: what one analysis produced; its first two fields are the
  `Chunking`s of A and B (the comparison of the next issue is the third).

Everything here is built in the worker thread and never changed afterwards.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from steadlith_core import Chunking, ChunkerParams

from .highlight import SyntaxSpans, syntax_spans
from .offsets import OffsetMap
from .palette import marker_kind


class DocumentError(Exception):
    """A document cannot be shown; the message is meant for the user as is."""


@dataclass(frozen=True, eq=False)
class LoadedDocument:
    text: str
    name: str  # shown in the pane header
    path: str | None
    offsets: OffsetMap
    syntax: SyntaxSpans | None

    @property
    def size_label(self) -> str:
        n = len(self.text)
        if n >= 1_000_000:
            return f"{n / 1e6:.1f} M chars"
        if n >= 10_000:
            return f"{n / 1e3:.0f} k chars"
        return f"{n:,} chars"


def prepare_document(side: str, text: str, name: str | None = None, path: str | None = None) -> LoadedDocument:
    """Check and index a text for display. Runs in the worker thread."""
    shown = name or (os.path.basename(path) if path else f"document {side}")
    if text == "":
        raise DocumentError(f"{side} is empty: nothing to chunk ({shown})")
    if text.isspace():  # SPEC §1 whitespace is exactly str.isspace(): no words at all
        raise DocumentError(f"{side} has only whitespace: nothing to chunk ({shown})")
    offsets = OffsetMap(text)
    return LoadedDocument(text, shown, path, offsets, syntax_spans(text, name or path, offsets))


@dataclass(frozen=True, eq=False)
class ChunkLayout:
    """Chunk spans of one Chunking in Qt positions.

    starts[i], ends[i]: where chunk i's first word starts and last word ends; the cut
    marker of chunk i sits at ends[i]. markers[i] is the marker kind (palette.MARKER_KINDS).
    """

    starts: np.ndarray
    ends: np.ndarray
    markers: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.markers)

    @classmethod
    def build(cls, chunking: Chunking, offsets: OffsetMap) -> "ChunkLayout":
        chunks = chunking.chunks
        n = len(chunks)
        starts = np.fromiter((c.start for c in chunks), dtype=np.int64, count=n)
        ends = np.fromiter((c.end for c in chunks), dtype=np.int64, count=n)
        markers = tuple(marker_kind(c.kind, c.snapped) for c in chunks)
        return cls(
            np.asarray(offsets.to_display(starts), dtype=np.int64),
            np.asarray(offsets.to_display(ends), dtype=np.int64),
            markers,
        )

    def chunk_at(self, pos: int) -> int | None:
        """The chunk whose span [start, end] holds Qt position `pos`, if any."""
        i = int(np.searchsorted(self.starts, pos, "right")) - 1
        if i >= 0 and pos <= self.ends[i]:
            return i
        return None

    def visible(self, lo: int, hi: int) -> range:
        """Indices of the chunks that overlap Qt positions [lo, hi] (span or marker)."""
        i0 = int(np.searchsorted(self.ends, lo, "left"))
        i1 = int(np.searchsorted(self.starts, hi, "right"))
        return range(i0, max(i0, i1))


class AnalysisResult(NamedTuple):
    a: Chunking | None  # the shown chunking of A
    b: Chunking | None  # the shown chunking of B
    comparison: object | None  # reserved: the A/B comparison of the next issue
    params: ChunkerParams
    generation: int
    doc_a: LoadedDocument | None
    doc_b: LoadedDocument | None
    layout_a: ChunkLayout | None
    layout_b: ChunkLayout | None
    ms_a: float  # time to chunk A (and lay it out), milliseconds
    ms_b: float
    ms_total: float  # the whole analysis in the worker
