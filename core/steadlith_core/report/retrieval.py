"""A retrieval run as one self-contained HTML page (`steadlith retrieval … --html PATH`,
templates/retrieval.html.j2): what was run, the scores of every chunking (per corpus
when asked), each chunking's parameters, and the diagnostics the text table prints.

Every figure is formatted as the text format formats it (retrieval/report.py), so the
page, the table and the JSON say the same; and `retrieval_table` is also what the lab's
retrieval section shows for its chunkers.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from .._version import __version__
from ..retrieval.diagnose import CUT_PLACES
from ..retrieval.evaluate import ChunkingResult, RetrievalRun
from ..retrieval.report import HEADS, METRICS, mean_sd, percent
from .pages import render

SCORE_HEAD = ("chunks", "mean tokens", "mean chars", *(HEADS[m] for m in METRICS))


def score_cells(result: ChunkingResult) -> list[str]:
    """A chunking's row of the score table: its size, then each metric's mean ± sd in %."""
    return [f"{result.chunks:,}", f"{result.mean_tokens:.0f}", f"{result.mean_chars:.0f}",
            *(mean_sd(getattr(result.overall, m)) for m in METRICS)]


def _rows(results: Sequence[ChunkingResult], per_corpus: bool) -> list[dict]:
    rows = []
    for r in results:
        rows.append({"label": r.name, "corpus": False, "cells": score_cells(r)})
        if per_corpus:
            for cid, s in r.per_corpus.items():
                d = r.diagnostics.per_corpus.get(cid)
                rows.append({"label": cid, "corpus": True, "questions": s.questions,
                             "cells": [f"{d.chunks:,}" if d else "", "", f"{d.mean_chars:.0f}" if d else "",
                                       *(mean_sd(getattr(s, m)) for m in METRICS)]})
    return rows


def _why_rows(results: Sequence[ChunkingResult], per_corpus: bool) -> list[dict]:
    rows = []
    for r in results:
        d = r.diagnostics
        z = d.size_chars
        rows.append({"label": r.name, "corpus": False, "cells": [
            f"{d.references_cut:,} of {d.references:,} ({percent(d.cut_share)}%)", percent(d.ref_recall_cut),
            percent(d.ref_recall_whole), f"{percent(d.questions_hit)}%",
            f"{z['p10']:.0f} / {z['p50']:.0f} / {z['p90']:.0f}",
            f"{z['cv']:.2f}", f"{d.length_bias:.2f}", f"{d.retrieved_chars_per_question:,.0f}",
            f"{percent(d.heading_at_end)}%", f"{percent(d.whitespace_edges)}%"]})
        if per_corpus:
            for cid, c in d.per_corpus.items():
                rows.append({"label": cid, "corpus": True, "cells": [
                    f"{c.references_cut:,} of {c.references:,} ({percent(c.cut_share)}%)", percent(c.ref_recall_cut),
                    percent(c.ref_recall_whole), "", "", "", "", "", "", ""]})
    return rows


WHY_HEAD = ("references cut", "ref recall, cut (%)", "ref recall, whole (%)", "questions hit",
            "size p10 / p50 / p90 (chars)", "size CV", "retrieved / mean size", "chars per question",
            "heading at end", "whitespace at an edge")


def _cut_rows(results: Sequence[ChunkingResult], per_corpus: bool) -> list[dict]:
    rows = []
    for r in results:
        rows.append({"label": r.name, "corpus": False,
                     "cells": [f"{percent(r.diagnostics.cuts[p])}%" for p in CUT_PLACES]})
        if per_corpus:
            for cid, c in r.diagnostics.per_corpus.items():
                rows.append({"label": cid, "corpus": True, "cells": [f"{percent(c.cuts[p])}%" for p in CUT_PLACES]})
    return rows


def _family(r: ChunkingResult) -> str:
    return {"rule": "boundary rule", "baseline": "fixed-size baseline", "external": "external splitter"}.get(
        r.family, r.family)


def retrieval_setting(run: RetrievalRun) -> str:
    """'bm25, top 5' or 'bm25, 2,500 code points of chunks a question'."""
    return f"{run.retriever}, " + (f"top {run.top_k}" if run.budget is None
                                   else f"{run.budget:,} code points of chunks a question")


def render_retrieval_report(run: RetrievalRun, *, per_corpus: bool = False, timing: bool = False,
                            generated_by: str | None = None) -> str:
    """The page (write it with export.write_text_atomic)."""
    if generated_by is None:
        generated_by = f"steadlith_core {__version__}"
    qs = run.question_set
    asked: Mapping[str, int] = {cid: sum(1 for q in qs.questions if q.corpus_id == cid) for cid in run.corpora}
    results = run.results
    return render(
        "retrieval.html.j2", title="Steadlith retrieval evaluation", generated_by=generated_by,
        questions_file=qs.source, questions=len(qs.questions), references=sum(len(q.references) for q in qs.questions),
        corpora=[(cid, size, asked.get(cid, 0)) for cid, size in run.corpora.items()],
        code_points=sum(run.corpora.values()), setting=retrieval_setting(run), retriever=run.retriever,
        top_k=run.top_k, budget=run.budget, score_head=SCORE_HEAD, rows=_rows(results, per_corpus),
        why_head=WHY_HEAD, why_rows=_why_rows(results, per_corpus), cut_head=CUT_PLACES,
        cut_rows=_cut_rows(results, per_corpus),
        chunkings=[(r.name, _family(r), sorted(r.settings.items())) for r in results],
        embeddings=[(r.name, f"{r.embedded:,}", f"{r.reused:,}") for r in results if r.embedded is not None],
        timing=[(r.name, f"{r.chunk_seconds:.2f}", f"{r.rank_seconds:.2f}") for r in results] if timing else [],
        load_average=" ".join(f"{x:.2f}" for x in run.load_average) if timing and run.load_average else None)
