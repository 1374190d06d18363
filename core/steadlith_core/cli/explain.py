"""`steadlith explain A B`: why the chunks moved between two versions (cli.py registers
it with one line, handing over the parameter options that `compare` uses; both read
their two documents with cli/documents.read_pair, within the command's own memory
budget for the pair).

For each phase-shift region: the edit, the candidate it removed or created (or the
cut it moved by changing a chunk's length), the first cut that moved, the cuts that
followed from it, and where both versions met again, with the distance from the edit;
then the decision record of every chunk in that chain (explain.py).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Callable

from ..errors import visible

if TYPE_CHECKING:
    from ..comparison.causes import RegionExplanation


def add_parser(sub, add_params_options: Callable[[argparse.ArgumentParser], None],
               params_of: Callable[[argparse.Namespace], object]) -> None:
    p = sub.add_parser("explain", help="why the chunks moved: for each phase-shift region the edit, the candidate "
                                       "it removed or created, the cuts that followed and where the versions met again")
    p.add_argument("a", help="the old version (UTF-8 file, or PATH@REV: the file at a git revision)")
    p.add_argument("b", help="the new version (UTF-8 file, or PATH@REV)")
    add_params_options(p)
    p.add_argument("--region", type=int, metavar="N",
                   help="only region N (numbered from 1, as `steadlith compare` lists them)")

    def run(args: argparse.Namespace) -> int:
        return cmd_explain(args, params_of)

    p.set_defaults(func=run)


def cmd_explain(args: argparse.Namespace, params_of) -> int:
    from ..chunking.rules import rule_of
    from ..comparison.analysis import Analysis
    from ..comparison.causes import explain_comparison, explanation_json
    from ..report.export import to_json_text

    params = params_of(args)
    from .documents import read_pair

    (text_a, name_a), (text_b, name_b) = read_pair(args.a, args.b, "explain", [rule_of(params)])
    analysis = Analysis(pause_gc=True)
    comparison = analysis.compare(analysis.chunk(text_a, params), analysis.chunk(text_b, params), baseline=False)
    region = None if args.region is None else args.region - 1
    explanations = explain_comparison(comparison, region)
    if args.format == "json":
        sys.stdout.write(to_json_text({"a": args.a, "b": args.b, **explanation_json(explanations, comparison)}))
    else:
        print(format_explanations(explanations, comparison, visible(name_a), visible(name_b)))
    return 0


def format_explanations(explanations: tuple[RegionExplanation, ...], comparison, name_a: str, name_b: str) -> str:
    a, b = comparison.a, comparison.b
    regions = comparison.phase_shift_regions
    lines = [
        f"A   {name_a}: {a.word_count} words, {len(a.columns)} chunks",
        f"B   {name_b}: {b.word_count} words, {len(b.columns)} chunks",
        f"rule {a.boundary_rule}, params {a.params_hash}; {len(regions)} phase-shift "
        f"region{'' if len(regions) == 1 else 's'}",
    ]
    if not regions:
        lines.append("no phase shift: every chunk made only of unchanged words kept its cut")
    for x in explanations:
        r = regions[x.region]
        lines.append("")
        lines.append(f"#{x.region + 1} B chunks {r.b_chunks[0]}..{r.b_chunks[1] - 1} ~ A chunks "
                     f"{r.a_chunks[0]}..{r.a_chunks[1] - 1}: {x.cause}")
        lines.append(f"   {x.text}")
        lines.append(f"   A chunk {x.first_a_chunk}: {x.decision_a.describe()}")
        lines.append(f"   B chunk {x.first_b_chunk}: {x.decision_b.describe()}")
        for d in x.chain_b:
            lines.append(f"   B chunk {d.chunk}: {d.describe()}")
    return "\n".join(lines)
