"""Why the chunks moved between two versions: for each phase-shift region of a comparison,
the chain of causes as data (the edit, the candidate it removed or created, the first cut
that moved, the cuts that followed, where both versions met again and how far that is
from the edit) and one paragraph rendered from it.

The per-cut decision records this reads live in `explain` (tttd-v1:
docs/contract/tttd-v1.md#segmentation; lmx2-v1: docs/contract/lmx2-v1.md#cuts).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import asdict, dataclass, field
from typing import Sequence

import numpy as np

from .churn import Comparison
from .measurement import PhaseShiftRegion
from .diff import EQUAL, DiffOp
from .explain import Decision, ExplainError, TttdDecision, cut_explainer
from ..vocabulary import BACKUP, HARD, PRIMARY

SCHEMA = "steadlith-explain/1"


LOST_CANDIDATE, NEW_CANDIDATE, LENGTH_CHANGE, LOCAL_CHANGE, SAME_CUTS, OTHER = (
    "lost-candidate", "new-candidate", "length-change", "local-change", "same-cuts", "other")
CAUSES = (LOST_CANDIDATE, NEW_CANDIDATE, LENGTH_CHANGE, LOCAL_CHANGE, SAME_CUTS, OTHER)


@dataclass(frozen=True)
class Candidate:
    """A candidate (tttd-v1: a word whose fingerprint matched a mask; lmx2-v1: a cut) in
    both versions' numbering (None where its word is not in that version)."""

    kind: str
    a_word: int | None
    b_word: int | None
    window_covers_edit: bool

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class RegionExplanation:
    """The chain of causes of one phase-shift region (structured; `text` is rendered
    from these fields alone).

    cause: lost-candidate (the edit removed the candidate A's first moved chunk ended
      at), new-candidate (the edit created one B's chunk ends at), length-change (both
      candidates exist in both versions; the edit changed the chunk's tokens, so min or
      max fell elsewhere), local-change (lmx2-v1: cuts near the edit whose key or
      competitors changed), same-cuts (no cut moved: the chunks differ only by the edited
      words at their edge, e.g. a deletion where a chunk starts), other.
    first_a_chunk, first_b_chunk: the first chunk of each version that the edit re-cut
      (both start at the same word); decision_a, decision_b: why each ends where it does.
    a_cut_b_word: A's cut in B's word numbering (None when it lies inside the edit);
      cut_moved: whether B's cut is earlier or later than that (or elsewhere).
    lost, created: the candidates (tttd-v1) or cuts (lmx2-v1) only A, or only B, has.
    fell_back_before_edit: B's first re-cut chunk ends before the edit.
    chain_b: the decisions of the B chunks after the first, up to the resync point.
    resync_kind: the kind of the cut where both versions meet again (that of the chunk
      ending there); resync_a_word, resync_b_word: where it is in each version.
    """

    region: int
    rule: str
    cause: str
    edit: DiffOp | None
    first_a_chunk: int
    first_b_chunk: int
    decision_a: Decision
    decision_b: Decision
    lost: tuple[Candidate, ...]
    created: tuple[Candidate, ...]
    fell_back_before_edit: bool
    a_cut_b_word: int | None
    cut_moved: str
    token_change: int
    chain_b: tuple[Decision, ...]
    resynced: bool
    resync_a: int | None
    resync_b: int | None
    resync_a_word: int | None
    resync_b_word: int | None
    resync_kind: str | None
    resync_distance_tokens: int
    starts_before_edit_tokens: int
    reach_tokens: int
    text: str = field(default="", compare=False)

    def to_dict(self) -> dict:
        return {
            "region": self.region, "rule": self.rule, "cause": self.cause,
            "edit": None if self.edit is None else self.edit._asdict(),
            "first_a_chunk": self.first_a_chunk, "first_b_chunk": self.first_b_chunk,
            "decision_a": self.decision_a.to_dict(), "decision_b": self.decision_b.to_dict(),
            "lost": [c.to_dict() for c in self.lost], "created": [c.to_dict() for c in self.created],
            "fell_back_before_edit": self.fell_back_before_edit, "a_cut_b_word": self.a_cut_b_word,
            "cut_moved": self.cut_moved,
            "token_change": self.token_change,
            "chain_b": [d.to_dict() for d in self.chain_b],
            "resynced": self.resynced, "resync_a": self.resync_a, "resync_b": self.resync_b,
            "resync_a_word": self.resync_a_word, "resync_b_word": self.resync_b_word,
            "resync_kind": self.resync_kind, "resync_distance_tokens": self.resync_distance_tokens,
            "starts_before_edit_tokens": self.starts_before_edit_tokens, "reach_tokens": self.reach_tokens,
            "text": self.text,
        }


