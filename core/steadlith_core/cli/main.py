"""The `steadlith` command: chunk, params, compare, bench.

The JSON it prints comes from report/export.py and the HTML report from report/comparison.py, the same
functions the inspector's exports call, so the two clients cannot disagree."""

from __future__ import annotations

import argparse
import gc
import io
import json
import os
import signal
import sys
from typing import TYPE_CHECKING, Iterator, Sequence

# Only what builds the parser and parses parameters is imported here: `steadlith --version`
# and `steadlith params` start without numpy, pygit2 or the reports. Each command imports
# what it runs inside its function (tests/core/test_cli_imports.py checks the start).
from .._version import __version__
from ..chunking.lmx2_params import BOUNDARY_RULES, Lmx2Params
from ..chunking.presets import RULE_PRESETS, preset
from ..bench import git as bench_git
from ..chunking.rules import parse_assignments, parse_rule_assignments, parse_rules, preset_bases, rule_of
from ..errors import ParameterError, SteadlithError, visible
from . import audit as cli_audit
from . import explain as cli_explain
from . import lab as cli_lab
from . import plan as cli_plan
from . import sync as cli_sync
from . import retrieval as cli_retrieval
from . import sweep as cli_sweep

if TYPE_CHECKING:
    from ..chunking.chunks import AnyParams, Chunking
    from ..comparison.analysis import Analysis
    from ..comparison.churn import Comparison

PROG = "steadlith"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _add_params_options(p: argparse.ArgumentParser, formats: tuple[str, ...] = ("text", "json")) -> None:
    p.add_argument(
        "--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
        help="change a parameter (a name of docs/contract/tttd-v1.md#parameters or docs/contract/lmx2-v1.md#parameters; "
             "integers in decimal or 0x hex); repeatable. "
             "boundary_rule=lmx2-v1 selects the strictly local rule and its fields (horizon, fill_horizon, "
             "key_tokens, boundary_preference); a field of the other rule is an error",
    )
    names = [n for presets in RULE_PRESETS.values() for n in presets]
    p.add_argument(
        "--preset", metavar="NAME",
        help=f"start from a named parameter set ({', '.join(names)}); it selects its rule; --set changes "
             "apply on top",
    )
    p.add_argument("--format", choices=formats, default="text")


def _params(args: argparse.Namespace) -> AnyParams:
    return parse_assignments(args.assignments, preset(args.preset) if args.preset is not None else None)


def _analysis() -> Analysis:
    from ..comparison.analysis import Analysis

    # the command owns its process, so pausing the cyclic GC during runs is its call
    return Analysis(pause_gc=True)


def _preview(text: str, width: int = 36) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def format_chunking(result: Chunking, name: str) -> str:
    return "".join(chunking_lines(result, name))


def chunking_lines(result: Chunking, name: str) -> Iterator[str]:
    """format_chunking's text with a newline after it, a line at a time, each chunk's
    made as it is reached (the command writes them as they come)."""
    yield f"{name}: {result.word_count} words, {len(result.columns)} chunks, params {result.params_hash}\n"
    yield (f"{'#':>5} {'words':>15} {'code points':>17} {'kind':<9} {'snap':<4} {'boundary':<9} {'tokens':>6}  "
           f"{'hash':<32}  text\n")
    for c in result.iter_chunks():
        yield (f"{c.index:>5} {f'{c.start_word}-{c.end_word}':>15} {f'{c.start}-{c.end}':>17} {c.kind:<9} "
               f"{'yes' if c.snapped else '':<4} {c.boundary:<9} {c.tokens:>6}  {c.hash}  {_preview(c.text)}\n")
    yield "\n"
    yield format_diagnostics(result) + "\n"


