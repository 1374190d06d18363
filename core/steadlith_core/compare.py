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
- **Phase-shift regions**: maximal runs of consecutive shifted B chunks.
- **Locality check** (SPEC §9): see `LocalityViolation`. The margin is the rule's own
  (`params.margin`: SPEC §9's formula for tttd-v1, SPEC-lmx2 §7's for lmx2-v1, which
  the rule guarantees); `margin_formula` says which.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass
from typing import Protocol, Sequence

import numpy as np

from .baseline import BASELINE_STRATEGY, FixedChunking, baseline_for
from .diff import EQUAL, DiffOp, diff_sequences, word_diff
from .errors import ComparisonError
from .normalize import WordStream
from .chunks import Chunk, Chunking
from .vocabulary import STATUSES_A, STATUSES_B  # noqa: F401 - re-exported: callers import them from here
from .vocabulary import EDITED, NEW, PARAGRAPH, REMOVED, REUSED, SENTENCE, SHIFTED, is_changed

SCHEMA = "steadlith-compare/1"

# The three outcomes of the locality check. "nothing to check" is not a pass: when no
# shared range is long enough (2 x margin tokens) nothing was tested, and a reviewer
# must not read a heavy rewrite as proof of locality. `locality_held` stays true then
# (no violation was found), for the callers written before the third outcome.
HELD, VIOLATED, NOTHING_TO_CHECK = "held", "violated", "nothing to check"
VERDICTS = (HELD, VIOLATED, NOTHING_TO_CHECK)


def verdict_of(violations: int, checked_ranges: int) -> str:
    """The locality verdict from the number of violations and of checked ranges."""
    if violations:
        return VIOLATED
    return HELD if checked_ranges else NOTHING_TO_CHECK


class _ChunkedStream(Protocol):
    """What the analysis reads: a Chunking, or a baseline FixedChunking."""

    words: WordStream
    chunks: tuple[Chunk, ...]
    cum_tokens: np.ndarray


Range = tuple[int, int]


@dataclass(frozen=True)
class PhaseShiftRegion:
    """A maximal run of consecutive shifted B chunks: same words as in A, other cuts.

    b_chunks, b_words, b_tokens: the run in B (half-open chunk index, word and token
      ranges; tokens are B's cumulative token offsets).
    a_words, a_tokens: the same words in A (first word's A position to last word's + 1).
      A run can span a deletion that falls exactly on a boundary between two of its
      chunks (B words stay contiguous; an insertion cannot, its words would form a
      non-shifted chunk); a_words then includes the deleted A words.
    a_chunks: the A chunks holding those words (half-open index range; their statuses
      say how A cut them: shifted, or edited where an A chunk also spans the edit).
    after_edit: the nearest non-equal opcode before the run (None at the document start).
    resync_b, resync_a: the first reused B chunk after the run and its A partner, where
      the versions are in phase again (None when they never are).
    resync_distance_tokens: B tokens from the end of `after_edit` to the start of
      `resync_b`; when never resynced, to the end of B (then a lower bound, and
      `resynced` is False).
    """

    b_chunks: Range
    b_words: Range
    b_tokens: Range
    a_chunks: Range
    a_words: Range
    a_tokens: Range
    after_edit: DiffOp | None
    resync_b: int | None
    resync_a: int | None
    resync_distance_tokens: int
    resynced: bool

    @property
    def shifted_chunks(self) -> int:
        return self.b_chunks[1] - self.b_chunks[0]

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("b_chunks", "b_words", "b_tokens", "a_chunks", "a_words", "a_tokens"):
            d[key] = list(d[key])
        d["after_edit"] = None if self.after_edit is None else self.after_edit._asdict()
        d["shifted_chunks"] = self.shifted_chunks
        return d


