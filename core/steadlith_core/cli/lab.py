"""`steadlith lab FILE`: the locality lab from a shell (cli/main.py registers it with one line).

Thousands of seeded edits of FILE, each measured under every chunker asked for, then the
distribution of their cost, the share past each rule's margin, the worst edits and, with
--hunt, the worst edit a search could find. A bar on stderr shows progress on a
terminal; Ctrl+C stops the run (the command's main() says "interrupted", exit 130).
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..chunking.presets import RULE_PRESETS
from ..chunking.rules import parse_rule_assignments, parse_rules, preset_bases
from ..errors import ParameterError, visible
from .progress import progress_bar
from .retrieval import RETRIEVERS, add_beside_options, beside_benchmark

if TYPE_CHECKING:
    from ..lab import LabResult
    from ..retrieval.beside import Beside

DEFAULT_CHUNKERS = "tttd-v1,lmx2-v1,fixed"
# The lab's counts, for the options' defaults and help: importing the lab package loads numpy,
# which building the command's parser must not. tests/core/test_cli_imports.py checks that
# they equal lab.run's and lab.hunt's.
DEFAULT_EDITS = 500
DEFAULT_HUNT_TRIALS = 400
MAX_EDITS = 1_000_000
MAX_HUNT_TRIALS = 1_000_000


def add_parser(sub) -> None:
    p = sub.add_parser("lab", help="the locality lab: many realistic edits of one document, what each costs "
                                   "every rule, and the worst edit found")
    p.add_argument("file", help="the document to edit (UTF-8 file, or PATH@REV: the file at a git revision)")
    p.add_argument("--edits", type=int, default=DEFAULT_EDITS, metavar="N",
                   help=f"edits of the realistic mix to draw (default {DEFAULT_EDITS}; at most {MAX_EDITS:,})")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the edits and the hunt (default 0)")
    p.add_argument("--rules", default=DEFAULT_CHUNKERS, metavar="NAME,NAME",
                   help=f"chunkers to measure (default {DEFAULT_CHUNKERS}; fixed is the fixed-size baseline at "
                        "tttd-v1's max_tokens and token counter)")
    p.add_argument("--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
                   help="change a parameter of every listed rule that has it (as compare --rules); repeatable")
    names = [n for presets in RULE_PRESETS.values() for n in presets]
    p.add_argument("--preset", metavar="NAME", help=f"start its rule from a named set ({', '.join(names)})")
    p.add_argument("--hunt", type=int, nargs="?", const=DEFAULT_HUNT_TRIALS, default=0, metavar="TRIALS",
                   help=f"also search each chunker for its worst edit with this many trials ({DEFAULT_HUNT_TRIALS} "
                        f"when not given, at most {MAX_HUNT_TRIALS:,}; default: no hunt)")
    p.add_argument("--chunker", dest="chunkers", action="append", default=[], metavar="NAME[:chunk_size=N]",
                   help="also measure an external splitter (langchain-recursive, llama-index-sentence, "
                        "chonkie-recursive, semchunk, fixed-tokens; sized in the rules' tokens, default chunk_size "
                        "the first rule's max_tokens), split again whole for every edit: slow; repeatable")
    add_beside_options(p, "also score every chunker for retrieval on this question set (CSV or JSONL, as "
                          "`steadlith retrieval` reads) at the same parameters: recall, precision, IoU and "
                          "precision_Ω of the top k beside the cost of each edit")
    p.add_argument("--retriever", default=None, metavar="NAME",
                   help=f"with --retrieval: what ranks the chunks ({', '.join(RETRIEVERS)}; default bm25)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--html", metavar="PATH", help="also write the lab's self-contained HTML report to PATH")
    p.add_argument("--fail-on-violation", action="store_true",
                   help="exit 1 when any edit (or hunt trial) of a rule passed its margin")
    p.set_defaults(func=cmd_lab)


def lab_params(rules_text: str, assignments: list[str], preset_name: str | None) -> dict:
    """{name: params} for run_lab from the command's --rules, --set and --preset."""
    from ..lab import FIXED

    names = [r.strip() for r in rules_text.split(",") if r.strip()]
    rule_names = parse_rules(",".join(n for n in names if n != FIXED)) if any(n != FIXED for n in names) else []
    bases = preset_bases(preset_name, rule_names, ", ".join(names))
    if assignments and not rule_names:
        raise ParameterError("--set", "the fixed-size baseline takes its size from tttd-v1: add a rule to --rules")
    params = parse_rule_assignments(assignments, rule_names, bases) if rule_names else {}
    out: dict = {}
    for name in names:
        if name == FIXED:
            out[FIXED] = None
        elif name not in out:
            out[name] = params[name]
    if not out:
        raise ParameterError("--rules", f"name at least one chunker: {DEFAULT_CHUNKERS}")
    return out