class _WordMap:
    """Word positions between A and B through the equal opcodes of the diff."""

    def __init__(self, ops: Sequence[DiffOp]):
        self.equal = [op for op in ops if op.tag == EQUAL]
        self.a_starts = [op.a_start for op in self.equal]
        self.b_starts = [op.b_start for op in self.equal]

    def to_b(self, a: int) -> int | None:
        k = bisect_right(self.a_starts, a) - 1
        if k >= 0 and a < self.equal[k].a_end:
            return a - self.equal[k].a_start + self.equal[k].b_start
        return None

    def to_a(self, b: int) -> int | None:
        k = bisect_right(self.b_starts, b) - 1
        if k >= 0 and b < self.equal[k].b_end:
            return b - self.equal[k].b_start + self.equal[k].a_start
        return None

    def cut_to_b(self, a: int) -> int | None:
        """A cut (between words a-1 and a) in B's numbering, when both neighbours map."""
        if a == 0:
            return 0
        prev = self.to_b(a - 1)
        return None if prev is None else prev + 1

    def cut_to_a(self, b: int) -> int | None:
        if b == 0:
            return 0
        prev = self.to_a(b - 1)
        return None if prev is None else prev + 1


def explain_comparison(comparison: Comparison, region: int | None = None) -> tuple[RegionExplanation, ...]:
    """One explanation per phase-shift region (or only region number `region`, 0-based)."""
    regions = comparison.phase_shift_regions
    if region is not None:
        if type(region) is not int or not 0 <= region < len(regions):
            raise ExplainError(f"no phase-shift region {region + 1 if isinstance(region, int) else region!r}: "
                               f"the comparison has {len(regions)}")
        picked = [region]
    else:
        picked = range(len(regions))
    if not picked:
        return ()
    ctx = _Context(comparison)
    return tuple(ctx.explain(k, regions[k]) for k in picked)


