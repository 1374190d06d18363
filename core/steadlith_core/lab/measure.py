"""What one edit cost a chunker: `EditOutcome`, and `measure()` that computes it.

Definitions (the README's lab section repeats them for readers):

- A chunk of the edited document must be **re-embedded** when its hash occurs nowhere in
  the original: what an embedding cache keyed by chunk hash pays. It is compare()'s
  `tokens_to_embed` minus its `unaligned_hash_hit_tokens_b` (tests hold the two equal).
- The **edit** occupies token ranges of the edited document, one per place where words
  changed (empty for a deletion, two for a moved paragraph).
- **Reach**: for each re-embedded chunk, the distance from the nearest edit to the
  chunk's far end (its end when it lies after the edit, its start when before, the
  larger of both when it holds the edit); the reach of the edit is the largest of them,
  0 when nothing is re-embedded.
- **Depth**: the same with the chunk's near end: how far from the edit the farthest
  re-embedded chunk begins. A rule whose margin holds keeps it below the margin, away
  from the document's ends, so the hunt climbs it as well as the reach.
- **Margin held**: compare()'s locality check (docs/contract/tttd-v1.md#locality,
  docs/contract/lmx2-v1.md#locality) at the rule's own margin M: in every stretch between edits (the document's ends count) of at least 2M
  tokens, no chunk lying wholly M tokens inside it is re-embedded. None for a chunker
  without a margin (the fixed-size baseline).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

from .edits import Edit


class ChangedChunk(NamedTuple):
    """A chunk of the edited document whose hash the original lacks: where it lies in
    tokens, and its own tokens when they differ from that span (an external chunk that
    overlaps its neighbours or cuts through words)."""

    start: int
    end: int
    tokens: int | None = None


@dataclass(frozen=True)
class EditOutcome:
    edit: Edit
    tokens_to_embed: int
    chunks_to_embed: int
    reach: int
    margin_held: bool | None
    words_changed: bool
    depth: int = 0

    def to_dict(self) -> dict:
        return {"edit": self.edit.to_dict(), "tokens_to_embed": self.tokens_to_embed,
                "chunks_to_embed": self.chunks_to_embed, "reach": self.reach, "depth": self.depth,
                "margin_held": self.margin_held, "words_changed": self.words_changed}


def measure(edit: Edit, changed: Iterable[ChangedChunk], edits: Sequence[tuple[int, int]], total_tokens: int,
            margin: int | None, words_changed: bool) -> EditOutcome:
    """The outcome of `edit` from the re-embedded chunks of the edited document, the token
    ranges where its words changed (in order) and its token total."""
    changed = list(changed)
    reach = max((_reach(c, edits) for c in changed), default=0)
    depth = max((_depth(c, edits) for c in changed), default=0)
    held = None if margin is None else not _violates(changed, edits, total_tokens, margin)
    tokens = sum(c.end - c.start if c.tokens is None else c.tokens for c in changed)
    return EditOutcome(edit, tokens, len(changed), reach, held, words_changed, depth)


def _reach(c: ChangedChunk, edits: Sequence[tuple[int, int]]) -> int:
    if not edits:  # no word changed, yet a chunk did: the whole chunk is the effect
        return c.end - c.start
    return min(max(x0 - c.start, c.end - x1, 0) for x0, x1 in edits)


def _depth(c: ChangedChunk, edits: Sequence[tuple[int, int]]) -> int:
    if not edits:
        return 0
    return min(max(x0 - c.end, c.start - x1, 0) for x0, x1 in edits)


def _violates(changed: Sequence[ChangedChunk], edits: Sequence[tuple[int, int]], total: int, margin: int) -> bool:
    bounds = [0, *(x for span in edits for x in span), total]
    for r0, r1 in zip(bounds[::2], bounds[1::2]):  # the stretches the edit left alone
        if r1 - r0 < 2 * margin:
            continue
        lo, hi = r0 + margin, r1 - margin
        if any(lo <= c.start and c.end <= hi for c in changed):
            return True
    return False
