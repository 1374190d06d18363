"""`steadlith compare A B`: one rule, the rules side by side (--rules), or a table of
chunkers by chunk hash (--chunker), in text, JSON and the HTML report."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..chunking.lmx2_params import BOUNDARY_RULES
from ..chunking.presets import preset
from ..chunking.rules import parse_assignments, parse_rule_assignments, parse_rules, preset_bases, rule_of
from ..errors import ParameterError, visible
from .options import add_params_options, new_analysis, params_of

if TYPE_CHECKING:
    from ..chunking.chunks import AnyParams
    from ..comparison.churn import Comparison


def add_parser(sub) -> None:
    p = sub.add_parser(
        "compare", help="compare two versions: reused, shifted, edited chunks, phase shifts, locality check")
    p.add_argument("a", help="the old version (UTF-8 file, or PATH@REV: the file at a git revision)")
    p.add_argument("b", help="the new version (UTF-8 file, or PATH@REV)")
    add_params_options(p)
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

    params = params_of(args)
    (text_a, name_a), (text_b, name_b) = read_pair(args.a, args.b, "compare", [rule_of(params)])
    # the word diff before either chunking (Analysis.prepare_diff): the command's peak
    result = next(iter(new_analysis(word_ids=True).compare_rules(text_a, text_b, [params]).values()))
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
    comparisons = new_analysis(word_ids=True).compare_rules(text_a, text_b, params)
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
    from ..comparison.external import SplitterChunker, match_mean_tokens, parse_chunker
    from ..comparison.chunker_churn import chunkers_json, chunkers_table, compare_chunkers
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
    analysis = new_analysis()
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
