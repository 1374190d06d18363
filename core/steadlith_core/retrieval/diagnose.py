"""Why one chunking retrieves better than another: measurements beside the metrics.

- **references cut**: a reference is cut when no single chunk holds all of it (its
  whitespace edges aside: chunks end at words, and Chroma's references often carry a
  trailing space). A cut reference can only be recalled whole if every piece is
  retrieved. Recall is then split into references cut and not cut (`ref_recall_*`:
  the share of each reference the top-k chunks cover, averaged over references).
- **where cuts fall**: every cut but a corpus's last, by what the corpus has there:
  a blank line (paragraph), a line break, a sentence end (``.!?`` and closers before
  the cut), inside a sentence, or inside a word.
- **sizes**: chunk length in code points (mean, 10th/50th/90th percentile, coefficient
  of variation), and the mean length of the chunks the retriever returned against the
  mean of all (a ratio above 1: the retriever favours the longer chunks), and the text
  the top k return per question. Recall grows with that text and precision shrinks, so
  two chunkings of equal mean size can differ in recall only because one hands on more.
- **edges**: chunks whose last line is a Markdown heading (the heading is cut from its
  body), and chunk texts with whitespace at an edge.
- **hits**: questions whose top-k holds at least one code point of a reference.
"""

from __future__ import annotations

import bisect
from dataclasses import asdict, dataclass
from typing import Mapping, Sequence

from .chunkers import RetrievalChunk
from .data import QuestionSet

SENTENCE_ENDS = ".!?"
CLOSERS = "\"'”’)]*_"
CUT_PLACES = ("paragraph", "line", "sentence", "inside sentence", "inside word")


@dataclass(frozen=True)
class CorpusDiagnostics:
    references: int
    references_cut: int
    ref_recall_cut: float | None  # mean share of a cut reference that the top-k cover
    ref_recall_whole: float | None
    cuts: dict  # {place: share of cuts}
    chunks: int
    mean_chars: float

    @property
    def cut_share(self) -> float:
        return self.references_cut / self.references if self.references else 0.0


@dataclass(frozen=True)
class Diagnostics:
    references: int
    references_cut: int
    ref_recall_cut: float | None
    ref_recall_whole: float | None
    questions_hit: float  # share of questions whose top-k touches a reference
    cuts: dict  # {place: share of cuts}
    size_chars: dict  # mean, p10, p50, p90, cv
    retrieved_mean_chars: float
    retrieved_chars_per_question: float  # the text the top k hand on: what recall is bought with
    heading_at_end: float  # share of chunks whose last line is a Markdown heading
    whitespace_edges: float  # share of chunk texts with leading or trailing whitespace
    per_corpus: dict  # {corpus id: CorpusDiagnostics}

    @property
    def cut_share(self) -> float:
        return self.references_cut / self.references if self.references else 0.0

    @property
    def length_bias(self) -> float:
        """Mean length of the retrieved chunks over the mean of all chunks."""
        mean = self.size_chars["mean"]
        return self.retrieved_mean_chars / mean if mean else 0.0

    def to_dict(self) -> dict:
        out = asdict(self)
        out["cut_share"] = self.cut_share
        out["length_bias"] = self.length_bias
        for cid, d in self.per_corpus.items():
            out["per_corpus"][cid] = {**asdict(d), "cut_share": d.cut_share}
        return out


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def cut_place(text: str, end: int) -> str:
    """What the corpus has where a chunk ends at `end` (whitespace the chunk kept at its
    end, as chonkie's chunks do, is looked through)."""
    while end > 0 and text[end - 1].isspace():
        end -= 1
    after = end
    while after < len(text) and text[after].isspace():
        after += 1
    gap = text[end:after]
    if after == len(text) or gap.count("\n") >= 2:
        return "paragraph"
    if "\n" in gap:
        return "line"
    before = end
    while before > 0 and text[before - 1] in CLOSERS:
        before -= 1
    if before > 0 and text[before - 1] in SENTENCE_ENDS:
        return "sentence"
    if not gap and end > 0 and text[end - 1].isalnum() and text[end].isalnum():
        return "inside word"
    return "inside sentence"


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _percentile(sorted_values: Sequence[int], q: float) -> float:
    if not sorted_values:
        return 0.0
    i = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return float(sorted_values[i])


