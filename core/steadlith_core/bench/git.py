"""`steadlith bench-git`: how fast history is audited and many files are chunked.

`audit`: builds (with pygit2, no `git` process) a repository of N commits over a few
markdown documents of about 20 KB of prose, each commit a writer's edit (a sentence
inserted, one deleted, a word replaced, a paragraph moved, a paragraph appended),
then times `audit()` over it for one parameter set, and for both rules.

`sweep`: over the same generated history (or `--repo PATH` with `--paths GLOB`), times
`steadlith audit --rules tttd-v1` beside `steadlith sweep` with one set and with
`--sets S` sets (max_tokens 256, 384, …), on `--jobs` 1 and on a pool, each run a fresh
process, in interleaved rounds (`--rounds`); prints the medians of wall and CPU time,
the peak memory of each in-process run (VmHWM), the ratios to the audit, and the load
average at the start and the end.

`batch`: writes M small markdown files, times `steadlith chunk DIR --format jsonl` (one
command, a pool of worker processes), and one `steadlith chunk FILE --format jsonl`
process per file on a sample of them, extrapolated to all M (running M processes would
take as long as the point it makes); prints both and their ratio.

The prose comes from the core's own example documents (the tool-library notes and the
generated prose), or from `--corpus DIR` (every *.md below it); nothing is copied into
the repository or the project.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

from ..errors import SteadlithError

if TYPE_CHECKING:  # the rest is imported where used: `steadlith --help` builds this parser
    import random

    import pygit2

MODE_BLOB = 0o100644


def add_parser(sub: Any) -> None:
    p = sub.add_parser("bench-git", help="benchmark the history audit and batch chunking")
    p.add_argument("what", choices=("audit", "batch", "sweep"))
    p.add_argument("--commits", type=int, default=1000, help="audit: commits of the generated history (default 1000)")
    p.add_argument("--documents", type=int, default=8, help="audit: markdown documents edited (default 8)")
    p.add_argument("--doc-kb", type=int, default=20, help="audit: size of each document in KB (default 20)")
    p.add_argument("--files", type=int, default=10_000, help="batch: small files to chunk (default 10000)")
    p.add_argument("--sample", type=int, default=100,
                   help="batch: files chunked one process each, to extrapolate from (default 100)")
    p.add_argument("--jobs", type=int, help="batch: worker processes (default: the number of cores)")
    p.add_argument("--corpus", metavar="DIR", help="draw prose from the *.md files below DIR (default: built-in)")
    p.add_argument("--sets", type=int, default=4, help="sweep: parameter sets of the larger sweep (default 4)")
    p.add_argument("--rounds", type=int, default=3, help="sweep: interleaved rounds, medians over them (default 3)")
    p.add_argument("--repo", metavar="PATH", help="sweep: time this repository instead of a generated history")
    p.add_argument("--paths", nargs="+", metavar="GLOB", help="sweep: with --repo, the files to replay (default **/*.md)")
    p.add_argument("--keep", metavar="DIR", help="build in DIR and leave it there (default: a temporary directory)")
    p.set_defaults(func=cmd_bench_git)


# -- prose and edits -------------------------------------------------------------------------


def prose_sources(corpus: str | None) -> list[str]:
    from .examples import generate_prose, tool_library_text

    if corpus is None:
        return [tool_library_text(), generate_prose(200_000, seed=11)]
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(Path(corpus).rglob("*.md"))]
    if not texts:
        raise SteadlithError(f"{corpus}: no *.md file below it to draw prose from")
    return texts


def _paragraphs(texts: Sequence[str]) -> list[str]:
    return [p.strip() for t in texts for p in t.split("\n\n") if len(p.strip()) > 40]


def _sentences(paragraphs: Sequence[str]) -> list[str]:
    return [s.strip() + "." for p in paragraphs for s in p.split(". ") if 20 < len(s.strip()) < 300]


def make_document(paragraphs: Sequence[str], size: int, rng: random.Random) -> str:
    out: list[str] = []
    total = 0
    start = rng.randrange(len(paragraphs))
    k = start
    while total < size:
        p = paragraphs[k % len(paragraphs)]
        out.append(p)
        total += len(p) + 2
        k += 1
    return "\n\n".join(out) + "\n"


def edit(text: str, sentences: Sequence[str], paragraphs: Sequence[str], rng: random.Random) -> str:
    """One edit a writer makes: insert or delete a sentence, replace a word, move or
    append a paragraph."""
    paras = text.rstrip("\n").split("\n\n")
    i = rng.randrange(len(paras))
    kind = rng.randrange(5)
    if kind == 0:  # a sentence inserted
        words = paras[i].split(". ")
        j = rng.randrange(len(words) + 1)
        words.insert(j, rng.choice(sentences).rstrip("."))
        paras[i] = ". ".join(words)
    elif kind == 1 and len(paras[i].split(". ")) > 1:  # a sentence deleted
        words = paras[i].split(". ")
        del words[rng.randrange(len(words))]
        paras[i] = ". ".join(words)
    elif kind == 2:  # a word replaced
        words = paras[i].split(" ")
        words[rng.randrange(len(words))] = rng.choice(("clearly", "often", "rarely", "the", "tools", "notes"))
        paras[i] = " ".join(words)
    elif kind == 3 and len(paras) > 2:  # a paragraph moved
        p = paras.pop(i)
        paras.insert(rng.randrange(len(paras) + 1), p)
    else:  # a paragraph appended, one removed from the start to keep the size
        paras.append(rng.choice(paragraphs))
        if len(paras) > 3:
            paras.pop(0)
    return "\n\n".join(paras) + "\n"


def build_history(root: str, commits: int, documents: int, size: int, texts: Sequence[str],
                  seed: int = 1) -> "pygit2.Repository":
    """A repository at `root` with `commits` commits on main: the first adds `documents`
    markdown files of about `size` characters, each later one edits one or two of them."""
    import random

    import pygit2  # here: `steadlith` starts without loading git support

    rng = random.Random(seed)
    paragraphs = _paragraphs(texts)
    sentences = _sentences(paragraphs)
    repo = pygit2.init_repository(root, initial_head="main")
    docs = {f"docs/doc{i:02d}.md": make_document(paragraphs, size, rng) for i in range(documents)}
    parents: list[pygit2.Oid] = []
    for n in range(commits):
        if n:
            for path in rng.sample(sorted(docs), k=min(len(docs), rng.choice((1, 1, 1, 2)))):
                docs[path] = edit(docs[path], sentences, paragraphs, rng)
        index = pygit2.Index()
        for path, text in docs.items():
            index.add(pygit2.IndexEntry(path, repo.create_blob(text.encode("utf-8")), MODE_BLOB))
        tree = index.write_tree(repo)
        sig = pygit2.Signature("Bench", "bench@example.invalid", 1_700_000_000 + 60 * n, 0)
        parents = [repo.create_commit("refs/heads/main", sig, sig, f"Edit {n}", tree, parents)]
    return repo


# -- the two benchmarks ---------------------------------------------------------------------------


def bench_audit(root: str, args: argparse.Namespace) -> list[str]:
    from ..history.audit import audit

    texts = prose_sources(args.corpus)
    t0 = time.perf_counter()  # the build is not what is measured
    build_history(root, args.commits, args.documents, args.doc_kb * 1000, texts)
    built = time.perf_counter() - t0
    lines = [f"history    {args.commits} commits, {args.documents} documents of ~{args.doc_kb} KB "
             f"(built in {built:.1f} s)"]
    for label, params in (("tttd-v1", {"tttd-v1": None}), ("lmx2-v1", {"lmx2-v1": None}),
                          ("both rules", None)):
        t0, c0 = time.perf_counter(), time.process_time()
        result = audit(root, params_by_rule=params)
        elapsed, cpu = time.perf_counter() - t0, time.process_time() - c0
        changes = result.totals[result.rules[0]].files
        # CPU time beside wall time: on a shared machine the wall clock also counts the others' work
        lines.append(f"audit      {label:<11} {elapsed:6.1f} s wall, {cpu:6.1f} s CPU  "
                     f"({len(result.commits) / elapsed:4.0f} commits/s, {changes} file changes)")
    return lines


def bench_batch(root: str, args: argparse.Namespace) -> list[str]:
    import random
    import subprocess

    texts = prose_sources(args.corpus)
    rng = random.Random(3)
    paragraphs = _paragraphs(texts)
    folder = Path(root) / "many"
    for n in range(args.files):
        sub = folder / f"d{n // 1000:02d}"
        sub.mkdir(parents=True, exist_ok=True)
        (sub / f"f{n:05d}.md").write_text(make_document(paragraphs, rng.randrange(500, 3000), rng), encoding="utf-8")
    command = [sys.executable, "-m", "steadlith_core"]
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    t0, c0 = time.perf_counter(), _children_cpu()
    done = subprocess.run([*command, "chunk", str(folder), "--format", "jsonl", *jobs], stdout=subprocess.PIPE,
                          check=True)
    batch, batch_cpu = time.perf_counter() - t0, _children_cpu() - c0
    chunks = done.stdout.count(b"\n")
    sample = sorted(folder.rglob("*.md"))[: args.sample]
    t0, c0 = time.perf_counter(), _children_cpu()
    for path in sample:
        subprocess.run([*command, "chunk", str(path), "--format", "jsonl"], stdout=subprocess.DEVNULL, check=True)
    per_file, per_file_cpu = (time.perf_counter() - t0) / len(sample), (_children_cpu() - c0) / len(sample)
    estimate, estimate_cpu = per_file * args.files, per_file_cpu * args.files
    return [
        f"batch      {args.files} files, {chunks} chunks: one command {batch:.1f} s wall, {batch_cpu:.1f} s CPU "
        f"(jobs {args.jobs or os.cpu_count()})",
        f"per file   one process per file: {per_file * 1000:.0f} ms wall, {per_file_cpu * 1000:.0f} ms CPU each over "
        f"{len(sample)} files; {estimate:.0f} s wall, {estimate_cpu:.0f} s CPU for {args.files} (extrapolated)",
        f"ratio      {estimate / batch:.1f}x faster in one command (wall), {estimate_cpu / batch_cpu:.1f}x (CPU)",
    ]


# A command run as a user runs it, its own peak (VmHWM, kB) printed last on stderr.
_PEAK_PROBE = """
import sys
from steadlith_core.cli.main import main
code = main(sys.argv[1:])
with open("/proc/self/status") as f:
    peak = next((int(line.split()[1]) for line in f if line.startswith("VmHWM:")), 0)