def format_diagnostics(result: Chunking) -> str:
    from ..chunking.diagnostics import Lmx2Diagnostics

    d = result.diagnostics

    def num(x: float | None, fmt: str = "{}") -> str:
        return "–" if x is None else fmt.format(x)

    interior = d.paragraph_boundaries + d.sentence_boundaries + d.word_boundaries
    lines = [
        f"chunks        {d.chunk_count}   ({d.total_tokens} tokens in {d.word_count} words)",
        f"tokens/chunk  min {num(d.tokens_min)}  mean {num(d.tokens_mean, '{:.1f}')}  median {num(d.tokens_median)}"
        f"  p90 {num(d.tokens_p90)}  max {num(d.tokens_max)}",
    ]
    if isinstance(d, Lmx2Diagnostics):
        lines += [
            f"kinds         primary {d.primary}  fill {d.fill}  long-word {d.long_word}  end {d.end}",
            f"sizes         under min_tokens {d.chunks_under_min}   over max_tokens {d.chunks_over_max}"
            "   (docs/contract/lmx2-v1.md#sizes: measured, not guaranteed)",
            f"cuts at       paragraph ends {d.paragraph_boundaries} ({d.paragraph_share:.1%})  sentence ends "
            f"{d.sentence_boundaries} ({d.sentence_share:.1%})  other {d.word_boundaries}  of {interior} cuts",
            f"locality      gate {d.gate}  margin {d.margin} tokens ({result.params.margin_formula})",
            f"identity      {d.normalizer_version}  {result.boundary_rule}  params {d.params_hash}",
        ]
    else:
        lines += [
            f"kinds         primary {d.primary}  backup {d.backup}  hard {d.hard}  end {d.end}  snapped {d.snapped}",
            f"hard-cut rate {d.hard_cut_rate:.1%}   over max_tokens {d.chunks_over_max}",
            f"cuts at       paragraph ends {d.paragraph_boundaries} ({d.paragraph_share:.1%})  sentence ends "
            f"{d.sentence_boundaries} ({d.sentence_share:.1%})  other {d.word_boundaries}  of {interior} cuts",
            f"identity      {d.normalizer_version}  {result.boundary_rule}  params {d.params_hash}"
            f"  snapping {'on' if d.snapping else 'off'}",
        ]
    return "\n".join(lines)


def cmd_chunk(args: argparse.Namespace) -> int:
    from ..chunking.loader import max_document_bytes
    from ..report.export import chunking_json_pieces, chunks_jsonl_lines, write_pieces
    from .documents import read_document

    params = _params(args)
    if len(args.file) > 1 or _is_batch_arg(args.file[0]):
        from .batch import run_batch

        return run_batch(args.file, params, args.format, args.jobs, args.follow_links)
    text, name = read_document(args.file[0], utf8=True, max_bytes=max_document_bytes("chunk", [rule_of(params)]))
    result = _analysis().chunk(text, params)
    # every format is written as each chunk is reached, never as one string: the output
    # of a large document would be several times its size in memory
    if args.format == "json":
        write_pieces(sys.stdout.write, chunking_json_pieces(result))
    elif args.format == "jsonl":
        write_pieces(sys.stdout.write, chunks_jsonl_lines(result))
    else:
        write_pieces(sys.stdout.write, chunking_lines(result, visible(name)))  # a name stays on its line
    return 0


def _is_batch_arg(arg: str) -> bool:
    if os.path.isfile(arg):  # the common case, without importing git support
        return False
    from ..history.batch import is_batch_arg

    return is_batch_arg(arg)


