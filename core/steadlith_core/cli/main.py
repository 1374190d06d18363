"""The `steadlith` command: its parser, `steadlith bench`, and the run (`main`) that turns
every failure into an exit status; `chunk` and `params` live in chunk.py, the guarded
standard output in output.py.

The JSON it prints comes from report/export.py and the HTML report from report/comparison.py, the same
functions the inspector's exports call, so the two clients cannot disagree."""

from __future__ import annotations

import argparse
import gc
import json
import signal
import sys
from typing import Sequence

# Only what builds the parser and parses parameters is imported here: `steadlith --version`
# and `steadlith params` start without numpy, pygit2 or the reports. Each command imports
# what it runs inside its function (tests/core/test_cli_imports.py checks the start).
from .._version import __version__
from ..bench import git as bench_git
from ..chunking.rules import parse_rules, rule_of
from ..errors import SteadlithError, visible
from .options import add_params_options as _add_params_options
from .options import params_of as _params
from .output import ClosedPipe, GuardedOutput, OutputError, buffered, drop_stdout
from . import audit as cli_audit
from . import chunk as cli_chunk
from . import compare as cli_compare
from . import explain as cli_explain
from . import lab as cli_lab
from . import plan as cli_plan
from . import sync as cli_sync
from . import retrieval as cli_retrieval
from . import sweep as cli_sweep

