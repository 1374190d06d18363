"""`steadlith bench`: what chunking costs, measured so that runs compare across commits.

Every timed cold call gets a fresh text object (measure.fresh: equal to the document, its
hash never computed), as a caller with a new document would; timings of contenders that
are compared are taken in interleaved rounds (each round times every contender once, in
an order rotated each round) and reported as medians and ratios of medians. The default
document is real Markdown (corpus.markdown_corpus: the checkout's docs, README and
CHANGELOG, else the shipped data/tool-library.md) repeated to 1 MB and 10 MB.

Sections: cold chunking by both rules of the text as a str and as UTF-8 bytes, and
with --peers every installed peer chunker (peers.py) at a matched mean chunk size; staged
re-chunking; each text kernel side by side (compiled and numpy, numpy on its threads
and on one); word diff and compare(); with --memory the peak memory of a fresh process
per row on a --memory-mb document (memory.py: str and bytes, `chunk --format json|jsonl`,
`compare`, both rules). How often chunks fall under min_tokens or over max_tokens
(--sizes) is sizes.py. The load average is printed at the start and the end: absolute
MB/s on a shared machine are noisy, ratios much less.

The text format is line-oriented, `section  key  values`, and `--format json` has
`"format": FORMAT` with every figure the text shows.
"""

from __future__ import annotations

import contextlib
import json
import statistics
import sys
import time
from typing import Callable, Sequence

from ..chunking.chunks import AnyParams
from ..chunking.lmx2_params import Lmx2Params
from ..chunking.normalize import normalize
from ..chunking.params import ChunkerParams
from ..comparison.churn import compare
from ..comparison.diff import EQUAL, word_diff
from ..kernel import select as kernel
from ..kernel import threads as numpy_threads
from .corpus import markdown_corpus
from .measure import fresh, load_average, timed_pipeline
from .memory import DEFAULT_FORMS, bench_memory, format_memory
from .peers import NativePeer, installed_peers, matched_peers, mean_tokens

FORMAT = "steadlith-bench/2"


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def _median_fresh_ms(fn: Callable[[str | bytes], object], source: str | bytes, repeat: int) -> tuple[float, float]:
    """Medians of wall and CPU time of `fn(fresh(source))`, the copy made before the clock starts."""
    wall, cpu = [], []
    for _ in range(repeat):
        x = fresh(source)
        w0, c0 = time.perf_counter(), time.process_time()
        fn(x)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
        del x
    return statistics.median(wall), statistics.median(cpu)


