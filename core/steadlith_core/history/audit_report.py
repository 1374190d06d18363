"""The HTML page of an audit (`steadlith audit --html`): totals per rule and every commit
with a bar of its tokens to embed per rule, so the spikes stand out at a glance.

Like the comparison report (report/comparison.py): one self-contained file, an inline style and no
script, a Content-Security-Policy forbidding anything else, every name and subject
escaped, deterministic bytes. The bars are the rules' kind colours of style.py's
palette order (Okabe–Ito), and each bar also carries its number, so they read without
colour.
"""

from __future__ import annotations

import html
import time

from .._version import __version__
from ..comparison.baseline import BASELINE_STRATEGY
from ..errors import visible
from .audit import AuditResult

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

_CSS = """
body { font: 14px/1.45 system-ui, sans-serif; margin: 1.5rem; color: #1D1F22; background: #FFF; }
h1 { font-size: 1.3rem; } h2 { font-size: 1.1rem; margin-top: 1.6rem; }
table { border-collapse: collapse; } th, td { padding: .2rem .6rem; text-align: left; vertical-align: top; }
th { border-bottom: 1px solid #B8BCC4; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.muted { color: #5F6670; } code { font-size: .92em; }
.bar { display: flex; align-items: center; gap: .4rem; white-space: nowrap; }
.bar span.fill { display: inline-block; height: .7rem; }
.partial { background: #FBE3DC; color: #B3261E; padding: .4rem .6rem; font-weight: 600; }
.wrap { overflow-x: auto; }
@media (prefers-color-scheme: dark) {
  body { color: #E2E4E8; background: #1B1D21; } th { border-bottom-color: #555A63; } .muted { color: #A0A6B0; }
  .partial { background: #4A211A; color: #FF8A75; }
}
"""


def _e(x: object) -> str:
    return html.escape(visible(str(x)), quote=True)


def render_audit_html(result: AuditResult, title: str | None = None) -> str:
    title = title or f"Steadlith audit of {result.repo}"
    names = list(result.rules)
    colour = {n: BAR_COLOURS[i % len(BAR_COLOURS)] for i, n in enumerate(names)}
    peak = max((c.tokens_to_embed(n) for c in result.commits for n in names), default=0) or 1
    out: list[str] = []
    w = out.append
    w("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
    w("<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n")
    w("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
    w(f"<title>{_e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n<h1>{_e(title)}</h1>\n")
    if result.partial:
        w(f"<p class=\"partial\">Partial: {len(result.commits)} of {result.planned_commits} commits replayed "
          "(interrupted).</p>\n")
    w(f"<p class=\"muted\">First-parent history, oldest first; paths {_e(' '.join(result.paths))}; "
      f"{len(result.commits)} commits. steadlith {__version__}.</p>\n")
    w("<h2>Totals</h2>\n<div class=\"wrap\"><table>\n<tr><th></th>")
    w("".join(f"<th>{_e(n)}</th>" for n in names) + "</tr>\n")
    rows = [("file changes", lambda t: f"{t.files}"), ("tokens to embed", lambda t: f"{t.tokens_to_embed:,}"),
            ("chunks to embed", lambda t: f"{t.chunks_to_embed:,}"),
            ("reused share", lambda t: f"{100 * t.reused_share:.1f}%"),
            ("phase-shift regions", lambda t: f"{t.phase_shift_regions}"),
            ("locality violations", None),
            ("mean chunk (tokens)", lambda t: f"{t.mean_chunk_tokens:.1f}")]
    for label, cell in rows:
        cells = [locality_cell(n, result.totals[n]) if cell is None else cell(result.totals[n]) for n in names]
        w(f"<tr><th>{_e(label)}</th>" + "".join(f"<td class=\"n\">{c}</td>" for c in cells) + "</tr>\n")
    w("</table></div>\n")
    for rule, p in result.params.items():
        w(f"<p class=\"muted\"><code>{_e(rule)}</code> " + _e(" ".join(f"{k}={v}" for k, v in p.items()
                                                                     if k != "boundary_rule")) + "</p>\n")
    w("<h2>Tokens to embed, commit by commit</h2>\n<div class=\"wrap\"><table>\n")
    w("<tr><th>commit</th><th>date</th><th>subject</th><th>tokens to embed</th></tr>\n")
    for c in reversed(result.commits):  # newest first, as a log reads
        bars = []
        for n in names:
            v = c.tokens_to_embed(n)
            width = 0 if not v else max(1, round(240 * v / peak))
            bars.append(f"<div class=\"bar\"><span class=\"fill\" style=\"width:{width}px;background:{colour[n]}\">"
                        f"</span><span>{v:,} <span class=\"muted\">{_e(n)}</span></span></div>")
        day = time.strftime("%Y-%m-%d", time.gmtime(c.when))
        w(f"<tr><td><code>{_e(c.short)}</code></td><td>{day}</td><td>{_e(c.subject)}</td><td>{''.join(bars)}</td>"
          "</tr>\n")
    w("</table></div>\n")
    if result.skipped:
        w("<h2>Skipped</h2>\n<ul>\n")
        for s in result.skipped:
            w(f"<li><code>{_e(s.commit[:7])}</code> {_e(s.path)}: {_e(s.reason)}</li>\n")
        w("</ul>\n")
    w("</body>\n</html>\n")
    return "".join(out)
