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
from ..chunking.lmx2_params import Lmx2Params
from ..bench import git as bench_git
from ..chunking.rules import parse_rules, rule_of
from ..errors import SteadlithError, visible
from .options import add_params_options as _add_params_options
from .options import new_analysis as _analysis
from .options import params_of as _params
from . import audit as cli_audit
from . import compare as cli_compare
from . import explain as cli_explain
from . import lab as cli_lab
from . import plan as cli_plan
from . import sync as cli_sync
from . import retrieval as cli_retrieval
from . import sweep as cli_sweep

if TYPE_CHECKING:
    from ..chunking.chunks import Chunking

PROG = "steadlith"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line on stderr and exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


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

        print(memory_only(args.memory_mb * 1_000_000, args.format == "json", _memory_forms(args.memory_forms)))
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

    cli_compare.add_parser(sub)

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
    p.add_argument("--memory-forms", metavar="FORM,FORM",
                   help="with --memory-only: these rows instead (str, bytes, json, jsonl, compare, and explain, "
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