def external_chunkers(specs: list[str], rules: dict) -> dict:
    """{spec: SplitterChunker} for --chunker: counted with the first rule's token counter
    and, without a chunk_size, sized at its max_tokens."""
    from ..comparison.external import SplitterChunker, parse_chunker

    first = next((p for p in rules.values() if p is not None), None)
    counter = first.token_counter if first is not None else "chars4/1"
    out = {}
    for spec in specs:
        chunker = parse_chunker(spec, counter)
        if not isinstance(chunker, SplitterChunker):
            raise ParameterError("--chunker", "the lab edits one document: spans written for a pair (jsonl:) cannot "
                                              "follow its edits; name a splitter", spec)
        if "chunk_size=" not in spec and first is not None:
            chunker = chunker.with_chunk_size(first.max_tokens)
        out[spec] = chunker
    return out


def lab_rule_names(rules_text: str) -> list[str]:
    """The chunkers of --rules, as loader.COMMAND_MEMORY names the lab's: what its memory
    budget is looked up by (an external --chunker adds what its library holds)."""
    return list(dict.fromkeys(r.strip() for r in rules_text.split(",") if r.strip()))


def check_counts(args: argparse.Namespace) -> None:
    """--edits and --hunt within what a run can finish (lab.run's bounds): a larger
    count is refused with the reason before any work, not hours into a run that never
    ends (run_lab refuses the counts below its bounds)."""
    for flag, value, high in (("--edits", args.edits, MAX_EDITS), ("--hunt", args.hunt, MAX_HUNT_TRIALS)):
        if value > high:
            from ..lab.run import COUNT_REASON

            raise ParameterError(flag, f"must be <= {high:,}, got {value:,} ({COUNT_REASON})", value)


def cmd_lab(args: argparse.Namespace) -> int:
    from ..chunking.loader import max_document_bytes
    from ..lab import run_lab
    from ..report.comparison import render_lab_report
    from ..report.export import to_json_text, write_text_atomic
    from .documents import read_document

    check_counts(args)
    rules = lab_params(args.rules, args.assignments, args.preset)
    rules.update(external_chunkers(args.chunkers, rules))
    if args.retriever is not None and args.retrieval is None:
        raise ParameterError("--retriever", "goes with --retrieval QUESTIONS")
    benchmark, top_k = beside_benchmark(args)  # a bad question file stops the run before any edit
    retriever = None
    if benchmark is not None:
        from ..retrieval import get_retriever

        retriever = get_retriever(args.retriever or "bm25")
    # a file, or PATH@REV as chunk and compare take it, within what the lab needs for its chunkers
    names = lab_rule_names(args.rules)
    text, name = read_document(args.file, max_bytes=max_document_bytes("lab", names), command="lab", rules=names)
    with progress_bar("lab", "edits") as bar:
        result = run_lab(text, rules, edits=args.edits, seed=args.seed, hunt_trials=args.hunt, progress=bar)
    beside = None
    if benchmark is not None:
        beside = lab_retrieval(rules, *benchmark, retriever, top_k)
    if args.html is not None:  # before any output: a failed write is one error line, exit 2, nothing else
        write_text_atomic(args.html, render_lab_report(result, name, retrieval=beside))
    if args.format == "json":
        data = {"file": args.file, **result.to_dict()}
        if beside is not None:
            data["retrieval"] = beside.to_dict()
        sys.stdout.write(to_json_text(data))
    else:
        print(format_lab(result, visible(name), beside))
    return 1 if args.fail_on_violation and violated(result) else 0


def lab_retrieval(rules: dict, corpora: dict, question_set, retriever, top_k: int) -> Beside:
    """Every chunker of the lab scored on the question set at the lab's own parameters
    (the baseline at the size the lab gives it), each distinct chunking chunked once."""
    from ..lab.run import with_fixed
    from ..retrieval.beside import evaluate_named, spec_for

    specs = {name: spec_for(name, params) for name, params in with_fixed(rules).items()}
    with progress_bar("retrieval", "steps") as bar:
        return evaluate_named(specs, corpora, question_set, retriever, top_k, bar)


