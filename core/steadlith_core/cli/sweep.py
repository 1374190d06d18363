"""`steadlith sweep`: a grid of parameter sets replayed over a repository's history, file
pairs or a document's versions, on this machine (`--jobs`) or a Dask cluster (`--scheduler`).

Ctrl+C stops it cleanly: the results so far are printed, marked partial, and with
`--save FILE` (or `--resume FILE`) every finished task is already on disk, so
`--resume FILE` runs only what is left.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..chunking.presets import RULE_PRESETS, preset
from ..errors import ParameterError, SteadlithError, visible
from ..sweep.jobs import default_jobs
from .progress import progress_bar
from .retrieval import add_beside_options, beside_benchmark

if TYPE_CHECKING:
    from ..sweep.run import Executor, SweepRun
    from ..sweep.tasks import Source

PROG = "steadlith"
EXIT_INTERRUPTED = 130


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "sweep", help="replay a grid of parameter sets over file pairs or versions: tokens re-embedded, chunk "
                      "sizes, cut classes, locality, the Pareto front")
    p.add_argument("repo", nargs="?", metavar="REPO",
                   help="a git repository: replay the first-parent history of every file matching --paths (the "
                        "commits `steadlith audit` replays); workers read it at this path")
    p.add_argument("--paths", nargs="+", default=None, metavar="GLOB", help="files to replay (default **/*.md)")
    p.add_argument("--revs", metavar="RANGE", help="commits to replay: A..B, or one revision's whole line (default HEAD)")
    p.add_argument("--max-commits", type=int, metavar="N", help="only the newest N commits of that line")
    p.add_argument("--pair", dest="pairs", nargs=2, action="append", default=[], metavar=("OLD", "NEW"),
                   help="a pair of versions to replay (UTF-8 files); repeatable")
    p.add_argument("--versions", nargs="+", default=[], metavar="FILE",
                   help="successive versions of one document, oldest first: its history, each version a unit")
    p.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,…",
                   help="a dimension of the grid (repeatable): a parameter of either rule, or "
                        "boundary_rule=tttd-v1,lmx2-v1; a field goes to the sets of the rules that have it. "
                        "An entry, value or combination that cannot run is reported once and skipped")
    p.add_argument("--chunker", dest="chunkers", action="append", default=[], metavar="NAME[:chunk_size=N]",
                   help="an external splitter as more rows (repeatable; langchain-recursive, llama-index-sentence, "
                        "chonkie-recursive, semchunk, fixed-tokens); --grid chunk_size=256,512 gives one row per "
                        "size. Over a repository, its units are the rules' commits")
    p.add_argument("--set", dest="assignments", action="append", default=[], metavar="NAME=VALUE",
                   help="change the base of every set (applied to each rule that has the field); repeatable")
    names = [n for presets in RULE_PRESETS.values() for n in presets]
    p.add_argument("--preset", metavar="NAME", help=f"base of its rule's sets ({', '.join(names)})")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help=f"processes to run tasks on (default: the cores this process may use, {default_jobs()} here)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run the tasks on a Dask cluster (tcp://host:8786; needs steadlith-core[dask] here and on "
                        "the workers) instead of a local process pool")
    p.add_argument("--scheduler-timeout", type=float, default=None, metavar="SECONDS",
                   help="with --scheduler: how long to wait for the scheduler to answer (default 10)")
    p.add_argument("--save", metavar="FILE", help="keep every finished task in FILE as it finishes (a journal)")
    p.add_argument("--resume", metavar="FILE",
                   help="continue the sweep saved in FILE (same sources and grid): run only the tasks not in it")
    add_beside_options(p, "also score every set for retrieval on this question set (CSV or JSONL, as `steadlith "
                          "retrieval` reads): recall, precision and IoU of BM25's top k beside the churn, and the "
                          "front drawn on tokens re-embedded against recall")
    p.add_argument("--format", choices=("text", "json", "csv"), default="text")
    p.add_argument("--html", metavar="PATH", help="also write the table and a scatter plot as one HTML page")
    p.set_defaults(func=cmd_sweep)

    b = sub.add_parser("sweep-bench", help="time one sweep (48 sets over a generated history) on 1 process, a "
                                           "2-process pool and a 2-worker local Dask cluster")
    b.add_argument("--commits", type=int, default=1000, help="commits of the generated history (default 1000)")
    b.add_argument("--chars", type=int, default=20_000, help="size of the document in characters (default 20000)")
    b.add_argument("--files", type=int, default=1, help="documents, each with its own history (default 1)")
    b.add_argument("--no-dask", dest="dask", action="store_false", help="skip the Dask cluster")
    b.set_defaults(func=cmd_sweep_bench)
    return p


def cmd_sweep_bench(args: argparse.Namespace) -> int:
    for flag, value in (("--commits", args.commits), ("--chars", args.chars), ("--files", args.files)):
        if value < 1:
            raise ParameterError(flag, f"must be >= 1, got {value}")
    if args.dask:
        from ..sweep.dask import _distributed

        _distributed()  # the one clear message when the extra is missing, before minutes of timing
    from ..bench.sweep import run_sweep_bench

    figures = run_sweep_bench(args.commits, args.chars, dask=args.dask, files=args.files,
                              say=lambda line: print(line, flush=True))
    same = figures["same_pool"] and figures.get("same_dask", True)
    return 0 if same else 1


def _sources(args: argparse.Namespace) -> tuple[tuple[Source, ...], str]:
    from ..chunking.loader import load_text
    from ..history.pathglob import DEFAULT_PATHS
    from ..sweep.tasks import VersionsSource, batch_pairs

    if sum(map(bool, (args.repo, args.pairs, args.versions))) > 1:
        raise ParameterError("--pair", "give one of: a repository, --pair, --versions")
    if args.repo:
        from ..sweep.git import repo_sources

        sources = repo_sources(args.repo, args.paths or DEFAULT_PATHS, args.revs, args.max_commits)
        if not sources:
            raise SteadlithError(f"{visible(args.repo)}: no commit changed a file matching "
                                 f"{' '.join(args.paths or DEFAULT_PATHS)}")
        return sources, "commit"
    if args.paths or args.revs or args.max_commits is not None:
        raise ParameterError("--paths", "--paths, --revs and --max-commits choose from a repository: give REPO")
    if args.versions:
        if len(args.versions) < 2:
            raise ParameterError("--versions", "needs at least two versions")
        texts = tuple(load_text(f) for f in args.versions)
        keys = tuple(f"{i}:{visible(f)}" for i, f in enumerate(args.versions))
        return (VersionsSource(visible(args.versions[0]), texts, keys),), "version"
    if args.pairs:
        pairs = [(str(n), load_text(a), load_text(b)) for n, (a, b) in enumerate(args.pairs)]
        return batch_pairs(pairs), "pair"
    raise ParameterError("--pair", "nothing to replay: give REPO, --pair OLD NEW (repeatable) or --versions FILE …")


def _executor(args: argparse.Namespace) -> Executor:
    from ..sweep.run import process_pool

    if args.scheduler_timeout is not None and args.scheduler is None:
        raise ParameterError("--scheduler-timeout", "goes with --scheduler ADDRESS")
    if args.scheduler is not None:
        if args.jobs is not None:
            raise ParameterError("--jobs", "the cluster's workers run the tasks with --scheduler; drop --jobs")
        from ..sweep.dask import CONNECT_TIMEOUT, dask_executor  # the only way into dask: the extra is optional

        timeout = CONNECT_TIMEOUT if args.scheduler_timeout is None else args.scheduler_timeout
        if not 0 < timeout <= 3600:
            raise ParameterError("--scheduler-timeout", f"must be in (0, 3600] seconds, got {timeout:g}")
        return dask_executor(args.scheduler, timeout=timeout)
    return process_pool(args.jobs if args.jobs is not None else default_jobs(),
                        say=lambda line: print(f"{PROG}: sweep: {line}", file=sys.stderr, flush=True))


def cmd_sweep(args: argparse.Namespace) -> int:
    from ..sweep.external import external_sets, split_chunk_size
    from ..sweep.grid import build_grid
    from ..sweep.journal import Journal
    from ..sweep.plan import SweepPlan
    from ..sweep.run import SweepRun, WorkersLost

    if args.save is not None and args.resume is not None:
        raise ParameterError("--resume", "keeps saving to the file it resumes; drop --save")
    rule_entries, chunk_sizes = split_chunk_size(args.grid)
    grid = build_grid(rule_entries, assignments=args.assignments,
                      base=preset(args.preset) if args.preset is not None else None)
    if not grid.sets:
        for message in grid.skipped:
            print(f"{PROG}: sweep: {visible(message)}", file=sys.stderr)
        raise ParameterError("--grid", "no parameter set left to run")
    base = grid.sets[0].params
    externals, external_skipped = external_sets(args.chunkers, chunk_sizes, first_index=len(grid.sets),
                                                token_counter=base.token_counter, default_size=base.max_tokens)
    benchmark, top_k = beside_benchmark(args)
    sources, unit = _sources(args)
    plan = SweepPlan(sources, grid.sets + externals, grid.skipped + external_skipped)
    executor = _executor(args)
    journal_path = args.resume if args.resume is not None else args.save
    journal = Journal(journal_path, plan, resume=args.resume is not None) if journal_path is not None else None
    run = SweepRun(plan, journal)
    interrupted = False
    try:
        with progress_bar("sweep", "tasks") as progress:
            run.execute(executor, progress)
    except KeyboardInterrupt:
        interrupted = True
    except WorkersLost as e:  # the finished tasks are in the journal: say how to go on
        again = f"continue with --resume {visible(journal_path)}" if journal_path else \
            "--save FILE keeps finished tasks for --resume to finish"
        raise SteadlithError(f"{e}; {run.done} of {run.total} tasks done; {again}") from None
    finally:
        if journal is not None:
            journal.close()
    if interrupted:
        again = f"; continue with --resume {visible(journal_path)}" if journal_path else \
            " (--save FILE keeps them to resume later)"
        print(f"{PROG}: interrupted: {run.done} of {run.total} tasks done, results so far below{again}",
              file=sys.stderr)
    rows = run.rows()
    if benchmark is not None and not interrupted:
        from ..sweep.retrieval import with_retrieval

        with progress_bar("retrieval", "steps") as progress:
            rows = with_retrieval(rows, plan.sets, *benchmark, top_k, progress)
    _output(args, run, rows, unit)
    return EXIT_INTERRUPTED if interrupted else 0


def _output(args: argparse.Namespace, run: SweepRun, rows, unit: str) -> None:
    from ..report.export import to_json_text, write_text_atomic
    from ..sweep.format import sweep_csv, sweep_html, sweep_json, sweep_text

    # pairs are batched into tasks by size, so a task is not a document: name each pair
    names = ([f"{visible(a)} -> {visible(b)}" for a, b in args.pairs] if unit == "pair"
             else [s.name for s in run.plan.sources])
    meta = dict(sources=names, skipped=run.plan.skipped, done=run.done, total=run.total, unit=unit)
    if args.html is not None:
        write_text_atomic(args.html, sweep_html(rows, **meta))
    if args.format != "text":
        for message in run.plan.skipped:  # the text table lists them; other formats are data
            print(f"{PROG}: sweep: {visible(message)}", file=sys.stderr)
    if args.format == "json":
        sys.stdout.write(to_json_text(sweep_json(rows, **meta)))
    elif args.format == "csv":
        sys.stdout.write(sweep_csv(rows))
    else:
        print(sweep_text(rows, **meta))
