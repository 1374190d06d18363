"""`steadlith chunk` and `steadlith params`: a document's chunks with their diagnostics,
and the canonical parameters with their hash, in text, JSON and JSON Lines."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import TYPE_CHECKING, Iterator

from ..chunking.lmx2_params import Lmx2Params
from ..chunking.rules import rule_of
from ..errors import visible
from .options import add_params_options as _add_params_options
from .options import params_of as _params

if TYPE_CHECKING:
    from ..chunking.chunks import Chunking


def add_parser(sub) -> None:
    """The `chunk` and `params` subcommands."""
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
    from ..chunking.pipeline import Pipeline
    from ..report.export import chunking_json_pieces, chunks_jsonl_lines, write_pieces
    from .documents import read_document

    params = _params(args)
    if len(args.file) > 1 or _is_batch_arg(args.file[0]):
        from .batch import run_batch

        return run_batch(args.file, params, args.format, args.jobs, args.follow_links)
    rules = [rule_of(params)]
    text, name = read_document(args.file[0], utf8=True, max_bytes=max_document_bytes("chunk", rules), command="chunk",
                               rules=rules)
    # a pipeline of its own, not a comparison's (cli.options.new_analysis): one document,
    # chunked once, whose word symbols nothing reads afterwards (a comparison keeps them)
    result = Pipeline(pause_gc=True).chunk(text, params)
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
