"""`steadlith bench`: medians of cold chunking, staged re-chunking, word diff and compare(),
for tttd-v1 and, side by side on the same document, lmx2-v1; each text kernel side by
side (compiled and numpy); installed peer chunkers (--peers); `--sizes` measures how
often each rule's chunks fall under min_tokens or over max_tokens on long streams; and
the peak memory of a fresh process (--memory)."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Callable, Sequence

from ..chunking.chunks import AnyParams, Chunking
from ..chunking.lmx2_params import Lmx2Params
from ..chunking.normalize import normalize
from ..chunking.params import ChunkerParams
from ..chunking.pipeline import Pipeline
from ..comparison.churn import compare
from ..comparison.diff import EQUAL, word_diff
from ..kernel import select as kernel
from ..kernel import threads as numpy_threads


def _pipeline() -> Pipeline:
    # timed as the inspector and the command run it: with the cyclic GC paused
    return Pipeline(pause_gc=True)


def _median_ms(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


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
    cold_ms = _median_ms(lambda: _pipeline().chunk(text, params), repeat)
    pipeline = _pipeline()
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
        pipeline = _pipeline()
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
    on the same texts in this one process (medians)."""
    params = ChunkerParams()
    out: dict = {"active": kernel.active(), "kernels": {}, "numpy_threads": numpy_threads.count()}
    runs = [(name, name, numpy_threads.count()) for name in kernel.KERNELS]
    if numpy_threads.count() > 1:  # what one core gives, beside what the threads give
        runs.append(("numpy-1t", "numpy", 1))
    for row_name, name, threads in runs:
        rows = {}
        with kernel.using(name), numpy_threads.using(threads):
            for label, text in texts.items():
                mb = len(text.encode("utf-8", "surrogatepass")) / 1e6
                cold_ms, cold_cpu_ms = _median_wall_cpu_ms(lambda: _pipeline().chunk(text, params), repeat)
                pipeline = _pipeline()
                pipeline.chunk(text, params)
                queue = iter(rechunk_cases(params, repeat)["min_tokens"])
                warm_ms, warm_cpu_ms = _median_wall_cpu_ms(lambda: pipeline.chunk(text, next(queue)), repeat)
                rows[label] = {"size_mb": round(mb, 3), "cold_ms": round(cold_ms, 2),
                               "cold_mb_per_s": round(mb / (cold_ms / 1000), 1),
                               "cold_cpu_mb_per_s": round(mb / (max(cold_cpu_ms, 1e-3) / 1000), 1),
                               "rechunk_ms_per_mb": round(warm_ms / mb, 2),
                               "rechunk_cpu_ms_per_mb": round(warm_cpu_ms / mb, 2)}
        out["kernels"][row_name] = rows
    return out


