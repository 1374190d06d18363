"""The lab section of the HTML report: the summary table, the distributions as inline
SVG (no script), the worst edits. comparison.py places it in a comparison's report or
alone (`render_lab_report`); this module computes what the section shows and
templates/lab.html.j2 writes it (its style is templates/lab.css).

Each chunker's curve has its own colour (Okabe–Ito) and its own dash pattern, and the
legend names both, so the charts read without colour; every margin is a vertical line
labelled with its rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from markupsafe import Markup

from ..lab import LabResult
from ..lab.summary import STATISTICS
from .pages import render

if TYPE_CHECKING:
    from ..retrieval.beside import Beside

# Okabe–Ito, in the order chunkers are listed, each with a dash pattern as second channel
SERIES = (("#0072B2", ""), ("#D55E00", "6 3"), ("#009E73", "2 3"), ("#CC79A7", "8 3 2 3"), ("#E69F00", "1 2"))
BINS = 30
WIDTH, HEIGHT, PAD_L, PAD_B, PAD_T, PAD_R = 640, 220, 44, 34, 12, 12


def _num(x: float) -> str:
    return f"{x:,.1f}" if x != int(x) else f"{int(x):,}"


def lab_section(lab: LabResult, heading_id: str = "lab", retrieval: Beside | None = None) -> Markup:
    """The `<section>` of the lab (templates/lab.html.j2): what it measured, the table,
    two charts, with `retrieval` each chunker's scores on a question set (lab_retrieval.py),
    the worst edits."""
    names = list(lab.rules)
    section = None
    if retrieval is not None:
        from .lab_retrieval import retrieval_section  # the retrieval layer loads only when a lab has questions

        section = retrieval_section(lab, retrieval, heading_id)
    return Markup(render("lab.html.j2", heading_id=heading_id, edits=len(lab.edits), seed=lab.seed, words=lab.words,
                         retrieval=section,
                         names=names, summary=_summary_rows(lab, names),
                         legend=[(n, *SERIES[i % len(SERIES)]) for i, n in enumerate(names)],
                         charts=[_chart(lab, names, "reach", "Reach per edit (tokens)", margins=True),
                                 _chart(lab, names, "tokens_to_embed", "Tokens to re-embed per edit", margins=False)],
                         worst=[(n, o) for n in names for o in lab.rules[n].worst[:5]], hunts=lab.hunts))


def _summary_rows(lab: LabResult, names: list[str]) -> list[tuple[str, list[str]]]:
    rows = [("strategy", lambda s: s.strategy),
            ("margin (tokens)", lambda s: "–" if s.margin is None else _num(s.margin))]
    rows += [(f"tokens to re-embed, {k}", lambda s, k=k: _num(s.tokens[k])) for k in STATISTICS]
    rows += [(f"reach, {k}", lambda s, k=k: _num(s.reach[k])) for k in STATISTICS]
    rows.append(("edits past the margin", lambda s: "–" if s.past_margin_share is None
                 else f"{100 * s.past_margin_share:.1f}%"))
    return [(label, [cell(lab.rules[n]) for n in names]) for label, cell in rows]


def histogram(values: list[int], top: float, bins: int = BINS) -> list[float]:
    """Share of `values` in each of `bins` equal bins over [0, top] (the last bin closed,
    and holding any value above `top`)."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int(v * bins / top)) if top > 0 else 0] += 1
    total = len(values) or 1
    return [c / total for c in counts]


def _chart(lab: LabResult, names: list[str], field: str, title: str, margins: bool) -> dict:
    """The geometry of one chart: its axes, ticks, a step curve per chunker and, with
    `margins`, each rule's margin as a vertical line."""
    series = {n: [getattr(o, field) for o in lab.outcomes[n]] for n in names}
    # the scale follows the rules: a baseline that re-embeds the rest of the document
    # would squeeze them into the first bins, so its larger values pile up in the last
    # one, labelled as such
    ruled = [n for n in names if lab.rules[n].margin is not None] or names
    top = max([1, *(max(series[n], default=0) for n in ruled)])
    if margins:
        top = max(top, *(s.margin or 0 for s in lab.rules.values()))
    clipped = any(v > top for values in series.values() for v in values)
    shares = {n: histogram(v, top) for n, v in series.items()}
    peak = max([0.01, *(max(s) for s in shares.values())])
    plot_w, plot_h = WIDTH - PAD_L - PAD_R, HEIGHT - PAD_T - PAD_B

    def x(v: float) -> float:
        return PAD_L + plot_w * v / top

    def y(share: float) -> float:
        return PAD_T + plot_h * (1 - share / peak)

    ticks = []
    for k in range(5):
        v = top * k / 4
        ticks.append((f"{x(v):.1f}", _num(round(v)) + ("+" if k == 4 and clipped else ""),
                      ("start", "middle", "middle", "middle", "end")[k]))
    curves = []
    for i, n in enumerate(names):
        colour, dash = SERIES[i % len(SERIES)]
        points = []
        for b, share in enumerate(shares[n]):
            x0, x1 = x(top * b / BINS), x(top * (b + 1) / BINS)
            points += [f"{x0:.1f},{y(share):.1f}", f"{x1:.1f},{y(share):.1f}"]
        margin = lab.rules[n].margin
        line = None
        if margins and margin is not None:
            line = {"x": f"{x(margin):.1f}", "text_x": f"{x(margin) + 3:.1f}", "text_y": PAD_T + 12 + 12 * i,
                    "label": _num(margin)}
        curves.append({"name": n, "colour": colour, "dash": dash, "points": " ".join(points), "margin": line})
    return {"title": title, "width": WIDTH, "height": HEIGHT, "left": PAD_L, "right": WIDTH - PAD_R,
            "top": PAD_T, "bottom": PAD_T + plot_h, "tick_y": HEIGHT - PAD_B + 14, "ticks": ticks,
            "peak": f"{100 * peak:.0f}", "series": curves, "bin": _num(round(top / BINS)),
            "clipped_from": _num(round(top * (BINS - 1) / BINS)) if clipped else None, "margins": margins}
