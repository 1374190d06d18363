"""The lab section of the HTML report: the summary table, the distributions as inline
SVG (no script), the worst edits. comparison.py places it in a comparison's report or
alone (`render_lab_report`); this module only writes the section's HTML.

Each chunker's curve has its own colour (Okabe–Ito) and its own dash pattern, and the
legend names both, so the charts read without colour; every margin is a vertical line
labelled with its rule.
"""

from __future__ import annotations

import html

from ..lab import LabResult
from ..lab.summary import STATISTICS

# Okabe–Ito, in the order chunkers are listed, each with a dash pattern as second channel
SERIES = (("#0072B2", ""), ("#D55E00", "6 3"), ("#009E73", "2 3"), ("#CC79A7", "8 3 2 3"), ("#E69F00", "1 2"))
BINS = 30
WIDTH, HEIGHT, PAD_L, PAD_B, PAD_T, PAD_R = 640, 220, 44, 34, 12, 12

LAB_CSS = """
.lab-chart { width: 100%; max-width: 640px; height: auto; display: block; }
.lab-chart text { font: 11px system-ui, sans-serif; fill: currentColor; }
.lab-chart .axis { stroke: currentColor; stroke-width: 1; opacity: .6; }
.lab-legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .3em 1.2em; }
.lab-legend svg { vertical-align: middle; }
table.lab td.num, table.lab th.num { text-align: right; font-variant-numeric: tabular-nums; }
.past { font-weight: 600; }
"""


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _num(x: float) -> str:
    return f"{x:,.1f}" if x != int(x) else f"{int(x):,}"


def lab_section(lab: LabResult, heading_id: str = "lab") -> str:
    """The `<section>` of the lab: what it measured, the table, two charts, the worst edits."""
    names = list(lab.rules)
    out = [f'<section id="{_e(heading_id)}" aria-labelledby="{_e(heading_id)}-h">\n'
           f'<h2 id="{_e(heading_id)}-h">Locality lab</h2>\n'
           f"<p>{len(lab.edits):,} seeded edits (seed {lab.seed}) of a {lab.words:,}-word document: word fixes, "
           "sentences and paragraphs inserted, deleted, split, merged, moved and re-wrapped, and random word "
           "ranges. For each edit and chunker: the tokens of chunks whose hash the original lacks (what an "
           "embedding cache keyed by chunk hash must embed again) and the <em>reach</em>, the distance in tokens "
           "from the edit to the far end of the farthest such chunk.</p>\n"]
    out.append(_summary_table(lab, names))
    out.append(_legend(names))
    out.append(_chart(lab, names, "reach", "Reach per edit (tokens)", margins=True))
    out.append(_chart(lab, names, "tokens_to_embed", "Tokens to re-embed per edit", margins=False))
    out.append(_worst(lab, names))
    if lab.hunts:
        out.append(_hunts(lab))
    out.append("</section>\n")
    return "".join(out)


def _summary_table(lab: LabResult, names: list[str]) -> str:
    rows = [("strategy", lambda s: _e(s.strategy)),
            ("margin (tokens)", lambda s: "–" if s.margin is None else _num(s.margin))]
    rows += [(f"tokens to re-embed, {k}", lambda s, k=k: _num(s.tokens[k])) for k in STATISTICS]
    rows += [(f"reach, {k}", lambda s, k=k: _num(s.reach[k])) for k in STATISTICS]
    rows.append(("edits past the margin", lambda s: "–" if s.past_margin_share is None
                 else f"{100 * s.past_margin_share:.1f}%"))
    head = "".join(f'<th scope="col" class="num">{_e(n)}</th>' for n in names)
    body = "".join(
        f'<tr><th scope="row">{_e(label)}</th>'
        + "".join(f'<td class="num">{cell(lab.rules[n])}</td>' for n in names) + "</tr>\n"
        for label, cell in rows)
    return (f'<div class="scroll"><table class="lab"><caption>Per edit, over {len(lab.edits):,} edits'
            f'</caption>\n<thead><tr><th></th>{head}</tr></thead>\n<tbody>\n{body}</tbody></table></div>\n')


def _legend(names: list[str]) -> str:
    items = []
    for i, n in enumerate(names):
        colour, dash = SERIES[i % len(SERIES)]
        items.append(f'<li><svg width="36" height="10" aria-hidden="true"><line x1="0" y1="5" x2="36" y2="5" '
                     f'stroke="{colour}" stroke-width="2.5" stroke-dasharray="{dash}"/></svg> {_e(n)}</li>')
    return f'<ul class="lab-legend" aria-label="Curves">{"".join(items)}</ul>\n'