def _peer_chunkers() -> dict[str, Callable[[str], object]]:
    """The peers installed here, each set to chunks of about the default max_tokens
    (512 tokens of chars4/1, 2048 characters). None of them is a dependency."""
    peers: dict[str, Callable[[str], object]] = {}
    try:
        from chonkie import RecursiveChunker

        recursive = RecursiveChunker(tokenizer="character", chunk_size=2048)
        peers["chonkie RecursiveChunker"] = recursive.chunk
    except Exception:  # absent, or an incompatible version: skip it like an absent one
        pass
    try:
        import semchunk

        semchunker = semchunk.chunkerify(lambda s: (len(s) + 3) // 4, 512)
        peers["semchunk"] = semchunker
    except Exception:
        pass
    try:
        from semantic_text_splitter import TextSplitter

        splitter = TextSplitter(2048)
        peers["semantic-text-splitter"] = splitter.chunks
    except Exception:
        pass
    return peers


def bench_peers(text: str, repeat: int) -> dict:
    """Cold chunking of `text` by Steadlith (active kernel) and each installed peer."""
    mb = len(text.encode("utf-8", "surrogatepass")) / 1e6
    ours_ms = _median_ms(lambda: _pipeline().chunk(text, ChunkerParams()), repeat)
    rows = {f"steadlith ({kernel.active()})": {"ms": round(ours_ms, 2), "mb_per_s": round(mb / (ours_ms / 1000), 1)}}
    for name, run in _peer_chunkers().items():
        ms = _median_ms(lambda: run(text), repeat)
        rows[name] = {"ms": round(ms, 2), "mb_per_s": round(mb / (ms / 1000), 1),
                      "steadlith_speedup": round(ms / ours_ms, 2)}
    return {"size_mb": round(mb, 3), "chunkers": rows}


# Peak RSS in kB. /proc/self/status's VmHWM belongs to this process image alone; on
# Linux ru_maxrss also carries the parent's peak over fork and exec, which would charge
# the benchmark's own memory to the probe.
_MEMORY_PROBE = """
import resource, sys
def peak_kb():
    try:
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))
    except (OSError, StopIteration):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
import steadlith_core
from steadlith_core import chunk
from steadlith_core.kernel.allocator import keep_freed_memory
from steadlith_core.chunking.loader import load_utf8
keep_freed_memory()  # as the command does at start
data = load_utf8(sys.argv[1])  # as `steadlith chunk FILE` reads it: checked UTF-8, never a str
before = peak_kb()
result = chunk(data)
print(len(result.chunks), before, peak_kb(), steadlith_core.KERNEL)
"""


def peak_memory_mb(n_chars: int, kernel_name: str | None = None) -> dict:
    """Peak RSS of a fresh interpreter that loads and chunks an n_chars prose file,
    as `steadlith chunk FILE` would, with the given text kernel (the active one if None)."""
    from .examples import generate_prose

    kernel_name = kernel_name or kernel.active()
    env = dict(os.environ)
    env.pop(kernel.ENV_VAR, None)
    if kernel_name == "numpy":
        env[kernel.ENV_VAR] = "numpy"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "prose.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(generate_prose(n_chars))
        size_mb = os.path.getsize(path) / 1e6
        out = subprocess.run(
            [sys.executable, "-c", _MEMORY_PROBE, path], capture_output=True, text=True, check=True, env=env
        ).stdout.split()
    chunks, before_kb, peak_kb = (int(x) for x in out[:3])
    # every figure in MB of 10^6 bytes, as the document's size: the ratio is bytes over bytes
    return {"size_mb": round(size_mb, 1), "kernel": out[3], "chunks": chunks,
            "rss_before_chunking_mb": round(before_kb * 1024 / 1e6, 1), "peak_rss_mb": round(peak_kb * 1024 / 1e6, 1),
            "peak_over_size": round(peak_kb * 1024 / 1e6 / size_mb, 2)}


def bench_rules(text: str, repeat: int, tttd: dict | None = None) -> dict:
    """Both rules at their defaults on the same document in one process: cold chunking
    (and the ratio lmx2-v1 / tttd-v1, target <= 1.5) and warm re-chunking. `tttd` is
    tttd-v1's bench_chunking result when already measured."""
    tttd = tttd if tttd is not None else bench_chunking(text, ChunkerParams(), repeat)
    lmx2 = bench_chunking(text, Lmx2Params(), repeat)
    return {"tttd-v1": tttd, "lmx2-v1": lmx2, "cold_ratio_lmx2_over_tttd": round(lmx2["cold_ms"] / tttd["cold_ms"], 3)}


def _size_exception(result: Chunking, i: int) -> bool:
    """Whether chunk i may be under min_tokens by its rule: tttd-v1's last chunk; for
    lmx2-v1 the exceptions of its sizes (docs/contract/lmx2-v1.md#sizes: a span between two edge cuts, or two cuts
    of the same level with equal keys)."""
    c = result.chunks[i]
    if result.boundary_rule != "lmx2-v1":
        return i == len(result.chunks) - 1
    cuts, keys = result.stages.cuts, result.stages.keys
    s, e = c.start_word, c.end_word
    if cuts.edges[s] and cuts.edges[e]:
        return True
    if cuts.primary[s] and cuts.primary[e] and keys.key_1[s] == keys.key_1[e]:
        return True
    return bool(cuts.fill[s] and cuts.fill[e] and keys.key_2[s] == keys.key_2[e])


def size_rates(result: Chunking) -> dict:
    """Chunks under min_tokens (all, and outside the rule's exceptions) and over
    max_tokens (all, and those longer than one word), with rates per chunk."""
    p = result.params
    chunks = result.chunks
    under = [i for i, c in enumerate(chunks) if c.tokens < p.min_tokens]
    over = [c for c in chunks if c.tokens > p.max_tokens]
    n = len(chunks)
    unexplained = sum(1 for i in under if not _size_exception(result, i))
    multi_word_over = sum(1 for c in over if c.word_count > 1)
    return {
        "chunks": n, "under_min": len(under), "under_min_unexcepted": unexplained,
        "under_min_unexcepted_rate": unexplained / n if n else 0.0,
        "over_max": len(over), "over_max_multi_word": multi_word_over,
        "over_max_multi_word_rate": multi_word_over / n if n else 0.0,
        "mean_tokens": round(sum(c.tokens for c in chunks) / n, 1) if n else 0.0,
    }


def bench_sizes(seeds: Sequence[int] = (1, 2, 3, 4), n_chars: int = 1_000_000) -> dict:
    """Size rates of both rules at their defaults on generated prose, one stream per
    seed: per seed, the total, and the median rate over seeds."""
    from .examples import generate_prose

    pipeline = _pipeline()
    out: dict = {"seeds": list(seeds), "chars_per_seed": n_chars, "rules": {}}
    per_rule: dict[str, list[dict]] = {"tttd-v1": [], "lmx2-v1": []}
    for seed in seeds:
        text = generate_prose(n_chars, seed=seed)
        for rule, params in (("tttd-v1", ChunkerParams()), ("lmx2-v1", Lmx2Params())):
            per_rule[rule].append(size_rates(pipeline.chunk(text, params)))
        pipeline.clear()
    for rule, rows in per_rule.items():
        total = {k: sum(r[k] for r in rows) for k in ("chunks", "under_min", "under_min_unexcepted", "over_max",
                                                      "over_max_multi_word")}
        out["rules"][rule] = {
            "per_seed": rows, "total": total,
            "median_under_min_unexcepted_rate": statistics.median(r["under_min_unexcepted_rate"] for r in rows),
            "median_over_max_multi_word_rate": statistics.median(r["over_max_multi_word_rate"] for r in rows),
        }
    return out


def format_sizes(report: dict) -> str:
    seeds = report['seeds']
    lines = [f"sizes         generated prose, seeds {seeds[0]}-{seeds[-1]}, "
             f"{report['chars_per_seed'] / 1e6:g} MB each, default parameters"]
    for rule, r in report["rules"].items():
        t = r["total"]
        lines.append(
            f"  {rule:<9} {t['chunks']} chunks: under min_tokens {t['under_min']} ({t['under_min_unexcepted']} outside "
            f"the rule's exceptions, median rate {r['median_under_min_unexcepted_rate']:.2e}); over max_tokens "
            f"{t['over_max']} ({t['over_max_multi_word']} of more than one word, median rate "
            f"{r['median_over_max_multi_word_rate']:.2e})")
    return "\n".join(lines)


def format_rules(rules: dict) -> str:
    t, m = rules["tttd-v1"], rules["lmx2-v1"]
    lines = [
        f"both rules    same document, default parameters            {'tttd-v1':>10} {'lmx2-v1':>10}",
        f"  cold chunk  ms                                            {t['cold_ms']:>10.1f} {m['cold_ms']:>10.1f}"
        f"   lmx2/tttd {rules['cold_ratio_lmx2_over_tttd']:.2f}x (target <= 1.5x)",
        f"  chunks                                                    {t['chunks']:>10} {m['chunks']:>10}",
    ]
    for change in dict.fromkeys([*t["rechunk_ms_per_mb"], *m["rechunk_ms_per_mb"]]):
        cells = [f"{x['rechunk_ms_per_mb'][change]:>10.2f}" if change in x["rechunk_ms_per_mb"] else f"{'–':>10}"
                 for x in (t, m)]
        lines.append(f"  re-chunk after a {change:<10} change, ms/MB              {cells[0]} {cells[1]}"
                     "   (target <= 10 ms/MB)")
    return "\n".join(lines)


def format_report(report: dict) -> str:
    c = report["chunking"]
    lines = [
        f"document      {report['document']}",
        f"size          {c['size_mb']:.2f} MB, {c['words']} words, {c['chunks']} chunks (default params)",
        f"repeat        {report['repeat']} (medians)",
        f"text kernel   {report['kernel']}{_KERNEL_NOTE[report['kernel']]}",
        f"cold chunk    {c['cold_ms']:.1f} ms  = {c['cold_mb_per_s']:.1f} MB/s   "
        f"(target >= {_COLD_TARGET[report['kernel']]} MB/s)",
    ]
    for name, ms in c["rechunk_ms"].items():
        lines.append(
            f"re-chunk      {name:<10} {ms:6.2f} ms = {c['rechunk_ms_per_mb'][name]:.2f} ms/MB   (target <= 5 ms/MB)"
        )
    if "kernels" in report:
        lines += _format_kernels(report["kernels"])
    if "peers" in report:
        lines += _format_peers(report["peers"])
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
    if "memory" in report:
        m = report["memory"]
        lines.append(
            f"memory        {m['size_mb']} MB document, {m['kernel']} kernel: peak RSS {m['peak_rss_mb']} MB "
            f"= {m['peak_over_size']}x its size ({m['rss_before_chunking_mb']} MB before chunking)   (target <= 6x)"
        )
    return "\n".join(lines)


_COLD_TARGET = {"c": 100, "numpy": 35}
_KERNEL_NOTE = {
    "c": " (the compiled extension; STEADLITH_KERNEL=numpy forces the numpy fallback)",
    "numpy": " (the numpy fallback: the compiled extension is not built or STEADLITH_KERNEL=numpy)",
}


def _format_kernels(k: dict) -> list[str]:
    threads = k.get("numpy_threads", 1)
    lines = ["kernels       side by side in this process: cold chunking, then a min_tokens re-chunk "
             "(wall time; CPU time of this process, all threads, in brackets)",
             f"              numpy runs on {threads} thread{'s' if threads > 1 else ''} ({numpy_threads.ENV_VAR})"
             + ("; numpy-1t is it on one" if threads > 1 else "")]
    for name, rows in k["kernels"].items():
        cells = [f"{label} {r['cold_mb_per_s']:.1f} MB/s ({r['cold_cpu_mb_per_s']:.1f}), re-chunk "
                 f"{r['rechunk_ms_per_mb']:.2f} ms/MB ({r['rechunk_cpu_ms_per_mb']:.2f})" for label, r in rows.items()]
        target = _COLD_TARGET[name.removesuffix("-1t")]
        lines.append(f"  {name:<8} " + " | ".join(cells) + f"   (target >= {target} MB/s, <= 5 ms/MB)")
    return lines


def _format_peers(p: dict) -> list[str]:
    lines = [f"peers         cold chunking of the same {p['size_mb']:.2f} MB in this process (medians)"]
    for name, r in p["chunkers"].items():
        ratio = f"   steadlith {r['steadlith_speedup']:.2f}x as fast" if "steadlith_speedup" in r else ""
        lines.append(f"  {name:<26} {r['ms']:8.1f} ms = {r['mb_per_s']:6.1f} MB/s{ratio}")
    if len(p["chunkers"]) == 1:
        lines.append("  (no peer installed: chonkie, semchunk, semantic-text-splitter)")
    return lines


def run_bench(text: str, name: str, repeat: int, memory: bool, as_json: bool,
              extra: Callable[[str, int], dict] | None = None, with_compare: bool = True,
              kernel_texts: dict[str, str] | None = None, peers: bool = False, memory_mb: int = 10) -> str:
    """`kernel_texts` (label -> text) adds the side-by-side kernel section; `peers` times
    the installed peer chunkers on `text`; `memory` measures a `memory_mb` MB document."""
    report: dict = {"document": name, "repeat": repeat, "python": sys.version.split()[0],
                    "kernel": kernel.active(), "chunking": bench_chunking(text, ChunkerParams(), repeat)}
    report["rules"] = bench_rules(text, repeat, tttd=report["chunking"])
    if kernel_texts:
        report["kernels"] = bench_kernels(kernel_texts, repeat)
    if peers:
        report["peers"] = bench_peers(text, repeat)
    if with_compare:
        report["compare"] = bench_compare(text, repeat)
    if extra is not None:
        report["extra"] = extra(text, repeat)
    if memory:
        report["memory"] = peak_memory_mb(memory_mb * 1_000_000)
    return json.dumps(report, indent=2) if as_json else format_report(report)