@dataclass(frozen=True)
class LocalityViolation:
    """A B chunk inside the interior of a long equal range that is not reused (SPEC §9).

    An equal range of at least 2 * margin tokens is checked; its interior is its B token
    range minus `margin` tokens at both ends; every B chunk lying wholly in the interior
    should be reused if the strategy were strictly local. tttd-v1 is not (SPEC §9);
    lmx2-v1 is, at its margin (SPEC-lmx2 §7), so a violation there is a defect.
    """

    equal_a_words: Range
    equal_b_words: Range
    equal_b_tokens: Range
    interior_b_tokens: Range
    b_chunk: int
    b_words: Range
    b_tokens: Range
    status: str
    hash_b: str
    a_chunks: Range  # the A chunks holding the same words (none of them has hash_b)

    def to_dict(self) -> dict:
        d = asdict(self)
        for key, value in d.items():
            if isinstance(value, tuple):
                d[key] = list(value)
        return d


@dataclass(frozen=True)
class ChurnSummary:
    """Counts and ratios of one comparison (stable snake_case names, used in JSON).

    Ratios are over B (the version to index): reused_chunk_ratio = reused_chunks /
    chunks_b and reused_token_ratio = reused_tokens / tokens_b; both are 1.0 when B has
    no chunks (nothing to embed). tokens_to_embed / chunks_to_embed: B chunks that are
    not reused. longest_resync_tokens: the largest resync distance of any phase-shift
    region (0 when there is none). margin_formula: how `margin` was derived from the
    rule's parameters. paragraph_cut_share_b / sentence_cut_share_b: the share of B's
    interior cuts at paragraph / sentence ends (Chunk.boundary); mean_chunk_tokens_b:
    B's mean chunk size (0.0 without chunks).
    """

    strategy: str
    words_a: int
    words_b: int
    tokens_a: int
    tokens_b: int
    chunks_a: int
    chunks_b: int
    edits: int
    changed_words_a: int
    changed_words_b: int
    reused_chunks: int
    reused_chunk_ratio: float
    reused_tokens: int
    reused_token_ratio: float
    chunks_to_embed: int
    tokens_to_embed: int
    shifted_chunks_b: int
    shifted_tokens_b: int
    edited_chunks_b: int
    new_chunks_b: int
    shifted_chunks_a: int
    edited_chunks_a: int
    removed_chunks_a: int
    unaligned_hash_hits_b: int
    unaligned_hash_hit_tokens_b: int
    phase_shift_regions: int
    longest_resync_tokens: int
    margin: int
    checked_ranges: int
    violations: int
    locality_held: bool
    margin_formula: str = ""
    paragraph_cut_share_b: float = 0.0
    sentence_cut_share_b: float = 0.0
    mean_chunk_tokens_b: float = 0.0

    @property
    def verdict(self) -> str:
        """HELD, VIOLATED or NOTHING_TO_CHECK (see `verdict_of`)."""
        return verdict_of(self.violations, self.checked_ranges)

    def to_dict(self) -> dict:
        return asdict(self)


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
) -> Comparison:
    """Compare two chunkings of two versions made with the same normalizer, boundary
    rule and parameters (either rule; the locality check uses the rule's own margin).

    Raises ComparisonError when they differ in normalizer, boundary rule or parameters.
    With `baseline` (the default), the fixed-size baseline's churn on the same two word
    streams is computed too (it reuses the word diff, so it costs little).
    `ops` (the word diff of a and b) and `fixed` (their baseline chunkings) may be
    passed in when already known: Analysis.compare caches both across parameter changes.
    """
    for name, x in (("A", a), ("B", b)):
        if not isinstance(x, Chunking):
            raise TypeError(f"compare() takes two Chunking results; {name} is {type(x).__name__}")
    check_comparable(a, b)
    ops = tuple(ops) if ops is not None else word_diff(a.words, b.words)
    margin, formula = a.params.margin, a.params.margin_formula
    result = _analyse(ops, a, b, margin, a.boundary_rule, formula)
    base = None
    if baseline:
        fa, fb = fixed if fixed is not None else (baseline_for(a), baseline_for(b))
        base = BaselineChurn(BASELINE_STRATEGY, fa.params_hash, fa.params.max_tokens, fa.params.token_counter,
                             _analyse(ops, fa, fb, margin, BASELINE_STRATEGY, formula).summary)
    return Comparison(a, b, ops, result.status_a, result.status_b, result.partner_a, result.partner_b,
                      result.alignment, result.regions, result.violations, margin, result.checked_ranges,
                      result.summary, base)


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