def histogram(values: list[int], top: float, bins: int = BINS) -> list[float]:
    """Share of `values` in each of `bins` equal bins over [0, top] (the last bin closed,
    and holding any value above `top`)."""
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int(v * bins / top)) if top > 0 else 0] += 1
    total = len(values) or 1
    return [c / total for c in counts]


def _chart(lab: LabResult, names: list[str], field: str, title: str, margins: bool) -> str:
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

    parts = [f'<figure><svg class="lab-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img" '
             f'aria-label="{_e(title)}"><title>{_e(title)}</title>',
             f'<line class="axis" x1="{PAD_L}" y1="{PAD_T + plot_h}" x2="{WIDTH - PAD_R}" y2="{PAD_T + plot_h}"/>',
             f'<line class="axis" x1="{PAD_L}" y1="{PAD_T}" x2="{PAD_L}" y2="{PAD_T + plot_h}"/>']
    for k in range(5):  # x ticks
        v = top * k / 4
        anchor = ("start", "middle", "middle", "middle", "end")[k]
        label = _num(round(v)) + ("+" if k == 4 and clipped else "")
        parts.append(f'<text x="{x(v):.1f}" y="{HEIGHT - PAD_B + 14}" text-anchor="{anchor}">{label}</text>')
    parts.append(f'<text x="{PAD_L - 4}" y="{PAD_T + 10}" text-anchor="end">{100 * peak:.0f}%</text>')
    parts.append(f'<text x="{PAD_L - 4}" y="{PAD_T + plot_h}" text-anchor="end">0</text>')
    parts.append(f'<text x="{WIDTH - PAD_R}" y="{HEIGHT - 4}" text-anchor="end">tokens</text>')
    for i, n in enumerate(names):
        colour, dash = SERIES[i % len(SERIES)]
        points = []
        for b, share in enumerate(shares[n]):
            x0, x1 = x(top * b / BINS), x(top * (b + 1) / BINS)
            points += [f"{x0:.1f},{y(share):.1f}", f"{x1:.1f},{y(share):.1f}"]
        parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}" '
                     f'points="{" ".join(points)}"><title>{_e(n)}</title></polyline>')
        margin = lab.rules[n].margin
        if margins and margin is not None:
            parts.append(f'<line x1="{x(margin):.1f}" y1="{PAD_T}" x2="{x(margin):.1f}" y2="{PAD_T + plot_h}" '
                         f'stroke="{colour}" stroke-width="1.5" stroke-dasharray="3 3"/>'
                         f'<text x="{x(margin) + 3:.1f}" y="{PAD_T + 12 + 12 * i}">margin {_e(n)} '
                         f'{_num(margin)}</text>')
    parts.append(f"</svg><figcaption>{_e(title)}: share of edits per bin of {_num(round(top / BINS))} tokens"
                 + (f"; the last bin holds everything from {_num(round(top * (BINS - 1) / BINS))} tokens on"
                    if clipped else "")
                 + ("; dashed verticals: each rule's margin" if margins else "") + "</figcaption></figure>\n")
    return "".join(parts)


def _worst(lab: LabResult, names: list[str]) -> str:
    out = ['<h3>Worst edits by reach</h3>\n<div class="scroll"><table class="lab"><thead><tr>'
           '<th scope="col">chunker</th><th scope="col" class="num">reach</th>'
           '<th scope="col" class="num">tokens to re-embed</th><th scope="col">margin</th>'
           '<th scope="col">edit</th></tr></thead>\n<tbody>\n']
    for n in names:
        for o in lab.rules[n].worst[:5]:
            held = "–" if o.margin_held is None else ("held" if o.margin_held else
                                                       '<span class="past">passed ✗</span>')
            out.append(f'<tr><td>{_e(n)}</td><td class="num">{o.reach:,}</td><td class="num">'
                       f'{o.tokens_to_embed:,}</td><td>{held}</td><td>{_e(o.edit.describe())}</td></tr>\n')
    out.append("</tbody></table></div>\n")
    return "".join(out)


def _hunts(lab: LabResult) -> str:
    out = ['<h3>Hunt: the largest reach a search found</h3>\n<ul>\n']
    for n, h in lab.hunts.items():
        failures = "" if h.failures is None else f"; {h.failures:,} of {h.trials:,} trials passed the margin"
        out.append(f"<li><strong>{_e(n)}</strong>: reach {h.worst.reach:,} tokens ({_e(h.worst.edit.describe())}), "
                   f"found at trial {h.found_at:,} of {h.trials:,}{failures}</li>\n")
    out.append("</ul>\n")
    return "".join(out)