def cmd_params(args: argparse.Namespace) -> int:
    params = _params(args)
    lmx2 = isinstance(params, Lmx2Params)
    if args.format == "json":
        data = {
            "params": params.to_dict(),
            "canonical_fields": params.canonical_fields(),
            "canonical_bytes_hex": params.canonical_bytes().hex(),
            "params_hash": params.params_hash,
        }
        if lmx2:
            data["gate"] = params.gate
        data["margin"] = params.margin
        data["margin_formula"] = params.margin_formula
        print(json.dumps(data, indent=2))
    else:
        for key, value in params.canonical_fields():
            # a tokenizer spec resolves to its id (docs/contract/tokens.md#identity): say from what
            spec = f"  (from {params.token_counter})" if key == "token_counter" and value != params.token_counter else ""
            print(f"{key:<18} {value}{spec}")
        print(f"{'params_hash':<18} {params.params_hash}")
        if lmx2:  # the derived values of docs/contract/lmx2-v1.md (parameters, locality)
            print(f"{'gate':<18} {params.gate}")
            print(f"{'margin':<18} {params.margin}  ({params.margin_formula})")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.repeat < 1:
        raise SteadlithError(f"--repeat must be >= 1, got {args.repeat}")
    if args.startup:
        from ..bench.startup import bench_startup, format_startup

        report = bench_startup(args.repeat)
        print(json.dumps(report, indent=2) if args.format == "json" else format_startup(report))
        return 0
    if args.tokenizer_overshoot:
        from ..bench.tokens import report_for

        text = name = None
        if args.file:
            from ..chunking.loader import load_text

            text, name = load_text(args.file), visible(args.file)
        print(report_for(text, name, args.tokenizer, args.overshoot_max_tokens, args.format))
        return 0
    if args.tokenizer:
        raise SteadlithError("--tokenizer goes with --tokenizer-overshoot")
    from ..bench.chunking import run_bench
    from ..bench.chunking import default_documents

    if args.sizes is not None:
        from ..bench.chunking import bench_sizes, format_sizes

        if args.sizes < 1:
            raise SteadlithError(f"--sizes must be >= 1 (MB), got {args.sizes}")
        sizes = bench_sizes(range(1, args.sizes + 1))
        print(json.dumps(sizes, indent=2) if args.format == "json" else format_sizes(sizes))
        return 0
    if args.memory_mb < 1:
        raise SteadlithError(f"--memory-mb must be >= 1, got {args.memory_mb}")
    if args.memory_only:
        from ..bench.chunking import memory_only

        print(memory_only(args.memory_mb * 1_000_000, args.format == "json"))
        return 0
    if args.file:
        from ..chunking.loader import load_text

        text, name = load_text(args.file), visible(args.file)
        kernel_texts = {"this file": text}
    else:
        text, name, kernel_texts = default_documents()
    print(run_bench(text, name, args.repeat, memory=args.memory, as_json=args.format == "json",
                    kernel_texts=kernel_texts, peers=args.peers, memory_mb=args.memory_mb, cold_texts=kernel_texts))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    if args.chunkers:
        return _compare_chunkers(args)
    if args.match_size:
        raise ParameterError("--match-size", "sizes external chunkers: give them with --chunker")
    if args.rules is not None:
        return _compare_rules(args)
    from ..report.comparison import render_report
    from ..report.export import comparison_json, to_json_text, write_text_atomic
    from .documents import read_pair

    params = _params(args)
    (text_a, name_a), (text_b, name_b) = read_pair(args.a, args.b, "compare", [rule_of(params)])
    analysis = _analysis()
    result = analysis.compare(analysis.chunk(text_a, params), analysis.chunk(text_b, params))
    if args.html is not None:  # before any output: a failed write is one error line, exit 2, nothing else
        write_text_atomic(args.html, render_report(result, name_a, name_b))
    if args.format == "json":
        sys.stdout.write(to_json_text(comparison_json(result, args.a, args.b)))
    else:
        print(format_comparison(result, visible(name_a), visible(name_b)))  # names stay on their lines
    return 1 if args.fail_on_violation and not result.locality_held else 0


def _compare_rules(args: argparse.Namespace) -> int:
    from ..report.comparison import render_report
    from ..report.export import rules_comparison_json, to_json_text, write_text_atomic
    from .documents import read_pair

    rules = parse_rules(args.rules)
    params = parse_rule_assignments(args.assignments, rules, preset_bases(args.preset, rules))
    (text_a, name_a), (text_b, name_b) = read_pair(args.a, args.b, "compare", rules)
    comparisons = _analysis().compare_rules(text_a, text_b, params)
    if args.html is not None:  # before any output, as for one rule
        first = next(iter(comparisons.values()))
        write_text_atomic(args.html, render_report(first, name_a, name_b, rules=comparisons))
    if args.format == "json":
        sys.stdout.write(to_json_text(rules_comparison_json(comparisons, args.a, args.b)))
    else:
        print(format_rules(comparisons, visible(name_a), visible(name_b)))  # names stay on their lines
    failed = any(not c.locality_held for c in comparisons.values())
    return 1 if args.fail_on_violation and failed else 0