def diagnose(chunks: Sequence[RetrievalChunk], corpora: Mapping[str, str], questions: QuestionSet,
             retrieved: Sequence[Sequence[tuple[str, int, int]]]) -> Diagnostics:
    """`retrieved`: each question's retrieved ranges (corpus id, start, end), best first."""
    by_corpus: dict[str, list[RetrievalChunk]] = {cid: [] for cid in corpora}
    for c in chunks:
        by_corpus[c.corpus_id].append(c)
    index: dict[str, tuple[list[int], list[int]]] = {}
    for cid, items in by_corpus.items():
        items.sort(key=lambda c: (c.start, c.end))
        starts = [c.start for c in items]
        reach, top = [], -1  # the farthest end among chunks starting at or before each one
        for c in items:
            top = max(top, c.end)
            reach.append(top)
        index[cid] = (starts, reach)

    def whole(cid: str, start: int, end: int) -> bool:
        starts, reach = index[cid]
        i = bisect.bisect_right(starts, start) - 1
        return i >= 0 and reach[i] >= end

    per: dict[str, dict] = {cid: {"refs": 0, "cut": 0, "rc": [], "rw": []} for cid in corpora}
    hits = 0
    retrieved_chars: list[int] = []
    for q, got in zip(questions.questions, retrieved):
        text = corpora[q.corpus_id]
        retrieved_chars.extend(e - s for _, s, e in got)
        same = [(s, e) for c, s, e in got if c == q.corpus_id]
        hit = False
        for ref in q.references:
            s, e = _trimmed(text, ref.start, ref.end)
            if s == e:
                s, e = ref.start, ref.end
            covered = 0
            pieces = sorted((max(s, a), min(e, b)) for a, b in same if max(s, a) < min(e, b))
            last = s
            for a, b in pieces:  # the union of the covered pieces
                a = max(a, last)
                if b > a:
                    covered += b - a
                    last = b
            hit = hit or covered > 0
            share = covered / (e - s)
            slot = per[q.corpus_id]
            slot["refs"] += 1
            if whole(q.corpus_id, s, e):
                slot["rw"].append(share)
            else:
                slot["cut"] += 1
                slot["rc"].append(share)
        hits += hit

    places = {p: 0 for p in CUT_PLACES}
    per_corpus: dict[str, CorpusDiagnostics] = {}
    for cid, items in by_corpus.items():
        text = corpora[cid]
        mine = {p: 0 for p in CUT_PLACES}
        for c in items[:-1]:
            mine[cut_place(text, c.end)] += 1
        for p in CUT_PLACES:
            places[p] += mine[p]
        n_cuts = max(1, sum(mine.values()))
        slot = per[cid]
        if slot["refs"] or items:
            per_corpus[cid] = CorpusDiagnostics(
                slot["refs"], slot["cut"], _mean(slot["rc"]), _mean(slot["rw"]),
                {p: mine[p] / n_cuts for p in CUT_PLACES}, len(items),
                sum(c.end - c.start for c in items) / len(items) if items else 0.0)
    n_cuts = max(1, sum(places.values()))
    sizes = sorted(c.end - c.start for c in chunks)
    mean = sum(sizes) / len(sizes) if sizes else 0.0
    var = sum((x - mean) ** 2 for x in sizes) / len(sizes) if sizes else 0.0
    # read in the corpus, not the chunk text: a rule's canonical text joins lines
    headings = sum(1 for c in chunks
                   if corpora[c.corpus_id][c.start:c.end].rstrip().rsplit("\n", 1)[-1].lstrip().startswith("#"))
    edges = sum(1 for c in chunks if c.text[:1].isspace() or c.text[-1:].isspace())
    return Diagnostics(
        references=sum(s["refs"] for s in per.values()),
        references_cut=sum(s["cut"] for s in per.values()),
        ref_recall_cut=_mean([x for s in per.values() for x in s["rc"]]),
        ref_recall_whole=_mean([x for s in per.values() for x in s["rw"]]),
        questions_hit=hits / len(questions.questions) if questions.questions else 0.0,
        cuts={p: places[p] / n_cuts for p in CUT_PLACES},
        size_chars={"mean": mean, "p10": _percentile(sizes, 0.1), "p50": _percentile(sizes, 0.5),
                    "p90": _percentile(sizes, 0.9), "cv": (var ** 0.5) / mean if mean else 0.0},
        retrieved_mean_chars=sum(retrieved_chars) / len(retrieved_chars) if retrieved_chars else 0.0,
        retrieved_chars_per_question=sum(retrieved_chars) / len(retrieved) if retrieved else 0.0,
        heading_at_end=headings / len(chunks) if chunks else 0.0,
        whitespace_edges=edges / len(chunks) if chunks else 0.0,
        per_corpus=per_corpus,
    )