class _Context:
    def __init__(self, c: Comparison):
        self.c = c
        self.rule = c.a.boundary_rule
        self.words = _WordMap(c.ops)
        self.ex_a, self.ex_b = cut_explainer(c.a), cut_explainer(c.b)

    def first_chunks(self, r: PhaseShiftRegion) -> tuple[int, int, bool]:
        """(A chunk, B chunk, whether it moved): the first pair of the run, both starting
        at the same word, whose end cuts differ; a pair whose cut is the same (the chunks
        differ only by the edited words at their edge) is passed over. When no cut of
        the run moved, the run's first pair and False."""
        c = self.c
        j0 = r.run_b_chunks[0]
        prev = c.partner_b[j0 - 1] if j0 else None
        i0 = 0 if prev is None else prev + 1
        stop = r.resync_b if r.resync_b is not None else len(c.b.columns)
        ends_a, ends_b = c.a.columns.end_words, c.b.columns.end_words
        i, j = i0, j0
        while j < stop and i < len(ends_a) and self.words.cut_to_b(int(ends_a[i])) == int(ends_b[j]):
            i, j = i + 1, j + 1
        if j < stop and i < len(ends_a):
            return i, j, True
        return i0, j0, False

    def explain(self, k: int, r: PhaseShiftRegion) -> RegionExplanation:
        c = self.c
        edit = r.first_edit or r.edit or r.after_edit
        i0, j0, moved = self.first_chunks(r)
        da, db = self.ex_a.explain(range(i0, i0 + 1))[0], self.ex_b.explain(range(j0, j0 + 1))[0]
        stop = r.resync_b if r.resync_b is not None else len(c.b.columns)
        chain = self.ex_b.explain(range(j0 + 1, stop))
        if self.rule == "lmx2-v1":
            cause, lost, created = self.lmx2_cause(r, edit)
        elif moved:
            cause, lost, created = self.tttd_cause(da, db, edit)
        else:
            cause, lost, created = SAME_CUTS, (), ()
        token_change = 0
        if edit is not None:
            token_change = (int(c.b.cum_tokens[edit.b_end] - c.b.cum_tokens[edit.b_start])
                            - int(c.a.cum_tokens[edit.a_end] - c.a.cum_tokens[edit.a_start]))
        resync_b_word = int(c.b.columns.start_words[r.resync_b]) if r.resync_b is not None else None
        resync_a_word = int(c.a.columns.start_words[r.resync_a]) if r.resync_a is not None else None
        resync_kind = c.b.columns.kinds[r.resync_b - 1] if r.resync_b else None
        a_cut = self.words.cut_to_b(da.cut_word)
        moved = "elsewhere" if a_cut is None or a_cut == db.cut_word else "earlier" if db.cut_word < a_cut else "later"
        x = RegionExplanation(
            region=k, rule=self.rule, cause=cause, edit=edit, first_a_chunk=i0, first_b_chunk=j0,
            decision_a=da, decision_b=db, lost=lost, created=created,
            fell_back_before_edit=edit is not None and db.cut_word < edit.b_start, a_cut_b_word=a_cut,
            cut_moved=moved,
            token_change=token_change, chain_b=chain, resynced=r.resynced, resync_a=r.resync_a, resync_b=r.resync_b,
            resync_a_word=resync_a_word, resync_b_word=resync_b_word, resync_kind=resync_kind,
            resync_distance_tokens=r.resync_distance_tokens, starts_before_edit_tokens=r.starts_before_edit_tokens,
            reach_tokens=r.reach_tokens,
        )
        return RegionExplanation(**{**x.__dict__, "text": render(x)})

    def covers(self, word_b: int | None, edit: DiffOp | None, window: int) -> bool:
        """A candidate at B word `word_b` reads words word_b - window + 1 .. word_b: does
        that window hold a word of the edit (or the place of a deletion)?"""
        if edit is None or word_b is None:
            return edit is not None
        lo = word_b - window + 1
        if edit.b_end == edit.b_start:  # a deletion between words b_start - 1 and b_start
            return lo < edit.b_start <= word_b
        return edit.b_start <= word_b and lo < edit.b_end

    def tttd_cause(self, da: TttdDecision, db: TttdDecision,
                   edit: DiffOp | None) -> tuple[str, tuple[Candidate, ...], tuple[Candidate, ...]]:
        w = self.c.a.params.window_words
        m = self.words
        if da.candidate_word is not None:
            in_b = m.to_b(da.candidate_word)
            still = in_b is not None and (self.ex_b.is_primary(in_b) if da.kind == PRIMARY else
                                          self.ex_b.is_backup(in_b))
            if not still:
                where = in_b if in_b is not None else (edit.b_start if edit is not None else None)
                return LOST_CANDIDATE, (Candidate(da.kind, da.candidate_word, in_b,
                                                  self.covers(where, edit, w)),), ()
        if db.candidate_word is not None:
            in_a = m.to_a(db.candidate_word)
            was = in_a is not None and (self.ex_a.is_primary(in_a) if db.kind == PRIMARY else
                                        self.ex_a.is_backup(in_a))
            if not was:
                return NEW_CANDIDATE, (), (Candidate(db.kind, in_a, db.candidate_word,
                                                     self.covers(db.candidate_word, edit, w)),)
        if edit is not None and (edit.b_start < (db.max_word if db.max_word is not None else db.cut_word) + 1
                                 and edit.b_end >= db.start_word):
            return LENGTH_CHANGE, (), ()
        return OTHER, (), ()

    def lmx2_cause(self, r: PhaseShiftRegion,
                   edit: DiffOp | None) -> tuple[str, tuple[Candidate, ...], tuple[Candidate, ...]]:
        c, m = self.c, self.words
        j0 = r.run_b_chunks[0]
        prev = c.partner_b[j0 - 1] if j0 else None
        i0 = 0 if prev is None else prev + 1
        stop_a = r.resync_a if r.resync_a is not None else len(c.a.columns)
        stop_b = r.resync_b if r.resync_b is not None else len(c.b.columns)
        cuts_a = c.a.columns.end_words[i0:stop_a].tolist()
        cuts_b = c.b.columns.end_words[r.run_b_chunks[0]:stop_b].tolist()
        set_a, set_b = set(cuts_a), set(cuts_b)
        kinds_a = dict(zip(cuts_a, c.a.columns.kinds[i0:stop_a]))
        kinds_b = dict(zip(cuts_b, c.b.columns.kinds[r.run_b_chunks[0]:stop_b]))
        key_tokens = c.a.params.key_tokens
        lost = []
        for x in cuts_a:
            xb = m.cut_to_b(x)
            if xb is None or xb not in set_b:
                lost.append(Candidate(kinds_a[x], x, xb, self.key_covers(xb, edit, key_tokens)))
        created = []
        for x in cuts_b:
            xa = m.cut_to_a(x)
            if xa is None or xa not in set_a:
                created.append(Candidate(kinds_b[x], xa, x, self.key_covers(x, edit, key_tokens)))
        return (LOCAL_CHANGE if lost or created else SAME_CUTS), tuple(lost), tuple(created)

    def key_covers(self, cut_b: int | None, edit: DiffOp | None, key_tokens: int) -> bool:
        """Does cut `cut_b`'s key window (key_tokens back from it, docs/contract/lmx2-v1.md#keys) or its
        class (word cut_b) read a word of the edit?"""
        if edit is None or cut_b is None:
            return edit is not None
        cum = self.c.b.cum_tokens
        first = int(np.searchsorted(cum, int(cum[cut_b]) - key_tokens, "left"))
        first = min(first, max(cut_b - 1, 0))
        return edit.b_start <= cut_b and first <= max(edit.b_end - 1, edit.b_start) or (
            edit.b_start <= cut_b < edit.b_end)