def _compare_chunkers(args: argparse.Namespace) -> int:
    """--chunker: rules, the baseline and external chunkers in one table, by hash."""
    from ..comparison.external import (SplitterChunker, chunkers_json, chunkers_table, compare_chunkers,
                                       match_mean_tokens, parse_chunker)
    from ..report.comparison import render_report
    from ..report.export import to_json_text, write_text_atomic
    from .documents import read_document

    if args.fail_on_violation:
        raise ParameterError("--fail-on-violation", "not available with --chunker (use --rules for the rules' "
                                                    "locality check)")
    rules = parse_rules(args.rules) if args.rules is not None else []
    externals = []
    for spec in args.chunkers:
        if spec == "rules":
            rules += [r for r in BOUNDARY_RULES if r not in rules]
        elif spec in BOUNDARY_RULES:
            rules += [] if spec in rules else [spec]
        else:
            externals.append(spec)
    bases = {}
    if args.preset is not None:
        base = preset(args.preset)
        bases[rule_of(base)] = base
        rules += [] if rule_of(base) in rules else [rule_of(base)]
    params = list(parse_rule_assignments(args.assignments, rules, bases).values()) if rules else []
    if not rules and (args.assignments or args.preset):
        raise ParameterError("--set", "no boundary rule to apply it to: add --chunker rules or --chunker RULE")
    counter = params[0].token_counter if params else "chars4/1"
    (text_a, _), (text_b, _) = read_document(args.a), read_document(args.b)
    analysis = _analysis()
    target = None
    if args.match_size:
        first = params[0] if params else _default_params()
        chunks = analysis.chunk(text_a, first).chunks
        target = sum(c.tokens for c in chunks) / len(chunks) if chunks else 1.0
    chunkers = []
    for spec in externals:
        chunker = parse_chunker(spec, counter)
        if target is not None and isinstance(chunker, SplitterChunker) and "chunk_size=" not in spec:
            chunker = match_mean_tokens(chunker, text_a, target)
        chunkers.append(chunker)
    rows = compare_chunkers(text_a, text_b, [*params, *chunkers], analysis=analysis)
    if args.html is not None:  # before any output, as for the rules
        # the report's body shows the first rule (the default one when only externals were named)
        body = params or [_default_params()]
        comparisons = analysis.compare_rules(text_a, text_b, {rule_of(p): p for p in body})
        first = next(iter(comparisons.values()))
        write_text_atomic(args.html, render_report(first, args.a, args.b, rules=comparisons, chunkers=rows))
    if args.format == "json":
        doc = chunkers_json(rows, args.a, args.b)
        doc["matched_mean_tokens_a"] = target
        sys.stdout.write(to_json_text(doc))
        return 0
    print(f"A  {visible(args.a)}\nB  {visible(args.b)}")
    if target is not None:
        print(f"sizes  external chunk_size matched to a mean of {target:.1f} tokens a chunk on A "
              f"({rules[0] if rules else 'tttd-v1'})")
    print(f"tokens {counter}; reused = B chunks whose hash occurs in A (what an embedding cache keyed by "
          f"chunk hash hits)\n")
    print("\n".join(chunkers_table(rows)))
    return 0


def _default_params() -> AnyParams:
    return parse_assignments([])


