"""run_lab(): many edits of one document, measured under every chunker asked for."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

from ..chunking.chunks import AnyParams
from ..chunking.lmx2_params import Lmx2Params
from ..chunking.params import ChunkerParams
from ..comparison.baseline import BASELINE_STRATEGY, FixedTokenParams
from ..comparison.external import SplitterChunker
from ..progress import Progress, report
from .chunkers import FIXED, LabChunker, baseline_params, make_chunker
from .edits import Edit, LabDocument, LabError, draw_edits
from .hunt import HuntResult, hunt_chunker
from .measure import EditOutcome
from .stream import EditedStream
from .summary import RuleSummary, summarize

SCHEMA = "steadlith-lab/1"
DEFAULT_EDITS = 500


@dataclass(frozen=True, eq=False)
class LabResult:
    """Everything a lab run found. `rules` and `outcomes` are keyed by the names given to
    run_lab, in that order; `outcomes[name][i]` is the outcome of `edits[i]`; `hunts` is
    empty unless hunt_trials > 0."""

    words: int
    tokens: dict[str, int]
    seed: int
    edits: tuple[Edit, ...]
    rules: dict[str, RuleSummary]
    outcomes: dict[str, tuple[EditOutcome, ...]]
    hunts: dict[str, HuntResult]
    params: dict[str, dict]

    def to_dict(self) -> dict:
        return {
            "schema": SCHEMA, "words": self.words, "tokens": self.tokens, "seed": self.seed,
            "edits": len(self.edits),
            "rules": {name: {**s.to_dict(), "params": self.params[name]} for name, s in self.rules.items()},
            "hunts": {name: h.to_dict() for name, h in self.hunts.items()},
        }


def _sizes_from(rules: Mapping[str, object]) -> AnyParams | None:
    """The parameters the fixed-size baseline takes its window from: tttd-v1's, else the first rule's."""
    ordered = sorted((p for p in rules.values() if isinstance(p, (ChunkerParams, Lmx2Params))),
                     key=lambda p: not isinstance(p, ChunkerParams))
    return ordered[0] if ordered else None


def with_fixed(rules: Mapping[str, object]) -> dict[str, object]:
    """`rules` with the fixed-size baseline given as None (run_lab's "fixed") replaced by
    the FixedTokenParams the lab measures it with: what another measure of the same
    chunkers (retrieval) must chunk with."""
    base = baseline_params(_sizes_from(rules))
    return {name: base if params is None and name == FIXED else params for name, params in rules.items()}


# The most edits (and hunt trials) a run takes. Each one is chunked under every chunker
# and its outcome kept (about 1 KB a chunker) at a few hundred a second on a 60 KB
# document: a million is hours and a gigabyte; a larger count could never finish.
MAX_EDITS = 1_000_000
MAX_HUNT_TRIALS = 1_000_000
COUNT_REASON = ("each edit or trial is chunked under every chunker and its outcome kept (about 1 KB a chunker), a few hundred "
                "a second: a million already takes hours")


def _count(name: str, value: object, low: int, high: int | None = None) -> int:
    if type(value) is not int or value < low:
        raise LabError(f"{name} must be an integer >= {low}, got {value!r}")
    if high is not None and value > high:
        raise LabError(f"{name} must be <= {high:,}, got {value:,} ({COUNT_REASON})")
    return value


def build_chunkers(doc: LabDocument, rules: Mapping[str, AnyParams | FixedTokenParams | None]) -> list[LabChunker]:
    if not rules:
        raise LabError("name at least one chunker to measure (tttd-v1, lmx2-v1, fixed)")
    sizes = _sizes_from(rules)
    chunkers = [make_chunker(name, params, doc, doc.pipeline, sizes) for name, params in rules.items()]
    # each chunker holds what it reads of the original, and the lab document its text
    # stages: the pipeline's rule stages of it (lmx2-v1's keys, tttd-v1's fingerprints)
    # would otherwise stay alive for the whole run
    doc.pipeline.clear()
    return chunkers


def run_lab(text: str, rules: Mapping[str, AnyParams | FixedTokenParams | None], *, edits: int = DEFAULT_EDITS,
            seed: int = 0, hunt_trials: int = 0, progress: Progress | None = None) -> LabResult:
    """Draw `edits` edits of the realistic mix (seeded) over `text` and measure each under
    every chunker of `rules` ({"tttd-v1": ChunkerParams, "lmx2-v1": Lmx2Params, "fixed":
    None for the baseline at the tttd-v1 parameters' size; any name: an
    external.SplitterChunker, split again whole for every edit}); with `hunt_trials`, hunt
    each chunker's worst edit too. `progress(done, total)` counts edits then hunt trials;
    a `Cancelled` raised from it stops the run."""
    edits = _count("edits", edits, 1, MAX_EDITS)
    seed = _count("seed", seed, 0)
    hunt_trials = _count("hunt_trials", hunt_trials, 0, MAX_HUNT_TRIALS)
    doc = LabDocument(text)
    chunkers = build_chunkers(doc, rules)
    drawn = draw_edits(doc.n, edits, seed)
    total = edits + hunt_trials * len(chunkers)
    outcomes: dict[str, list[EditOutcome]] = {c.name: [] for c in chunkers}
    for i, edit in enumerate(drawn):
        stream = EditedStream(doc, edit.splices(doc))
        for c in chunkers:
            outcomes[c.name].append(c.outcome(edit, stream))
        report(progress, i + 1, total)
    hunts = {}
    for k, c in enumerate(chunkers):
        if hunt_trials:
            hunts[c.name] = hunt_chunker(c, hunt_trials, seed=seed, progress=progress,
                                         done=edits + k * hunt_trials, total=total)
    summaries = {c.name: summarize(c.name, c.rule, c.params_hash, c.margin, outcomes[c.name])
                 for c in chunkers}
    return LabResult(
        words=doc.n, tokens={c.name: int(c.cum[-1]) for c in chunkers}, seed=seed, edits=tuple(drawn),
        rules=summaries, outcomes={name: tuple(o) for name, o in outcomes.items()}, hunts=hunts,
        params={c.name: _params_dict(c) for c in chunkers},
    )


def hunt(text: str, params: AnyParams | FixedTokenParams | None, *, trials: int | None = None, seed: int = 0,
         name: str | None = None, progress: Progress | None = None) -> HuntResult:
    """The hunt (hunt.py) for one chunker over `text`: the largest reach found in `trials`."""
    from .hunt import DEFAULT_HUNT_TRIALS

    doc = LabDocument(text)
    if name is None:
        name = FIXED if params is None or isinstance(params, FixedTokenParams) else \
            params.kind if isinstance(params, SplitterChunker) else params.boundary_rule
    chunker = build_chunkers(doc, {name: params})[0]
    trials = _count("hunt_trials", DEFAULT_HUNT_TRIALS if trials is None else trials, 0, MAX_HUNT_TRIALS)
    return hunt_chunker(chunker, trials, seed=_count("seed", seed, 0), progress=progress)


def _params_dict(c: LabChunker) -> dict:
    p = c.params
    if isinstance(p, SplitterChunker):
        return {"chunker": p.kind, "chunk_size": p.chunk_size, "chunk_overlap": p.chunk_overlap,
                "token_counter": p.token_counter}
    if isinstance(p, FixedTokenParams):
        return {"boundary_rule": BASELINE_STRATEGY, "max_tokens": p.max_tokens, "token_counter": p.token_counter}
    return p.to_dict()