PROG = "steadlith"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


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
    from ..bench.corpus import default_documents

    if args.sizes is not None:
        from ..bench.sizes import bench_sizes, format_sizes

        if args.sizes < 1:
            raise SteadlithError(f"--sizes must be >= 1 (MB), got {args.sizes}")
        sizes = bench_sizes(range(1, args.sizes + 1))
        print(json.dumps(sizes, indent=2) if args.format == "json" else format_sizes(sizes))
        return 0
    if args.memory_forms and not args.memory_only:
        raise SteadlithError("--memory-forms goes with --memory-only")
    if args.memory_mb < 1:
        raise SteadlithError(f"--memory-mb must be >= 1, got {args.memory_mb}")
    if args.memory_only:
        from ..bench.chunking import memory_only

        if args.file:  # the rows are each a fresh process on the Markdown corpus repeated to size
            raise SteadlithError("--memory-only measures the bench's Markdown repeated to --memory-mb, not a FILE")

        print(memory_only(args.memory_mb * 1_000_000, args.format == "json", _memory_forms(args.memory_forms)))
        return 0
    if args.file:
        from ..chunking.loader import load_text

        text, name = load_text(args.file), visible(args.file)
        kernel_texts = {"this file": text}
    else:
        text, name, kernel_texts = default_documents()
    print(run_bench(text, name, args.repeat, memory=args.memory, as_json=args.format == "json",
                    kernel_texts=kernel_texts, peers=args.peers, memory_mb=args.memory_mb, cold_texts=kernel_texts,
                    allocator=args.allocator))
    return 0


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

    cli_chunk.add_parser(sub)

    cli_compare.add_parser(sub)

    p = sub.add_parser("bench", help="benchmark chunking (both rules side by side), word diff and compare (medians)")
    p.add_argument("file", nargs="?", help="document to chunk (default: the checkout's Markdown, or the shipped "
                                           "tool library notes, repeated to 1 MB and 10 MB)")
    p.add_argument("--repeat", type=int, default=7, help="runs per measurement (default 7)")
    p.add_argument("--memory", action="store_true",
                   help="also measure the peak memory of a fresh process on a --memory-mb Markdown document, "
                        "over its size (library str, str of the text without its non-ASCII characters, bytes, "
                        "chunk --format json|jsonl, compare; both rules)")
    p.add_argument("--sizes", type=int, nargs="?", const=4, metavar="MB",
                   help="instead of timings: how often chunks fall under min_tokens (outside each rule's "
                        "exceptions, docs/contract/lmx2-v1.md#sizes) or over max_tokens, both rules at defaults "
                        "on MB streams "
                        "of 1 MB of generated prose (seeds 1..MB; default 4)")
    p.add_argument("--memory-mb", type=int, default=10, metavar="MB",
                   help="size of the --memory document in MB (default 10)")
    p.add_argument("--memory-only", action="store_true",
                   help="instead of timings: only the --memory rows (library str, str of the text without its "
                        "non-ASCII characters, bytes, chunk --format json|jsonl, compare; both rules), each a fresh "
                        "process, net of its imports")
    p.add_argument("--memory-forms", metavar="FORM,FORM",
                   help="with --memory-only: these rows instead (str, str-ascii, bytes, json, jsonl, compare, and "
                        "explain, "
                        "lab, audit and sweep, which are not measured by default; lab: each chunker alone and its "
                        "default set; audit and sweep: a repository of two commits, the document then its edit)")
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
    p.add_argument("--allocator", choices=ALLOCATOR_STATES, default="library",
                   help="the C allocator's settings the timings run under: library (glibc's own, as chunk() runs "
                        "in a program of yours; the default) or command (freed memory kept for the next run, as "
                        "the steadlith command and the inspector set it at start: kernel/allocator.py)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=cmd_bench)
    cli_sweep.add_parser(sub)
    cli_audit.add_parser(sub)
    bench_git.add_parser(sub)
    cli_lab.add_parser(sub)
    cli_explain.add_parser(sub, _add_params_options, _params)
    cli_retrieval.add_parser(sub)
    cli_plan.add_parser(sub, _add_params_options, _params)
    cli_sync.add_parser(sub, _add_params_options, _params)
    return parser


EXIT_ERROR = 2
# bench --allocator: glibc's own settings (a program of the user's that calls chunk()), or
# those the command and the inspector set at start (kernel/allocator.keep_freed_memory)
ALLOCATOR_STATES = ("library", "command")
EXIT_CLOSED_PIPE = 128 + getattr(signal, "SIGPIPE", 13)  # what a shell reports for `yes | head -1`


def _parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """parser.parse_args, whose --help, --version and usage paths print and exit inside
    it: what they printed is flushed before the exit, so a write that fails there is
    reported like any other output (ClosedPipe, OutputError) instead of exit 0."""
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
    sys.stdout = GuardedOutput(buffered(real_stdout) if real_stdout is not None else None)
    args = None
    try:
        args = _parse(build_parser(), argv)
        from ..kernel.allocator import keep_freed_memory

        if getattr(args, "allocator", "command") == "command":
            keep_freed_memory()  # this process is ours: let runs reuse what earlier ones freed
        code = args.func(args)
        sys.stdout.flush()  # a full disk shows here, while we can still say so
        return code
    except ClosedPipe:
        sys.stdout = real_stdout
        drop_stdout()
        return EXIT_CLOSED_PIPE
    except OutputError as e:
        sys.stdout = real_stdout
        drop_stdout()
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


def _memory_forms(text: str | None) -> list[str] | None:
    """--memory-forms as a list, each checked against bench.memory.FORMS."""
    if text is None:
        return None
    from ..bench.memory import FORMS

    forms = [f.strip() for f in text.split(",") if f.strip()]
    unknown = [f for f in forms if f not in FORMS]
    if unknown or not forms:
        raise SteadlithError(f"--memory-forms: unknown form {', '.join(unknown) or '(none)'}; known: {', '.join(FORMS)}")
    return forms


def _memory_figure(args: argparse.Namespace | None) -> int | None:
    """The bytes of memory per byte of text the command measured needs under its
    rule(s) (loader.memory_per_input_byte): chunk, compare, explain and lab (its chunkers);
    None (the generic figure) for the others."""
    command = getattr(args, "command", None)
    if command not in ("chunk", "compare", "explain", "lab"):
        return None
    from ..chunking.loader import memory_per_input_byte

    try:
        if command == "lab":
            from .lab import lab_rule_names

            rules = lab_rule_names(args.rules)
        else:
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
