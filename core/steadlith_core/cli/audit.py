"""`steadlith audit REPO`: what the first-parent history of a repository cost to re-embed.

Replays the commits oldest to newest (steadlith_core.history.audit) with a progress bar on
stderr, then prints totals per rule and the costliest commits (text), everything (json),
or one row per commit, file and rule (csv); `--html` also writes a page with a bar per
commit. Ctrl+C stops the replay and prints what was done, marked partial (exit 130).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from typing import TYPE_CHECKING

from ..chunking.presets import RULE_PRESETS
from ..chunking.rules import parse_rule_assignments, parse_rules, preset_bases
from ..errors import ParameterError, visible
from ..history.pathglob import DEFAULT_PATHS
from .progress import progress_bar

if TYPE_CHECKING:
    from ..history.audit_costs import AuditResult

EXIT_INTERRUPTED = 130


def add_parser(sub: Any) -> None:
    p = sub.add_parser("audit", help="replay a repository's history: tokens and chunks each commit cost to re-embed, "
                                     "per rule and for the fixed-size baseline")
    p.add_argument("repo", nargs="?", default=".", help="a directory inside the repository (default: .)")
    p.add_argument("--paths", action="append", metavar="GLOB",
                   help="files to audit, as .gitignore patterns ('*.md' in any directory, '/README.md' at the root only, "
                        "'docs/**/*.md'); "
                        f"repeatable (default: {' '.join(DEFAULT_PATHS)})")
    which = p.add_mutually_exclusive_group()
    which.add_argument("--revs", metavar="RANGE",
                       help="commits to replay: A..B (B's first-parent line not reachable from A) or one revision "
                            "(its whole line); default HEAD")
    which.add_argument("--max-commits", type=int, metavar="N", help="replay only the newest N commits of HEAD's line")
    p.add_argument("--rules", default="tttd-v1,lmx2-v1", metavar="RULE,RULE",
                   help="boundary rules to audit (default both: tttd-v1,lmx2-v1); the fixed-size baseline comes too")
    p.add_argument("--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
                   help="change a parameter of every listed rule that has it; repeatable")
    names = [n for presets in RULE_PRESETS.values() for n in presets]
    p.add_argument("--preset", metavar="NAME", help=f"start its rule from a named set ({', '.join(names)})")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")
    p.add_argument("--top", type=int, default=10, metavar="N", help="costliest commits listed in text (default 10)")
    p.add_argument("--sort", choices=("tokens", "cost-per-word"), default="tokens",
                   help="order of the costliest commits in text: by tokens to embed (default), or by tokens to "
                        "embed per changed word, so small edits that cost much come first (json and csv keep "
                        "history order and carry both figures)")
    p.add_argument("--html", metavar="PATH", help="also write a self-contained HTML page of the audit to PATH")
    p.add_argument("--skip-unreadable", action="store_true",
                   help="leave out a commit that cannot be read (a damaged object; a damaged commit also ends the "
                        "history there) and count it in the summary, instead of stopping at it with an error")
    p.set_defaults(func=cmd_audit)


def _params(args: argparse.Namespace) -> dict:
    rules = parse_rules(args.rules)
    return parse_rule_assignments(args.assignments, rules, preset_bases(args.preset, rules))


def cmd_audit(args: argparse.Namespace) -> int:
    # imported here: git support (pygit2) is not loaded for the commands that do not read history
    from ..history.audit import audit
    from ..history.audit_costs import to_csv
    from ..history.audit_report import render_audit_html
    from ..report.export import to_json_text, write_text_atomic

    params = _params(args)
    if args.top < 0:
        raise ParameterError("--top", f"must be >= 0, got {args.top}")
    started = time.perf_counter()
    with progress_bar("auditing", "commits") as progress:
        result = audit(args.repo, tuple(args.paths or DEFAULT_PATHS), args.revs, args.max_commits, params, progress,
                       keep_partial=True, skip_unreadable=args.skip_unreadable)
    elapsed = time.perf_counter() - started
    if args.html is not None:  # before any output: a failed write is one error line, nothing else
        write_text_atomic(args.html, render_audit_html(result))
    if args.format == "json":
        sys.stdout.write(to_json_text(result.to_dict()))
    elif args.format == "csv":
        sys.stdout.write(to_csv(result))
    else:
        print(format_audit(result, args.top, elapsed, args.sort))
    if result.partial:
        print(f"steadlith: interrupted: {len(result.commits)} of {result.planned_commits} commits replayed; the "
              "output above is partial", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0


def _per_word(x: float | None) -> str:
    return "–" if x is None else f"{x:.1f}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_audit(result: "AuditResult", top: int = 10, elapsed: float | None = None, sort: str = "tokens") -> str:
    """The text report: what was replayed, totals per rule side by side, the costliest
    commits (by tokens to embed, or by tokens per changed word: `sort`)."""
    from ..history.audit_report import locality_cell

    replayed = len(result.commits)
    state = (f"PARTIAL: {replayed} of {result.planned_commits} commits replayed (interrupted)" if result.partial
             else f"{replayed} commits replayed" + (f" in {elapsed:.1f} s" if elapsed is not None else ""))
    lines = [
        f"repository  {visible(result.repo)}",
        f"paths       {' '.join(visible(p) for p in result.paths)}",
        f"history     first parents, oldest first; {state}",
    ]
    for rule, p in result.params.items():
        lines.append(f"{rule:<11} " + " ".join(f"{k}={v}" for k, v in p.items() if k != "boundary_rule"))
    names = list(result.rules)
    width = max(16, *(len(n) + 2 for n in names))

    def row(label: str, cell) -> str:
        return f"{label:<22}" + "".join(f"{cell(n, result.totals[n]):>{width}}" for n in names)

    def each(cell):
        return lambda _name, totals: cell(totals)

    lines += [
        "",
        f"{'':<22}" + "".join(f"{n:>{width}}" for n in names),
        row("file changes", each(lambda t: f"{t.files}")),
        row("tokens to embed", each(lambda t: f"{t.tokens_to_embed}")),
        row("chunks to embed", each(lambda t: f"{t.chunks_to_embed}")),
        row("reused share", each(lambda t: _pct(t.reused_share))),
        row("phase-shift regions", each(lambda t: f"{t.phase_shift_regions}")),
        row("locality violations", locality_cell),
        row("mean chunk (tokens)", each(lambda t: f"{t.mean_chunk_tokens:.1f}")),
        row("p90 chunk (tokens)", each(lambda t: f"{t.p90_chunk_tokens:.0f}")),
        row("words changed", each(lambda t: f"{t.words_changed}")),
        row("tokens per word", each(lambda t: _per_word(t.cost_per_word))),
    ]
    first = names[0]
    spikes = result.top_commits(first, top, sort)
    if spikes:
        order = "tokens to embed" if sort == "tokens" else "tokens to embed per changed word"
        lines += ["", f"costliest commits by {order} under {first}:",
                  f"  {'commit':<9} {'date':<10} {'words':>7} {'t/word':>8} " + "".join(f"{n:>{width}}" for n in names)
                  + "  subject"]
        for c in spikes:
            day = time.strftime("%Y-%m-%d", time.gmtime(c.when))
            lines.append(f"  {c.short:<9} {day:<10} {c.words_changed(first):>7} {_per_word(c.cost_per_word(first)):>8} "
                         + "".join(f"{c.tokens_to_embed(n):>{width}}" for n in names) + f"  {visible(c.subject)[:60]}")
    if result.unreadable:
        lines += ["", f"unreadable  {len(result.unreadable)} commit{'' if len(result.unreadable) == 1 else 's'} "
                      "left out (--skip-unreadable):"]
        for s in result.unreadable[:10]:
            lines.append(f"  {s.commit[:7]}: {visible(s.reason)}")
        if len(result.unreadable) > 10:
            lines.append(f"  ... and {len(result.unreadable) - 10} more (see --format json)")
    if result.skipped:
        lines += ["", f"skipped     {len(result.skipped)} file versions or commits that cannot be measured:"]
        for s in result.skipped[:10]:
            where = f" {visible(s.path)}:" if s.path else ":"
            lines.append(f"  {s.commit[:7]}{where} {visible(s.reason)}")
        if len(result.skipped) > 10:
            lines.append(f"  ... and {len(result.skipped) - 10} more (see --format json)")
    return "\n".join(lines)
