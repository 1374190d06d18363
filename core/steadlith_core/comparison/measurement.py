"""What a comparison measures: the phase-shift regions, the locality check and the churn
summary (their records, and how they are computed from the alignment's status codes), for
a rule's chunks and the fixed-size baseline's alike. The definitions are in `churn`'s
docstring.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass
from typing import Sequence

import numpy as np

from ..vocabulary import EDITED, NEW, PARAGRAPH, REMOVED, REUSED, SENTENCE, SHIFTED, is_changed
from .alignment import (CODE_ALL_CHANGED, CODE_EDITED, CODE_REUSED, CODE_SHIFTED, ChangedRanges, ChunkedStream,
                        Columns, align, changed_ranges, inside_equal, status_codes)
from .diff import EQUAL, DiffOp

# The three outcomes of the locality check. "nothing to check" is not a pass: when no
# shared range is long enough (2 x margin tokens) nothing was tested, and a reviewer
# must not read a heavy rewrite as proof of locality. `locality_held` stays true then:
# it says only that no violation was found, and `verdict` tells the three apart.
HELD, VIOLATED, NOTHING_TO_CHECK = "held", "violated", "nothing to check"
VERDICTS = (HELD, VIOLATED, NOTHING_TO_CHECK)


def verdict_of(violations: int, checked_ranges: int) -> str:
    """The locality verdict from the number of violations and of checked ranges."""
    if violations:
        return VIOLATED
    return HELD if checked_ranges else NOTHING_TO_CHECK


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
    after_edit: the nearest non-equal opcode before the run (None when the run starts
      before every edit: an edit can take away the candidate a chunk before it ended at).
    resync_b, resync_a: the first reused B chunk after the run and its A partner, where
      the versions are in phase again (None when they never are). The *resync point* is
      the start of `resync_b`, or the end of B when never resynced.
    a_chunk_words, a_chunk_tokens: the whole span of `a_chunks` in A (how A cut the
      region's words; wider than `a_words` when A's chunks reach past them).
    run_b_chunks: the maximal run of consecutive B chunks that are not reused holding the
      region: the edit's whole effect around it (edited and new chunks included).
    first_edit, edit: the first and the last non-equal opcode inside that run (B range
      within the run's words; a deletion at one of its ends counts). Without one inside,
      `edit` is `after_edit` and `first_edit` None.
    resync_distance_tokens: B tokens from the end of `edit` (the edited word nearest the
      resync point, before it) to the resync point: how long after the edit the versions
      are out of phase. From the document start when there is no edit before. When never
      resynced it runs to the end of B (a lower bound, and `resynced` is False).
    starts_before_edit_tokens: B tokens from the start of the run to the start of
      `first_edit`: how far before the edit re-cutting begins (a shifted chunk ended at
      an earlier candidate, or the edited chunk's own words before the edit); 0 without
      `first_edit`.
    reach_tokens: the larger of the two: how far from the edit its effect reaches, in
      either direction. For a pair with one edit it is what the locality lab calls the
      edit's reach (lab/measure.py), which tests hold equal.
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
    # fields with defaults come last: a region built positionally from the fields above
    # stays valid
    a_chunk_words: Range = (0, 0)
    a_chunk_tokens: Range = (0, 0)
    run_b_chunks: Range = (0, 0)
    first_edit: DiffOp | None = None
    edit: DiffOp | None = None
    starts_before_edit_tokens: int = 0

    @property
    def shifted_chunks(self) -> int:
        return self.b_chunks[1] - self.b_chunks[0]

    @property
    def reach_tokens(self) -> int:
        return max(self.resync_distance_tokens, self.starts_before_edit_tokens)

    @property
    def starts_before_edit(self) -> bool:
        """The shifted chunks begin before the edit (a candidate the edit removed was
        where a chunk before it ended)."""
        return self.first_edit is not None and self.b_words[0] < self.first_edit.b_start

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("b_chunks", "b_words", "b_tokens", "a_chunks", "a_words", "a_tokens", "a_chunk_words",
                    "a_chunk_tokens", "run_b_chunks"):
            d[key] = list(d[key])
        for key in ("after_edit", "first_edit", "edit"):
            op = getattr(self, key)
            d[key] = None if op is None else op._asdict()
        d["shifted_chunks"] = self.shifted_chunks
        d["reach_tokens"] = self.reach_tokens
        return d


@dataclass(frozen=True)
class LocalityViolation:
    """A B chunk inside the interior of a long equal range that is not reused (docs/contract/tttd-v1.md#locality).

    An equal range of at least 2 * margin tokens is checked; its interior is its B token
    range minus `margin` tokens at both ends; every B chunk lying wholly in the interior
    should be reused if the strategy were strictly local. tttd-v1 is not (docs/contract/tttd-v1.md#locality);
    lmx2-v1 is, at its margin (docs/contract/lmx2-v1.md#locality), so a violation there is a defect.
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
    region (0 when there is none; PhaseShiftRegion defines it, docs/comparison.md
    explains it); longest_reach_tokens: the largest reach of any region (the same,
    counting also how far before an edit re-cutting began). margin_formula: how `margin` was derived from the
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
    longest_reach_tokens: int = 0

    @property
    def verdict(self) -> str:
        """HELD, VIOLATED or NOTHING_TO_CHECK (see `verdict_of`)."""
        return verdict_of(self.violations, self.checked_ranges)

    def to_dict(self) -> dict:
        return asdict(self)

# -- the analysis, shared by tttd-v1 and the baseline ------------------------------------


@dataclass(frozen=True)
class ChurnAnalysis:
    status_a: tuple[str, ...]
    status_b: tuple[str, ...]
    partner_a: tuple[int | None, ...]
    partner_b: tuple[int | None, ...]
    alignment: tuple[tuple[int, int], ...]
    regions: tuple[PhaseShiftRegion, ...]
    violations: tuple[LocalityViolation, ...]
    checked_ranges: int
    summary: ChurnSummary


def analyse(ops: tuple[DiffOp, ...], a: ChunkedStream, b: ChunkedStream, margin: int, strategy: str,
             margin_formula: str) -> ChurnAnalysis:
    # Column-wise over the chunks (numpy): a 10 MB pair has ~10,000 chunks a side, and a
    # Python loop per chunk and stage would be most of a parameter change in the inspector.
    cols_a, cols_b = Columns.of(a), Columns.of(b)
    equal = [op for op in ops if op.tag == EQUAL]
    eq = np.array([(op.a_start, op.a_end, op.b_start, op.b_end) for op in equal], dtype=np.int64).reshape(-1, 4)
    inside_a = inside_equal(cols_a, eq[:, 0], eq[:, 1])
    inside_b = inside_equal(cols_b, eq[:, 2], eq[:, 3])
    changed_a = changed_ranges(ops, "a")
    changed_b = changed_ranges(ops, "b")

    pair_a, pair_b = align(cols_a, cols_b, eq, inside_b)
    alignment = tuple(zip(pair_a.tolist(), pair_b.tolist()))
    partner_a_arr = np.full(len(cols_a), -1, dtype=np.int64)
    partner_b_arr = np.full(len(cols_b), -1, dtype=np.int64)
    partner_a_arr[pair_a], partner_b_arr[pair_b] = pair_b, pair_a
    partner_a = _partners(partner_a_arr)
    partner_b = _partners(partner_b_arr)

    codes_b = status_codes(cols_b, partner_b_arr, inside_b, changed_b)
    codes_a = status_codes(cols_a, partner_a_arr, inside_a, changed_a)
    statuses_b = (REUSED, SHIFTED, NEW, EDITED)  # by status code
    status_b = tuple(map(statuses_b.__getitem__, codes_b.tolist()))
    status_a = tuple(map((REUSED, SHIFTED, REMOVED, EDITED).__getitem__, codes_a.tolist()))
    # the changed B chunks (vocabulary.is_changed of each code's status), as a mask
    changed_chunks_b = np.array([is_changed(s) for s in statuses_b], dtype=bool)[codes_b]
    regions = _phase_shift_regions(ops, a, b, cols_a, cols_b, codes_b, partner_b)
    violations, checked = _locality(equal, a, b, cols_a, cols_b, margin, status_b, changed_chunks_b)
    summary = _summary(strategy, ops, a, b, cols_a, cols_b, codes_a, codes_b, changed_chunks_b, regions, violations,
                       checked, margin, changed_a, changed_b, margin_formula)
    return ChurnAnalysis(status_a, status_b, partner_a, partner_b, alignment, regions, violations, checked, summary)


def _partners(partner: np.ndarray) -> tuple[int | None, ...]:
    """Each chunk's partner index, None for -1 (no partner), mapped in C: a Python
    generator per chunk cost a millisecond a side on a 10 MB pair."""
    values = partner.tolist()
    return tuple(map({-1: None}.get, values, values))


def _phase_shift_regions(ops: tuple[DiffOp, ...], a: ChunkedStream, b: ChunkedStream, cols_a: Columns,
                         cols_b: Columns, codes_b: np.ndarray,
                         partner_b: Sequence[int | None]) -> tuple[PhaseShiftRegion, ...]:
    cum_a, cum_b = a.cum_tokens, b.cum_tokens
    op_b_starts = [op.b_start for op in ops]
    reused = np.flatnonzero(codes_b == CODE_REUSED)

    def op_holding_b_word(w: int) -> int:
        # the last op starting at or before w holds it: later ops start at or after its end
        k = bisect_right(op_b_starts, w) - 1
        assert ops[k].tag == EQUAL and ops[k].b_start <= w < ops[k].b_end, (w, ops[k])
        return k

    def to_a(w: int) -> tuple[int, int]:
        k = op_holding_b_word(w)
        return k, w + ops[k].a_start - ops[k].b_start

    shifted = np.concatenate(([False], codes_b == CODE_SHIFTED, [False])).astype(np.int8)
    edges = shifted[1:] - shifted[:-1]
    firsts, stops = np.flatnonzero(edges == 1).tolist(), np.flatnonzero(edges == -1).tolist()
    regions = []
    for first, j in zip(firsts, stops):  # runs [first, j) of consecutive shifted B chunks
        s_b, e_b = int(cols_b.starts[first]), int(cols_b.ends[j - 1])
        k_first, s_a = to_a(s_b)
        _, last_a = to_a(e_b - 1)
        after = ops[k_first - 1] if k_first > 0 else None  # ops alternate: the one before is a change
        at = int(np.searchsorted(reused, j))
        r = int(reused[at]) if at < len(reused) else None  # the first reused B chunk after the run
        before = int(np.searchsorted(reused, first)) - 1
        run = (int(reused[before]) + 1 if before >= 0 else 0, r if r is not None else len(cols_b))
        run_words = (int(cols_b.starts[run[0]]), int(cols_b.ends[run[1] - 1]))
        inside = [op for op in ops[bisect_left(op_b_starts, run_words[0]):bisect_right(op_b_starts, run_words[1])]
                  if op.tag != EQUAL and op.b_end <= run_words[1]]
        first_edit, edit = (inside[0], inside[-1]) if inside else (None, after)
        resync_token = int(cum_b[cols_b.starts[r]]) if r is not None else int(cum_b[-1])
        distance = resync_token - (int(cum_b[edit.b_end]) if edit is not None else 0)
        lead = 0 if first_edit is None else max(0, int(cum_b[first_edit.b_start]) - int(cum_b[run_words[0]]))
        a_first = int(np.searchsorted(cols_a.starts, s_a, "right")) - 1
        a_last = int(np.searchsorted(cols_a.starts, last_a, "right")) - 1
        a_span = (int(cols_a.starts[a_first]), int(cols_a.ends[a_last]))
        regions.append(PhaseShiftRegion(
            b_chunks=(first, j), b_words=(s_b, e_b), b_tokens=(int(cum_b[s_b]), int(cum_b[e_b])),
            a_chunks=(a_first, a_last + 1), a_words=(s_a, last_a + 1),
            a_tokens=(int(cum_a[s_a]), int(cum_a[last_a + 1])),
            after_edit=after, resync_b=r, resync_a=partner_b[r] if r is not None else None,
            resync_distance_tokens=distance, resynced=r is not None,
            a_chunk_words=a_span, a_chunk_tokens=(int(cum_a[a_span[0]]), int(cum_a[a_span[1]])),
            run_b_chunks=run, first_edit=first_edit, edit=edit, starts_before_edit_tokens=lead,
        ))
    return tuple(regions)


def _locality(equal: list[DiffOp], a: ChunkedStream, b: ChunkedStream, cols_a: Columns, cols_b: Columns,
              margin: int, status_b: Sequence[str],
              changed_b: np.ndarray) -> tuple[tuple[LocalityViolation, ...], int]:
    cum = b.cum_tokens
    tok_start, tok_end = cum[cols_b.starts], cum[cols_b.ends]
    violations = []
    checked = 0
    for op in equal:
        t0, t1 = int(cum[op.b_start]), int(cum[op.b_end])
        if t1 - t0 < 2 * margin:
            continue
        checked += 1
        lo, hi = t0 + margin, t1 - margin
        # the B chunks from the first starting at or after lo, while they end by hi
        j0 = int(np.searchsorted(tok_start, lo, "left"))
        j1 = max(j0, int(np.searchsorted(tok_end, hi, "right")))
        for j in (np.flatnonzero(changed_b[j0:j1]) + j0).tolist():  # the changed chunks among them
            start_word, end_word = int(cols_b.starts[j]), int(cols_b.ends[j])
            shift = op.a_start - op.b_start
            a_first = int(np.searchsorted(cols_a.starts, start_word + shift, "right")) - 1
            a_last = int(np.searchsorted(cols_a.starts, end_word - 1 + shift, "right")) - 1
            violations.append(LocalityViolation(
                equal_a_words=(op.a_start, op.a_end), equal_b_words=(op.b_start, op.b_end),
                equal_b_tokens=(t0, t1), interior_b_tokens=(lo, hi), b_chunk=j,
                b_words=(start_word, end_word), b_tokens=(int(tok_start[j]), int(cum[end_word])),
                status=status_b[j], hash_b=cols_b.hashes[j], a_chunks=(a_first, a_last + 1),
            ))
    return tuple(violations), checked


def _summary(strategy: str, ops: tuple[DiffOp, ...], a: ChunkedStream, b: ChunkedStream, cols_a: Columns,
             cols_b: Columns,
             codes_a: np.ndarray, codes_b: np.ndarray, changed_chunks_b: np.ndarray,
             regions: Sequence[PhaseShiftRegion],
             violations: Sequence[LocalityViolation], checked: int, margin: int,
             changed_a: ChangedRanges, changed_b: ChangedRanges, margin_formula: str) -> ChurnSummary:
    tokens_b = int(b.cum_tokens[-1])
    chunks_b = len(cols_b)

    # one pass per side over the status codes, not one per status (small pairs: a sweep
    # compares thousands, and numpy's cost per call is most of theirs)
    n_a = np.bincount(codes_a, minlength=4).tolist()
    n_b = np.bincount(codes_b, minlength=4).tolist()
    tokens_of = np.bincount(codes_b, weights=cols_b.tokens, minlength=4).astype(np.int64).tolist()
    reused = n_b[CODE_REUSED]
    reused_tokens = tokens_of[CODE_REUSED]
    changed = np.flatnonzero(changed_chunks_b).tolist()
    hashes_a = set(cols_a.hashes) if changed else set()
    hits = [j for j in changed if cols_b.hashes[j] in hashes_a]
    interior = cols_b.boundaries[:-1]  # every chunk but the last ends at an interior cut
    return ChurnSummary(
        strategy=strategy,
        words_a=len(a.words), words_b=len(b.words),
        tokens_a=int(a.cum_tokens[-1]), tokens_b=tokens_b,
        chunks_a=len(cols_a), chunks_b=chunks_b,
        edits=sum(1 for op in ops if op.tag != EQUAL),
        changed_words_a=changed_a.total, changed_words_b=changed_b.total,
        reused_chunks=reused,
        reused_chunk_ratio=reused / chunks_b if chunks_b else 1.0,
        reused_tokens=reused_tokens,
        reused_token_ratio=reused_tokens / tokens_b if tokens_b else 1.0,
        chunks_to_embed=chunks_b - reused,
        tokens_to_embed=tokens_b - reused_tokens,
        shifted_chunks_b=n_b[CODE_SHIFTED], shifted_tokens_b=tokens_of[CODE_SHIFTED],
        edited_chunks_b=n_b[CODE_EDITED], new_chunks_b=n_b[CODE_ALL_CHANGED],
        shifted_chunks_a=n_a[CODE_SHIFTED], edited_chunks_a=n_a[CODE_EDITED],
        removed_chunks_a=n_a[CODE_ALL_CHANGED],
        unaligned_hash_hits_b=len(hits), unaligned_hash_hit_tokens_b=int(cols_b.tokens[hits].sum()) if hits else 0,
        phase_shift_regions=len(regions),
        longest_resync_tokens=max((r.resync_distance_tokens for r in regions), default=0),
        margin=margin, checked_ranges=checked, violations=len(violations),
        locality_held=not violations,
        margin_formula=margin_formula,
        paragraph_cut_share_b=interior.count(PARAGRAPH) / len(interior) if interior else 0.0,
        sentence_cut_share_b=interior.count(SENTENCE) / len(interior) if interior else 0.0,
        mean_chunk_tokens_b=tokens_b / chunks_b if chunks_b else 0.0,
        longest_reach_tokens=max((r.reach_tokens for r in regions), default=0),
    )
