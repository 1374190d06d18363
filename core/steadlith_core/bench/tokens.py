"""How far the per-word count of a tokenizer counter (docs/contract/tokens.md#per-word)
falls from what the model reads: chunk real Markdown with max_tokens counted per word,
count each chunk's span whole with the same tokenizer, and report how many chunks pass
max_tokens and by how much, for each counter, rule and per-word form.

    steadlith bench --tokenizer-overshoot [FILE] [--tokenizer SPEC ...]
    python -m steadlith_core.bench.tokens [FILE] [--tokenizer SPEC ...]

The forms: `space` is the contract's (" " + word, what a word after a space is to the
tokenizer); `bare` (the word alone) is measured beside it to show why the contract chose
the first. Whole counts are of the span exactly as the document has it (the text a
splitter hands the embedding model), without special tokens. Counts, not timings: the
load average is printed all the same, as for every benchmark.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from typing import Any, Sequence

from ..chunking import model_tokens
from ..chunking.normalize import WordStream
from ..chunking.pipeline import Pipeline
from ..chunking.rules import params_from_mapping
from ..chunking.tokens import TokenCounter, register_counter, unregister_counter
from .corpus import markdown_corpus
from .measure import load_average

DEFAULT_SPECS = ("tiktoken:cl100k_base", "tiktoken:o200k_base")
RULES = ("tttd-v1", "lmx2-v1")
FORMS = ("space", "bare")


def _bare_counter(counting: model_tokens.ModelCounting) -> TokenCounter:
    memo: dict[str, int] = {}

    def vectorized(words: WordStream):
        import numpy as np

        texts = list(words.texts)
        new = [w for w in dict.fromkeys(texts) if w not in memo]
        memo.update(zip(new, (max(1, n) for n in counting.encode_lengths(new))))
        return np.fromiter((memo[w] for w in texts), dtype=np.int64, count=len(texts))

    return TokenCounter(f"bench-bare:{counting.id}", "the word alone (measured, not offered)", vectorized=vectorized)


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0


def measure(text: str, spec: str, rule: str, form: str, max_tokens: int = 512) -> dict[str, Any]:
    """One row: the chunks of `text` under `rule` with `max_tokens` counted per word by
    `spec` in `form`, each counted whole by the same tokenizer."""
    counting = model_tokens.resolve(spec)
    counter_name = spec
    bare = None
    if form == "bare":
        bare = _bare_counter(counting)
        register_counter(bare)
        counter_name = bare.id
    try:
        params = params_from_mapping({"boundary_rule": rule, "max_tokens": max_tokens, "token_counter": counter_name})
        result = Pipeline().chunk(text, params)
    finally:
        if bare is not None:
            unregister_counter(bare.id)
    whole = [counting.text_tokens(text[c.start:c.end]) for c in result.chunks]
    per_word = [c.tokens for c in result.chunks]
    over = [w - max_tokens for w in whole if w > max_tokens]
    ratios = [w / p for w, p in zip(whole, per_word)]
    return {
        "counter": spec, "id": counting.id, "rule": rule, "form": form, "max_tokens": max_tokens,
        "chunks": len(whole), "over": len(over), "over_max": max(over, default=0),
        "over_median": statistics.median(over) if over else 0,
        "whole_max": max(whole, default=0), "whole_p95": _percentile(whole, 0.95),
        "ratio_median": round(statistics.median(ratios), 4) if ratios else 0.0,
        "abs_error_mean": round(statistics.fmean(abs(w - p) / w for w, p in zip(whole, per_word)), 4)
        if whole else 0.0,
    }


def run(text: str, name: str, specs: Sequence[str], max_tokens: int = 512) -> dict[str, Any]:
    start = load_average()
    rows = [measure(text, spec, rule, form, max_tokens) for spec in specs for rule in RULES for form in FORMS]
    return {"document": name, "code_points": len(text), "load_average_start": start,
            "rows": rows, "load_average_end": load_average()}


def format_report(report: dict[str, Any]) -> str:
    lines = [f"document      {report['document']} ({report['code_points']:,} code points)",
             f"load average  {' '.join(map(str, report['load_average_start']))} (1, 5, 15 min; at the start)",
             "whole = each chunk's span counted at once by the same tokenizer, no special tokens",
             "",
             f"{'counter':<22} {'rule':<8} {'form':<6} {'chunks':>6} {'> max':>6} {'by max':>6} {'by med':>6} "
             f"{'p95':>5} {'whole/per-word':>14} {'|err|':>6}"]
    for r in report["rows"]:
        lines.append(f"{r['counter']:<22} {r['rule']:<8} {r['form']:<6} {r['chunks']:>6} {r['over']:>6} "
                     f"{r['over_max']:>6} {r['over_median']:>6} {r['whole_p95']:>5} {r['ratio_median']:>14} "
                     f"{r['abs_error_mean']:>6}")
    lines.append(f"load average  {' '.join(map(str, report['load_average_end']))} (at the end)")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from ..chunking.loader import load_text
    from ..errors import SteadlithError, visible

    p = argparse.ArgumentParser(prog="python -m steadlith_core.bench.tokens", description=__doc__.split("\n\n")[0])
    p.add_argument("file", nargs="?", help="document to chunk (default: the checkout's Markdown)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--tokenizer", action="append", metavar="SPEC",
                   help="a counter to measure (hf:PATH/tokenizer.json, tiktoken:NAME); repeat for more "
                        f"(default: {', '.join(DEFAULT_SPECS)})")
    p.add_argument("--overshoot-max-tokens", type=int, default=512, metavar="N",
                   help="max_tokens of the measured chunkings (default 512)")
    args = p.parse_args(argv)
    try:
        print(report_for(args.file and load_text(args.file), args.file and visible(args.file),
                         args.tokenizer, args.overshoot_max_tokens, args.format))
    except SteadlithError as e:
        print(f"steadlith: error: {e}", file=sys.stderr)
        return 2
    return 0


def report_for(text: str | None, name: str | None, specs: Sequence[str] | None, max_tokens: int,
               fmt: str = "text") -> str:
    from ..errors import SteadlithError

    if max_tokens < 1:
        raise SteadlithError(f"--overshoot-max-tokens must be >= 1, got {max_tokens}")
    if text is None:
        text, name = markdown_corpus()
    specs = list(specs or DEFAULT_SPECS)
    for spec in specs:
        if not model_tokens.is_spec(spec):
            raise SteadlithError(f"--tokenizer {spec!r}: give hf:PATH/tokenizer.json or tiktoken:NAME")
        model_tokens.resolve(spec)  # a bad one fails before any measuring
    report = run(text, name or "?", specs, max_tokens)
    return json.dumps(report, indent=2) if fmt == "json" else format_report(report)


if __name__ == "__main__":
    sys.exit(main())
