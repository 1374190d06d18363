"""The hunt: an adversarial search for the edit that reaches farthest.

A budget of trials is spent in two ways: random restarts (an edit of the realistic mix
anywhere), and local perturbation of the worst edits found so far (the same kind moved
a little, made a little longer or shorter, with other inserted text). Reach rewards an
edit that knocks a rule's cuts out of phase, so for `tttd-v1` the search climbs towards
a phase shift that runs past the margin; for `lmx2-v1` no edit can (docs/contract/lmx2-v1.md#locality), and
the hunt is an attempt to find one.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from ..progress import Progress, report
from .chunkers import LabChunker
from .edits import (DELETE_WORDS, EDIT_KINDS, FIX_WORD, INSERT_SENTENCE, INSERT_WORDS, REWRAP_PARAGRAPH, Edit,
                    LabError, draw_edit)
from .measure import EditOutcome
from .stream import EditedStream

DEFAULT_HUNT_TRIALS = 400
RESTART_SHARE = 0.4  # of the trials after the first tenth, which are all restarts
ELITE = 12  # perturbation starts from one of the best this many


@dataclass(frozen=True)
class HuntResult:
    """`worst`: the edit of largest reach found (ties: more tokens); `failures`: trials
    whose effect passed the rule's margin (None for a chunker without one); `found_at`:
    the trial (0-based) that found `worst`."""

    name: str
    trials: int
    worst: EditOutcome
    found_at: int
    failures: int | None
    seed: int

    def to_dict(self) -> dict:
        return {"name": self.name, "trials": self.trials, "seed": self.seed, "found_at": self.found_at,
                "failures": self.failures, "worst": self.worst.to_dict()}


# A phase shift is set off by where an edit falls and by how many tokens it adds or
# removes; these kinds tune both finely, so a perturbation may switch to one of them.
FINE_KINDS = (INSERT_WORDS, DELETE_WORDS, FIX_WORD, INSERT_SENTENCE)
# Restarts draw every kind that changes words, each as often: a re-wrap never costs
# anything, and the word fixes that dominate real revisions rarely shift a cut.
HUNT_KINDS = tuple(k for k in EDIT_KINDS if k != REWRAP_PARAGRAPH)


def perturb(edit: Edit, rng: random.Random, n_words: int) -> Edit:
    """A neighbour of `edit`: position moved by a few words (sometimes a few hundred),
    length changed a little, other inserted text, sometimes a finer kind of edit."""
    step = int(rng.expovariate(1 / 12))
    position = (edit.position + rng.choice((-1, 1)) * step) % n_words
    length = max(1, edit.length + rng.choice((-3, -2, -1, 0, 0, 1, 2, 3)))
    seed = rng.getrandbits(32) if rng.random() < 0.5 else edit.seed
    kind = edit.kind if rng.random() < 0.6 else rng.choice(FINE_KINDS)
    return Edit(kind, position, length, seed)


def hunt_chunker(chunker: LabChunker, trials: int = DEFAULT_HUNT_TRIALS, *, seed: int = 0,
                 progress: Progress | None = None, done: int = 0, total: int | None = None) -> HuntResult:
    """Spend `trials` edits looking for the largest reach of `chunker`. Progress is
    reported as `done + trial` of `total` (a caller running several hunts adds them up)."""
    if type(trials) is not int or trials < 1:
        raise LabError(f"a hunt needs at least one trial, got {trials!r}")
    doc = chunker.doc
    rng = random.Random(seed)
    total = trials if total is None else total
    # two pools to perturb: the farthest reach, and the deepest start of re-embedding
    # (the quantity a margin bounds); the second keeps the search from settling on one
    # long chunk that the first rewards
    pools: tuple[list, list] = ([], [])  # (score, trial, outcome), best first
    best: tuple[tuple[int, int], int, EditOutcome] | None = None
    failures = 0
    warmup = max(1, trials // 10)
    for t in range(trials):
        pool = pools[t % 2]
        if t < warmup or not pool or rng.random() < RESTART_SHARE:
            edit = draw_edit(rng, doc.n, HUNT_KINDS)
        else:
            edit = perturb(rng.choice(pool)[2].edit, rng, doc.n)
        outcome = chunker.outcome(edit, EditedStream(doc, edit.splices(doc)))
        if outcome.margin_held is False:
            failures += 1
        score = (outcome.reach, outcome.tokens_to_embed)
        if best is None or score > best[0]:
            best = (score, t, outcome)
        for pool, key in zip(pools, (score, (outcome.depth, outcome.reach))):
            if len(pool) < ELITE or key > pool[-1][0]:
                pool.append((key, t, outcome))
                pool.sort(key=lambda e: (-e[0][0], -e[0][1], e[1]))
                del pool[ELITE:]
        report(progress, done + t + 1, total)
    _, found_at, worst = best
    return HuntResult(chunker.name, trials, worst, found_at, failures if chunker.margin is not None else None, seed)
