"""A sweep's rows as a text table, JSON, CSV, and a self-contained HTML page (the table
and an inline SVG scatter; no script, as for the comparison report).

Everything here is a function of the rows: the same sweep gives the same bytes.
"""

from __future__ import annotations

import csv
import io
from dataclasses import fields
from typing import Sequence

from ..comparison.external import EXTERNAL_KIND
from ..report.pages import render
from ..report.scatter import EXTERNAL_COLOURS, RULE_COLOURS, Point, rule_colour, scatter
from .results import SetRow

# the window colours its sweep plot as this page does: the palette lives with the scatter
__all__ = ["EXTERNAL_COLOURS", "RULE_COLOURS", "SCHEMA", "columns", "rule_colour", "series", "sweep_csv", "sweep_html",
           "sweep_json", "sweep_text"]

SCHEMA = "steadlith-sweep/1"


def series(row: SetRow) -> str:
    """What a row is drawn as: its rule, or for an external row its splitter's kind (the
    label is the splitter's name, `KIND(chunk_size=…)`), so two splitters stay apart."""
    if row.boundary_rule != EXTERNAL_KIND:
        return row.boundary_rule
    return row.label.partition("(")[0]


def sweep_json(rows: Sequence[SetRow], *, sources: Sequence[str], skipped: Sequence[str], done: int,
               total: int, unit: str) -> dict:
    return {"schema": SCHEMA, "partial": done < total, "tasks_done": done, "tasks_total": total, "unit": unit,
            "sources": list(sources), "skipped": list(skipped), "sets": [r.to_dict() for r in rows]}


def sweep_csv(rows: Sequence[SetRow]) -> str:
    out = io.StringIO()
    names = [f.name for f in fields(SetRow)]
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(names)
    for r in rows:
        writer.writerow([_csv_value(getattr(r, n)) for n in names])
    return out.getvalue()


def _csv_value(value: object) -> object:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}"
    return value


def _pct(x: float | None) -> str:
    return "–" if x is None else f"{100 * x:.1f}%"


COLUMNS = (("tokens re-embedded", lambda r: f"{r.tokens_to_embed}"),
           ("mean/unit", lambda r: f"{r.mean_tokens_per_unit:.1f}"),
           ("p95/unit", lambda r: f"{r.p95_tokens_per_unit}"),
           ("mean chunk", lambda r: f"{r.mean_chunk_tokens:.1f}"),
           ("p90 chunk", lambda r: f"{r.p90_chunk_tokens}"),
           ("para cuts", lambda r: _pct(r.paragraph_cut_share)),
           ("sent cuts", lambda r: _pct(r.sentence_cut_share)),
           ("violations", lambda r: "–" if r.violations is None else f"{r.violations}"))
RETRIEVAL_COLUMNS = (("recall", lambda r: _pct(r.recall)),
                     ("precision", lambda r: _pct(r.precision)),
                     ("IoU", lambda r: _pct(r.iou)))


def columns(rows: Sequence[SetRow]) -> tuple:
    """The table's columns: retrieval's beside churn's when the sweep scored questions."""
    return COLUMNS + (RETRIEVAL_COLUMNS if any(r.recall is not None for r in rows) else ())


def sweep_text(rows: Sequence[SetRow], *, sources: Sequence[str], skipped: Sequence[str], done: int, total: int,
               unit: str) -> str:
    lines = []
    if done < total:
        lines.append(f"PARTIAL: {done} of {total} tasks done; rows marked ~ are incomplete, the front is "
                     "drawn among complete rows only")
    units = max((r.units for r in rows), default=0)
    shown = columns(rows)
    scored = [r.retrieval_top_k for r in rows if r.retrieval_top_k is not None]
    front = (f"fewest tokens re-embedded for its recall; retrieval: BM25, top {scored[0]}, means over the questions"
             if scored else "fewest tokens re-embedded for its mean chunk size")
    # each pair is its own document, so counting sources beside pairs would say the same twice
    over = (_plural(len(sources), unit) if unit == "pair"
            else f"{_plural(len(sources), 'source')} ({_plural(units, unit)})")
    lines.append(f"sweep of {_plural(len(rows), 'parameter set')} over {over}; * = on the Pareto front ({front})")
    for message in skipped:
        lines.append(f"skipped: {message}")
    labels = [r.label + ("" if r.complete else " ~") for r in rows]
    width = max([len("set"), *(len(s) for s in labels)])
    header = f"  {'set':<{width}}" + "".join(f"  {name:>{max(len(name), 8)}}" for name, _ in shown)
    lines += ["", header]
    for r, label in zip(rows, labels):
        mark = "*" if r.pareto else " "
        lines.append(f"{mark} {label:<{width}}" + "".join(f"  {cell(r):>{max(len(name), 8)}}"
                                                           for name, cell in shown))
    return "\n".join(lines)


def _plural(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


# The scatter (report/scatter.py): x = recall when the sweep scored questions, else mean
# chunk size (the front's own second objective); y = tokens re-embedded; the front joined
# by a line.


def _scatter(rows: Sequence[SetRow]) -> dict | None:
    """The scatter's geometry (templates/scatter.svg.j2 draws it), None without a
    complete row."""
    points = [r for r in rows if r.complete]
    by_recall = bool(points) and all(r.recall is not None for r in points)

    def point(r: SetRow) -> Point:
        tip = (f"{r.label}: {r.tokens_to_embed} tokens re-embedded, mean chunk {r.mean_chunk_tokens:.1f}"
               + (f", recall {100 * r.recall:.1f}%" if r.recall is not None else "")
               + (" (Pareto front)" if r.pareto else ""))
        x = 100 * r.recall if by_recall else r.mean_chunk_tokens
        return Point(series(r), r.boundary_rule, x, r.tokens_to_embed, r.pareto, tip)

    return scatter([point(r) for r in points], x_axis="recall (%)" if by_recall else "mean chunk size (tokens)",
                   y_axis="tokens re-embedded", x_decimals=1 if by_recall else 0, what="parameter set")


def sweep_html(rows: Sequence[SetRow], *, sources: Sequence[str], skipped: Sequence[str], done: int, total: int,
               unit: str) -> str:
    """The page (templates/sweep.html.j2 of report/): the scatter, then the table."""
    shown = columns(rows)
    return render("sweep.html.j2", title="Steadlith parameter sweep" + (" (partial)" if done < total else ""),
                  partial=done < total, done=done, total=total, sources=list(sources), skipped=list(skipped),
                  unit=unit, svg=_scatter(rows), columns=[name for name, _ in shown],
                  rows=[{"front": r.pareto, "label": r.label + ("" if r.complete else " ~"),
                         "cells": [cell(r) for _, cell in shown]} for r in rows])
