"""`steadlith bench --sizes`: how often chunks fall under min_tokens (outside each rule's
exceptions, docs/contract/lmx2-v1.md#sizes) or over max_tokens, both rules at their
defaults on generated prose."""

from __future__ import annotations

import statistics
from typing import Sequence

from ..chunking.chunks import Chunking
from ..chunking.lmx2_params import Lmx2Params
from ..chunking.params import ChunkerParams
from .measure import timed_pipeline


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
    for level, chosen in ((1, cuts.primary), (2, cuts.fill)):  # S and Q are disjoint
        if chosen[s] and chosen[e]:
            return bool(len(set(keys.key_at(level, [s, e]).tolist())) == 1)
    return False


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

    pipeline = timed_pipeline()
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