def violated(result: LabResult) -> bool:
    """Some edit or hunt trial of a rule with a margin passed it."""
    return any(s.past_margin_share for s in result.rules.values()) or \
        any(h.failures for h in result.hunts.values())


def retrieval_rows(beside: Beside, row) -> list[str]:
    """The lab table's retrieval rows: each chunker's scores on the question set, in the
    columns of its cost."""
    from ..retrieval.report import HEADS, METRICS, mean_sd, percent, questions_over

    run, results = beside.run, beside.results
    lines = [f"retrieval ({run.retriever}, top {run.top_k}; "
             f"{questions_over(len(run.question_set.questions), len(run.corpora))}; % mean ± sd)",
             row("  chunks", lambda n: f"{results[n].chunks:,}"),
             row("  mean chunk tokens", lambda n: f"{results[n].mean_tokens:.1f}")]
    lines += [row(f"  {HEADS[m]}", lambda n, m=m: mean_sd(getattr(results[n].overall, m))) for m in METRICS]
    lines.append(row("  references cut", lambda n: f"{percent(results[n].diagnostics.cut_share)}%"))
    if any(r.embedded is not None for r in results.values()):
        lines.append(row("  embedded / reused", lambda n: f"{results[n].embedded:,} / {results[n].reused:,}"))
    return lines


def _num(x: float) -> str:
    return f"{x:,.1f}" if x != int(x) else f"{int(x):,}"


def format_lab(result: LabResult, name: str, retrieval: Beside | None = None) -> str:
    from ..comparison.baseline import BASELINE_STRATEGY
    from ..lab.summary import STATISTICS

    names = list(result.rules)
    width = max(16, *(len(n) + 2 for n in names))

    def row(label: str, cell) -> str:
        return f"{label:<24}" + "".join(f"{cell(n):>{width}}" for n in names)

    summaries = result.rules
    lines = [
        f"lab  {name}: {result.words:,} words; {len(result.edits):,} edits of the realistic mix (seed {result.seed})",
        "",
        f"{'':<24}" + "".join(f"{n:>{width}}" for n in names),
        row("strategy", lambda n: summaries[n].strategy.split("(")[0]),
        # a splitter's settings are too wide for its column: one labelled line each, under its name
        *(f"{'  settings':<24}{n}: {s.strategy[s.strategy.index('(') + 1:-1]}"
          for n, s in summaries.items() if "(" in s.strategy),
        row("document tokens", lambda n: f"{result.tokens[n]:,}"),
        row("margin (tokens)", lambda n: "–" if summaries[n].margin is None else f"{summaries[n].margin:,}"),
        "tokens to re-embed",
        *(row(f"  {k}", lambda n, k=k: _num(summaries[n].tokens[k])) for k in STATISTICS),
        "reach (tokens)",
        *(row(f"  {k}", lambda n, k=k: _num(summaries[n].reach[k])) for k in STATISTICS),
        row("edits past the margin", lambda n: "–" if summaries[n].past_margin_share is None
            else f"{100 * summaries[n].past_margin_share:.1f}%"),
    ]
    unchanged = next(iter(summaries.values())).no_word_changed
    lines.append(f"{'edits changing no word':<24}{unchanged:>{width}}  (re-wraps and the like: nothing to re-embed)")
    if retrieval is not None:
        lines += retrieval_rows(retrieval, row)
    for n, s in summaries.items():
        lines += ["", f"worst edits by reach, {n}:"]
        for o in s.worst[:5]:
            held = "" if o.margin_held is None else ("" if o.margin_held else "  PAST THE MARGIN")
            lines.append(f"  reach {o.reach:>6,}  re-embed {o.tokens_to_embed:>6,} tokens  {o.edit.describe()}{held}")
    if result.hunts:
        lines += ["", "hunt (largest reach found)"]
        for n, h in result.hunts.items():
            failures = "" if h.failures is None else f"; {h.failures} of {h.trials} trials past the margin"
            lines.append(f"  {n}: reach {h.worst.reach:,} tokens at trial {h.found_at}{failures}")
            lines.append(f"    {h.worst.edit.describe()}")
    lines.append("")
    lines.append("reach: tokens from the edit to the far end of the farthest chunk to re-embed; margin: the rule's "
                 f"own ({BASELINE_STRATEGY} has none)")
    return "\n".join(lines)
