"""The inspector's display logic, free of Qt: what the widgets show, computed from
core results in plain Python and numpy (mostly in the worker thread; immutable once
built). Importing it loads no PySide6 (tests/gui/model/test_viewmodel.py checks in a fresh
interpreter), so these rules of presentation are testable without a QApplication.

It is split by concern: `documents` (a document as shown), `layouts` (a chunking in Qt
positions, statuses, what a pane paints), `links` (how the versions line up). This
module holds what one analysis produced, `AnalysisResult` (its first two fields are the
`Chunking`s of A and B, the third the core's `Comparison`, None unless both exist), and
what the window says about it: the first change to land on, the first-look message, the
few-spaces warning, and where F7/F8 land in a chunk (`change_target`).
"""


from __future__ import annotations

from typing import NamedTuple

import numpy as np
from steadlith_core import Chunking, ChunkerParams, Comparison


from .documents import LoadedDocument
from .layouts import STATUS_CODES, ChunkLayout, PaneView, SideStatus
from .links import LinkList, WordMap


def change_target(view: PaneView, index: int) -> int:
    """Where F7/F8 land in chunk `index`: the cut that moved for a shifted chunk (it holds
    no changed word: its end is what differs), else its first changed word, else (a chunk
    whose change is only a deletion beside it) its start."""
    if view.codes is not None and view.codes[index] == STATUS_CODES["shifted"]:
        return int(view.ends[index])
    lo, hi = int(view.starts[index]), int(view.ends[index])
    runs = view.changed_visible(lo, hi)
    if len(runs):
        return max(int(view.changed_starts[runs[0]]), lo)
    return lo


def first_change(comparison) -> tuple[str, int] | None:
    """("shifted" | "edited" | "new", B chunk) a first look should open on: the first
    shifted chunk (the phase shift is what people come to see), else the first B chunk
    that is not reused; None when B reuses everything."""
    if comparison is None:
        return None
    status = comparison.status_b
    for wanted in (("shifted",), ("edited", "new")):
        j = next((j for j, s in enumerate(status) if s in wanted), None)
        if j is not None:
            return status[j], j
    return None


def landing(comparison, view: PaneView, first: tuple[str, int]) -> tuple[int, int, bool]:
    """(B chunk to select, B position to centre, whether it is a shifted region's) for a
    first look at `first` (first_change): the region's first chunk when B shifted,
    else the chunk itself; centred on whichever change comes first in B, the edit that
    caused a shift or the shift (Meld opens on the first difference)."""
    status, j = first
    region = status == "shifted" and bool(comparison.phase_shift_regions)
    if region:
        j = comparison.phase_shift_regions[0].b_chunks[0]
    target = change_target(view, j)
    codes = view.codes
    if codes is not None:
        edited = np.flatnonzero(np.isin(codes[: j + 1], [STATUS_CODES["edited"], STATUS_CODES["new"]]))
        if edited.size:
            target = min(target, change_target(view, int(edited[0])))
    return j, target, region


def first_look_message(comparison, first: tuple[str, int]) -> str:
    """The one line that says what the opened view shows and what to do next."""
    status, j = first
    s = comparison.summary
    cost = f"B reuses {s.reused_chunks} of {s.chunks_b} chunks"
    if status == "shifted":
        return (f"{cost}. Shown: shifted chunk B {j}, same words as A but cut elsewhere "
                "(dashed ticks: A's cuts). F8: next shifted · F7: next change")
    return f"{cost}. Shown: {status} chunk B {j}, changed words marked. F7: next change"


#: Mean word length (code points) above which a text is taken to be written without
#: spaces: English prose averages ~5, code ~6–8, German ~7; Japanese or Chinese text with
#: a space only here and there gives words of dozens of characters. Word length, not the
#: hard-cut share (29 % on the Japanese pair), because unusual parameters can make hard
#: cuts frequent in any language, while long words only come from the text.
FEW_SPACES_MEAN_WORD_CHARS = 12


def few_spaces_warning(side: str, chunking) -> str | None:
    """A warning for a text the whitespace-based normalizer cannot split well, or None."""
    words = chunking.words
    n = len(words.starts)
    if n == 0:
        return None
    mean = float(np.mean(np.asarray(words.ends) - np.asarray(words.starts)))
    if mean <= FEW_SPACES_MEAN_WORD_CHARS:
        return None
    rate = chunking.diagnostics.hard_cut_rate
    return (f"{side} has few spaces (a word averages {mean:.0f} characters; {rate * 100:.0f} % of its cuts are "
            "hard cuts). steadlith-norm/1 splits words at whitespace only, so in text written without spaces "
            "(Japanese, Chinese, Thai) a phrase or sentence is one word: fingerprints see few words and "
            "chunks are cut at max_tokens more than by content.")


#: In AnalysisResult.pending: the fixed-size baseline's churn is still being computed.
BASELINE = "fixed-tokens/1"


class AnalysisResult(NamedTuple):
    a: Chunking | None  # the shown chunking of A
    b: Chunking | None  # the shown chunking of B
    comparison: Comparison | None  # of A and B (None unless both exist)
    params: ChunkerParams
    generation: int
    doc_a: LoadedDocument | None
    doc_b: LoadedDocument | None
    layout_a: ChunkLayout | None
    layout_b: ChunkLayout | None
    ms_a: float  # time to chunk A (and lay it out), milliseconds
    ms_b: float
    ms_total: float  # the whole analysis in the worker
    status_a: SideStatus | None = None  # the comparison, side by side, in Qt positions
    status_b: SideStatus | None = None
    links: LinkList | None = None
    ms_compare: float = 0.0
    comparison_error: str | None = None  # why there is no comparison although A and B exist
    word_map: WordMap | None = None  # positions of A and B aligned by the word diff
    rules: dict | None = None  # {rule: Comparison} of every rule (the shown one first) when A and B exist
    externals: tuple = ()  # external_runs.ExternalColumn of each chosen external chunker, when A and B exist
    # what a second phase still computes for the churn panel: BASELINE (the fixed-size
    # baseline's churn) and the other rules whose comparison was not cached (worker.complete)
    pending: tuple[str, ...] = ()
    # the worker thread's CPU time for the first phase (what the panes wait for), for benchmarks
    cpu_first_ms: float = 0.0

    def side_status(self, side: str) -> SideStatus | None:
        return self.status_a if side == "A" else self.status_b