sys.stderr.write(f"\\n{peak}\\n")
sys.exit(code)
"""


def bench_sweep(root: str, args: argparse.Namespace) -> list[str]:
    """Audit against sweeps of 1 and S sets over one history, fresh processes, rounds
    interleaved (see the module)."""
    import statistics
    import subprocess

    if args.repo:
        repo, where = args.repo, f"repository {args.repo}"
    else:
        repo = root
        t0 = time.perf_counter()
        build_history(root, args.commits, args.documents, args.doc_kb * 1000, prose_sources(args.corpus))
        where = (f"{args.commits} commits, {args.documents} documents of ~{args.doc_kb} KB (built in "
                 f"{time.perf_counter() - t0:.1f} s)")
    paths = ["--paths", *args.paths] if args.paths else []
    sizes = ",".join(str(256 + 128 * k) for k in range(args.sets))
    runs = [("audit --rules tttd-v1", ["audit", repo, *paths, "--rules", "tttd-v1"])]
    for jobs in sorted({1, args.jobs or os.cpu_count() or 1}):
        runs.append((f"sweep --jobs {jobs}, 1 set", ["sweep", repo, *paths, "--jobs", str(jobs)]))
        runs.append((f"sweep --jobs {jobs}, {args.sets} sets",
                     ["sweep", repo, *paths, "--jobs", str(jobs), "--grid", f"max_tokens={sizes}"]))
    start = load_average()
    figures: dict[str, list[tuple[float, float, int]]] = {label: [] for label, _ in runs}
    for _ in range(args.rounds):
        for label, argv in runs:
            t0, c0 = time.perf_counter(), _children_cpu()
            done = subprocess.run([sys.executable, "-c", _PEAK_PROBE, *argv, "--format", "json"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
            if done.returncode != 0:  # its own error line, the peak after it left out
                said = [line for line in done.stderr.splitlines() if line.strip()][:-1] or ["no message"]
                raise SteadlithError(f"steadlith {' '.join(argv)} failed: {said[-1].strip()[-300:]}")
            figures[label].append((wall, cpu, int(done.stderr.split()[-1])))
    lines = [f"history    {where}", f"load average  {' '.join(map(str, start))} (at the start)"]
    audit_wall = statistics.median(w for w, _, _ in figures[runs[0][0]])
    audit_cpu = statistics.median(c for _, c, _ in figures[runs[0][0]])
    for label, _ in runs:
        wall = statistics.median(w for w, _, _ in figures[label])
        cpu = statistics.median(c for _, c, _ in figures[label])
        peak = statistics.median(p for _, _, p in figures[label]) / 1024
        own = "" if "--jobs 1" in label or label.startswith("audit") else " (the parent's: workers not counted)"
        lines.append(f"sweep      {label:<24} wall {wall:7.2f} s  CPU {cpu:7.2f} s  peak {peak:6.1f} MiB{own}  "
                     f"÷ audit: wall {wall / audit_wall:.2f}, CPU {cpu / audit_cpu:.2f}   "
                     f"(medians of {args.rounds})")
    lines.append(f"load average  {' '.join(map(str, load_average()))} (at the end)")
    return lines


def load_average() -> list[float]:
    """The 1, 5 and 15 minute load averages (empty where the system has none)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def _children_cpu() -> float:
    """CPU seconds used by finished child processes (and their pool workers) so far."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cmd_bench_git(args: argparse.Namespace) -> int:
    import tempfile

    for name in ("commits", "documents", "doc_kb", "files", "sample", "sets", "rounds"):
        if getattr(args, name) < 1:
            raise SteadlithError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(args, name)}")
    run = {"audit": bench_audit, "batch": bench_batch, "sweep": bench_sweep}[args.what]
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        lines = run(args.keep, args)
    else:
        with tempfile.TemporaryDirectory(prefix="steadlith-bench-") as root:
            lines = run(root, args)
    print("\n".join(lines))
    return 0
