"""The lab's retrieval figures (`steadlith lab … --retrieval QUESTIONS`): beside each
chunker's cost per edit, its scores on a question set at the same parameters, as a
table and, when the lab compares chunkers, the sweep's scatter of churn against recall
(report/scatter.py) with one point per chunker. templates/lab_retrieval.html.j2 draws it
inside the lab's section.
"""

from __future__ import annotations

from markupsafe import Markup

from ..comparison.external import EXTERNAL_KIND
from ..lab import LabResult
from ..retrieval.beside import Beside
from ..retrieval.report import HEADS, METRICS, mean_sd, percent
from .pages import render
from .retrieval import retrieval_setting
from .scatter import Point, pareto, scatter

HEAD = ("mean tokens to re-embed per edit", "chunks", "mean chunk tokens", *(HEADS[m] for m in METRICS),
        "references cut")
RULES = ("tttd-v1", "lmx2-v1")


def _num(x: float) -> str:
    return f"{x:,.1f}" if x != int(x) else f"{int(x):,}"


def _point(lab: LabResult, name: str, beside: Beside, front: bool) -> Point:
    """A chunker's marker: its rule's shape and colour, a triangle in its splitter's
    colour for an external splitter, in grey for the fixed-size baseline."""
    params = lab.params[name]
    rule = params.get("boundary_rule")
    kind = rule if rule in RULES else params.get("chunker", "fixed")
    r = beside.results[name]
    cost = lab.rules[name].tokens["mean"]
    tip = (f"{name}: {_num(cost)} tokens re-embedded per edit (mean), recall {100 * r.overall.recall.mean:.1f}%"
           + (" (Pareto front)" if front else ""))
    return Point(name, rule if rule in RULES else EXTERNAL_KIND, 100 * r.overall.recall.mean, cost, front, tip,
                 colour_of=kind)


def retrieval_section(lab: LabResult, beside: Beside, heading_id: str = "lab") -> Markup:
    """The fragment: the setting, a row per chunker and, for two chunkers or more, the
    scatter (y: mean tokens re-embedded per edit; x: recall), the front being the
    chunkers no other beats on both."""
    names = list(lab.rules)
    run = beside.run
    rows = []
    for name in names:
        r = beside.results[name]
        rows.append((name, [_num(lab.rules[name].tokens["mean"]), f"{r.chunks:,}", f"{r.mean_tokens:.1f}",
                            *(mean_sd(getattr(r.overall, m)) for m in METRICS),
                            f"{percent(r.diagnostics.cut_share)}%"]))
    svg = None
    if len(names) > 1:
        front = pareto([(lab.rules[n].tokens["mean"], beside.results[n].overall.recall.mean) for n in names])
        svg = scatter([_point(lab, n, beside, f) for n, f in zip(names, front)], x_axis="recall (%)",
                      y_axis="tokens re-embedded per edit (mean)", x_decimals=1, what="chunker")
    qs = run.question_set
    return Markup(render("lab_retrieval.html.j2", heading_id=heading_id, setting=retrieval_setting(run),
                         questions=len(qs.questions), questions_file=qs.source, corpora=list(run.corpora),
                         code_points=sum(run.corpora.values()), head=HEAD, rows=rows, svg=svg))
