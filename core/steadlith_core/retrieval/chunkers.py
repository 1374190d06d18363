"""The chunkings a retrieval run compares, each turned into one flat list of chunks over
every corpus, with each chunk's exact code-point range in its corpus.

Three families: a boundary rule (tttd-v1 or lmx2-v1 with its parameters), the fixed-size
baseline, and the external splitters `steadlith_core.external` drives. This is the one
module of the package that reaches into other parts of the core (the rest reads what it
returns).

What a chunk *embeds* (the text a retriever sees) is the text its own pipeline would
index: a rule's or the baseline's canonical text (docs/contract/normalizer.md#canonical-text:
words joined by single spaces, paragraphs by a blank line), an external splitter's span
exactly. Its *range* is
always [start, end) in the original corpus: from the first word's start to the last
word's end for the rules and the baseline, the span for external splitters. Chroma's
evaluation instead finds each chunk by searching its text in the corpus (first match,
with a trailing '.' dropped); exact spans are what that search means to find.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

# Not `from steadlith_core import ...`: the package face re-exports every layer, so the
# import contracts (pyproject.toml) forbid it inside the core. These are the only
# modules of the rest of the core this package reads, besides errors and progress.
from ..comparison.baseline import FixedTokenParams, chunk_fixed
from ..errors import ParameterError
from ..comparison.external import ExternalChunking, SplitterChunker, match_mean_tokens, parse_chunker
from ..chunking.lmx2_params import BOUNDARY_RULES
from ..progress import Progress, report
from ..chunking.pipeline import chunk
from ..chunking.rules import parse_assignments, parse_rule_assignments, preset_bases

FIXED = "fixed"
RULE, BASELINE, EXTERNAL = "rule", "baseline", "external"


@dataclass(frozen=True)
class RetrievalChunk:
    corpus_id: str
    start: int  # code points of the original corpus text
    end: int
    text: str  # what a retriever embeds
    hash: str
    tokens: int


@dataclass(frozen=True)
class ChunkingSpec:
    """One chunking to evaluate: `name` labels its row."""

    name: str
    family: str  # rule | baseline | external
    params: Any  # rule params, FixedTokenParams or a SplitterChunker
    settings: Mapping[str, Any] = field(default_factory=dict)
    # an external splitter whose chunk_size the user gave (match_sizes leaves it alone)
    sized: bool = True

    def chunk_corpus(self, corpus_id: str, text: str) -> list[RetrievalChunk]:
        if self.family == EXTERNAL:
            spans: ExternalChunking = self.params.chunk(text)
            return [RetrievalChunk(corpus_id, s.start, s.end, s.text, s.hash, s.tokens) for s in spans.chunks]
        result = chunk_fixed(text, self.params) if self.family == BASELINE else chunk(text, self.params)
        return [RetrievalChunk(corpus_id, c.start, c.end, c.text, c.hash, c.tokens) for c in result.chunks]


@dataclass(frozen=True)
class ChunkSet:
    """A chunking of every corpus: chunks in corpus order, then document order."""

    spec: ChunkingSpec
    chunks: tuple[RetrievalChunk, ...]
    seconds: float  # wall time to chunk every corpus

    @property
    def mean_tokens(self) -> float:
        return sum(c.tokens for c in self.chunks) / len(self.chunks) if self.chunks else 0.0

    @property
    def mean_chars(self) -> float:
        return sum(c.end - c.start for c in self.chunks) / len(self.chunks) if self.chunks else 0.0


def chunk_corpora(spec: ChunkingSpec, corpora: Mapping[str, str],
                  progress: Callable[[], None] | None = None) -> ChunkSet:
    """Chunk every corpus with `spec`; `progress()` is called after each corpus."""
    started = time.perf_counter()
    out: list[RetrievalChunk] = []
    for corpus_id, text in corpora.items():
        out.extend(spec.chunk_corpus(corpus_id, text))
        if progress is not None:
            progress()
    return ChunkSet(spec, tuple(out), time.perf_counter() - started)


def _rule_spec(name: str, params: Any) -> ChunkingSpec:
    return ChunkingSpec(name, RULE, params, params.to_dict())


def _external_spec(splitter: SplitterChunker, sized: bool = True) -> ChunkingSpec:
    return ChunkingSpec(splitter.name, EXTERNAL, splitter, {"chunker": splitter.name, "chunk_size": splitter.chunk_size,
                                                   "chunk_overlap": splitter.chunk_overlap,
                                                   "token_counter": splitter.token_counter}, sized)


def _fixed_spec(max_tokens: int, token_counter: str) -> ChunkingSpec:
    params = FixedTokenParams(max_tokens, token_counter)
    return ChunkingSpec(f"{FIXED}({max_tokens})", BASELINE, params,
                        {"max_tokens": max_tokens, "token_counter": token_counter})


def chunking_specs(rules_text: str | None, chunkers: Sequence[str], assignments: Sequence[str] = (),
                   preset_name: str | None = None) -> list[ChunkingSpec]:
    """The command's chunkings, in order: the names of --rules (tttd-v1, lmx2-v1, fixed),
    then each --chunker: a rule with its own changes (``tttd-v1:snap_mode=…,…``), ``fixed``,
    or an external splitter (``langchain-recursive[:chunk_size=N[,chunk_overlap=M]]``).

    --set and --preset make each rule's base; a rule in --chunker starts from that base.
    ``fixed`` is the baseline at the first rule's max_tokens and token counter; an external
    splitter without a chunk_size gets the first rule's max_tokens (see `match_sizes`)."""
    names = [n.strip() for n in (rules_text or "").split(",") if n.strip()]
    wanted_rules = list(dict.fromkeys(
        [n for n in names if n != FIXED]
        + [s.partition(":")[0] for s in chunkers if s.partition(":")[0] in BOUNDARY_RULES]))
    for n in wanted_rules:
        if n not in BOUNDARY_RULES:
            raise ParameterError("--rules", f"unknown chunker {n!r}; known: {', '.join([*BOUNDARY_RULES, FIXED])}")
    bases = preset_bases(preset_name, wanted_rules, ", ".join(wanted_rules)) if wanted_rules else {}
    if preset_name is not None and not wanted_rules:
        raise ParameterError("--preset", "name the preset's rule in --rules or --chunker")
    if assignments and not wanted_rules:
        raise ParameterError("--set", "applies to rules: name tttd-v1 or lmx2-v1 in --rules or --chunker")
    params = parse_rule_assignments(list(assignments), wanted_rules, bases) if wanted_rules else {}
    first = next(iter(params.values()), None)
    counter = first.token_counter if first is not None else "chars4/1"
    size = first.max_tokens if first is not None else 512

    specs: list[ChunkingSpec] = []
    for name in names:
        specs.append(_fixed_spec(size, counter) if name == FIXED else _rule_spec(name, params[name]))
    for spec in chunkers:
        kind, _, rest = spec.partition(":")
        if kind in BOUNDARY_RULES:
            changed = parse_assignments([a for a in rest.split(",") if a.strip()], params[kind])
            specs.append(_rule_spec(spec, changed))
        elif kind == FIXED:
            specs.append(_fixed_spec(size, counter))
        else:
            splitter = parse_chunker(spec, counter)
            if not isinstance(splitter, SplitterChunker):
                raise ParameterError("--chunker", "spans written for two versions (jsonl:) do not apply here; "
                                                  "name a splitter", spec)
            sized = "chunk_size=" in rest
            if not sized:
                splitter = splitter.with_chunk_size(size)
            specs.append(_external_spec(splitter, sized))
    if not specs:
        raise ParameterError("--rules", "name at least one chunker (tttd-v1, lmx2-v1, fixed, or --chunker)")
    labels = [s.name for s in specs]
    for label in labels:
        if labels.count(label) > 1:
            raise ParameterError("--chunker", f"{label!r} is asked for twice")
    return specs


