"""A chunker's outcomes over many edits, summarized: the distribution of the cost, how
often locality failed, and the worst edits."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from .measure import EditOutcome

WORST_EDITS = 10
STATISTICS = ("mean", "p50", "p95", "p99", "max")


def distribution(values: Sequence[int]) -> dict[str, float]:
    """mean, p50, p95, p99 and max; percentiles by nearest rank (the ceil(q n)-th smallest,
    as the p90 of docs/contract/index.md#diagnostics), so every figure but the mean is a value some edit really had."""
    if not values:
        return {k: 0.0 for k in STATISTICS}
    ordered = sorted(values)
    n = len(ordered)

    def rank(q: float) -> float:
        return float(ordered[max(0, math.ceil(q * n) - 1)])

    return {"mean": sum(ordered) / n, "p50": rank(0.5), "p95": rank(0.95), "p99": rank(0.99),
            "max": float(ordered[-1])}


@dataclass(frozen=True)
class RuleSummary:
    """One chunker over the lab's edits. `margin` is the rule's locality margin in tokens
    (None for the fixed-size baseline, which has none, and then `past_margin_share` is
    None too); `tokens` and `reach` are `distribution()`s; `worst` the edits of largest
    reach, largest first (ties: more tokens first, then the earlier edit)."""

    name: str
    strategy: str
    params_hash: str
    margin: int | None
    edits: int
    tokens: dict[str, float]
    reach: dict[str, float]
    chunks: dict[str, float]
    past_margin_share: float | None
    no_word_changed: int
    worst: tuple[EditOutcome, ...]

    def to_dict(self) -> dict:
        return {"name": self.name, "strategy": self.strategy, "params_hash": self.params_hash, "margin": self.margin,
                "edits": self.edits, "tokens_to_embed": self.tokens, "chunks_to_embed": self.chunks,
                "reach": self.reach, "past_margin_share": self.past_margin_share,
                "edits_changing_no_word": self.no_word_changed, "worst": [o.to_dict() for o in self.worst]}


def worst_of(outcomes: Sequence[EditOutcome], k: int = WORST_EDITS) -> tuple[EditOutcome, ...]:
    order = sorted(range(len(outcomes)), key=lambda i: (-outcomes[i].reach, -outcomes[i].tokens_to_embed, i))
    return tuple(outcomes[i] for i in order[:k])


def summarize(name: str, strategy: str, params_hash: str, margin: int | None, outcomes: Sequence[EditOutcome],
              k: int = WORST_EDITS) -> RuleSummary:
    past = None
    if margin is not None:
        past = sum(1 for o in outcomes if o.margin_held is False) / len(outcomes) if outcomes else 0.0
    return RuleSummary(
        name=name, strategy=strategy, params_hash=params_hash, margin=margin, edits=len(outcomes),
        tokens=distribution([o.tokens_to_embed for o in outcomes]),
        reach=distribution([o.reach for o in outcomes]),
        chunks=distribution([o.chunks_to_embed for o in outcomes]),
        past_margin_share=past,
        no_word_changed=sum(1 for o in outcomes if not o.words_changed),
        worst=worst_of(outcomes, k),
    )
