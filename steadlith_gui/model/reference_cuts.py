"""A question set's reference excerpts inside the documents shown, and the cuts that
split them: the inspector's view of why a chunking retrieves badly (a reference cut in
two is never handed on whole by one chunk).

Matching a document to a corpus: by **exact text equality** with a corpus file, not by
file name. A reference's offsets are code points of its corpus text, so they mean
something only in that very text: a pane holding an edited version of the corpus (B of a
pair, or A after typing) would get every reference at the wrong place if matched by its
name. Equality is checked against the text the shown chunks were made from, so a result
of an edited text has no references until the text is that of a corpus again.

A cut *splits* a reference when part of the reference lies in the chunk before the cut
and part in the chunk after it: the reference starts before the chunk's end and ends
after the next chunk's start. The whitespace between two chunks belongs to neither, so a
reference ending in a space just before the next chunk's first word is not split.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

import numpy as np

NO_RANGES = np.zeros(0, dtype=np.int64)


def match_corpus(text: str, corpora: Mapping[str, str]) -> str | None:
    """The id of the corpus whose text equals `text` exactly, if any (the first in
    `corpora`' order when two are equal)."""
    for corpus_id, corpus in corpora.items():
        if len(corpus) == len(text) and corpus == text:
            return corpus_id
    return None


@dataclass(frozen=True, eq=False)
class CorpusReferences:
    """The distinct references of one corpus over every question: `starts`/`ends` sorted
    by start (code points, [start, end)), and the merged runs the panes underline."""

    starts: np.ndarray
    ends: np.ndarray
    run_starts: np.ndarray
    run_ends: np.ndarray

    @classmethod
    def of(cls, ranges: Iterable[tuple[int, int]]) -> "CorpusReferences":
        pairs = sorted(set(ranges))
        starts = np.fromiter((s for s, _ in pairs), dtype=np.int64, count=len(pairs))
        ends = np.fromiter((e for _, e in pairs), dtype=np.int64, count=len(pairs))
        run_starts, run_ends = merged_runs(starts, ends)
        return cls(starts, ends, run_starts, run_ends)

    def __len__(self) -> int:
        return int(self.starts.size)


def merged_runs(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted, disjoint runs covering the ranges (sorted by start): overlapping or
    touching ranges become one run, as an underline shows them."""
    if not starts.size:
        return NO_RANGES, NO_RANGES
    reach = np.maximum.accumulate(ends)
    new = np.ones(starts.size, dtype=bool)
    new[1:] = starts[1:] > reach[:-1]
    first = np.flatnonzero(new)
    last = np.append(first[1:], starts.size) - 1
    return starts[first].copy(), reach[last].copy()


def split_cuts(ref_starts: np.ndarray, ref_ends: np.ndarray, chunk_starts: Sequence[int] | np.ndarray,
               chunk_ends: Sequence[int] | np.ndarray) -> np.ndarray:
    """Indices i of the chunks whose cut (between chunk i and chunk i + 1) splits a
    reference: some reference starts before chunk i ends and ends after chunk i + 1
    starts. References sorted by start; chunks in document order. The last chunk has no
    cut after it. O((chunks + references) log references)."""
    cs = np.asarray(chunk_starts, dtype=np.int64)
    ce = np.asarray(chunk_ends, dtype=np.int64)
    if cs.size < 2 or not ref_starts.size:
        return NO_RANGES
    before, after = ce[:-1], cs[1:]
    reach = np.maximum.accumulate(ref_ends)  # the farthest end of the references started so far
    k = np.searchsorted(ref_starts, before, "left")  # references starting strictly before the chunk's end
    split = (k > 0) & (reach[np.maximum(k - 1, 0)] > after)
    return np.flatnonzero(split)


@dataclass(frozen=True)
class ReferenceIndex:
    """Every corpus's references, and the corpora's texts to match documents against."""

    source: str  # the question file
    corpora: Mapping[str, str]
    by_corpus: Mapping[str, CorpusReferences]

    @classmethod
    def of(cls, question_set, corpora: Mapping[str, str]) -> "ReferenceIndex":
        """From a steadlith_core.retrieval QuestionSet and its {corpus id: text}."""
        ranges: dict[str, list[tuple[int, int]]] = {}
        for q in question_set.questions:
            ranges.setdefault(q.corpus_id, []).extend((r.start, r.end) for r in q.references)
        return cls(question_set.source, dict(corpora),
                   {cid: CorpusReferences.of(rs) for cid, rs in ranges.items()})

    def side(self, text: str | None, chunk_starts, chunk_ends) -> "SideReferences | None":
        """The references of the corpus `text` is (None: no corpus has this text, or it
        has no question) and the chunks whose cut splits one."""
        if text is None:
            return None
        corpus_id = match_corpus(text, self.corpora)
        refs = self.by_corpus.get(corpus_id) if corpus_id is not None else None
        if refs is None:
            return None
        return SideReferences(corpus_id, refs, split_cuts(refs.starts, refs.ends, chunk_starts, chunk_ends))


@dataclass(frozen=True, eq=False)
class SideReferences:
    """One pane's references and the cuts that split them."""

    corpus_id: str
    references: CorpusReferences
    splitting: np.ndarray  # chunk indices whose cut splits a reference, ascending

    @property
    def split_count(self) -> int:
        return int(self.splitting.size)


def split_summary(sides: Mapping[str, SideReferences | None], key: str) -> str | None:
    """The churn panel's line: per side, the corpus matched, its references and the cuts
    splitting one; None when no side shows a corpus of the question set."""
    parts = []
    for side, refs in sides.items():
        if refs is None:
            parts.append(f"{side} –")
            continue
        n = refs.split_count
        m = len(refs.references)
        parts.append(f"{side} {n:,} cut{'s' if n != 1 else ''} ({m:,} ref{'s' if m != 1 else ''} in {refs.corpus_id})")
    if all(refs is None for refs in sides.values()):
        return None
    return "References split: " + " · ".join(parts) + f"  ({key}: next)"


def step_target(cut_positions: np.ndarray, caret: int, direction: int) -> int | None:
    """Which splitting cut to go to from the caret, given their positions (ascending):
    the first after the caret, or the last before it; None past the last (or before the
    first): no wrap, so stepping through tells when every one was seen."""
    if not cut_positions.size:
        return None
    if direction > 0:
        k = int(np.searchsorted(cut_positions, caret, "right"))
        return k if k < cut_positions.size else None
    k = int(np.searchsorted(cut_positions, caret, "left")) - 1
    return k if k >= 0 else None
