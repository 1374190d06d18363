"""`steadlith retrieval CORPORA --questions FILE`: how well each chunking serves
retrieval (cli.py registers it with one line).

Every corpus in the folder is chunked by each chunking asked for; a retriever (BM25
unless told) ranks the chunks of all corpora together for every question, and the top
k are scored with the metrics of Chroma's chunking evaluation, with the measurements
that explain the differences (references cut, where cuts fall, sizes). A bar on stderr
shows progress on a terminal; Ctrl+C stops the run (main() says "interrupted", exit 130).
"""

from __future__ import annotations

import argparse
import sys

from .progress import progress_bar
from ..errors import ParameterError
from ..chunking.presets import RULE_PRESETS

DEFAULT_RULES = "tttd-v1,lmx2-v1,fixed"
# For the options' help: importing the retrieval package loads numpy and the evaluation,
# which building the command's parser must not. tests/core/test_cli_imports.py checks that
# they equal retrieval.evaluate.DEFAULT_TOP_K and retrieval.known_retrievers().
DEFAULT_TOP_K = 5
RETRIEVERS = ("bm25", "dense")


def add_parser(sub) -> None:
    p = sub.add_parser("retrieval", help="score chunkings for retrieval on a question set (Chroma's metrics: "
                                         "recall, precision, precision_Ω, IoU) and show why they differ")
    p.add_argument("corpora", help="a folder of corpora, one UTF-8 file each (corpus id: the file's stem)")
    p.add_argument("--questions", required=True, metavar="FILE",
                   help="questions: Chroma's CSV (question, references, corpus_id) or JSON Lines with those keys; "
                        "references are [start_index, end_index) in code points of the corpus")
    p.add_argument("--rules", default=None, metavar="NAME,NAME",
                   help=f"rules to score: tttd-v1, lmx2-v1, fixed (the baseline at the first rule's max_tokens); "
                        f"default {DEFAULT_RULES} when no --chunker is given")
    p.add_argument("--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
                   help="change a parameter of every rule that has it (as compare --rules); repeatable")
    names = [n for presets in RULE_PRESETS.values() for n in presets]
    p.add_argument("--preset", metavar="NAME", help=f"start its rule from a named set ({', '.join(names)})")
    p.add_argument("--chunker", dest="chunkers", action="append", default=[], metavar="SPEC",
                   help="one more row, repeatable: a rule with its own changes (tttd-v1:snap_mode=paragraph-sentence/1,"
                        "snap_window_words=8), fixed, or an external splitter NAME[:chunk_size=N[,chunk_overlap=M]] "
                        "(langchain-recursive, llama-index-sentence, chonkie-recursive, semchunk, fixed-tokens; sized "
                        "in the rules' tokens; default chunk_size the first rule's max_tokens)")
    p.add_argument("--match-size", action="store_true",
                   help="give each external splitter without a chunk_size the one whose mean chunk tokens over the "
                        "corpora come closest to the first rule's")
    p.add_argument("--retriever", default="bm25", metavar="NAME",
                   help=f"what ranks the chunks ({', '.join(RETRIEVERS)}; default bm25)")
    p.add_argument("--top-k", type=int, default=None, metavar="K",
                   help=f"chunks retrieved per question (default {DEFAULT_TOP_K})")
    p.add_argument("--budget", type=int, metavar="CHARS",
                   help="instead of --top-k: hand every question the best-ranked chunks up to this many code points "
                        "(the last one cut to fit), so recall compares chunkings at equal text, whatever their sizes")
    p.add_argument("--per-corpus", action="store_true", help="also a row per corpus under each chunking")
    p.add_argument("--timing", action="store_true",
                   help="also the wall time to chunk and to rank, per chunking, and the load average")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")
    p.add_argument("--json", dest="json_path", metavar="PATH",
                   help="also write the full JSON (every question's retrieved ranges and scores) to PATH")
    p.add_argument("--html", metavar="PATH",
                   help="also write a self-contained HTML report to PATH: the scores (per corpus with --per-corpus), "
                        "each chunking's parameters and the diagnostics")
    p.set_defaults(func=cmd_retrieval)


