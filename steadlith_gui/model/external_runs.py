"""External chunkers in the worker: their spans on A and B, cached per (chunker, text),
their churn by hash, and what a pane needs to show them. No Qt (the worker thread calls
it; tests call it directly).

Splitters are slow next to the rules (LlamaIndex's SentenceSplitter takes longer than
both rules together on a long document), and a parameter change of a boundary rule does
not change what a splitter cuts. So each chunking is cached by the chunker (its kind,
chunk_size, overlap, token counter) and the text: moving a slider re-runs no splitter.
With matched sizing the target is the shown rule's mean chunk on A; a change that moves
that mean re-sizes the splitter, and the sizes the bisection already tried come from the
cache.
"""

from __future__ import annotations

import difflib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np
from steadlith_core.errors import SteadlithError
from steadlith_core.comparison.external import (ExternalChunking, JsonlChunker, SplitterChunker, install_hint,
                                                installed_splitters, match_mean_tokens)
from steadlith_core.comparison.chunker_churn import ChunkerChurn, compare_external, statuses_by_hash

from .external_choice import JSONL, SHORT_LABELS, ExternalChoice
from .layouts import STATUS_CODES, ChunkLayout, SideStatus
from .links import LinkList

EXTERNAL_MARKER = "external"
_EMPTY = np.zeros(0, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class ExternalPanes:
    """An external chunking laid out for the panes: spans in Qt positions (one marker kind,
    "external"), statuses by hash, and link-map bands joining equal hashes in order."""

    layout_a: ChunkLayout
    layout_b: ChunkLayout
    status_a: SideStatus
    status_b: SideStatus
    links: LinkList


@dataclass(frozen=True, eq=False)
class ExternalColumn:
    """One external chunker of a result: its churn (or why there is none) and its spans."""

    key: str  # ExternalChoice key: a SPLITTERS kind or "jsonl"
    label: str  # short, for a column head
    name: str  # the chunker with its settings, e.g. "semchunk(chunk_size=347)"
    row: ChunkerChurn | None
    error: str | None
    a: ExternalChunking | None = None
    b: ExternalChunking | None = None
    panes: ExternalPanes | None = None
    sizing: str = ""  # how its chunk_size was chosen, in words


class ExternalRuns:
    """The chunkings of external chunkers, cached per (chunker, text), one cache per window.
    The second phase of two analyses can overlap on the pool: `columns` runs one at a time.
    `runs` counts the chunkings actually made."""

    def __init__(self, max_entries: int = 128):
        self._lock = threading.Lock()
        self._cache: OrderedDict[tuple, ExternalChunking] = OrderedDict()
        self._max = max_entries
        self.runs = 0

    def chunk(self, chunker: SplitterChunker, text: str) -> ExternalChunking:
        return self._cached((chunker, text), lambda: chunker.chunk(text))

    def _cached(self, key: tuple, make):
        hit = self._cache.get(key)
        if hit is not None:
            self._cache.move_to_end(key)
            return hit
        value = make()
        self.runs += 1
        self._cache[key] = value
        while len(self._cache) > self._max:
            self._cache.popitem(last=False)
        return value

    def jsonl_pair(self, chunker: JsonlChunker, text_a: str, text_b: str) -> tuple[ExternalChunking, ExternalChunking]:
        # a rewritten file is read again: its size and time are part of the key
        stamps = tuple(_stamp(p) for p in (chunker.path_a, chunker.path_b))
        return self._cached((chunker, stamps, text_a, text_b), lambda: chunker.chunk_pair(text_a, text_b))

    def columns(self, choice: ExternalChoice, text_a: str, text_b: str, target: float,
                token_counter: str, rule: str) -> tuple[ExternalColumn, ...]:
        """Every chosen chunker on A and B. `target`: the shown rule's mean chunk tokens on
        A (for matched sizing). A chunker that cannot run is a column with its reason."""
        with self._lock:
            return self._columns(choice, text_a, text_b, target, token_counter, rule)

    def _columns(self, choice: ExternalChoice, text_a: str, text_b: str, target: float,
                 token_counter: str, rule: str) -> tuple[ExternalColumn, ...]:
        installed = set(installed_splitters())
        out = []
        for key in choice.chunkers:
            label = SHORT_LABELS.get(key, key)
            if key != JSONL and key not in installed:
                out.append(ExternalColumn(key, label, key, None, f"not installed: {install_hint(key)}"))
                continue
            try:
                out.append(self._column(choice, key, label, text_a, text_b, target, token_counter, rule))
            except (SteadlithError, ValueError) as e:
                out.append(ExternalColumn(key, label, key, None, str(e)))
            except MemoryError:
                raise
            except Exception as e:  # noqa: BLE001 - another library's bug must not take the window's analysis with it
                out.append(ExternalColumn(key, label, key, None, f"{key} failed: {type(e).__name__}: {e}"))
        return tuple(out)

    def _column(self, choice: ExternalChoice, key: str, label: str, text_a: str, text_b: str, target: float,
                token_counter: str, rule: str) -> ExternalColumn:
        chunker = choice.chunker(key, token_counter)
        if isinstance(chunker, JsonlChunker):
            a, b = self.jsonl_pair(chunker, text_a, text_b)
            sizing = "spans as read from the files"
        else:
            if choice.sizing == "matched":
                chunker = match_mean_tokens(chunker, text_a, target, run=lambda c, t: self.chunk(c, t))
                sizing = f"chunk_size {chunker.chunk_size:,} t: mean on A matched to {rule}'s {target:,.1f} t"
            else:
                sizing = f"chunk_size {chunker.chunk_size:,} t (set by you)"
            a, b = self.chunk(chunker, text_a), self.chunk(chunker, text_b)
        return ExternalColumn(key, label, chunker.name, compare_external(a, b), None, a, b, None, sizing)


def _stamp(path: str) -> tuple[int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (-1, -1)  # reading it gives the error, naming the file
    return (st.st_mtime_ns, st.st_size)


def hash_alignment(a: ExternalChunking, b: ExternalChunking) -> list[tuple[int, int]]:
    """Pairs (i, j) of chunks with equal hashes, in order in both (the longest such
    sequence difflib finds): the bands of the link map."""
    ha, hb = [c.hash for c in a.chunks], [c.hash for c in b.chunks]
    matcher = difflib.SequenceMatcher(None, ha, hb, autojunk=False)
    return [(blk.a + t, blk.b + t) for blk in matcher.get_matching_blocks() for t in range(blk.size)]


def lay_out(column: ExternalColumn, offsets_a, offsets_b) -> ExternalColumn:
    """The column with what the panes need (worker thread): spans in Qt positions, the
    statuses by hash (reused, new, removed: spans need not follow words, so nothing is
    edited or shifted) and the link map's bands."""
    if column.a is None or column.b is None:
        return column
    st_a, st_b = statuses_by_hash(column.a.chunks, column.b.chunks)
    pairs = hash_alignment(column.a, column.b)
    partner_a: list[int | None] = [None] * len(st_a)
    partner_b: list[int | None] = [None] * len(st_b)
    for i, j in pairs:
        partner_a[i], partner_b[j] = j, i
    layouts = []
    for chunking, offsets in ((column.a, offsets_a), (column.b, offsets_b)):
        n = len(chunking.chunks)
        starts = np.fromiter((c.start for c in chunking.chunks), np.int64, n)
        ends = np.fromiter((c.end for c in chunking.chunks), np.int64, n)
        layouts.append(ChunkLayout(np.asarray(offsets.to_display(starts), dtype=np.int64),
                                   np.asarray(offsets.to_display(ends), dtype=np.int64), (EXTERNAL_MARKER,) * n))
    statuses = []
    for side, st, partner in (("A", st_a, partner_a), ("B", st_b, partner_b)):
        codes = np.fromiter((STATUS_CODES[s] for s in st), dtype=np.int8, count=len(st))
        statuses.append(SideStatus(side, st, codes, tuple(partner), _EMPTY, _EMPTY))
    links = LinkList.build(st_a, st_b, pairs)
    panes = ExternalPanes(layouts[0], layouts[1], statuses[0], statuses[1], links)
    return ExternalColumn(column.key, column.label, column.name, column.row, column.error, column.a, column.b,
                          panes, column.sizing)