# -- the analysis, shared by tttd-v1 and the baseline ------------------------------------


@dataclass(frozen=True)
class _Analysis:
    status_a: tuple[str, ...]
    status_b: tuple[str, ...]
    partner_a: tuple[int | None, ...]
    partner_b: tuple[int | None, ...]
    alignment: tuple[tuple[int, int], ...]
    regions: tuple[PhaseShiftRegion, ...]
    violations: tuple[LocalityViolation, ...]
    checked_ranges: int
    summary: ChurnSummary


def _analyse(ops: tuple[DiffOp, ...], a: _ChunkedStream, b: _ChunkedStream, margin: int, strategy: str,
             margin_formula: str) -> _Analysis:
    ca, cb = a.chunks, b.chunks
    equal = [op for op in ops if op.tag == EQUAL]
    changed_a = _changed_prefix(ops, len(a.words), side="a")
    changed_b = _changed_prefix(ops, len(b.words), side="b")
    inside_a = _inside_equal(ca, [op.a_start for op in equal], [op.a_end for op in equal])
    inside_b = _inside_equal(cb, [op.b_start for op in equal], [op.b_end for op in equal])

    alignment = _align(ca, cb, equal, inside_b)
    partner_a: list[int | None] = [None] * len(ca)
    partner_b: list[int | None] = [None] * len(cb)
    for i, j in alignment:
        partner_a[i], partner_b[j] = j, i

    status_b = tuple(
        _status(c, partner_b[c.index], inside_b[c.index], changed_b, NEW) for c in cb
    )
    status_a = tuple(
        _status(c, partner_a[c.index], inside_a[c.index], changed_a, REMOVED) for c in ca
    )
    regions = _phase_shift_regions(ops, a, b, status_b, partner_b)
    violations, checked = _locality(equal, a, b, margin, status_b)
    summary = _summary(strategy, ops, a, b, status_a, status_b, regions, violations, checked, margin,
                       changed_a, changed_b, margin_formula)
    return _Analysis(status_a, status_b, tuple(partner_a), tuple(partner_b), alignment, regions,
                     violations, checked, summary)


def _changed_prefix(ops: Sequence[DiffOp], n: int, side: str) -> np.ndarray:
    """changed[k] = number of changed words among words [0, k) of one side."""
    mark = np.zeros(n, dtype=np.int64)
    for op in ops:
        if op.tag != EQUAL:
            lo, hi = (op.a_start, op.a_end) if side == "a" else (op.b_start, op.b_end)
            mark[lo:hi] = 1
    out = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(mark, out=out[1:])
    return out


def _inside_equal(chunks: Sequence[Chunk], starts: list[int], ends: list[int]) -> list[int]:
    """For each chunk, the index of the equal range holding all its words, or -1."""
    out = []
    for c in chunks:
        k = bisect_right(starts, c.start_word) - 1
        out.append(k if k >= 0 and c.end_word <= ends[k] else -1)
    return out


def _align(ca: Sequence[Chunk], cb: Sequence[Chunk], equal: list[DiffOp], inside_b: list[int]) -> tuple[tuple[int, int], ...]:
    a_by_start = {c.start_word: c.index for c in ca}
    pairs: list[tuple[int, int]] = []
    for c in cb:  # pass 1: the diff says where each B chunk's words were in A
        k = inside_b[c.index]
        if k < 0:
            continue
        shift = equal[k].a_start - equal[k].b_start
        i = a_by_start.get(c.start_word + shift)
        if i is not None and ca[i].end_word == c.end_word + shift and ca[i].hash == c.hash:
            pairs.append((i, c.index))
    # pass 2: equal hashes inside the gaps between consecutive pairs, matched in order
    bounded = [(-1, -1), *pairs, (len(ca), len(cb))]
    extra: list[tuple[int, int]] = []
    for (pa, pb), (qa, qb) in zip(bounded, bounded[1:]):
        if qa - pa > 1 and qb - pb > 1:
            ha = [ca[i].hash for i in range(pa + 1, qa)]
            hb = [cb[j].hash for j in range(pb + 1, qb)]
            if set(ha).isdisjoint(hb):
                continue
            for op in diff_sequences(ha, hb):  # bounded, unlike difflib on repeated hashes
                if op.tag == EQUAL:
                    extra.extend((pa + 1 + op.a_start + t, pb + 1 + op.b_start + t) for t in range(op.a_end - op.a_start))
    alignment = tuple(sorted(pairs + extra, key=lambda p: p[1]))
    for (i0, j0), (i1, j1) in zip(alignment, alignment[1:]):
        if not (i0 < i1 and j0 < j1):
            raise AssertionError(f"alignment not monotone at {(i0, j0)}, {(i1, j1)}")
    return alignment