def format_rules(comparisons: dict[str, Comparison], name_a: str = "A", name_b: str = "B") -> str:
    """Several rules on one pair, side by side, with the fixed-size baseline last."""
    from ..report.comparison import locality_verdict

    first = next(iter(comparisons.values()))
    s0 = first.summary
    columns: list[tuple[str, object]] = [(rule, c.summary) for rule, c in comparisons.items()]
    seen = set()
    for c in comparisons.values():
        if c.baseline is not None and c.baseline.params_hash not in seen:
            seen.add(c.baseline.params_hash)
            columns.append((f"{c.baseline.strategy} ({c.baseline.max_tokens})", c.baseline.summary))
    width = max(22, *(len(name) + 2 for name, _ in columns))

    def row(label: str, cell) -> str:
        return f"{label:<22}" + "".join(f"{cell(s):>{width}}" for _, s in columns)

    lines = [
        f"A   {name_a}: {s0.words_a} words, {s0.tokens_a} tokens",
        f"B   {name_b}: {s0.words_b} words, {s0.tokens_b} tokens",
        f"diff  {_n(s0.edits, 'edit')}: {_n(s0.changed_words_a, 'word')} of A deleted or replaced, "
        f"{_n(s0.changed_words_b, 'word')} of B inserted or replacing",
        "",
        f"{'':<22}" + "".join(f"{name:>{width}}" for name, _ in columns),
        row("chunks A | B", lambda s: f"{s.chunks_a} | {s.chunks_b}"),
        row("reused chunks", lambda s: f"{s.reused_chunks} ({_pct(s.reused_chunk_ratio)})"),
        row("reused tokens", lambda s: f"{s.reused_tokens} ({_pct(s.reused_token_ratio)})"),
        row("tokens to embed", lambda s: f"{s.tokens_to_embed}"),
        row("shifted chunks", lambda s: f"{s.shifted_chunks_b}"),
        row("longest resync", lambda s: f"{s.longest_resync_tokens}"),
        row("margin", lambda s: f"{s.margin}"),
        row("violations", lambda s: f"{s.violations} in {s.checked_ranges}"),
        row("locality", lambda s: {"violated": "NOT HELD"}.get(s.verdict, s.verdict)),
        row("cuts at paragraph end", lambda s: _pct(s.paragraph_cut_share_b)),
        row("cuts at sentence end", lambda s: _pct(s.sentence_cut_share_b)),
        row("mean chunk (tokens)", lambda s: f"{s.mean_chunk_tokens_b:.1f}"),
        "",
    ]
    for rule, c in comparisons.items():
        lines.append(f"{rule:<9} params {c.a.params_hash}; margin {c.margin} = {c.a.params.margin_formula}")
        lines.append(f"{'':<9} {locality_verdict(c)}")
    return "\n".join(lines)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def format_comparison(c: Comparison, name_a: str = "A", name_b: str = "B", max_listed: int = 10) -> str:
    """The short human report of `steadlith compare`. Word and token ranges are half-open
    [start, end); chunk ranges are inclusive first..last."""
    from ..report.comparison import locality_verdict

    s, a = c.summary, c.a
    lines = [
        f"A          {name_a}: {s.words_a} words, {s.chunks_a} chunks, {s.tokens_a} tokens",
        f"B          {name_b}: {s.words_b} words, {s.chunks_b} chunks, {s.tokens_b} tokens",
        f"identity   {a.normalizer_version}  {a.boundary_rule}  params {a.params_hash}",
        f"diff       {_n(s.edits, 'edit')}: {_n(s.changed_words_a, 'word')} of A deleted or replaced, "
        f"{_n(s.changed_words_b, 'word')} of B inserted or replacing",
        f"B chunks   reused {s.reused_chunks} of {s.chunks_b} ({_pct(s.reused_chunk_ratio)})  shifted "
        f"{s.shifted_chunks_b}  edited {s.edited_chunks_b}  new {s.new_chunks_b}",
        f"A chunks   reused {s.reused_chunks} of {s.chunks_a}  shifted {s.shifted_chunks_a}  edited "
        f"{s.edited_chunks_a}  removed {s.removed_chunks_a}",
        f"tokens     reused {s.reused_tokens} of {s.tokens_b} ({_pct(s.reused_token_ratio)}); to embed "
        f"{_n(s.tokens_to_embed, 'token')} in {_n(s.chunks_to_embed, 'chunk')}",
    ]
    if s.unaligned_hash_hits_b:
        lines.append(
            f"           {_n(s.unaligned_hash_hits_b, 'chunk')} to embed ({s.unaligned_hash_hit_tokens_b} tokens) "
            "with a hash found elsewhere in A (moved or repeated text)")
    if c.baseline is not None:
        bs = c.baseline.summary
        lines.append(
            f"baseline   {c.baseline.strategy} (windows of {c.baseline.max_tokens} tokens): reused "
            f"{bs.reused_chunks} of {bs.chunks_b} chunks ({_pct(bs.reused_chunk_ratio)}), {bs.reused_tokens} of "
            f"{bs.tokens_b} tokens ({_pct(bs.reused_token_ratio)}); to embed {bs.tokens_to_embed} tokens")
    regions = c.phase_shift_regions
    if not regions:
        lines.append("phase shift  none")
    else:
        lines.append(
            f"phase shift  {_n(len(regions), 'region')}, {_n(s.shifted_chunks_b, 'shifted chunk')} "
            f"({s.shifted_tokens_b} tokens), longest resync {s.longest_resync_tokens} tokens (margin {c.margin})")
        for n, r in enumerate(regions[:max_listed], 1):
            edit = r.after_edit
            if r.starts_before_edit:  # the edit removed the candidate a chunk before it ended at
                e = r.first_edit
                after = (f"before {e.tag} at B words [{e.b_start}, {e.b_end}) / A words [{e.a_start}, {e.a_end}), "
                         f"starting {r.starts_before_edit_tokens} tokens before it")
            else:
                after = "at the document start" if edit is None else (
                    f"after {edit.tag} at B words [{edit.b_start}, {edit.b_end}) / A words "
                    f"[{edit.a_start}, {edit.a_end})")
            resync = (f"resync at B chunk {r.resync_b} = A chunk {r.resync_a}, {r.resync_distance_tokens} tokens "
                      "after the edit" if r.resynced else
                      f"never resynchronized ({r.resync_distance_tokens} tokens to the end of B)")
            lines.append(
                f"  #{n} B chunks {r.b_chunks[0]}..{r.b_chunks[1] - 1} (words [{r.b_words[0]}, {r.b_words[1]}), "
                f"tokens [{r.b_tokens[0]}, {r.b_tokens[1]})) ~ A chunks {r.a_chunks[0]}..{r.a_chunks[1] - 1} "
                f"(words [{r.a_chunk_words[0]}, {r.a_chunk_words[1]}))")
            lines.append(f"     {after}; {resync}")
        if len(regions) > max_listed:
            lines.append(f"  ... and {len(regions) - max_listed} more (see --format json)")
    lines.append(
        f"locality   margin {c.margin} tokens; {_n(c.checked_ranges, 'shared range')} of >= {2 * c.margin} "
        f"tokens checked; {_n(len(c.violations), 'violation')}")
    for v in c.violations[:max_listed]:
        lines.append(
            f"  B chunk {v.b_chunk} (words [{v.b_words[0]}, {v.b_words[1]}), tokens [{v.b_tokens[0]}, "
            f"{v.b_tokens[1]})) is {v.status}, inside shared B words [{v.equal_b_words[0]}, {v.equal_b_words[1]}) "
            f"(interior tokens [{v.interior_b_tokens[0]}, {v.interior_b_tokens[1]}))")
    if len(c.violations) > max_listed:
        lines.append(f"  ... and {len(c.violations) - max_listed} more (see --format json)")
    verdict = locality_verdict(c)
    lines.append(f"verdict    {verdict}")
    return "\n".join(lines)


