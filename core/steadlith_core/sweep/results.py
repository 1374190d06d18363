"""Task results merged into one row per parameter set, and the Pareto front.

Merging adds integers and sorts; the ratios and means are computed once at the end from
those sums. So the rows are the same, to the last bit, whatever order the tasks finished
in and whichever executor ran them.

Per-unit figures (mean, p95 of tokens re-embedded) count a commit once however many of
its files changed (their tokens add up), and a pair of files once.

The front: a set is on it when no other set re-embeds no more tokens with chunks at
least as large on average (and is better in one of the two). Larger chunks cost fewer
embeddings and keep more context, fewer re-embedded tokens cost less at each edit; for
the chunk size a retrieval needs, the front names the cheapest sets. With a question set
(sweep --retrieval) the second objective is recall itself instead of that stand-in: a
set is on the front when no other re-embeds no more and recalls at least as much.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass
from typing import Iterable, Sequence

from ..comparison.external import EXTERNAL_KIND
from .grid import ParamSet
from .tasks import TaskResult


@dataclass(frozen=True)
class SetRow:
    """What one parameter set cost over everything the sweep replayed."""

    set: int
    label: str
    boundary_rule: str
    params_hash: str
    tasks_done: int
    tasks_total: int
    units: int  # commits (or pairs) replayed
    tokens_to_embed: int
    mean_tokens_per_unit: float
    p95_tokens_per_unit: int
    chunks_to_embed: int
    chunks: int
    mean_chunk_tokens: float
    p90_chunk_tokens: int
    paragraph_cut_share: float | None  # None: not known (results saved before the classes were)
    sentence_cut_share: float | None
    violations: int | None  # None: an external chunker's row (no locality margin)
    phase_shift_regions: int | None
    # retrieval beside churn (sweep --retrieval): means over the question set of the
    # top-k chunks' recall, precision and IoU; None without questions
    recall: float | None = None
    precision: float | None = None
    iou: float | None = None
    retrieval_top_k: int | None = None
    pareto: bool = False

    @property
    def complete(self) -> bool:
        return self.tasks_done == self.tasks_total

    def to_dict(self) -> dict:
        return asdict(self)


def nearest_rank(ordered: Sequence[int], share: float) -> int:
    """The nearest-rank percentile of an ascending list (0 when empty), as the chunk
    diagnostics compute their p90."""
    return ordered[math.ceil(share * len(ordered)) - 1] if ordered else 0


def _weighted_rank(counts: Sequence[tuple[int, int]], share: float) -> int:
    total = sum(n for _, n in counts)
    if not total:
        return 0
    rank = math.ceil(share * total)
    seen = 0
    for size, n in counts:
        seen += n
        if seen >= rank:
            return size
    return counts[-1][0]


def merge_rows(sets: Sequence[ParamSet], results: Iterable[TaskResult], tasks_per_set: int) -> tuple[SetRow, ...]:
    """One row per set that has at least one result, in set order, the front marked."""
    by_set: dict[int, list[TaskResult]] = defaultdict(list)
    for r in results:
        by_set[r.set].append(r)
    rows = [_row(s, sorted(by_set[s.index], key=lambda r: r.key), tasks_per_set) for s in sets if by_set.get(s.index)]
    return mark_front(rows)


def _row(s: ParamSet, results: list[TaskResult], tasks_total: int) -> SetRow:
    per_unit: dict[str, int] = defaultdict(int)
    sizes: Counter[int] = Counter()
    for r in results:
        for key, tokens in r.units:
            per_unit[key] += tokens
        sizes.update(dict(r.size_counts))
    unit_tokens = sorted(per_unit.values())
    counts = sorted(sizes.items())
    chunks = sum(n for _, n in counts)
    known = all(r.interior_cuts is not None for r in results)
    interior = sum(r.interior_cuts or 0 for r in results)
    total = sum(unit_tokens)
    return SetRow(
        set=s.index, label=s.label, boundary_rule=s.rule, params_hash=s.params.params_hash,
        tasks_done=len(results), tasks_total=tasks_total, units=len(unit_tokens), tokens_to_embed=total,
        mean_tokens_per_unit=total / len(unit_tokens) if unit_tokens else 0.0,
        p95_tokens_per_unit=nearest_rank(unit_tokens, 0.95),
        chunks_to_embed=sum(r.chunks_to_embed for r in results), chunks=chunks,
        mean_chunk_tokens=sum(t * n for t, n in counts) / chunks if chunks else 0.0,
        p90_chunk_tokens=_weighted_rank(counts, 0.90),
        paragraph_cut_share=_share([r.paragraph_cuts for r in results], interior) if known else None,
        sentence_cut_share=_share([r.sentence_cuts for r in results], interior) if known else None,
        violations=None if s.rule == EXTERNAL_KIND else sum(r.violations for r in results),
        phase_shift_regions=None if s.rule == EXTERNAL_KIND else sum(r.phase_shift_regions for r in results),
    )


def _share(counts: list[int | None], interior: int) -> float:
    return sum(c or 0 for c in counts) / interior if interior else 0.0


def _benefit(row: SetRow, by_recall: bool) -> float:
    return row.recall if by_recall else row.mean_chunk_tokens


def dominates(a: SetRow, b: SetRow, by_recall: bool = False) -> bool:
    """`a` re-embeds no more than `b` and is no worse on the other objective (recall, or
    else mean chunk size), and is better in one."""
    ga, gb = _benefit(a, by_recall), _benefit(b, by_recall)
    return (a.tokens_to_embed <= b.tokens_to_embed and ga >= gb
            and (a.tokens_to_embed < b.tokens_to_embed or ga > gb))


def mark_front(rows: Sequence[SetRow]) -> tuple[SetRow, ...]:
    """The rows with `pareto` set on those no other row dominates. Only rows with every
    task done are compared: a partial total is not a cost. Recall is the other objective
    when every complete row has it."""
    complete = [r for r in rows if r.complete]
    by_recall = bool(complete) and all(r.recall is not None for r in complete)
    out = []
    for r in rows:
        on_front = r.complete and not any(dominates(o, r, by_recall) for o in complete if o is not r)
        out.append(SetRow(**{**asdict(r), "pareto": on_front}))
    return tuple(out)
