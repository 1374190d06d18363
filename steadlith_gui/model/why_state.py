"""The churn panel's "Why?" section, without Qt: which phase-shift region is explained,
the core's paragraph for it, and the words to mark in both panes.

The explanation is the core's (steadlith_core.comparison.causes.explain_comparison, one
region on demand); the window computes it off the GUI thread and hands it back with the
ticket `request` gave, so an answer for a region, or a result, no longer shown is
dropped. A new result (or a change that will bring one) clears the section: an
explanation is only ever shown beside the comparison it explains.

Marks are words: a candidate is the word whose fingerprint matched (tttd-v1) or the
word before the cut (lmx2-v1); a cut is marked on the last word before it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

EMPTY = "empty"
COMPUTING = "computing"
SHOWN = "shown"
STALE = "stale"
FAILED = "failed"

LOST = "lost"
CREATED = "created"
FALLBACK = "fallback"
A_CUT = "a-cut"
RESYNC = "resync"

PROMPT = "Select a phase-shift region (or click a shifted chunk) to see why its chunks moved."
STALE_TEXT = "The result changed: select a region to see why its chunks moved."


@dataclass(frozen=True)
class WordMark:
    """A word to mark in one pane: `side` A or B, `word` its index there, `role` one of
    lost, created, fallback, a-cut, resync, `label` what it is, in words."""

    side: str
    word: int
    role: str
    label: str


def _cut_word(cut: int | None) -> int | None:
    """The word a cut (between words cut-1 and cut) is marked on."""
    return None if cut is None or cut <= 0 else cut - 1


def word_marks(x: Any) -> tuple[WordMark, ...]:
    """What a RegionExplanation names, as words of A and B: the lost and created
    candidates, B's first re-cut (the fallback), A's cut it replaced, and where both
    versions meet again."""
    marks: list[WordMark] = []
    for c in x.lost:
        if c.a_word is not None:
            marks.append(WordMark("A", c.a_word, LOST, f"lost {c.kind} candidate (A word {c.a_word:,})"))
        if c.b_word is not None:
            marks.append(WordMark("B", c.b_word, LOST, f"A's lost {c.kind} candidate, no longer one in B "
                                                       f"(B word {c.b_word:,})"))
    for c in x.created:
        if c.b_word is not None:
            marks.append(WordMark("B", c.b_word, CREATED, f"created {c.kind} candidate (B word {c.b_word:,})"))
        if c.a_word is not None:
            marks.append(WordMark("A", c.a_word, CREATED, f"B's new {c.kind} candidate, not one in A "
                                                          f"(A word {c.a_word:,})"))
    w = _cut_word(x.decision_b.cut_word)
    if w is not None:
        marks.append(WordMark("B", w, FALLBACK, f"B's {x.decision_b.kind} cut after word {w:,}"))
    w = _cut_word(x.decision_a.cut_word)
    if w is not None:
        marks.append(WordMark("A", w, A_CUT, f"A's {x.decision_a.kind} cut after word {w:,}"))
    if x.resynced:
        for side, cut in (("A", x.resync_a_word), ("B", x.resync_b_word)):
            w = _cut_word(cut)
            if w is not None:
                marks.append(WordMark(side, w, RESYNC, f"both versions meet again after {side} word {w:,}"))
    return tuple(marks)


def region_of_chunk(comparison: Any, side: str, index: int) -> int | None:
    """The phase-shift region holding chunk `index` of `side` (A or B), or None."""
    if comparison is None:
        return None
    for k, r in enumerate(comparison.phase_shift_regions):
        lo, hi = r.a_chunks if side == "A" else r.b_chunks
        if lo <= index < hi:
            return k
    return None


class WhyState:
    """The region explained, its paragraph and marks, and whether they are current."""

    def __init__(self) -> None:
        self.status = EMPTY
        self.comparison: Any = None
        self.region: int | None = None
        self.explanation: Any = None
        self.marks: tuple[WordMark, ...] = ()
        self.text = PROMPT
        self._ticket = 0

    @property
    def rule(self) -> str | None:
        return None if self.comparison is None else self.comparison.b.boundary_rule

    def request(self, comparison: Any, region: int) -> int | None:
        """Explain `region` of `comparison`: a ticket for `accept`, or None when it is
        already shown (or being computed)."""
        if (comparison is self.comparison and region == self.region
                and self.status in (COMPUTING, SHOWN)):
            return None
        self._ticket += 1
        self.comparison, self.region = comparison, region
        self.explanation, self.marks = None, ()
        self.status = COMPUTING
        self.text = f"Explaining phase-shift region {region + 1}…"
        return self._ticket

    def accept(self, ticket: int, explanation: Any) -> bool:
        """The explanation for `ticket`; False (dropped) when another was asked for since."""
        if ticket != self._ticket or self.status != COMPUTING:
            return False
        self.explanation = explanation
        self.marks = word_marks(explanation)
        self.text = f"Region {self.region + 1} ({self.rule}): {explanation.text}"
        self.status = SHOWN
        return True

    def fail(self, ticket: int, message: str) -> bool:
        if ticket != self._ticket or self.status != COMPUTING:
            return False
        self.text = f"Region {self.region + 1} could not be explained: {message}"
        self.status = FAILED
        return True

    def invalidate(self) -> bool:
        """The result changed (or is about to): nothing shown explains it now. True when
        something was shown or being computed."""
        if self.status == EMPTY or (self.status == STALE and self.comparison is None):
            return False
        self._ticket += 1
        self.comparison, self.region, self.explanation, self.marks = None, None, None, ()
        self.status = STALE
        self.text = STALE_TEXT
        return True