def _median_wall_cpu_ms(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Medians of wall time and of this process's CPU time. On a machine shared with
    other work the CPU time is the closer estimate of what an idle machine would show."""
    wall, cpu = [], []
    for _ in range(repeat):
        w0, c0 = time.perf_counter(), time.process_time()
        fn()
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def rechunk_cases(base: AnyParams, runs: int) -> dict[str, list[AnyParams]]:
    """For each kind of change, `runs` parameter sets that differ from each other and
    from `base`, so that no timed run is answered from the cut cache."""
    if isinstance(base, Lmx2Params):  # the changes that leave lmx2-v1's keys cached
        return {
            "min_tokens": [base.with_changes(min_tokens=max(1, base.min_tokens // 2 + i)) for i in range(runs)],
            "max_tokens": [base.with_changes(max_tokens=base.max_tokens * 2 + i) for i in range(runs)],
            "horizon": [base.with_changes(horizon=base.horizon * 2 + i) for i in range(runs)],
        }
    d_mask = (1 << base.degree) - 1
    primary = (base.primary_mask | base.primary_mask << 1) & d_mask  # one more mask bit
    backup = (base.backup_mask | base.backup_mask << 1) & d_mask
    return {
        "min_tokens": [base.with_changes(min_tokens=max(1, base.min_tokens // 2 + i)) for i in range(runs)],
        "max_tokens": [base.with_changes(max_tokens=base.max_tokens * 2 + i) for i in range(runs)],
        "masks": [
            base.with_changes(primary_mask=primary, primary_remainder=(base.primary_remainder + i) & primary,
                              backup_mask=backup, backup_remainder=(base.backup_remainder + i) & backup)
            for i in range(runs)
        ],
    }


def bench_chunking(text: str, params: AnyParams, repeat: int) -> dict:
    mb = len(text.encode("utf-8")) / 1e6
    cold_ms, _ = _median_fresh_ms(lambda x: timed_pipeline().chunk(x, params), text, repeat)
    pipeline = timed_pipeline()
    result = pipeline.chunk(text, params)
    rechunk = {}
    for name, variants in rechunk_cases(params, repeat).items():
        queue = iter(variants)
        rechunk[name] = _median_ms(lambda: pipeline.chunk(text, next(queue)), repeat)
    return {
        "size_mb": round(mb, 3),
        "words": result.word_count,
        "chunks": len(result.chunks),
        "cold_ms": round(cold_ms, 2),
        "cold_mb_per_s": round(mb / (cold_ms / 1000), 2),
        "rechunk_ms": {k: round(v, 2) for k, v in rechunk.items()},
        "rechunk_ms_per_mb": {k: round(v / mb, 2) for k, v in rechunk.items()},
    }


def bench_compare(text: str, repeat: int, params: ChunkerParams | None = None) -> dict:
    """Word diff and compare() medians on `text` against two other versions:

    - edited: `text` with 10 scattered word edits (examples.scattered_edits);
    - unrelated: generated prose of the same length from another seed, sharing nothing
      but a small vocabulary (the case a quadratic diff would blow up on).

    The diff timings include the word -> id mapping but not normalization; the compare
    timing is the whole job: chunk both versions with a cold pipeline, then compare()
    (baseline included)."""
    from .examples import generate_prose, scattered_edits

    params = params or ChunkerParams()
    edited = scattered_edits(text, 10)
    unrelated = generate_prose(len(text), seed=2)
    ws, ws_edited, ws_unrelated = normalize(text), normalize(edited), normalize(unrelated)

    def diff_stats(other) -> dict:
        ops = word_diff(ws, other)
        return {"ops": len(ops), "edits": sum(op.tag != EQUAL for op in ops),
                "equal_words": sum(op.b_end - op.b_start for op in ops if op.tag == EQUAL),
                "words_a": len(ws), "words_b": len(other)}

    def full_compare():
        pipeline = timed_pipeline()
        return compare(pipeline.chunk(text, params), pipeline.chunk(edited, params))

    result = full_compare()
    return {
        "size_mb": round(len(text.encode("utf-8")) / 1e6, 3),
        "diff_edited_ms": round(_median_ms(lambda: word_diff(ws, ws_edited), repeat), 2),
        "diff_edited": diff_stats(ws_edited),
        "diff_unrelated_ms": round(_median_ms(lambda: word_diff(ws, ws_unrelated), repeat), 2),
        "diff_unrelated": diff_stats(ws_unrelated),
        "compare_edited_ms": round(_median_ms(full_compare, repeat), 2),
        "compare_edited": {"reused_chunk_ratio": round(result.summary.reused_chunk_ratio, 4),
                           "chunks_b": result.summary.chunks_b,
                           "phase_shift_regions": result.summary.phase_shift_regions},
    }


def bench_kernels(texts: dict[str, str], repeat: int) -> dict:
    """Cold chunking and a warm min_tokens re-chunk under every text kernel built here,
    on the same texts in this one process (medians). The cold runs of the kernels are
    taken in interleaved rounds (each round times every row once, in an order rotated
    each round): rows run one after the other would each meet the allocator as the row
    before left it (the numpy rows run the same code below the thread threshold)."""
    params = ChunkerParams()
    out: dict = {"active": kernel.active(), "kernels": {}, "numpy_threads": numpy_threads.count()}
    # None: the threads as a caller of chunk() gets them (the default count lowers itself
    # on a busy machine, threads.py), which using(count()) would pin
    runs: list[tuple[str, str, int | None]] = [(name, name, None) for name in kernel.KERNELS]
    if numpy_threads.count() > 1:  # what one core gives, beside what the threads give
        runs.append(("numpy-1t", "numpy", 1))
    rows: dict[str, dict] = {row_name: {} for row_name, _, _ in runs}
    for label, text in texts.items():
        mb = len(text.encode("utf-8", "surrogatepass")) / 1e6
        wall: dict[str, list[float]] = {row_name: [] for row_name, _, _ in runs}
        cpu: dict[str, list[float]] = {row_name: [] for row_name, _, _ in runs}
        for r in range(repeat):
            for row_name, name, threads in runs[r % len(runs):] + runs[:r % len(runs)]:
                with kernel.using(name), _threads(threads):
                    x = fresh(text)
                    w0, c0 = time.perf_counter(), time.process_time()
                    timed_pipeline().chunk(x, params)
                    cpu[row_name].append((time.process_time() - c0) * 1000)
                    wall[row_name].append((time.perf_counter() - w0) * 1000)
                    del x
        for row_name, name, threads in runs:
            with kernel.using(name), _threads(threads):
                cold_ms, cold_cpu_ms = statistics.median(wall[row_name]), statistics.median(cpu[row_name])
                pipeline = timed_pipeline()
                pipeline.chunk(text, params)
                queue = iter(rechunk_cases(params, repeat)["min_tokens"])
                warm_ms, warm_cpu_ms = _median_wall_cpu_ms(lambda: pipeline.chunk(text, next(queue)), repeat)
                rows[row_name][label] = {"size_mb": round(mb, 3), "cold_ms": round(cold_ms, 2),
                                         "cold_mb_per_s": round(mb / (cold_ms / 1000), 1),
                                         "cold_cpu_mb_per_s": round(mb / (max(cold_cpu_ms, 1e-3) / 1000), 1),
                                         "rechunk_ms_per_mb": round(warm_ms / mb, 2),
                                         "rechunk_cpu_ms_per_mb": round(warm_cpu_ms / mb, 2)}
    out["kernels"] = rows
    return out


def _threads(n: int | None):
    return contextlib.nullcontext() if n is None else numpy_threads.using(n)


# -- cold chunking, every contender side by side --------------------------------------------


RECHUNK_TARGET_MS_PER_MB = 5  # a warm re-chunk after one parameter change, either rule
RATIO_TARGETS = {  # ours / theirs at most (cold, median); lmx2-v1 / tttd-v1 at most
    "langchain RecursiveCharacterTextSplitter": 1 / 1.5,
    "chonkie RecursiveChunker": 1 / 2.5,
    "lmx2-v1 / tttd-v1": 1.3,
}


def bench_cold(texts: dict[str, str], repeat: int, peers: bool = False) -> dict:
    """Cold chunking of each text in `texts` (label -> text) by Steadlith, both rules, the
    text given as a str and as UTF-8 bytes, and with `peers` by every installed peer
    (on the str), in interleaved rounds: each round times every contender once on a
    fresh copy of the text (fresh_object), in an order rotated by one each round.
    Medians per contender, and ratios of medians (ours / theirs)."""
    rules = {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params()}
    out: dict = {"rounds": repeat, "documents": {}, "notes": []}
    names: list[str] = []
    if peers:
        names, out["notes"] = installed_peers()
    matched: dict[str, NativePeer] = {}
    for label, text in texts.items():
        data = text.encode("utf-8", "surrogatepass")
        mb = len(data) / 1e6
        firsts = {rule: timed_pipeline().chunk(text, p) for rule, p in rules.items()}
        means = {rule: round(sum(c.tokens for c in r.chunks) / max(1, len(r.chunks)), 1)
                 for rule, r in firsts.items()}
        if names and not matched:  # sized once, on the first (smallest) document
            matched = matched_peers(text[:1_000_000], means["tttd-v1"], names)
        contenders: dict[str, tuple[Callable[[object], object], str | bytes]] = {}
        for rule, p in rules.items():
            contenders[f"steadlith {rule} str"] = ((lambda x, p=p: timed_pipeline().chunk(x, p)), text)
            contenders[f"steadlith {rule} bytes"] = ((lambda x, p=p: timed_pipeline().chunk(x, p)), data)
        for name, peer in matched.items():
            contenders[name] = (peer.make(), text)
        times: dict[str, list[float]] = {k: [] for k in contenders}
        cpu: dict[str, list[float]] = {k: [] for k in contenders}
        keys = list(contenders)
        for r in range(repeat):
            for k in keys[r % len(keys):] + keys[:r % len(keys)]:
                run, source = contenders[k]
                x = fresh(source)
                t0, c0 = time.perf_counter(), time.process_time()
                run(x)
                cpu[k].append((time.process_time() - c0) * 1000)
                times[k].append((time.perf_counter() - t0) * 1000)
                del x
        rows = {}
        for k, ts in times.items():
            ms = statistics.median(ts)
            row = {"ms": round(ms, 2), "mb_per_s": round(mb / (ms / 1000), 1),
                   "cpu_ms": round(statistics.median(cpu[k]), 2)}
            if k.startswith("steadlith "):
                rule = k.split()[1]
                row.update(chunks=len(firsts[rule].chunks), mean_tokens=means[rule])
            else:
                found = matched[k].texts(text[:1_000_000])
                row.update(chunk_size=matched[k].chunk_size, mean_tokens=round(mean_tokens(found), 1))
            rows[k] = row
        ratios, cpu_ratios = {}, {}
        for field, into in (("ms", ratios), ("cpu_ms", cpu_ratios)):
            for form in ("str", "bytes"):
                t = rows[f"steadlith tttd-v1 {form}"][field]
                m = rows[f"steadlith lmx2-v1 {form}"][field]
                into[f"{form} lmx2-v1 / tttd-v1"] = round(m / max(t, 1e-3), 3)
                for name in matched:
                    for rule in rules:
                        into[f"{form} {rule} / {name}"] = round(
                            rows[f"steadlith {rule} {form}"][field] / max(rows[name][field], 1e-3), 3)
        out["documents"][label] = {"size_mb": round(mb, 3), "rows": rows, "ratios": ratios, "cpu_ratios": cpu_ratios}
    return out


def bench_rules(text: str, repeat: int, tttd: dict | None = None) -> dict:
    """Both rules at their defaults on the same document in one process: cold chunking
    (and the ratio lmx2-v1 / tttd-v1, whose target is RATIO_TARGETS' and is judged on the
    interleaved rounds of bench_cold) and warm re-chunking. `tttd` is
    tttd-v1's bench_chunking result when already measured."""
    tttd = tttd if tttd is not None else bench_chunking(text, ChunkerParams(), repeat)
    lmx2 = bench_chunking(text, Lmx2Params(), repeat)
    return {"tttd-v1": tttd, "lmx2-v1": lmx2, "cold_ratio_lmx2_over_tttd": round(lmx2["cold_ms"] / tttd["cold_ms"], 3)}


def format_rules(rules: dict) -> str:
    t, m = rules["tttd-v1"], rules["lmx2-v1"]
    lines = [
        f"both rules    same document, default parameters            {'tttd-v1':>10} {'lmx2-v1':>10}",
        f"  cold chunk  ms (each rule's runs in a row)                {t['cold_ms']:>10.1f} {m['cold_ms']:>10.1f}"
        f"   lmx2/tttd {rules['cold_ratio_lmx2_over_tttd']:.2f}x (the interleaved ratio is in 'ratio')",
        f"  chunks                                                    {t['chunks']:>10} {m['chunks']:>10}",
    ]
    for change in dict.fromkeys([*t["rechunk_ms_per_mb"], *m["rechunk_ms_per_mb"]]):
        cells = [f"{x['rechunk_ms_per_mb'][change]:>10.2f}" if change in x["rechunk_ms_per_mb"] else f"{'–':>10}"
                 for x in (t, m)]
        lines.append(f"  re-chunk after a {change:<10} change, ms/MB              {cells[0]} {cells[1]}"
                     f"   (target <= {RECHUNK_TARGET_MS_PER_MB:g} ms/MB)")
    return "\n".join(lines)


def _verdict(value: float, limit: float) -> str:
    return f"(target <= {limit:.2f}: {'met' if value <= limit else 'NOT met'})"


def _ratio_target(name: str) -> float | None:
    for key, limit in RATIO_TARGETS.items():
        if name.endswith(key):
            return limit
    return None


def format_cold(cold: dict) -> list[str]:
    """One `cold` line per contender and document, one `ratio` line per ratio."""
    lines = [f"cold          interleaved rounds: {cold['rounds']}, a fresh text object every call; medians of wall "
             "time and of this process's CPU time (all threads); ratios of medians, ours / theirs, the target "
             "judged on wall time"]
    for label, d in cold["documents"].items():
        for name, r in d["rows"].items():
            size = f"chunk_size {r['chunk_size']}" if "chunk_size" in r else f"{r['chunks']} chunks"
            lines.append(f"cold          {label:<9} {d['size_mb']:7.2f} MB  {name:<42} {r['ms']:9.1f} ms "
                         f"{r['mb_per_s']:8.1f} MB/s  cpu {r['cpu_ms']:9.1f} ms  mean {r['mean_tokens']:6.1f} tokens  "
                         f"{size}")
        for name, value in d["ratios"].items():
            limit = _ratio_target(name)
            lines.append(f"ratio         {label:<9} {name:<62} {value:6.3f}  cpu {d['cpu_ratios'][name]:6.3f}"
                         + (f"  {_verdict(value, limit)}" if limit is not None else ""))
    lines += [f"note          {n}" for n in cold.get("notes", [])]
    return lines


_ALLOCATOR_NOTE = {
    "library": " (glibc's own settings, as chunk() runs in a program of yours; --allocator command: as the "
               "steadlith command and the inspector run)",
    "command": " (freed memory kept for the next run, as the steadlith command and the inspector set it: "
               "kernel/allocator.py; --allocator library: as chunk() runs in a program of yours)",
}


def format_report(report: dict) -> str:
    c = report["chunking"]
    lines = [
        f"format        {report['format']}",
        f"document      {report['document']}",
        f"load average  {' '.join(map(str, report['load_average_start']))} (1, 5, 15 min; at the start)",
        f"size          {c['size_mb']:.2f} MB, {c['words']} words, {c['chunks']} chunks (default params)",
        f"repeat        {report['repeat']} (medians)",
        f"text kernel   {report['kernel']}{_KERNEL_NOTE[report['kernel']]}",
        f"allocator     {report.get('allocator', 'command')}{_ALLOCATOR_NOTE[report.get('allocator', 'command')]}",
        f"cold chunk    {c['cold_ms']:.1f} ms  = {c['cold_mb_per_s']:.1f} MB/s   (tttd-v1, str, fresh object)",
    ]
    for name, ms in c["rechunk_ms"].items():
        lines.append(
            f"re-chunk      {name:<10} {ms:6.2f} ms = {c['rechunk_ms_per_mb'][name]:.2f} ms/MB   "
            f"(target <= {RECHUNK_TARGET_MS_PER_MB:g} ms/MB)"
        )
    if "cold" in report:
        lines += format_cold(report["cold"])
    if "kernels" in report:
        lines += _format_kernels(report["kernels"])
    if "compare" in report:
        m = report["compare"]
        e, u = m["diff_edited"], m["diff_unrelated"]
        lines += [
            f"word diff     10 scattered edits  {m['diff_edited_ms']:7.1f} ms   (target <= 150 ms; "
            f"{e['edits']} edits found, {e['equal_words']} of {e['words_b']} words equal)",
            f"word diff     unrelated document  {m['diff_unrelated_ms']:7.1f} ms   (target <= 2000 ms; "
            f"{u['edits']} edits, {u['equal_words']} of {u['words_b']} words equal)",
            f"compare       chunk both + compare {m['compare_edited_ms']:6.1f} ms   (edited pair, baseline included; "
            f"{m['compare_edited']['reused_chunk_ratio']:.1%} of {m['compare_edited']['chunks_b']} chunks reused)",
        ]
    if "rules" in report:
        lines.append(format_rules(report["rules"]))
    for name, value in report.get("extra", {}).items():
        lines.append(f"{name:<13} {value}")
    lines += format_memory(report.get("memory", []))
    lines.append(f"load average  {' '.join(map(str, report['load_average_end']))} (at the end)")
    return "\n".join(lines)


_COLD_TARGET = {"numpy": 40}  # MB/s of the numpy fallback on one thread; the compiled kernel is held to ratios
_KERNEL_NOTE = {
    "c": " (the compiled extension; STEADLITH_KERNEL=numpy forces the numpy fallback)",
    "numpy": " (the numpy fallback: the compiled extension is not built or STEADLITH_KERNEL=numpy)",
}


def _format_kernels(k: dict) -> list[str]:
    threads = k.get("numpy_threads", 1)
    lines = ["kernels       side by side in this process, tttd-v1 on a fresh str: cold chunking in interleaved "
             "rounds, then a min_tokens re-chunk (wall time; CPU time of this process, all threads, in brackets)",
             f"kernels       numpy runs on {threads} thread{'s' if threads > 1 else ''} ({numpy_threads.ENV_VAR})"
             + ("; numpy-1t is it on one" if threads > 1 else "")]
    for name, rows in k["kernels"].items():
        cells = [f"{label} {r['cold_mb_per_s']:.1f} MB/s ({r['cold_cpu_mb_per_s']:.1f}), re-chunk "
                 f"{r['rechunk_ms_per_mb']:.2f} ms/MB ({r['rechunk_cpu_ms_per_mb']:.2f})" for label, r in rows.items()]
        target = _COLD_TARGET.get(name.removesuffix("-1t"))
        lines.append(f"  {name:<8} " + " | ".join(cells) + (f"   (target >= {target} MB/s)" if target else ""))
    return lines


def run_bench(text: str, name: str, repeat: int, memory: bool, as_json: bool,
              extra: Callable[[str, int], dict] | None = None, with_compare: bool = True,
              kernel_texts: dict[str, str] | None = None, peers: bool = False, memory_mb: int = 10,
              cold_texts: dict[str, str] | None = None, allocator: str = "library") -> str:
    """`allocator` names the allocator settings this process runs under (bench
    --allocator: cli.main applies them), printed with the figures. `cold_texts` (label ->
    text, default {"this file": text}) are the documents of the interleaved cold section; `kernel_texts` adds the side-by-side kernel section;
    `peers` adds the installed peer chunkers to the cold section; `memory` measures a
    `memory_mb` MB document."""
    report: dict = {"format": FORMAT, "document": name, "repeat": repeat, "python": sys.version.split()[0],
                    "kernel": kernel.active(), "allocator": allocator, "load_average_start": load_average(),
                    "chunking": bench_chunking(text, ChunkerParams(), repeat)}
    report["rules"] = bench_rules(text, repeat, tttd=report["chunking"])
    report["cold"] = bench_cold(cold_texts or {"this file": text}, repeat, peers=peers)
    if peers:  # the peers' rows of the first document, where callers have read them
        first = next(iter(report["cold"]["documents"].values()))
        report["peers"] = {"size_mb": first["size_mb"], "chunkers": first["rows"], "ratios": first["ratios"],
                           "notes": report["cold"]["notes"]}
    if kernel_texts:
        report["kernels"] = bench_kernels(kernel_texts, repeat)
    if with_compare:
        report["compare"] = bench_compare(text, repeat)
    if extra is not None:
        report["extra"] = extra(text, repeat)
    if memory:
        report["memory"] = bench_memory(markdown_corpus()[0], memory_mb * 1_000_000)
    report["load_average_end"] = load_average()
    return json.dumps(report, indent=2) if as_json else format_report(report)


def memory_only(n_bytes: int, as_json: bool, forms: "Sequence[str] | None" = None) -> str:
    """`steadlith bench --memory-only`: the memory rows alone (memory.bench_memory on the
    Markdown corpus repeated to n_bytes; only `forms` when given), between two load averages."""
    start = load_average()
    corpus, what = markdown_corpus()
    rows = bench_memory(corpus, n_bytes, forms=forms or DEFAULT_FORMS)
    report = {"format": "steadlith-bench-memory/1", "document": f"{what}, repeated to {n_bytes / 1e6:g} MB",
              "load_average_start": start, "memory": rows, "load_average_end": load_average()}
    if as_json:
        return json.dumps(report, indent=2)
    return "\n".join([f"document      {report['document']}", f"load average  {' '.join(map(str, start))} (at the start)",
                      *format_memory(rows),
                      f"load average  {' '.join(map(str, report['load_average_end']))} (at the end)"])