# -- the sentences --------------------------------------------------------------------------


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count_words(count: int) -> str:
    return _NUMBERS[count] if count < len(_NUMBERS) else f"{count:,}"


def _edit_phrase(edit: DiffOp | None) -> str:
    if edit is None:
        return "the start of the document"
    span = "word" if edit.b_end - edit.b_start == 1 else "words"
    where = (f"B word {edit.b_start:,}" if edit.b_end - edit.b_start <= 1 else
             f"B {span} {edit.b_start:,}–{edit.b_end - 1:,}")
    if edit.tag == "delete":
        where = f"B word {edit.b_start:,} (A words {edit.a_start:,}–{edit.a_end - 1:,} deleted)"
    return f"the edit ({edit.tag}) at {where}"


def _tttd_outcome(d: TttdDecision) -> str:
    """What B's first re-cut chunk did, in words."""
    if d.kind == PRIMARY:
        text = f"found the primary candidate at word {d.candidate_word:,} after min, and ends at word {d.raw_cut_word:,}"
    elif d.kind == BACKUP:
        text = (f"had no primary before max ({d.max_tokens:,} t), so it fell back to the backup at word "
                f"{d.candidate_word:,}")
    elif d.kind == HARD:
        text = (f"had no primary or backup candidate before max ({d.max_tokens:,} t), so it was cut hard at word "
                f"{d.raw_cut_word:,}")
    else:
        text = "ran to the end of the document"
    if d.snapped:
        text += f", then snapping moved the cut to word {d.cut_word:,} (a {d.snap_target} end)"
    return text


def _cut_phrase(d: Decision) -> str:
    if isinstance(d, TttdDecision):
        if d.kind in (PRIMARY, BACKUP):
            return f"{d.kind} at {d.candidate_word:,}"
        return f"{d.kind} cut at {d.cut_word:,}" if d.kind == HARD else "the end"
    return f"{d.kind} at {d.cut_word:,}"


def _meeting(x: RegionExplanation) -> str:
    if not x.resynced:
        return (f"the versions never meet again before the end of B ({x.resync_distance_tokens:,} tokens after "
                "the edit)")
    kind = "the start" if x.resync_kind is None else f"the {x.resync_kind} cut"
    return (f"both versions meet again at {kind} at A {x.resync_a_word:,} / B {x.resync_b_word:,} "
            f"(A chunk {x.resync_a}, B chunk {x.resync_b}), {x.resync_distance_tokens:,} tokens after the edit")


def _chain(x: RegionExplanation) -> str:
    if not x.chain_b:
        return ""
    shown = ", ".join(_cut_phrase(d) for d in x.chain_b[:6]) + (", …" if len(x.chain_b) > 6 else "")
    if len(x.chain_b) == 1:
        return f"the next cut followed from that start ({shown}); "
    return f"the next {_count_words(len(x.chain_b))} cuts followed from that start ({shown}); "