def version_line() -> str:
    """`steadlith 1.0.0, compiled kernel, Python 3.11.7`: which kernel runs matters as much
    as the version, since the numpy fallback is several times slower.

    The kernel's words come from kernel.extension, which loads the compiled extension
    but not numpy; once kernel.select is loaded (a kernel.use in this process), from it."""
    import platform

    from ..kernel import extension

    select = sys.modules.get(extension.__name__.rpartition(".")[0] + ".select")
    kernel = select.describe() if select is not None else extension.describe()
    return f"{PROG} {__version__}, {kernel}, Python {platform.python_version()}"


class _VersionAction(argparse.Action):
    """argparse's own version action wraps the line at the terminal's width; this prints
    it whole, so scripts can read it."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(version_line())
        parser.exit()


EXIT_STATUSES = (
    "exit status: 0 done; 1 a check failed (--fail-on-violation) or a batch is incomplete (a file or directory "
    "could not be read or chunked: each is named on stderr); 2 an error (one line on stderr), including output "
    "that could not be written (a full disk, a closed standard output); 130 interrupted (Ctrl+C); 141 the reader "
    "of the output went away (`steadlith ... | head`), quietly, as git and rg do")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Steadlith content-defined chunker (rules tttd-v1 and lmx2-v1).",
                     epilog=EXIT_STATUSES)
    parser.add_argument("--version", action=_VersionAction, nargs=0,
                        help="show the version, the kernel in use and the Python, and exit")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("chunk", help="chunk a UTF-8 file (or many: files, directories, globs) and list its chunks")
    p.add_argument("file", nargs="+", metavar="FILE",
                   help="a file; PATH@REV (the file at a git revision: hash, branch, tag, HEAD~3); several files, a "
                        "directory or a quoted glob ('docs/**/*.md'), or REPO@REV:GLOB (files of a revision), "
                        "which chunk in batch: text gives one line a file, jsonl every chunk with its path")
    _add_params_options(p, ("text", "json", "jsonl"))
    p.add_argument("--jobs", type=int, metavar="N",
                   help="worker processes for a batch (default: the number of cores; 1 chunks in this process)")
    p.add_argument("--follow-links", action="store_true",
                   help="in a directory, also follow symbolic links leading outside it (by default they are skipped, "
                        "each named on stderr; links inside it are followed); a directory that cannot be read is "
                        "named on stderr and makes the exit status 1")
    p.set_defaults(func=cmd_chunk)

    p = sub.add_parser("params", help="show canonical parameters and the params hash")
    _add_params_options(p)
    p.set_defaults(func=cmd_params)

    p = sub.add_parser(
        "compare", help="compare two versions: reused, shifted, edited chunks, phase shifts, locality check")
    p.add_argument("a", help="the old version (UTF-8 file, or PATH@REV: the file at a git revision)")
    p.add_argument("b", help="the new version (UTF-8 file, or PATH@REV)")
    _add_params_options(p)
    p.add_argument("--rules", metavar="RULE,RULE",
                   help="compare under each of these boundary rules (tttd-v1,lmx2-v1) side by side, with the "
                        "fixed-size baseline; --set then applies each field to every listed rule that has it "
                        "(min_tokens, max_tokens, token_counter to both; window_words, masks, snapping to tttd-v1 "
                        "only; horizon, fill_horizon, key_tokens, boundary_preference to lmx2-v1 only); a field "
                        "none of them has is an error; --preset sets the start of its own rule")
    p.add_argument("--chunker", dest="chunkers", action="append", default=[], metavar="CHUNKER",
                   help="put this chunker in one side-by-side table of reused chunks and tokens (by chunk hash); "
                        "repeatable: rules (both boundary rules), tttd-v1, lmx2-v1, langchain-recursive, "
                        "llama-index-sentence, chonkie-recursive, semchunk, fixed-tokens (each NAME[:chunk_size=N[,chunk_overlap=M]], "
                        "sized in the rules' tokens, needs its library: the core's extras langchain, llama-index, "
                        "external), or jsonl:SPANS_A,SPANS_B (spans another pipeline wrote: {\"start\": s, \"end\": e} "
                        "in code points, or {\"text\": ...}, one a line); the fixed-size baseline follows the rules")
    p.add_argument("--match-size", action="store_true",
                   help="with --chunker: give each external splitter without a chunk_size the one whose mean chunk "
                        "tokens on A come closest to the first rule's")
    p.add_argument("--fail-on-violation", action="store_true",
                   help="exit 1 when the locality check (at the rule's own margin) finds a violation; with "
                        "--rules, when it finds one under any of the rules")
    p.add_argument("--html", metavar="PATH",
                   help="also write the self-contained HTML report (both documents, statuses, identity) to PATH; "
                        "with --chunker its side-by-side table has a column per chunker")
    p.set_defaults(func=cmd_compare)

    p = sub.add_parser("bench", help="benchmark chunking (both rules side by side), word diff and compare (medians)")
    p.add_argument("file", nargs="?", help="document to chunk (default: the checkout's Markdown, or the shipped "
                                           "tool library notes, repeated to 1 MB and 10 MB)")
    p.add_argument("--repeat", type=int, default=7, help="runs per measurement (default 7)")
    p.add_argument("--memory", action="store_true",
                   help="also measure the peak memory of a fresh process on a --memory-mb Markdown document, "
                        "over its size (library str and bytes, chunk --format json|jsonl, compare; both rules)")
    p.add_argument("--sizes", type=int, nargs="?", const=4, metavar="MB",
                   help="instead of timings: how often chunks fall under min_tokens (outside each rule's "
                        "exceptions, docs/contract/lmx2-v1.md#sizes) or over max_tokens, both rules at defaults "
                        "on MB streams "
                        "of 1 MB of generated prose (seeds 1..MB; default 4)")
    p.add_argument("--memory-mb", type=int, default=10, metavar="MB",
                   help="size of the --memory document in MB (default 10)")
    p.add_argument("--memory-only", action="store_true",
                   help="instead of timings: only the --memory rows (library str and bytes, chunk --format "
                        "json|jsonl, compare; both rules), each a fresh process, net of its imports")
    p.add_argument("--peers", action="store_true",
                   help="also time the installed peer chunkers (LangChain's RecursiveCharacterTextSplitter, "
                        "chonkie's RecursiveChunker and FastChunker, semchunk) at a matched mean chunk size")
    p.add_argument("--startup", action="store_true",
                   help="instead of timings: how long `steadlith --version` and `steadlith params` take to start, "
                        "each a fresh process (median of --repeat runs, with the load average)")
    p.add_argument("--tokenizer-overshoot", action="store_true",
                   help="instead of timings: chunk the document (default: the checkout's Markdown) with max_tokens "
                        "counted per word by tokenizer counters, count each chunk whole with the same tokenizer, "
                        "and report how many chunks pass max_tokens and by how much (docs/contract/tokens.md#overshoot)")
    p.add_argument("--tokenizer", action="append", metavar="SPEC",
                   help="with --tokenizer-overshoot: a counter to measure (hf:PATH/tokenizer.json, tiktoken:NAME); "
                        "repeat for more (default: tiktoken:cl100k_base and tiktoken:o200k_base)")
    p.add_argument("--overshoot-max-tokens", type=int, default=512, metavar="N",
                   help="with --tokenizer-overshoot: max_tokens of the measured chunkings (default 512)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_bench)
    cli_sweep.add_parser(sub)
    cli_audit.add_parser(sub)
    bench_git.add_parser(sub)
    cli_lab.add_parser(sub)
    cli_explain.add_parser(sub, _add_params_options, _params, _read_document)
    cli_retrieval.add_parser(sub)
    cli_plan.add_parser(sub, _add_params_options, _params)
    cli_sync.add_parser(sub, _add_params_options, _params)
    return parser


def _read_document(path: str, utf8: bool = False):
    """documents.read_document, imported when a command reads one."""
    from .documents import read_document

    return read_document(path, utf8=utf8)


EXIT_ERROR = 2
EXIT_CLOSED_PIPE = 128 + getattr(signal, "SIGPIPE", 13)  # what a shell reports for `yes | head -1`


class OutputError(SteadlithError):
    """Standard output could not be written (a full disk, an I/O error)."""


class _ClosedPipe(Exception):
    """The reader of standard output went away (`steadlith chunk … | head -1`)."""


class _GuardedOutput:
    """Standard output whose write failures say what they are: a closed pipe ends the
    run quietly, any other failure is one error line. Everything else is delegated."""

    def __init__(self, stream):
        self._stream = stream

    def _guard(self, op):
        if self._stream is None:  # started with descriptor 1 closed (`steadlith chunk F >&-`)
            raise OutputError("cannot write the output: standard output is closed")
        try:
            return op()
        except BrokenPipeError:
            raise _ClosedPipe() from None
        except OSError as e:
            raise OutputError(f"cannot write the output: {e.strerror or e}") from None

    def write(self, text: str) -> int:
        return self._guard(lambda: self._stream.write(text))

    def flush(self) -> None:
        self._guard(lambda: self._stream.flush())

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


def _drop_stdout() -> None:
    """Point file descriptor 1 at /dev/null and empty Python's buffer, so the flush at
    interpreter exit neither fails again nor prints "Exception ignored"."""
    stream = sys.stdout
    if stream is None:
        return
    try:
        fd = stream.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (a test's capture): nothing is flushed at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)
    try:
        stream.flush()  # the pending bytes go to /dev/null now
    except OSError:
        pass


def _buffered(stream):
    """`stream`, or the same descriptor behind a buffered writer when Python runs
    unbuffered (PYTHONUNBUFFERED, -u): there, a write the reader cut short (a pipe whose
    reader left) loses the rest of the text without an error, so a lost output would
    exit 0. A buffered writer finishes a short write or raises."""
    raw = getattr(stream, "buffer", None)
    if not isinstance(raw, io.RawIOBase):
        return stream
    return io.TextIOWrapper(io.BufferedWriter(raw), encoding=stream.encoding, errors=stream.errors,
                            line_buffering=stream.line_buffering, write_through=True)


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """parser.parse_args, whose --help, --version and usage paths print and exit inside
    it: what they printed is flushed before the exit, so a write that fails there is
    reported like any other output (_ClosedPipe, OutputError) instead of exit 0."""
    try:
        return parser.parse_args(argv)
    except SystemExit:
        sys.stdout.flush()
        raise


def main(argv: Sequence[str] | None = None) -> int:
    for stream in (sys.stdout, sys.stderr):
        # a terminal or pipe that cannot show a character gets an escape, not a traceback
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace")
    real_stdout = sys.stdout
    # guarded from the start: argparse writes --help and --version itself, and swallows
    # an OSError there (an OutputError is not one)
    sys.stdout = _GuardedOutput(_buffered(real_stdout) if real_stdout is not None else None)
    args = None
    try:
        args = _parse(build_parser(), argv)
        from ..kernel.allocator import keep_freed_memory

        keep_freed_memory()  # this process is ours: let runs reuse what earlier ones freed
        code = args.func(args)
        sys.stdout.flush()  # a full disk shows here, while we can still say so
        return code
    except _ClosedPipe:
        sys.stdout = real_stdout
        _drop_stdout()
        return EXIT_CLOSED_PIPE
    except OutputError as e:
        sys.stdout = real_stdout
        _drop_stdout()
        return _error(str(e))
    except SteadlithError as e:
        return _error(str(e))
    except MemoryError:
        pass  # the message is made below, once this traceback and the frames holding the documents are gone
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    finally:
        sys.stdout = real_stdout
    gc.collect()
    from ..chunking.loader import out_of_memory_message

    return _error(out_of_memory_message(_documents_of(args), _memory_figure(args)))


def _memory_figure(args: argparse.Namespace | None) -> int | None:
    """The bytes of memory per byte of text the command measured needs under its
    rule(s) (loader.memory_per_input_byte): chunk and compare; None (the generic figure)
    for the others."""
    command = getattr(args, "command", None)
    if command not in ("chunk", "compare"):
        return None
    from ..chunking.loader import memory_per_input_byte

    try:
        rules = parse_rules(args.rules) if getattr(args, "rules", None) else [rule_of(_params(args))]
    except Exception:  # a message is being made: never a second error
        rules = []
    return memory_per_input_byte(command, rules)


def _documents_of(args: argparse.Namespace | None) -> list[tuple[str, int | None]]:
    """The documents a command reads (`file`: one path for some commands, a list for
    chunk, of which the first; `a` and `b`), files or PATH@REV, with their sizes (None
    when unknown): what an out-of-memory message names."""
    if args is None:
        return []
    from .documents import document_size

    files = getattr(args, "file", None)
    files = [files] if isinstance(files, str) else list(files or [])[:1]
    return [(path, document_size(path)) for path in [*files, getattr(args, "a", None), getattr(args, "b", None)]
            if path]


def _error(message: str) -> int:
    """One line on stderr, whatever the message carries (a name with a newline or an
    escape sequence stays one line and reaches the terminal as text)."""
    print(f"{PROG}: error: {visible(message)}", file=sys.stderr)
    return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
