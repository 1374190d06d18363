"""The run as text (a table per metric group, the diagnostics beside) and as CSV."""

from __future__ import annotations

import csv
import io

from .diagnose import CUT_PLACES
from .evaluate import ChunkingResult, RetrievalRun
from .metrics import Scores

METRICS = ("recall", "precision", "precision_omega", "iou")
HEADS = {"recall": "recall", "precision": "precision", "precision_omega": "precision_Ω", "iou": "IoU"}


def percent(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}"


def mean_sd(s) -> str:
    return f"{100 * s.mean:.1f} ± {100 * s.std:.1f}"


def _table(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
            for r in rows]


def _score_row(label: str, r: ChunkingResult, s: Scores, chunks: str, tokens: str, chars: str) -> tuple[str, ...]:
    return (label, chunks, tokens, chars, *(mean_sd(getattr(s, m)) for m in METRICS))


def questions_over(questions: int, corpora: int) -> str:
    """'1 question over 1 corpus', '8 questions over 2 corpora'."""
    return (f"{questions:,} question{'' if questions == 1 else 's'} over "
            f"{corpora:,} {'corpus' if corpora == 1 else 'corpora'}")


def format_text(run: RetrievalRun, *, per_corpus: bool = False, timing: bool = False) -> str:
    qs = run.question_set
    lines = [f"retrieval  {questions_over(len(qs.questions), len(run.corpora))} "
             f"({sum(run.corpora.values()):,} code points); retriever {run.retriever}, "
             + (f"top {run.top_k}; " if run.budget is None else f"{run.budget:,} code points of chunks a question; ")
             + "metrics in % (mean ± std over questions)", ""]
    head = ("chunking", "chunks", "mean tok", "mean chars", *(HEADS[m] for m in METRICS))
    rows = [head]
    for r in run.results:
        rows.append(_score_row(r.name, r, r.overall, f"{r.chunks:,}", f"{r.mean_tokens:.0f}", f"{r.mean_chars:.0f}"))
        if per_corpus:
            for cid, s in r.per_corpus.items():
                d = r.diagnostics.per_corpus.get(cid)
                rows.append(_score_row(f"  {cid}", r, s, f"{d.chunks:,}" if d else "", "",
                                       f"{d.mean_chars:.0f}" if d else ""))
    lines += _table(rows)
    embedding = [r for r in run.results if r.embedded is not None]
    if embedding:
        lines += ["", "embeddings (chunk texts): " + "; ".join(
            f"{r.name} embedded {r.embedded:,}, reused {r.reused:,}" for r in embedding)]

    lines += ["", "why (references cut: no single chunk holds the reference; ref recall: share of each reference "
                  "the top k cover)", ""]
    head = ("chunking", "refs cut", "ref recall cut", "ref recall whole", "questions hit", "size p10/p50/p90",
            "size cv", "retrieved/mean size", "chars/question", "heading at end")
    rows = [head]
    for r in run.results:
        d = r.diagnostics
        z = d.size_chars
        rows.append((r.name, f"{percent(d.cut_share)}%", percent(d.ref_recall_cut), percent(d.ref_recall_whole),
                     f"{percent(d.questions_hit)}%", f"{z['p10']:.0f}/{z['p50']:.0f}/{z['p90']:.0f}", f"{z['cv']:.2f}",
                     f"{d.length_bias:.2f}", f"{d.retrieved_chars_per_question:,.0f}", f"{percent(d.heading_at_end)}%"))
        if per_corpus:
            for cid, c in d.per_corpus.items():
                rows.append((f"  {cid}", f"{percent(c.cut_share)}%", percent(c.ref_recall_cut), percent(c.ref_recall_whole),
                             "", "", "", "", "", ""))
    lines += _table(rows)

    lines += ["", "where cuts fall (share of cuts)", ""]
    rows = [("chunking", *CUT_PLACES)]
    for r in run.results:
        rows.append((r.name, *(f"{percent(r.diagnostics.cuts[p])}%" for p in CUT_PLACES)))
        if per_corpus:
            for cid, c in r.diagnostics.per_corpus.items():
                rows.append((f"  {cid}", *(f"{percent(c.cuts[p])}%" for p in CUT_PLACES)))
    lines += _table(rows)

    if timing:
        lines += ["", "timing (wall seconds)", ""]
        rows = [("chunking", "chunk", f"rank ({run.retriever})")]
        for r in run.results:
            rows.append((r.name, f"{r.chunk_seconds:.2f}", f"{r.rank_seconds:.2f}"))
        lines += _table(rows)
        if run.load_average:
            lines.append("load average " + " ".join(f"{x:.2f}" for x in run.load_average))
    return "\n".join(lines)


def format_csv(run: RetrievalRun, *, per_corpus: bool = False) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["chunking", "corpus", "questions", "chunks", "mean_chunk_tokens", "mean_chunk_chars",
                *(f"{m}_{k}" for m in METRICS for k in ("mean", "std")), "references", "references_cut",
                "ref_recall_cut", "ref_recall_whole", "chunk_seconds", "rank_seconds"])

    def row(r: ChunkingResult, corpus: str, s: Scores, d, chunks, tokens, chars, secs) -> None:
        w.writerow([r.name, corpus, s.questions, chunks, tokens, chars,
                    *(v for m in METRICS for v in (getattr(s, m).mean, getattr(s, m).std)),
                    d.references, d.references_cut, d.ref_recall_cut, d.ref_recall_whole, *secs])

    for r in run.results:
        row(r, "", r.overall, r.diagnostics, r.chunks, r.mean_tokens, r.mean_chars,
            (r.chunk_seconds, r.rank_seconds))
        if per_corpus:
            for cid, s in r.per_corpus.items():
                d = r.diagnostics.per_corpus[cid]
                row(r, cid, s, d, d.chunks, "", d.mean_chars, ("", ""))
    return buf.getvalue()