@dataclass(frozen=True)
class _Mean:
    mean_chunk_tokens: float


def match_sizes(specs: Sequence[ChunkingSpec], corpora: Mapping[str, str], cache: dict | None = None,
                progress: Progress | None = None) -> list[ChunkingSpec]:
    """Each external splitter not given a chunk_size gets the chunk_size whose mean chunk
    tokens over all corpora come closest to the first rule's (bisection on chunk_size,
    external.match_mean_tokens). `cache` maps spec names to ChunkSets already made."""
    cache = cache if cache is not None else {}
    first_rule = next((s for s in specs if s.family == RULE), None)
    if first_rule is None:
        raise ParameterError("--match-size", "needs a rule to match (tttd-v1 or lmx2-v1)")
    target = cache.get(first_rule.name) or chunk_corpora(first_rule, corpora)
    cache[first_rule.name] = target
    out = []
    todo = sum(1 for s in specs if s.family == EXTERNAL and not s.sized)
    done = 0
    for spec in specs:
        if spec.family != EXTERNAL or spec.sized:
            out.append(spec)
            continue

        def run(splitter: SplitterChunker, _text: str) -> _Mean:
            return _Mean(chunk_corpora(_external_spec(splitter), corpora).mean_tokens)

        fitted = match_mean_tokens(spec.params, "", target.mean_tokens, run=run)
        out.append(_external_spec(fitted, sized=False))
        done += 1
        report(progress, done, todo)
    return out