def add_beside_options(p: argparse.ArgumentParser, retrieval_help: str) -> None:
    """--retrieval, --retrieval-corpora and --top-k: a command measuring churn (sweep,
    lab) also scores its chunkers on a question set; `beside_benchmark` reads them."""
    p.add_argument("--retrieval", metavar="QUESTIONS", help=retrieval_help)
    p.add_argument("--retrieval-corpora", metavar="DIR",
                   help="the corpora the questions refer to (default: the folder corpora/ beside QUESTIONS)")
    p.add_argument("--top-k", type=int, default=None, metavar="K",
                   help=f"with --retrieval: chunks retrieved (default {DEFAULT_TOP_K})")


def beside_benchmark(args: argparse.Namespace):
    """((corpora, question set) or None without --retrieval, top k) from the options of
    add_beside_options; a misplaced option or a bad question file is one error line,
    raised before the command measures anything."""
    if args.retrieval is None and args.retrieval_corpora is not None:
        raise ParameterError("--retrieval-corpora", "goes with --retrieval QUESTIONS")
    if args.top_k is not None and args.retrieval is None:
        raise ParameterError("--top-k", "goes with --retrieval QUESTIONS")
    top_k = DEFAULT_TOP_K if args.top_k is None else args.top_k
    if top_k < 1:
        raise ParameterError("--top-k", f"must be >= 1, got {top_k}")
    if args.retrieval is None:
        return None, top_k
    from ..retrieval.beside import load_benchmark

    return load_benchmark(args.retrieval, args.retrieval_corpora), top_k


def evaluate(*args, **kwargs):
    """retrieval.evaluate, imported when a run needs it."""
    from ..retrieval import evaluate as run

    return run(*args, **kwargs)


def cmd_retrieval(args: argparse.Namespace) -> int:
    from ..report.export import to_json_text, write_text_atomic
    from ..retrieval import chunking_specs, get_retriever, load_corpora, load_questions, match_sizes, run_json
    from ..retrieval.report import format_csv, format_text

    if args.top_k is not None and args.top_k < 1:
        raise ParameterError("--top-k", f"must be >= 1, got {args.top_k}", args.top_k)
    if args.budget is not None and args.budget < 1:
        raise ParameterError("--budget", f"must be >= 1 code point, got {args.budget}", args.budget)
    if args.budget is not None and args.top_k is not None:
        raise ParameterError("--top-k", "a --budget of code points replaces the top k: give one of them", args.top_k)
    rules = args.rules if args.rules is not None else ("" if args.chunkers else DEFAULT_RULES)
    specs = chunking_specs(rules, args.chunkers, args.assignments, args.preset)
    retriever = get_retriever(args.retriever)
    corpora = load_corpora(args.corpora)
    questions = load_questions(args.questions, corpora)
    cache: dict = {}
    if args.match_size:
        with progress_bar("matching sizes", "splitters") as bar:
            specs = match_sizes(specs, corpora, cache, progress=bar)
    with progress_bar("retrieval", "steps") as bar:
        run = evaluate(specs, corpora, questions, retriever, DEFAULT_TOP_K if args.top_k is None else args.top_k,
                       progress=bar, cache=cache,
                       budget=args.budget)
    if args.json_path is not None or args.format == "json":
        data = run_json(run)
        if args.json_path is not None:  # before any output: a failed write is one error line, nothing else
            write_text_atomic(args.json_path, to_json_text(data))
    if args.html is not None:
        from ..report.retrieval import render_retrieval_report

        write_text_atomic(args.html, render_retrieval_report(run, per_corpus=args.per_corpus, timing=args.timing))
    if args.format == "json":
        sys.stdout.write(to_json_text(data))
    elif args.format == "csv":
        sys.stdout.write(format_csv(run, per_corpus=args.per_corpus))
    else:
        print(format_text(run, per_corpus=args.per_corpus, timing=args.timing))
    return 0