def _status(c: Chunk, partner: int | None, inside: int, changed: np.ndarray, all_changed: str) -> str:
    if partner is not None:
        return REUSED
    if inside >= 0:
        return SHIFTED
    if changed[c.end_word] - changed[c.start_word] == c.end_word - c.start_word:
        return all_changed
    return EDITED


def _phase_shift_regions(ops: tuple[DiffOp, ...], a: _ChunkedStream, b: _ChunkedStream,
                         status_b: Sequence[str], partner_b: Sequence[int | None]) -> tuple[PhaseShiftRegion, ...]:
    cb, ca = b.chunks, a.chunks
    cum_a, cum_b = a.cum_tokens, b.cum_tokens
    op_b_starts = [op.b_start for op in ops]
    a_chunk_starts = [c.start_word for c in ca]
    reused_after = [None] * (len(cb) + 1)  # first reused B chunk at index >= j
    for j in range(len(cb) - 1, -1, -1):
        reused_after[j] = j if status_b[j] == REUSED else reused_after[j + 1]

    def op_holding_b_word(w: int) -> int:
        # the last op starting at or before w holds it: later ops start at or after its end
        k = bisect_right(op_b_starts, w) - 1
        assert ops[k].tag == EQUAL and ops[k].b_start <= w < ops[k].b_end, (w, ops[k])
        return k

    def to_a(w: int) -> tuple[int, int]:
        k = op_holding_b_word(w)
        return k, w + ops[k].a_start - ops[k].b_start

    regions = []
    j = 0
    while j < len(cb):
        if status_b[j] != SHIFTED:
            j += 1
            continue
        first = j
        while j < len(cb) and status_b[j] == SHIFTED:
            j += 1
        s_b, e_b = cb[first].start_word, cb[j - 1].end_word
        k_first, s_a = to_a(s_b)
        _, last_a = to_a(e_b - 1)
        edit = ops[k_first - 1] if k_first > 0 else None  # ops alternate: the one before is a change
        base = int(cum_b[edit.b_end]) if edit is not None else 0
        r = reused_after[j]
        if r is not None:
            distance, resync_a = int(cum_b[cb[r].start_word]) - base, partner_b[r]
        else:
            distance, resync_a = int(cum_b[-1]) - base, None
        a_first = bisect_right(a_chunk_starts, s_a) - 1
        a_last = bisect_right(a_chunk_starts, last_a) - 1
        regions.append(PhaseShiftRegion(
            b_chunks=(first, j), b_words=(s_b, e_b), b_tokens=(int(cum_b[s_b]), int(cum_b[e_b])),
            a_chunks=(a_first, a_last + 1), a_words=(s_a, last_a + 1),
            a_tokens=(int(cum_a[s_a]), int(cum_a[last_a + 1])),
            after_edit=edit, resync_b=r, resync_a=resync_a, resync_distance_tokens=distance,
            resynced=r is not None,
        ))
    return tuple(regions)


