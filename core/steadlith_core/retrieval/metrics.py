"""The metrics of Chroma's chunking evaluation, computed exactly as its reference code
does (brandonstarxel/chunking_evaluation, evaluation_framework/base_evaluation.py).

Ranges are (start, end) pairs of code points, end excluded. For one question, with its
references R (a list, not merged) and the top-k retrieved chunks T:

- an *intersection* of a chunk and a reference is (max of starts, min of ends) whenever
  that start is <= that end: a chunk that only touches a reference (its end is the
  reference's start, or the reverse) intersects it in an empty range. That is harmless
  for recall, precision and IoU, but it makes a touching chunk count as "containing" the
  reference in precision_Ω (below), as it does in the reference code;
- only chunks of the question's corpus intersect its references; chunks of other
  corpora still count in the retrieved length;
- numerator = length of the union of all intersections (so a chunk overlapping two
  references, or two overlapping chunks, count each covered code point once);
- uncovered = the references, each on its own, minus every intersection (not merged:
  overlapping references would count their shared part twice, as in the reference);
- recall = numerator / sum of reference lengths;
- precision = numerator / sum of the lengths of all k retrieved chunks (any corpus, not
  merged);
- IoU = numerator / (sum of retrieved lengths + total uncovered length);
- precision_Ω = the same IoU with every chunk of the question's corpus that intersects
  (or touches) a reference "retrieved", and its denominator the length of the *union* of
  those chunks and the uncovered reference parts: the best IoU any retrieval could get
  from this chunking.

Means and standard deviations are numpy's (population std, ddof 0).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Sequence

Range = tuple[int, int]


def total(ranges: Iterable[Range]) -> int:
    return sum(e - s for s, e in ranges)


def union(ranges: Iterable[Range]) -> list[Range]:
    """Merge ranges that overlap or touch (start <= previous end), sorted by start."""
    out: list[Range] = []
    for s, e in sorted(ranges, key=lambda r: r[0]):
        if out and s <= out[-1][1]:
            ps, pe = out[-1]
            out[-1] = (ps, max(pe, e))
        else:
            out.append((s, e))
    return out


def intersection(a: Range, b: Range) -> Range | None:
    """The common part of a and b, empty when they only touch; None when apart."""
    s, e = max(a[0], b[0]), min(a[1], b[1])
    return (s, e) if s <= e else None


def subtract(ranges: Iterable[Range], cut: Range) -> list[Range]:
    """Each range minus `cut`, kept apart (a range `cut` falls inside becomes two)."""
    cs, ce = cut
    out: list[Range] = []
    for s, e in ranges:
        if e < cs or s > ce:
            out.append((s, e))
            continue
        if s < cs:
            out.append((s, cs))
        if e > ce:
            out.append((ce, e))
    return out


@dataclass(frozen=True)
class QuestionScores:
    recall: float
    precision: float
    iou: float
    precision_omega: float


def _cover(refs: Sequence[Range], chunks: Iterable[Range]) -> tuple[list[Range], list[Range], list[Range]]:
    """(intersections merged, uncovered reference parts, chunks that intersect or touch a reference)."""
    found: list[Range] = []
    uncovered = list(refs)
    touching: list[Range] = []
    for chunk in chunks:
        hit = False
        for ref in refs:
            common = intersection(chunk, ref)
            if common is not None:
                hit = True
                found.append(common)
                uncovered = subtract(uncovered, common)
        if hit:
            touching.append(chunk)
    return union(found), uncovered, touching


def retrieval_scores(refs: Sequence[Range], retrieved: Sequence[tuple[str, int, int]],
                     corpus_id: str) -> tuple[float, float, float]:
    """(recall, precision, IoU) of one question: `retrieved` are (corpus id, start, end)."""
    same = [(s, e) for c, s, e in retrieved if c == corpus_id]
    found, uncovered, _ = _cover(refs, same)
    numerator = total(found)
    retrieved_length = sum(e - s for _, s, e in retrieved)
    recall = numerator / total(refs)
    # the reference divides by zero here (nothing retrieved); nothing retrieved scores 0
    precision = numerator / retrieved_length if retrieved_length else 0.0
    iou_den = retrieved_length + total(uncovered)
    iou = numerator / iou_den if iou_den else 0.0
    return recall, precision, iou


def precision_omega(refs: Sequence[Range], corpus_chunks: Iterable[Range]) -> float:
    """The IoU of one question had every chunk of its corpus that meets a reference been
    retrieved (only those chunks matter: the caller may pass just them)."""
    found, uncovered, touching = _cover(refs, corpus_chunks)
    if not found:
        return 0.0
    return total(found) / total(union(touching + uncovered))


def question_scores(refs: Sequence[Range], retrieved: Sequence[tuple[str, int, int]], corpus_id: str,
                    omega_chunks: Iterable[Range]) -> QuestionScores:
    recall, precision, iou = retrieval_scores(refs, retrieved, corpus_id)
    return QuestionScores(recall, precision, iou, precision_omega(refs, omega_chunks))


@dataclass(frozen=True)
class Stat:
    mean: float
    std: float

    @classmethod
    def of(cls, values: Sequence[float]) -> "Stat":
        if not values:
            return cls(math.nan, math.nan)
        import numpy as np  # the reference's own mean and std (float64, pairwise sums)

        arr = np.asarray(values, dtype=np.float64)
        return cls(float(arr.mean()), float(arr.std()))

    def to_dict(self) -> dict:
        return {"mean": self.mean, "std": self.std}


@dataclass(frozen=True)
class Scores:
    """Mean and std of each metric over a group of questions."""

    questions: int
    recall: Stat
    precision: Stat
    precision_omega: Stat
    iou: Stat

    @classmethod
    def of(cls, scores: Sequence[QuestionScores]) -> "Scores":
        return cls(len(scores), Stat.of([s.recall for s in scores]), Stat.of([s.precision for s in scores]),
                   Stat.of([s.precision_omega for s in scores]), Stat.of([s.iou for s in scores]))

    def to_dict(self) -> dict:
        return {"questions": self.questions, "recall": self.recall.to_dict(), "precision": self.precision.to_dict(),
                "precision_omega": self.precision_omega.to_dict(), "iou": self.iou.to_dict()}
