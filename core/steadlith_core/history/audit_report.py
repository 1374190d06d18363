"""The HTML page of an audit (`steadlith audit --html`): totals per rule and every commit
with a bar of its tokens to embed per rule, so the spikes stand out at a glance.

Like the comparison report (report/comparison.py): one self-contained file, an inline style and no
script, a Content-Security-Policy forbidding anything else, every name and subject
escaped, deterministic bytes; the page is templates/audit.html.j2 of report/. The bars are the rules' kind colours of style.py's
palette order (Okabe–Ito), and each bar also carries its number, so they read without
colour.
"""

from __future__ import annotations

import time

from .._version import __version__
from ..comparison.baseline import BASELINE_STRATEGY
from ..report.pages import render
from .audit_costs import AuditResult

#: A figure that means nothing for a column: the baseline's locality violations are
#: counted at the boundary rules' margin, a margin the fixed-size baseline never had.
NOT_APPLICABLE = "–"


def is_baseline(name: str) -> bool:
    """An audit column of the fixed-size baseline (`fixed-tokens/1`, `fixed-tokens/1@…`)."""
    return name.split("@", 1)[0] == BASELINE_STRATEGY


def locality_cell(name: str, totals) -> str:
    return NOT_APPLICABLE if is_baseline(name) else f"{totals.locality_violations}"

# Okabe–Ito: bluish green, blue, orange, then grey for what follows (the baseline)
BAR_COLOURS = ("#009E73", "#0072B2", "#E69F00", "#7F7F7F", "#CC79A7")

def render_audit_html(result: AuditResult, title: str | None = None) -> str:
    title = title or f"Steadlith audit of {result.repo}"
    names = list(result.rules)
    colour = {n: BAR_COLOURS[i % len(BAR_COLOURS)] for i, n in enumerate(names)}
    peak = max((c.tokens_to_embed(n) for c in result.commits for n in names), default=0) or 1
    rows = [("file changes", lambda t: f"{t.files}"), ("tokens to embed", lambda t: f"{t.tokens_to_embed:,}"),
            ("chunks to embed", lambda t: f"{t.chunks_to_embed:,}"),
            ("reused share", lambda t: f"{100 * t.reused_share:.1f}%"),
            ("phase-shift regions", lambda t: f"{t.phase_shift_regions}"),
            ("locality violations", None),
            ("mean chunk (tokens)", lambda t: f"{t.mean_chunk_tokens:.1f}")]
    totals = [(label, [locality_cell(n, result.totals[n]) if cell is None else cell(result.totals[n]) for n in names])
              for label, cell in rows]
    params = [(rule, " ".join(f"{k}={v}" for k, v in p.items() if k != "boundary_rule"))
              for rule, p in result.params.items()]
    commits = []
    for c in reversed(result.commits):  # newest first, as a log reads
        bars = []
        for n in names:
            v = c.tokens_to_embed(n)
            bars.append({"name": n, "tokens": v, "colour": colour[n],
                         "width": 0 if not v else max(1, round(240 * v / peak))})
        commits.append({"short": c.short, "subject": c.subject, "bars": bars,
                        "day": time.strftime("%Y-%m-%d", time.gmtime(c.when))})
    return render("audit.html.j2", title=title, result=result, version=__version__, names=names, totals=totals,
                  params=params, commits=commits)