def _locality(equal: list[DiffOp], a: _ChunkedStream, b: _ChunkedStream, margin: int,
              status_b: Sequence[str]) -> tuple[tuple[LocalityViolation, ...], int]:
    cb, ca = b.chunks, a.chunks
    cum = b.cum_tokens
    tok_start = [int(cum[c.start_word]) for c in cb]
    a_chunk_starts = [c.start_word for c in ca]
    violations = []
    checked = 0
    for op in equal:
        t0, t1 = int(cum[op.b_start]), int(cum[op.b_end])
        if t1 - t0 < 2 * margin:
            continue
        checked += 1
        lo, hi = t0 + margin, t1 - margin
        j = bisect_left(tok_start, lo)
        while j < len(cb) and int(cum[cb[j].end_word]) <= hi:
            c = cb[j]
            if is_changed(status_b[j]):
                shift = op.a_start - op.b_start
                a_first = bisect_right(a_chunk_starts, c.start_word + shift) - 1
                a_last = bisect_right(a_chunk_starts, c.end_word - 1 + shift) - 1
                violations.append(LocalityViolation(
                    equal_a_words=(op.a_start, op.a_end), equal_b_words=(op.b_start, op.b_end),
                    equal_b_tokens=(t0, t1), interior_b_tokens=(lo, hi), b_chunk=j,
                    b_words=(c.start_word, c.end_word), b_tokens=(tok_start[j], int(cum[c.end_word])),
                    status=status_b[j], hash_b=c.hash, a_chunks=(a_first, a_last + 1),
                ))
            j += 1
    return tuple(violations), checked


def _summary(strategy: str, ops: tuple[DiffOp, ...], a: _ChunkedStream, b: _ChunkedStream,
             status_a: Sequence[str], status_b: Sequence[str], regions: Sequence[PhaseShiftRegion],
             violations: Sequence[LocalityViolation], checked: int, margin: int,
             changed_a: np.ndarray, changed_b: np.ndarray, margin_formula: str) -> ChurnSummary:
    ca, cb = a.chunks, b.chunks
    tokens_b = int(b.cum_tokens[-1])

    def count(statuses: Sequence[str], s: str) -> int:
        return sum(1 for x in statuses if x == s)

    def tokens(s: str) -> int:
        return sum(c.tokens for c in cb if status_b[c.index] == s)

    reused = count(status_b, REUSED)
    reused_tokens = tokens(REUSED)
    hashes_a = {c.hash for c in ca}
    hits = [c for c in cb if is_changed(status_b[c.index]) and c.hash in hashes_a]
    interior = [c.boundary for c in cb[:-1]]  # every chunk but the last ends at an interior cut
    return ChurnSummary(
        strategy=strategy,
        words_a=len(a.words), words_b=len(b.words),
        tokens_a=int(a.cum_tokens[-1]), tokens_b=tokens_b,
        chunks_a=len(ca), chunks_b=len(cb),
        edits=sum(1 for op in ops if op.tag != EQUAL),
        changed_words_a=int(changed_a[-1]), changed_words_b=int(changed_b[-1]),
        reused_chunks=reused,
        reused_chunk_ratio=reused / len(cb) if cb else 1.0,
        reused_tokens=reused_tokens,
        reused_token_ratio=reused_tokens / tokens_b if tokens_b else 1.0,
        chunks_to_embed=len(cb) - reused,
        tokens_to_embed=tokens_b - reused_tokens,
        shifted_chunks_b=count(status_b, SHIFTED), shifted_tokens_b=tokens(SHIFTED),
        edited_chunks_b=count(status_b, EDITED), new_chunks_b=count(status_b, NEW),
        shifted_chunks_a=count(status_a, SHIFTED), edited_chunks_a=count(status_a, EDITED),
        removed_chunks_a=count(status_a, REMOVED),
        unaligned_hash_hits_b=len(hits), unaligned_hash_hit_tokens_b=sum(c.tokens for c in hits),
        phase_shift_regions=len(regions),
        longest_resync_tokens=max((r.resync_distance_tokens for r in regions), default=0),
        margin=margin, checked_ranges=checked, violations=len(violations),
        locality_held=not violations,
        margin_formula=margin_formula,
        paragraph_cut_share_b=interior.count(PARAGRAPH) / len(interior) if interior else 0.0,
        sentence_cut_share_b=interior.count(SENTENCE) / len(interior) if interior else 0.0,
        mean_chunk_tokens_b=tokens_b / len(cb) if cb else 0.0,
    )


def comparison_fields() -> list[str]:
    """The summary's field names, in order (for tables and stable-name tests)."""
    return list(ChurnSummary.__dataclass_fields__)
