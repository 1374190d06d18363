"""The scatter of churn against a second objective (recall, or mean chunk size), as the
geometry templates/scatter.svg.j2 draws inline (no script): the sweep's page plots one
point per parameter set, the lab's retrieval section one point per chunker.

Each point is shaped by its rule as the window draws it (circle tttd-v1, square
lmx2-v1, triangle anything else: an external splitter or the fixed-size baseline) and
coloured by its series (Okabe–Ito), so the plot reads without colour; the Pareto front
is ringed and joined by a dashed line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from ..comparison.external import EXTERNAL_KIND
from .style import KIND_COLOURS

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
    """The colour of a series: a rule, or an external splitter's kind."""
    return RULE_COLOURS.get(rule, EXTERNAL_COLOURS.get(rule, _OTHER_COLOUR))


@dataclass(frozen=True)
class Point:
    """One marker: `series` names its legend entry and, unless `colour_of` names
    another (a rule or a splitter's kind), its colour; `rule` its shape (tttd-v1,
    lmx2-v1, or EXTERNAL_KIND for a triangle); `x` and `y` its place."""

    series: str
    rule: str
    x: float
    y: float
    front: bool
    tip: str
    colour_of: str | None = None


def dominated(a: tuple[float, float], b: tuple[float, float]) -> bool:
    """`b` = (cost, benefit) costs no more than `a`, gains no less, and is better in one."""
    return b[0] <= a[0] and b[1] >= a[1] and (b[0] < a[0] or b[1] > a[1])


def pareto(pairs: Sequence[tuple[float, float]]) -> list[bool]:
    """For each (cost, benefit): whether no other pair dominates it."""
    return [not any(dominated(p, o) for j, o in enumerate(pairs) if j != i) for i, p in enumerate(pairs)]


_W, _H, _PAD = 640, 380, 56
_NOTE_WIDTH = 170  # "ringed, dashed: Pareto front", right-aligned on the legend's first row


def scatter(points: Sequence[Point], *, x_axis: str, y_axis: str, x_decimals: int, what: str) -> dict | None:
    """The geometry of the plot (templates/scatter.svg.j2), None without a point. `what`
    says what one point is, for the image's label."""
    if not points:
        return None
    xs = [p.x for p in points]
    ys = [p.y for p in points]
    x0, x1 = _span(min(xs), max(xs))
    y0, y1 = _span(min(ys), max(ys))

    def px(x: float) -> float:
        return _PAD + (x - x0) / (x1 - x0) * (_W - 2 * _PAD)

    def py(y: float) -> float:
        return _H - _PAD - (y - y0) / (y1 - y0) * (_H - 2 * _PAD)

    ticks = []
    for i in range(5):
        gx, gy = x0 + (x1 - x0) * i / 4, y0 + (y1 - y0) * i / 4
        ticks.append((f"{px(gx):.1f}", f"{gx:.{x_decimals}f}", f"{py(gy) + 4:.1f}", f"{gy:.0f}"))
    front = sorted((p for p in points if p.front), key=lambda p: p.x)
    markers = [_marker(p.colour_of or p.series, p.rule, px(p.x), py(p.y), p.front, p.tip) for p in points]
    entries = sorted({(p.series, p.rule, p.colour_of or p.series) for p in points},
                     key=lambda s: (s[1] == EXTERNAL_KIND, s[0]))
    legend_rows = _legend_rows(entries)
    legend = []
    for n, row in enumerate(legend_rows):
        legend_y = _PAD - 18 - 17 * (len(legend_rows) - 1 - n)
        for x, (name, rule, colour_of) in row:
            legend.append((_marker(colour_of, rule, x + 5, legend_y, False, None), x + 14, legend_y + 4, name))
    return {"width": _W, "height": _H, "pad": _PAD, "ticks": ticks, "middle_x": _W / 2, "middle_y": _H / 2,
            "x_axis": x_axis, "y_axis": y_axis, "label": f"{y_axis} against {x_axis}, one point per {what}",
            "front": " ".join(f"{px(p.x):.1f},{py(p.y):.1f}" for p in front) if len(front) > 1 else None,
            "points": markers, "legend": legend, "note_y": _PAD - 18 - 17 * (len(legend_rows) - 1) + 4}


def _legend_rows(entries: Sequence[tuple[str, str, str]]) -> list[list[tuple[float, tuple[str, str, str]]]]:
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


def _marker(colour_of: str, rule: str, cx: float, cy: float, ring: bool, tip: str | None) -> dict:
    """A point's shape, as the window draws it: circle tttd-v1, square lmx2-v1, triangle
    an external splitter (its colour tells the splitters apart); `ring` marks the front."""
    marker = {"colour": rule_colour(colour_of), "ring": ring, "tip": tip, "shape": "circle",
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
