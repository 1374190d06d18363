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
from ..report.style import KIND_COLOURS
from .results import SetRow

SCHEMA = "steadlith-sweep/1"
#: Okabe–Ito colours per rule (blue and orange: apart for every kind of colour blindness).
RULE_COLOURS = {"tttd-v1": KIND_COLOURS["light"]["snapped"], "lmx2-v1": KIND_COLOURS["light"]["backup"]}
#: External splitters' rows: the rest of the palette, reddish purple (the panes' colour
#: for an external cut) first, so one splitter beside the rules reads as "external".
EXTERNAL_COLOURS = {"langchain-recursive": KIND_COLOURS["light"][EXTERNAL_KIND],
                    "llama-index-sentence": KIND_COLOURS["light"]["primary"],
                    "chonkie-recursive": KIND_COLOURS["light"]["hard"], "semchunk": "#56B4E9",
                    "fixed-tokens": KIND_COLOURS["light"]["end"]}
_OTHER_COLOUR = "#555555"


def rule_colour(rule: str) -> str:
    """The colour of a series: a rule, or an external splitter's kind (see series)."""
    return RULE_COLOURS.get(rule, EXTERNAL_COLOURS.get(rule, _OTHER_COLOUR))


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
    lines.append(f"sweep of {len(rows)} parameter sets over {_plural(len(sources), 'source')} "
                 f"({units} {unit}s); * = on the Pareto front ({front})")
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


# The scatter: x = recall when the sweep scored questions, else mean chunk size (the
# front's own second objective); y = tokens re-embedded; the front joined by a line.
_W, _H, _PAD = 640, 380, 56


def _scatter(rows: Sequence[SetRow]) -> dict | None:
    """The scatter's geometry (templates/sweep.html.j2 draws it), None without a
    complete row."""
    points = [r for r in rows if r.complete]
    if not points:
        return None
    by_recall = all(r.recall is not None for r in points)

    def x_of(r: SetRow) -> float:
        return 100 * r.recall if by_recall else r.mean_chunk_tokens

    xs = [x_of(r) for r in points]
    ys = [r.tokens_to_embed for r in points]
    x0, x1 = _span(min(xs), max(xs))
    y0, y1 = _span(min(ys), max(ys))

    def px(x: float) -> float:
        return _PAD + (x - x0) / (x1 - x0) * (_W - 2 * _PAD)

    def py(y: float) -> float:
        return _H - _PAD - (y - y0) / (y1 - y0) * (_H - 2 * _PAD)

    ticks = []
    for i in range(5):
        gx, gy = x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * i / 4
        ticks.append((f"{px(gx):.1f}", f"{gx:.1f}" if by_recall else f"{gx:.0f}", f"{py(gy) + 4:.1f}", f"{gy:.0f}"))
    front = sorted((r for r in points if r.pareto), key=x_of)
    markers = []
    for r in points:
        tip = (f"{r.label}: {r.tokens_to_embed} tokens re-embedded, mean chunk {r.mean_chunk_tokens:.1f}"
               + (f", recall {100 * r.recall:.1f}%" if r.recall is not None else "")
               + (" (Pareto front)" if r.pareto else ""))
        markers.append(_marker(series(r), r.boundary_rule, px(x_of(r)), py(r.tokens_to_embed), r.pareto, tip))
    entries = sorted({(series(r), r.boundary_rule) for r in points}, key=lambda s: (s[1] == EXTERNAL_KIND, s[0]))
    legend_rows = _legend_rows(entries)
    legend = []
    for n, row in enumerate(legend_rows):
        legend_y = _PAD - 18 - 17 * (len(legend_rows) - 1 - n)
        for x, (name, rule) in row:
            legend.append((_marker(name, rule, x + 5, legend_y, False, None), x + 14, legend_y + 4, name))
    return {"width": _W, "height": _H, "pad": _PAD, "ticks": ticks, "middle_x": _W / 2, "middle_y": _H / 2,
            "x_axis": "recall (%)" if by_recall else "mean chunk size (tokens)",
            "front": " ".join(f"{px(x_of(r)):.1f},{py(r.tokens_to_embed):.1f}" for r in front)
            if len(front) > 1 else None,
            "points": markers, "legend": legend, "note_y": _PAD - 18 - 17 * (len(legend_rows) - 1) + 4}


_NOTE_WIDTH = 170  # "ringed, dashed: Pareto front", right-aligned on the legend's first row


def _legend_rows(entries: Sequence[tuple[str, str]]) -> list[list[tuple[float, tuple[str, str]]]]:
    """The legend's entries placed left to right, wrapped into rows (an entry is about
    7 px a character at 12 px), the first row leaving room for the front's note."""
    rows: list[list] = [[]]
    x = float(_PAD)
    for entry in entries:
        width = 14 + 7 * len(entry[0]) + 18
        limit = _W - _PAD - (_NOTE_WIDTH if len(rows) == 1 else 0)
        if rows[-1] and x + width > limit:
            rows.append([])
            x = float(_PAD)
        rows[-1].append((x, entry))
        x += width
    return rows


def _marker(name: str, rule: str, cx: float, cy: float, ring: bool, tip: str | None) -> dict:
    """A point's shape, as the window draws it: circle tttd-v1, square lmx2-v1, triangle
    an external splitter (its colour tells the splitters apart); `ring` marks the front."""
    marker = {"colour": rule_colour(name), "ring": ring, "tip": tip, "shape": "circle",
              "cx": f"{cx:.1f}", "cy": f"{cy:.1f}"}
    if rule == "lmx2-v1":
        marker.update(shape="rect", x=f"{cx - 4.5:.1f}", y=f"{cy - 4.5:.1f}")
    elif rule == EXTERNAL_KIND:
        marker.update(shape="polygon",
                      corners=f"{cx:.1f},{cy - 6:.1f} {cx + 5.5:.1f},{cy + 4:.1f} {cx - 5.5:.1f},{cy + 4:.1f}")
    return marker


def _span(lo: float, hi: float) -> tuple[float, float]:
    if hi <= lo:
        return lo - 1, hi + 1
    pad = (hi - lo) * 0.05
    return lo - pad, hi + pad


def sweep_html(rows: Sequence[SetRow], *, sources: Sequence[str], skipped: Sequence[str], done: int, total: int,
               unit: str) -> str:
    """The page (templates/sweep.html.j2 of report/): the scatter, then the table."""
    shown = columns(rows)
    return render("sweep.html.j2", title="Steadlith parameter sweep" + (" (partial)" if done < total else ""),
                  partial=done < total, done=done, total=total, sources=list(sources), skipped=list(skipped),
                  unit=unit, svg=_scatter(rows), columns=[name for name, _ in shown],
                  rows=[{"front": r.pareto, "label": r.label + ("" if r.complete else " ~"),
                         "cells": [cell(r) for _, cell in shown]} for r in rows])
