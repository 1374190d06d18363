"""A sweep's rows as a text table, JSON, CSV, and a self-contained HTML page (the table
and an inline SVG scatter; no script, as for the comparison report).

Everything here is a function of the rows: the same sweep gives the same bytes.
"""

from __future__ import annotations

import csv
import html
import io
from dataclasses import fields
from typing import Sequence

from ..comparison.external import EXTERNAL_KIND
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


# The scatter: x = mean chunk size, y = tokens re-embedded; the front joined by a line.
_W, _H, _PAD = 640, 380, 56


def sweep_svg(rows: Sequence[SetRow]) -> str:
    points = [r for r in rows if r.complete]
    if not points:
        return ""
    xs = [r.mean_chunk_tokens for r in points]
    ys = [r.tokens_to_embed for r in points]
    x0, x1 = _span(min(xs), max(xs))
    y0, y1 = _span(min(ys), max(ys))

    def px(x: float) -> float:
        return _PAD + (x - x0) / (x1 - x0) * (_W - 2 * _PAD)

    def py(y: float) -> float:
        return _H - _PAD - (y - y0) / (y1 - y0) * (_H - 2 * _PAD)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" '
           f'role="img" aria-label="tokens re-embedded against mean chunk size, one point per parameter set" '
           f'font-family="sans-serif">',
           f'<rect width="{_W}" height="{_H}" fill="#ffffff"/>',  # readable on a dark page too
           f'<rect x="{_PAD}" y="{_PAD}" width="{_W - 2 * _PAD}" height="{_H - 2 * _PAD}" fill="none" stroke="#999"/>']
    for i in range(5):
        gx, gy = x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * i / 4
        out.append(f'<text x="{px(gx):.1f}" y="{_H - _PAD + 16}" font-size="11" text-anchor="middle">{gx:.0f}</text>')
        out.append(f'<text x="{_PAD - 6}" y="{py(gy) + 4:.1f}" font-size="11" text-anchor="end">{gy:.0f}</text>')
    out.append(f'<text x="{_W / 2}" y="{_H - 12}" font-size="12" text-anchor="middle">mean chunk size (tokens)</text>')
    out.append(f'<text x="14" y="{_H / 2}" font-size="12" text-anchor="middle" '
               f'transform="rotate(-90 14 {_H / 2})">tokens re-embedded</text>')
    front = sorted((r for r in points if r.pareto), key=lambda r: r.mean_chunk_tokens)
    if len(front) > 1:
        path = " ".join(f"{px(r.mean_chunk_tokens):.1f},{py(r.tokens_to_embed):.1f}" for r in front)
        out.append(f'<polyline points="{path}" fill="none" stroke="#222" stroke-width="1.5" stroke-dasharray="5 3"/>')
    for r in points:
        cx, cy = px(r.mean_chunk_tokens), py(r.tokens_to_embed)
        tip = html.escape(f"{r.label}: {r.tokens_to_embed} tokens re-embedded, mean chunk "
                          f"{r.mean_chunk_tokens:.1f}" + (" (Pareto front)" if r.pareto else ""))
        ring = ' stroke="#000" stroke-width="2"' if r.pareto else ""
        out.append(_marker(series(r), r.boundary_rule, cx, cy, ring, f"<title>{tip}</title>"))
    entries = sorted({(series(r), r.boundary_rule) for r in points}, key=lambda s: (s[1] == EXTERNAL_KIND, s[0]))
    rows = _legend_rows(entries)
    for n, row in enumerate(rows):
        legend_y = _PAD - 18 - 17 * (len(rows) - 1 - n)
        for x, (name, rule) in row:
            out.append(_marker(name, rule, x + 5, legend_y, "", "")
                       + f'<text x="{x + 14}" y="{legend_y + 4}" font-size="12">{html.escape(name)}</text>')
    out.append(f'<text x="{_W - _PAD}" y="{_PAD - 18 - 17 * (len(rows) - 1) + 4}" font-size="12" '
               'text-anchor="end">ringed, dashed: Pareto front</text>')
    out.append("</svg>")
    return "\n".join(out)


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


def _marker(name: str, rule: str, cx: float, cy: float, ring: str, inner: str) -> str:
    """A point's shape, as the window draws it: circle tttd-v1, square lmx2-v1, triangle
    an external splitter (its colour tells the splitters apart)."""
    colour = rule_colour(name)
    if rule == "lmx2-v1":
        return (f'<rect x="{cx - 4.5:.1f}" y="{cy - 4.5:.1f}" width="9" height="9" fill="{colour}"{ring}>'
                f'{inner}</rect>')
    if rule == EXTERNAL_KIND:
        corners = f"{cx:.1f},{cy - 6:.1f} {cx + 5.5:.1f},{cy + 4:.1f} {cx - 5.5:.1f},{cy + 4:.1f}"
        return f'<polygon points="{corners}" fill="{colour}"{ring}>{inner}</polygon>'
    return f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="5" fill="{colour}"{ring}>{inner}</circle>'


def _span(lo: float, hi: float) -> tuple[float, float]:
    if hi <= lo:
        return lo - 1, hi + 1
    pad = (hi - lo) * 0.05
    return lo - pad, hi + pad


def sweep_html(rows: Sequence[SetRow], *, sources: Sequence[str], skipped: Sequence[str], done: int, total: int,
               unit: str) -> str:
    e = html.escape
    title = "Steadlith parameter sweep" + (" (partial)" if done < total else "")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">",
           '<meta name="viewport" content="width=device-width, initial-scale=1">',
           f"<title>{e(title)}</title>",
           "<style>body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}"
           "table{border-collapse:collapse}td,th{padding:.2em .6em;border-bottom:1px solid #ddd;text-align:right}"
           "td:first-child,th:first-child,td:nth-child(2),th:nth-child(2){text-align:left}"
           "tr.front td{font-weight:600}svg{max-width:100%;height:auto}.partial{color:#a40}</style>",
           f"</head><body><h1>{e(title)}</h1>"]
    if done < total:
        out.append(f'<p class="partial">{done} of {total} tasks done: rows marked ~ are incomplete.</p>')
    out.append(f"<p>{_plural(len(sources), 'source')}: {e(', '.join(sources[:8]))}"
               f"{' …' if len(sources) > 8 else ''}. Counted per {e(unit)}.</p>")
    for message in skipped:
        out.append(f"<p>Skipped: {e(message)}</p>")
    out.append(sweep_svg(rows))
    out.append("<table><thead><tr><th>front</th><th>set</th>"
               + "".join(f"<th>{e(name)}</th>" for name, _ in columns(rows)) + "</tr></thead><tbody>")
    for r in rows:
        cls = ' class="front"' if r.pareto else ""
        label = r.label + ("" if r.complete else " ~")
        out.append(f"<tr{cls}><td>{'★' if r.pareto else ''}</td><td>{e(label)}</td>"
                   + "".join(f"<td>{e(cell(r))}</td>" for _, cell in columns(rows)) + "</tr>")
    out.append("</tbody></table></body></html>\n")
    return "\n".join(out)
