"""Why each cut is where it is: the decision records.

Computed on demand from what a chunking already holds (nothing is stored per document):

- `explain_cuts(chunking, start_chunk, end_chunk)`: one decision record per chunk of
  the range, saying why its end cut is there. tttd-v1 (docs/contract/tttd-v1.md#segmentation): the cut is decided
  again by the pipeline's own walker (`segment._Walk`) over the same candidates
  (`kernel.candidates` on the chunking's fingerprints) and cumulative tokens, and the
  record adds what that decision read: where min and max fell, which candidate won, the
  candidate's fingerprint, whether snapping moved the cut and to what. The record is
  checked against the real chunk: a record that disagrees is a defect and raises.
  lmx2-v1 (docs/contract/lmx2-v1.md#cuts): the cut's level and key, the neighbourhood it had to win
  (its horizon, in tokens, and the cuts inside it) and the competitor that came next.

Why the chunks moved between two versions, built on these records, is `causes`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from ..chunking.chunks import Chunking
from ..errors import SteadlithError
from ..kernel.select import candidates, window_candidates, window_fingerprints
from ..chunking.lmx2 import CLASS_NAMES
from ..kernel.segment import SnapPoints, _Walk, snap
from ..vocabulary import BACKUP, END, FILL, HARD, LONG_WORD, PRIMARY

Range = tuple[int, int]


class ExplainError(SteadlithError, ValueError):
    """What to explain does not exist (a chunk or region out of range)."""


# -- decision records ----------------------------------------------------------------------


@dataclass(frozen=True)
class TttdDecision:
    """Why a tttd-v1 chunk [start_word, cut_word) ends where it does (docs/contract/tttd-v1.md#segmentation).

    min_word: the word whose inclusion brings the chunk to min_tokens (candidates count
      from it on); None when the document ends first.
    max_word: the first word that would overflow max_tokens; None when the document
      ends first (then the chunk can end at `end`).
    candidate_word: the candidate word the raw cut follows (cut = word + 1) for a
      primary or backup cut; fingerprint: its F_k (hex).
    primaries_in_reach: primary candidates in [min_word, max_word) (0 for a backup or
      hard cut, which is why it fell back).
    backups_in_reach: backup candidates in the same words (the last one wins a backup cut).
    raw_cut_word: the cut before snapping; snap_target: paragraph or sentence when
      snapping moved it (snapped), None otherwise.
    """

    chunk: int
    start_word: int
    cut_word: int
    kind: str
    start_token: int
    cut_token: int
    min_word: int | None
    max_word: int | None
    candidate_word: int | None
    fingerprint: str | None
    primaries_in_reach: int
    backups_in_reach: int
    raw_cut_word: int
    snapped: bool
    snap_target: str | None
    snap_mode: str
    window_words: int
    min_tokens: int
    max_tokens: int
    snap_window_words: int = 0
    rule: str = "tttd-v1"

    @property
    def tokens(self) -> int:
        return self.cut_token - self.start_token

    def describe(self) -> str:
        if self.kind == PRIMARY:
            text = (f"primary candidate at word {self.candidate_word} (fingerprint {self.fingerprint}) after min "
                    f"({self.min_tokens} t, reached at word {self.min_word}): cut at word {self.raw_cut_word}")
        elif self.kind == BACKUP:
            text = (f"backup: no primary candidate before max ({self.max_tokens} t; word {self.max_word} would "
                    f"overflow), last backup candidate at word {self.candidate_word}: cut at word {self.raw_cut_word}")
        elif self.kind == HARD:
            text = (f"hard cut at max: no primary or backup candidate between min (word {self.min_word}) and max "
                    f"({self.max_tokens} t; word {self.max_word} would overflow): cut at word {self.raw_cut_word}")
        else:
            text = "end of document: no primary candidate after min before the last word"
        if self.snapped:
            text += (f"; snapping ({self.snap_mode}) moved it from word {self.raw_cut_word} to {self.cut_word}, the "
                     f"nearest {self.snap_target} end within {self.snap_window_words} words")
        return text

    def to_dict(self) -> dict:
        return {**asdict(self), "tokens": self.tokens, "text": self.describe()}


@dataclass(frozen=True)
class Lmx2Decision:
    """Why an lmx2-v1 chunk [start_word, cut_word) ends where it does (docs/contract/lmx2-v1.md#cuts).

    level: 1 for a primary cut (key_1 among every interior cut within `horizon` tokens),
      2 for a fill cut (key_2 among the fill zone's cuts within `fill_horizon`), None for
      a long-word cut or the end.
    key: the cut's key of that level (16 hex digits); boundary_class: paragraph,
      sentence or word (the class that sets the key's top bits when boundaries are
      preferred).
    neighbourhood_words: the first and last cut it competed with (cut positions, words
      before them), inside `horizon` tokens of it either side; competitors: how many.
    runner_up_word, runner_up_key: the competitor with the largest key after it: the cut
      that would have won had this one not.
    long_word: for a long-word cut, the word of at least min_tokens that stands alone.
    """

    chunk: int
    start_word: int
    cut_word: int
    kind: str
    start_token: int
    cut_token: int
    level: int | None
    key: str | None
    boundary_class: str
    horizon: int | None
    neighbourhood_words: Range | None
    competitors: int
    runner_up_word: int | None
    runner_up_key: str | None
    long_word: int | None
    min_tokens: int
    rule: str = "lmx2-v1"

    @property
    def tokens(self) -> int:
        return self.cut_token - self.start_token

    def describe(self) -> str:
        if self.kind == END:
            return "end of document"
        if self.kind == LONG_WORD:
            return (f"long word: word {self.long_word} has at least min_tokens ({self.min_tokens} t) and stands "
                    f"alone: cut at word {self.cut_word}")
        name = "primary" if self.level == 1 else "fill"
        text = (f"{name} (level {self.level}): key {self.key} ({self.boundary_class} end) at word {self.cut_word} is "
                f"the largest of {self.competitors + 1} cuts within {self.horizon} t (cuts {self.neighbourhood_words[0]}"
                f"–{self.neighbourhood_words[1]})")
        if self.runner_up_word is not None:
            text += f"; next: the cut at word {self.runner_up_word} (key {self.runner_up_key})"
        return text

    def to_dict(self) -> dict:
        d = {**asdict(self), "tokens": self.tokens, "text": self.describe()}
        if self.neighbourhood_words is not None:
            d["neighbourhood_words"] = list(self.neighbourhood_words)
        return d


Decision = TttdDecision | Lmx2Decision


def _chunk_range(chunking: Chunking, start_chunk: int, end_chunk: int | None) -> range:
    count = len(chunking.columns)
    end = count if end_chunk is None else end_chunk
    if type(start_chunk) is not int or type(end) is not int or not 0 <= start_chunk <= end <= count:
        raise ExplainError(f"no chunks [{start_chunk}, {end_chunk}) in a chunking of {count} chunks")
    return range(start_chunk, end)


def explain_cuts(chunking: Chunking, start_chunk: int = 0, end_chunk: int | None = None) -> tuple[Decision, ...]:
    """A decision record for each chunk in [start_chunk, end_chunk) (to the last chunk
    when end_chunk is None), of either rule. Costs one pass over the fingerprints or
    keys the chunking already has, plus a few binary searches per chunk."""
    return cut_explainer(chunking).explain(_chunk_range(chunking, start_chunk, end_chunk))


def cut_explainer(chunking: Chunking) -> _TttdExplainer | _Lmx2Explainer:
    """The explainer of the chunking's rule, for a caller that asks about many cuts of the
    same chunking (its `explain(range)` gives the records of a range of chunks)."""
    if chunking.boundary_rule == "lmx2-v1":
        return _Lmx2Explainer(chunking)
    return _TttdExplainer(chunking)


class _TttdExplainer:
    def __init__(self, chunking: Chunking):
        p = chunking.params
        self.c, self.p = chunking, p
        self.cum = chunking.cum_tokens
        self.n = len(self.cum) - 1
        masks = (p.primary_mask, p.primary_remainder, p.backup_mask, p.backup_remainder)
        # A stream that carries its symbols (a comparison's) gives the candidates in one
        # pass that keeps no fingerprint (8 bytes a word of each document), and the few
        # fingerprints a decision shows from the windows of their words.
        self.symbols = chunking.words.symbols
        self.fp = chunking.fingerprints if self.symbols is None else None
        if self.fp is None:
            primary, backup = window_candidates(self.symbols, p.window_words, p.polynomial, *masks)
        else:
            primary, backup = candidates(self.fp, *masks)
        self.primary, self.backup = np.asarray(primary, dtype=np.int64), np.asarray(backup, dtype=np.int64)
        self.walk = _Walk(self.cum, self.primary.tolist(), self.backup.tolist(), p.min_tokens, p.max_tokens)
        self.window = p.effective_snap_window
        self.points = None
        if self.window:
            self.points = SnapPoints.of_flags(chunking.words.para, chunking.canonical.sentence_ends)

    def fingerprint(self, k: int) -> int:
        """F_k (docs/contract/tttd-v1.md#fingerprint). Rolling is causal: F_k of the
        stream is F_k of the words up to k, and past the first window only the last
        `window_words` of them count."""
        if self.fp is not None:
            return int(self.fp[k])
        w = self.p.window_words
        lo = max(0, k - w + 1)
        part = self.symbols[lo : k + 1] if lo else self.symbols[: min(self.n, w)]
        return int(window_fingerprints(part, w, self.p.polynomial)[k - lo])

    def is_primary(self, k: int) -> bool:
        i = int(np.searchsorted(self.primary, k))
        return i < self.primary.size and int(self.primary[i]) == k

    def is_backup(self, k: int) -> bool:
        i = int(np.searchsorted(self.backup, k))
        return i < self.backup.size and int(self.backup[i]) == k

    def decide(self, s: int) -> tuple[int, str, int | None, int | None, int | None, int, int]:
        """(raw end, kind, min word, max word, candidate word, primaries and backups in
        reach) for a chunk starting at word s: the walker's decision, and what it read."""
        p, cum, n = self.p, self.cum, self.n
        end, kind = self.walk.cut(s)
        past_end = int(cum[-1]) + 1
        base = int(cum[s])
        i_min = max(int(np.searchsorted(cum, min(base + p.min_tokens, past_end), "left")) - 1, s)
        i_over = max(int(np.searchsorted(cum, min(base + p.max_tokens, past_end), "right")) - 1, s + 1)
        limit = min(i_over, n)
        lo, hi = np.searchsorted(self.primary, i_min), np.searchsorted(self.primary, limit)
        primaries = int(hi - lo)
        backups = int(np.searchsorted(self.backup, limit) - np.searchsorted(self.backup, i_min))
        candidate = end - 1 if kind in (PRIMARY, BACKUP) else None
        return (end, kind, i_min if i_min < n else None, i_over if i_over < n else None, candidate,
                primaries, backups)

    def explain(self, chunks: range) -> tuple[TttdDecision, ...]:
        cols, cum, p, n = self.c.columns, self.cum, self.p, self.n
        out = []
        for i in chunks:
            s, real_end = int(cols.start_words[i]), int(cols.end_words[i])
            end, kind, i_min, i_over, cand, primaries, backups = self.decide(s)
            kept, target = end, None
            if self.window and end < n:
                kept = snap(end, s, n, self.window, cum, self.points, p.min_tokens, p.max_tokens)
                if kept != end:
                    target = "paragraph" if bool(self.c.words.para[kept]) else "sentence"
            if (kept, kind) != (real_end, cols.kinds[i]):
                raise AssertionError(f"the explained cut of chunk {i} ({kept}, {kind}) is not the chunk's "
                                     f"({real_end}, {cols.kinds[i]})")
            out.append(TttdDecision(
                chunk=i, start_word=s, cut_word=kept, kind=kind, start_token=int(cum[s]), cut_token=int(cum[kept]),
                min_word=i_min, max_word=i_over, candidate_word=cand,
                fingerprint=None if cand is None else f"0x{self.fingerprint(cand):x}",
                primaries_in_reach=primaries, backups_in_reach=backups, raw_cut_word=end, snapped=kept != end,
                snap_target=target, snap_mode=p.snap_mode, window_words=p.window_words, min_tokens=p.min_tokens,
                max_tokens=p.max_tokens, snap_window_words=self.window,
            ))
        return tuple(out)


class _Lmx2Explainer:
    def __init__(self, chunking: Chunking):
        self.c, self.p = chunking, chunking.params
        self.cum = chunking.cum_tokens
        self.n = len(self.cum) - 1
        stages = chunking.stages
        self.keys, self.cuts, self.classes = stages.keys, stages.cuts, stages.classes
        self.tok = chunking.word_tokens

    def neighbourhood(self, c: int, reach: int) -> tuple[int, int]:
        """Interior cuts [lo, hi] within `reach` tokens of cut c."""
        x = int(self.cum[c])
        lo = max(int(np.searchsorted(self.cum, x - reach, "left")), 1)
        hi = min(int(np.searchsorted(self.cum, x + reach, "right")) - 1, self.n - 1)
        return lo, hi

    def zone(self, cuts: np.ndarray) -> np.ndarray:
        """Which of `cuts` lie in the fill zone Z (docs/contract/lmx2-v1.md#cuts)."""
        chosen = np.flatnonzero(self.cuts.edges | self.cuts.primary)
        at = self.cum[chosen]
        x = self.cum[cuts]
        k = np.searchsorted(at, x)
        after = np.where(k < at.size, at[np.minimum(k, at.size - 1)] - x, np.iinfo(np.int64).max)
        before = np.where(k > 0, x - at[np.maximum(k - 1, 0)], np.iinfo(np.int64).max)
        free = ~(self.cuts.edges[cuts] | self.cuts.primary[cuts])
        return free & (np.minimum(after, before) >= self.p.gate)

    def competition(self, c: int, level: int) -> tuple[Range, int, int | None, int | None]:
        keys = self.keys.key_1 if level == 1 else self.keys.key_2
        reach = self.p.horizon if level == 1 else self.p.fill_horizon
        lo, hi = self.neighbourhood(c, reach)
        others = np.arange(lo, hi + 1, dtype=np.int64)
        if level == 2:
            others = others[self.zone(others)]
        others = others[others != c]
        if not others.size:
            return (lo, hi), 0, None, None
        best = int(others[int(np.argmax(keys[others]))])
        if int(keys[best]) > int(keys[c]):
            raise AssertionError(f"cut {c} does not win its level-{level} neighbourhood: {best} has a larger key")
        return (lo, hi), int(others.size), best, int(keys[best])

    def explain(self, chunks: range) -> tuple[Lmx2Decision, ...]:
        cols, cum, p, n = self.c.columns, self.cum, self.p, self.n
        out = []
        for i in chunks:
            s, e = int(cols.start_words[i]), int(cols.end_words[i])
            kind = END if e == n else LONG_WORD if self.cuts.edges[e] else PRIMARY if self.cuts.primary[e] else FILL
            if kind != cols.kinds[i]:
                raise AssertionError(f"the explained kind of chunk {i} ({kind}) is not the chunk's ({cols.kinds[i]})")
            level = {PRIMARY: 1, FILL: 2}.get(kind)
            hood, competitors, runner, runner_key = None, 0, None, None
            key = long_word = None
            if level is not None:
                hood, competitors, runner, runner_key = self.competition(e, level)
                key = int((self.keys.key_1 if level == 1 else self.keys.key_2)[e])
            elif kind == LONG_WORD:
                long_word = e - 1 if int(self.tok[e - 1]) >= p.min_tokens else e
            out.append(Lmx2Decision(
                chunk=i, start_word=s, cut_word=e, kind=kind, start_token=int(cum[s]), cut_token=int(cum[e]),
                level=level, key=None if key is None else f"{key:016x}",
                boundary_class=END if e == n else CLASS_NAMES[int(self.classes[e])],
                horizon=None if level is None else (p.horizon if level == 1 else p.fill_horizon),
                neighbourhood_words=hood, competitors=competitors, runner_up_word=runner,
                runner_up_key=None if runner_key is None else f"{runner_key:016x}", long_word=long_word,
                min_tokens=p.min_tokens,
            ))
        return tuple(out)
