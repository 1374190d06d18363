"""`python -m steadlith_core.bench.lab`: how many edits a second the lab measures.

For each document size (generated prose, 100 KB and 1 MB by default) and each chunker,
the median over repeats of edits per second on the incremental path, and on the
from-scratch path (the whole edited document chunked by the public pipeline) for
comparison. The edited word stream is built once per edit and shared by the chunkers,
as in run_lab; its cost is reported on its own line and counted in every rate.
Targets: >= 200 edits/s per rule on 100 KB, >= 50 on 1 MB.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from ..chunking.lmx2_params import Lmx2Params
from ..chunking.params import ChunkerParams
from ..chunking.pipeline import gc_paused
from ..lab import LabDocument, draw_edits
from ..lab.run import build_chunkers
from ..lab.stream import EditedStream
from .examples import generate_prose

RULES = {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params(), "fixed": None}


def bench_size(n_chars: int, edits: int, repeat: int, scratch_edits: int) -> dict:
    doc = LabDocument(generate_prose(n_chars))
    chunkers = build_chunkers(doc, RULES)
    drawn = draw_edits(doc.n, edits, seed=1)
    stream_times, rule_times, scratch_times = [], {c.name: [] for c in chunkers}, {c.name: [] for c in chunkers}
    with gc_paused():
        for _ in range(repeat):
            t0 = time.perf_counter()
            streams = [EditedStream(doc, e.splices(doc)) for e in drawn]
            stream_times.append((time.perf_counter() - t0) / edits)
            for c in chunkers:
                t0 = time.perf_counter()
                for e, s in zip(drawn, streams):
                    c.outcome(e, s)
                rule_times[c.name].append((time.perf_counter() - t0) / edits)
            for c in chunkers:
                t0 = time.perf_counter()
                for e, s in list(zip(drawn, streams))[:scratch_edits]:
                    c.outcome_from_scratch(e, s)
                scratch_times[c.name].append((time.perf_counter() - t0) / scratch_edits)
    stream = statistics.median(stream_times)
    return {
        "chars": n_chars, "words": doc.n, "edits": edits, "repeat": repeat,
        "stream_ms": 1e3 * stream,
        "rules": {name: {"incremental_edits_per_s": 1 / (stream + statistics.median(t)),
                         "from_scratch_edits_per_s": 1 / (stream + statistics.median(scratch_times[name]))}
                  for name, t in rule_times.items()},
    }


def format_bench(rows: list[dict]) -> str:
    lines = [f"{'document':<12}{'chunker':<10}{'incremental':>16}{'from scratch':>16}   target"]
    for r in rows:
        size = f"{r['chars'] / 1e6:g} MB" if r["chars"] >= 1_000_000 else f"{r['chars'] / 1e3:g} KB"
        target = 200 if r["chars"] <= 100_000 else 50
        for name, v in r["rules"].items():
            goal = f">= {target} e/s" if name != "fixed" else "–"  # the targets are the rules'
            lines.append(f"{size:<12}{name:<10}{v['incremental_edits_per_s']:>12.0f} e/s"
                         f"{v['from_scratch_edits_per_s']:>12.0f} e/s   {goal}")
        lines.append(f"{'':<12}(building the edited stream: {r['stream_ms']:.2f} ms an edit, counted above)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m steadlith_core.bench.lab", description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="100000,1000000", help="document sizes in characters (comma-separated)")
    parser.add_argument("--edits", type=int, default=200, help="edits per repeat (default 200)")
    parser.add_argument("--repeat", type=int, default=3, help="repeats; medians are reported (default 3)")
    parser.add_argument("--scratch-edits", type=int, default=20, help="edits timed from scratch (default 20)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    args = parser.parse_args(argv)
    rows = [bench_size(int(s), args.edits, args.repeat, args.scratch_edits) for s in args.sizes.split(",")]
    print(json.dumps(rows, indent=2) if args.format == "json" else format_bench(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
