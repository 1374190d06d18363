"""The `steadlith` command: chunk, params, bench (and compare, see compare.py)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Sequence

from .errors import SteadlithError
from .loader import load_text
from .params import ChunkerParams, parse_assignments
from .pipeline import Chunking, chunk

PROG = "steadlith"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _add_params_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
        help="change a parameter (SPEC §6 name; integers in decimal or 0x hex); repeatable",
    )
    p.add_argument("--format", choices=("text", "json"), default="text")


def _params(args: argparse.Namespace) -> ChunkerParams:
    return parse_assignments(args.assignments)


def chunking_to_json(result: Chunking) -> dict:
    return {
        "normalizer_version": result.normalizer_version,
        "params": result.params.to_dict(),
        "params_hash": result.params_hash,
        "word_count": result.word_count,
        "chunks": [
            {
                "index": c.index, "start_word": c.start_word, "end_word": c.end_word,
                "start": c.start, "end": c.end, "kind": c.kind, "snapped": c.snapped,
                "tokens": c.tokens, "hash": c.hash,
            }
            for c in result.chunks
        ],
        "diagnostics": result.diagnostics.to_dict(),
    }


def _preview(text: str, width: int = 36) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def format_chunking(result: Chunking, name: str) -> str:
    lines = [f"{name}: {result.word_count} words, {len(result.chunks)} chunks, params {result.params_hash}"]
    header = f"{'#':>5} {'words':>15} {'code points':>17} {'kind':<8} {'snap':<4} {'tokens':>6}  {'hash':<32}  text"
    lines.append(header)
    for c in result.chunks:
        lines.append(
            f"{c.index:>5} {f'{c.start_word}-{c.end_word}':>15} {f'{c.start}-{c.end}':>17} {c.kind:<8} "
            f"{'yes' if c.snapped else '':<4} {c.tokens:>6}  {c.hash}  {_preview(c.text)}"
        )
    lines.append("")
    lines.append(format_diagnostics(result))
    return "\n".join(lines)


def format_diagnostics(result: Chunking) -> str:
    d = result.diagnostics

    def num(x: float | None, fmt: str = "{}") -> str:
        return "–" if x is None else fmt.format(x)

    return "\n".join([
        f"chunks        {d.chunk_count}   ({d.total_tokens} tokens in {d.word_count} words)",
        f"tokens/chunk  min {num(d.tokens_min)}  mean {num(d.tokens_mean, '{:.1f}')}  median {num(d.tokens_median)}"
        f"  p90 {num(d.tokens_p90)}  max {num(d.tokens_max)}",
        f"kinds         primary {d.primary}  backup {d.backup}  hard {d.hard}  end {d.end}  snapped {d.snapped}",
        f"hard-cut rate {d.hard_cut_rate:.1%}   over max_tokens {d.chunks_over_max}",
        f"identity      {d.normalizer_version}  {result.boundary_rule}  params {d.params_hash}"
        f"  snapping {'on' if d.snapping else 'off'}",
    ])


def cmd_chunk(args: argparse.Namespace) -> int:
    params = _params(args)
    result = chunk(load_text(args.file), params)
    if args.format == "json":
        print(json.dumps(chunking_to_json(result), indent=2, ensure_ascii=False))
    else:
        print(format_chunking(result, args.file))
    return 0


def cmd_params(args: argparse.Namespace) -> int:
    params = _params(args)
    if args.format == "json":
        print(json.dumps({
            "params": params.to_dict(),
            "canonical_fields": params.canonical_fields(),
            "canonical_bytes_hex": params.canonical_bytes().hex(),
            "params_hash": params.params_hash,
        }, indent=2))
    else:
        for key, value in params.canonical_fields():
            print(f"{key:<18} {value}")
        print(f"{'params_hash':<18} {params.params_hash}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_bench
    from .examples import generate_prose

    if args.repeat < 1:
        raise SteadlithError(f"--repeat must be >= 1, got {args.repeat}")
    if args.file:
        text, name = load_text(args.file), args.file
    else:
        text, name = generate_prose(1_000_000), "built-in generated prose (1 MB, seed 1)"
    extra = None
    try:
        from .compare import bench_compare as extra  # type: ignore[attr-defined]
    except ImportError:
        pass
    print(run_bench(text, name, args.repeat, memory=args.memory, as_json=args.format == "json", extra=extra))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="Steadlith content-defined chunker (tttd-v1).")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("chunk", help="chunk a UTF-8 file and list its chunks")
    p.add_argument("file")
    _add_params_options(p)
    p.set_defaults(func=cmd_chunk)

    p = sub.add_parser("params", help="show canonical parameters and the params hash")
    _add_params_options(p)
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("bench", help="benchmark chunking (medians)")
    p.add_argument("file", nargs="?", help="document to chunk (default: built-in 1 MB prose)")
    p.add_argument("--repeat", type=int, default=7, help="runs per measurement (default 7)")
    p.add_argument("--memory", action="store_true", help="also measure peak RSS on a 10 MB document")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_bench)

    for register in _EXTRA_COMMANDS:
        register(sub)
    return parser


# Subcommands living in other modules add themselves here (compare, ...).
_EXTRA_COMMANDS: list = []


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except SteadlithError as e:
        print(f"{PROG}: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
