"""compare(): two chunkings -> word diff, chunk statuses, alignment, phase shifts, churn.

The question it answers is the inspector's: "which chunks did this edit cost me, and
why?". Everything is computed from the word diff (diff.py) and the two chunk lists;
nothing here knows about Qt, files or formatting.

Definitions (the docstrings of the result types repeat the details):

- A word is *changed* when it lies in a non-equal opcode (B: inserted or replacing;
  A: deleted or replaced).
- **Alignment**: the monotone list of (a_index, b_index) pairs of reused chunks. First
  pass: a B chunk lying wholly inside one equal range maps to an A word range; when an
  A chunk has exactly that range (and, necessarily, the same hash) the two are paired.
  These pairs are monotone by construction (equal ranges are monotone in both
  versions). Second pass: inside each gap between consecutive pairs, still unpaired
  chunks with equal hashes are paired by a longest common subsequence of their hashes
  (repeated text the diff aligned differently). Both passes keep the alignment
  monotone and one-to-one; it is asserted. Text moved across a pair stays unpaired and
  is counted as `unaligned_hash_hits_b` (an embedding cache keyed by chunk hash would
  still hit it), not as reused.
- **B statuses**: `reused` (paired), `shifted` (not paired, yet all its words lie in
  one equal range: same words, different cut: the phase shift), `new` (every word
  changed), `edited` (the rest: some words changed, or all unchanged but spanning a
  deletion point, i.e. A's words between two of its words were removed).
  **A statuses**: `reused`, `shifted`, `removed` (every word changed), `edited`.
- **Phase-shift regions**: maximal runs of consecutive shifted B chunks. A region can
  lie before the edit that caused it (the edit removed the candidate a chunk ended at),
  so its distances are measured from the edit in both directions: `resync_distance_tokens`
  after it, `starts_before_edit_tokens` before it (PhaseShiftRegion; docs/comparison.md).
- **Locality check** (docs/contract/tttd-v1.md#locality): see `LocalityViolation`. The
  margin is the rule's own (`params.margin`: the formula of docs/contract/tttd-v1.md#locality
  for tttd-v1, of docs/contract/lmx2-v1.md#locality for lmx2-v1, which
  the rule guarantees); `margin_formula` says which.

The alignment and status codes are computed in `alignment`; the regions, the locality
check and the summary (with their records) in `measurement`; this module puts them
together into a `Comparison`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..chunking.chunks import Chunking
from ..errors import ComparisonError
from .baseline import BASELINE_STRATEGY, FixedChunking, baseline_for
from .diff import DiffOp, word_diff
from .measurement import ChurnSummary, LocalityViolation, PhaseShiftRegion, analyse, verdict_of

SCHEMA = "steadlith-compare/1"


@dataclass(frozen=True)
class BaselineChurn:
    """Churn of the fixed-size baseline (`fixed-tokens/1`) on the same two versions."""

    strategy: str
    params_hash: str
    max_tokens: int
    token_counter: str
    summary: ChurnSummary

    def to_dict(self) -> dict:
        return {
            "strategy": self.strategy,
            "params_hash": self.params_hash,
            "params": {"max_tokens": self.max_tokens, "token_counter": self.token_counter},
            "summary": self.summary.to_dict(),
        }


@dataclass(frozen=True, eq=False)
class Comparison:
    """The immutable result of compare(a, b). Chunk-indexed tuples follow a.chunks / b.chunks."""

    a: Chunking
    b: Chunking
    ops: tuple[DiffOp, ...]
    status_a: tuple[str, ...]
    status_b: tuple[str, ...]
    partner_a: tuple[int | None, ...]  # B index paired with each A chunk, or None
    partner_b: tuple[int | None, ...]  # A index paired with each B chunk, or None
    alignment: tuple[tuple[int, int], ...]
    phase_shift_regions: tuple[PhaseShiftRegion, ...]
    violations: tuple[LocalityViolation, ...]
    margin: int
    checked_ranges: int
    summary: ChurnSummary
    baseline: BaselineChurn | None

    @property
    def locality_held(self) -> bool:
        """No violation found; also true when nothing was checked (see `verdict`)."""
        return not self.violations

    @property
    def verdict(self) -> str:
        """HELD, VIOLATED or NOTHING_TO_CHECK: what to show a reader."""
        return verdict_of(len(self.violations), self.checked_ranges)

    def to_dict(self) -> dict:
        """Everything, with stable names: the JSON of `steadlith compare --format json`."""

        def chunks(c: Chunking, status: Sequence[str], partner: Sequence[int | None]) -> list[dict]:
            cum = c.cum_tokens
            return [
                {
                    "index": ch.index, "start_word": ch.start_word, "end_word": ch.end_word,
                    "start_token": int(cum[ch.start_word]), "end_token": int(cum[ch.end_word]),
                    "tokens": ch.tokens, "kind": ch.kind, "boundary": ch.boundary, "hash": ch.hash,
                    "status": status[ch.index], "partner": partner[ch.index],
                }
                for ch in c.chunks
            ]

        return {
            "schema": SCHEMA,
            "normalizer_version": self.a.normalizer_version,
            "boundary_rule": self.a.boundary_rule,
            "params_hash": self.a.params_hash,
            "params": self.a.params.to_dict(),
            "locality_held": self.locality_held,
            "locality_verdict": self.verdict,
            "margin": self.margin,
            "margin_formula": self.a.params.margin_formula,
            "summary": self.summary.to_dict(),
            "phase_shift_regions": [r.to_dict() for r in self.phase_shift_regions],
            "violations": [v.to_dict() for v in self.violations],
            "alignment": [list(p) for p in self.alignment],
            "diff": [op._asdict() for op in self.ops],
            "chunks_a": chunks(self.a, self.status_a, self.partner_a),
            "chunks_b": chunks(self.b, self.status_b, self.partner_b),
            "baseline": None if self.baseline is None else self.baseline.to_dict(),
        }


# -- entry point ----------------------------------------------------------------------


def compare(
    a: Chunking,
    b: Chunking,
    *,
    baseline: bool = True,
    ops: Sequence[DiffOp] | None = None,
    fixed: tuple[FixedChunking, FixedChunking] | None = None,
    base: BaselineChurn | None = None,
) -> Comparison:
    """Compare two chunkings of two versions made with the same normalizer, boundary
    rule and parameters (either rule; the locality check uses the rule's own margin).

    Raises ComparisonError when they differ in normalizer, boundary rule or parameters.
    With `baseline` (the default), the fixed-size baseline's churn on the same two word
    streams is computed too (it reuses the word diff, so it costs little).
    `ops` (the word diff of a and b) and `fixed` (their baseline chunkings) may be
    passed in when already known, and so may the baseline's churn itself (`base`):
    Analysis.compare caches all three across parameter changes.
    """
    for name, x in (("A", a), ("B", b)):
        if not isinstance(x, Chunking):
            raise TypeError(f"compare() takes two Chunking results; {name} is {type(x).__name__}")
    check_comparable(a, b)
    ops = tuple(ops) if ops is not None else word_diff(a.words, b.words)
    margin, formula = a.params.margin, a.params.margin_formula
    result = analyse(ops, a, b, margin, a.boundary_rule, formula)
    if not baseline:
        base = None
    elif base is None:
        base = baseline_churn(a, b, ops, fixed)
    return Comparison(a, b, ops, result.status_a, result.status_b, result.partner_a, result.partner_b,
                      result.alignment, result.regions, result.violations, margin, result.checked_ranges,
                      result.summary, base)


def baseline_churn(a: Chunking, b: Chunking, ops: Sequence[DiffOp],
                   fixed: tuple[FixedChunking, FixedChunking] | None = None) -> BaselineChurn:
    """The fixed-size baseline's churn on the word streams of `a` and `b` (windows of
    their max_tokens), checked for locality at their rule's margin. It depends on the
    texts, max_tokens, the token counter and the margin only: not on any other parameter."""
    fa, fb = fixed if fixed is not None else (baseline_for(a), baseline_for(b))
    summary = analyse(tuple(ops), fa, fb, a.params.margin, BASELINE_STRATEGY, a.params.margin_formula).summary
    return BaselineChurn(BASELINE_STRATEGY, fa.params_hash, fa.params.max_tokens, fa.params.token_counter, summary)


def check_comparable(a: Chunking, b: Chunking) -> None:
    """Raise ComparisonError naming what differs, if anything."""
    if a.normalizer_version != b.normalizer_version:
        raise ComparisonError(
            f"cannot compare: A was normalized with {a.normalizer_version}, B with {b.normalizer_version}")
    if a.boundary_rule != b.boundary_rule:
        raise ComparisonError(f"cannot compare: A uses boundary rule {a.boundary_rule}, B uses {b.boundary_rule}")
    if a.params_hash != b.params_hash:
        da, db = a.params.to_dict(), b.params.to_dict()
        fields = [f"{k} (A {da[k]!r}, B {db[k]!r})" for k in da if da[k] != db.get(k)]
        detail = "; ".join(fields) if fields else "canonical parameters differ"
        raise ComparisonError(
            f"cannot compare: chunked with different parameters: {detail} "
            f"(params hash A {a.params_hash}, B {b.params_hash})")


def comparison_fields() -> list[str]:
    """The summary's field names, in order (for tables and stable-name tests)."""
    return list(ChurnSummary.__dataclass_fields__)