def render(x: RegionExplanation) -> str:
    """The paragraph of one region, from its fields."""
    if x.rule == "lmx2-v1":
        return _render_lmx2(x)
    db, da = x.decision_b, x.decision_a
    edit = _edit_phrase(x.edit)
    where = ""
    if x.edit is not None:
        where = " — before the edit" if x.fell_back_before_edit else ""
    first = f"B's chunk {x.first_b_chunk} (from word {db.start_word:,})"
    if x.cause == LOST_CANDIDATE:
        (lost,) = x.lost
        covered = f" whose {da.window_words}-word window covered it" if lost.window_covers_edit else ""
        head = f"{edit[0].upper()}{edit[1:]} removed the {lost.kind} candidate at A word {lost.a_word:,}{covered}; "
        body = f"{first} {_tttd_outcome(db)}{where}; "
    elif x.cause == NEW_CANDIDATE:
        (new,) = x.created
        covered = f" (its {da.window_words}-word window covers the edit)" if new.window_covers_edit else ""
        head = f"{edit[0].upper()}{edit[1:]} created a {new.kind} candidate at B word {new.b_word:,}{covered}; "
        body = (f"{first} ends there, at word {db.cut_word:,}, {x.cut_moved} than A's chunk {x.first_a_chunk}, "
                f"which {_tttd_outcome(da)}{where}; ")
    elif x.cause == LENGTH_CHANGE:
        change = (f"added {_n(x.token_change, 'token')}" if x.token_change > 0 else
                  f"removed {_n(-x.token_change, 'token')}" if x.token_change < 0 else "changed no token count")
        head = (f"{edit[0].upper()}{edit[1:]} {change}, so min ({db.min_tokens:,} t) and max ({db.max_tokens:,} t) "
                f"fall at other words of the same candidates; ")
        body = (f"A's chunk {x.first_a_chunk} {_tttd_outcome(da)}, while {first} {_tttd_outcome(db)}{where}; ")
    elif x.cause == SAME_CUTS:
        head = f"{edit[0].upper()}{edit[1:]} moved no cut: "
        body = (f"{first} ends at the same cut as A's chunk {x.first_a_chunk} and differs from it only by the "
                "edited words at its edge; ")
    else:
        head = f"After {edit}, "
        body = f"{first} {_tttd_outcome(db)}{where}; "
    return f"{head}{body}{_moved(x)}{_chain(x)}{_meeting(x)}."


def _moved(x: RegionExplanation) -> str:
    """How far B's first moved cut is from A's, in B's words (both numberings named:
    they differ after an edit that changed the word count)."""
    if x.cause == SAME_CUTS or x.a_cut_b_word is None or x.a_cut_b_word == x.decision_b.cut_word:
        return ""
    words = abs(x.decision_b.cut_word - x.a_cut_b_word)
    return (f"B cuts at its word {x.decision_b.cut_word:,}, {_n(words, 'word')} {x.cut_moved} than A's cut "
            f"(A word {x.decision_a.cut_word:,}, which is B word {x.a_cut_b_word:,}); ")


def _render_lmx2(x: RegionExplanation) -> str:
    edit = _edit_phrase(x.edit)
    parts = []
    for cand in x.lost[:3]:
        why = ("its key window covers the edit, so its key changed" if cand.window_covers_edit else
               "a competitor within its horizon changed")
        parts.append(f"A's {cand.kind} cut at word {cand.a_word:,} is gone ({why})")
    for cand in x.created[:3]:
        why = ("its key window covers the edit" if cand.window_covers_edit else
               "the competitor that beat it in A changed or moved away")
        parts.append(f"B has a new {cand.kind} cut at word {cand.b_word:,} ({why})")
    more = len(x.lost) + len(x.created) - len(parts)
    if more > 0:
        parts.append(f"{_n(more, 'more cut')} changed")
    changes = "; ".join(parts) if parts else "no cut changed position, only where chunks start"
    return (f"lmx2-v1 decides every cut from its own neighbourhood. Near {edit}: {changes}. "
            f"Cuts farther away than the margin keep their place; {_meeting(x)}.")


def explanation_json(explanations: Sequence[RegionExplanation], comparison: Comparison) -> dict:
    return {
        "schema": SCHEMA,
        "boundary_rule": comparison.a.boundary_rule,
        "params_hash": comparison.a.params_hash,
        "params": comparison.a.params.to_dict(),
        "regions": [{"number": x.region + 1, **x.to_dict()} for x in explanations],
    }
