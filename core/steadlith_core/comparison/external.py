"""External chunkers: churn of any chunking that turns text into spans, beside the rules.

An *external chunker* is anything outside the contract that cuts a text into spans:
LangChain's RecursiveCharacterTextSplitter, LlamaIndex's SentenceSplitter, chonkie's
RecursiveChunker, semchunk (each imported only when used), or spans another pipeline
wrote to JSONL. None of them has fingerprints or cut kinds; every span is kind
"external".

- **Offsets** are code points (Python str indices). A span is checked against its
  document: it must lie inside it, be non-empty and, when the chunker also gave its
  text, that text must be exactly `document[start:end]`. A span that fails is one
  `ExternalChunkError` naming the span (and the JSONL line).
- **Identity**: a span's hash is xxh3-128 (hex) of the UTF-8 bytes of
  `document[start:end]`, exactly as it stands (no normalization, nothing prefixed):
  the text the external pipeline embeds, so the key its own cache would use.
- **Tokens**: the rules' token counter (`chars4/1` unless told) over the words of the
  span's text, so sizes and tokens to embed are in the same unit as the rules'. A span
  that cuts through a word counts the pieces as words.
- **Churn** (`churn_by_hash`): a B chunk whose hash occurs among A's chunks is reused
  (an embedding cache keyed by chunk hash would hit it); the rest is to embed. The same
  function reads the rules' and the baseline's chunks, so every row of
  `compare_chunkers` is measured the same way; for a rule it equals the comparison's
  reused chunks plus its unaligned hash hits.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Protocol, Sequence

import xxhash

from ..chunking import tokens as token_counters
from ..chunking.chunks import AnyParams
from ..chunking.normalize import normalize
from ..chunking.rules import rule_of
from ..errors import ParameterError, SteadlithError, import_extra, pip_extra
from ..jsonl import MiB, JsonlError, Limits, read_jsonl
from ..vocabulary import NEW, REMOVED, REUSED
from .analysis import Analysis
from .baseline import FixedTokenParams, baseline_for, chunk_fixed

EXTERNAL_KIND = "external"
SCHEMA = "steadlith-compare-chunkers/1"


class ExternalChunkError(SteadlithError, ValueError):
    """An external chunker's output does not fit its document, or the chunker cannot run."""


@dataclass(frozen=True)
class ExternalSpan:
    """One chunk of an external chunking: [start, end) in code points of the document."""

    index: int
    start: int
    end: int
    tokens: int
    text: str  # document[start:end], exactly
    hash: str
    kind: str = EXTERNAL_KIND
    # what a rule's Chunk also says, so one tooltip or table row reads both: an external
    # cut is never snapped, and its boundary is the external chunker's, not a word class
    snapped = False
    boundary = EXTERNAL_KIND

    @property
    def word_count(self) -> int:
        return len(self.text.split())


@dataclass(frozen=True)
class ExternalSizes:
    """The sizes a pane header shows for an external chunking (a rule's Diagnostics has more)."""

    chunk_count: int
    word_count: int
    total_tokens: int


@dataclass(frozen=True, eq=False)
class ExternalChunking:
    """An external chunker's spans over one document. `chunker` names the chunker with
    its settings (e.g. "langchain-recursive(chunk_size=300, chunk_overlap=0)")."""

    chunker: str
    text: str
    chunks: tuple[ExternalSpan, ...]
    token_counter: str

    @property
    def tokens(self) -> int:
        return sum(c.tokens for c in self.chunks)

    @property
    def mean_chunk_tokens(self) -> float:
        return self.tokens / len(self.chunks) if self.chunks else 0.0

    @property
    def boundary_rule(self) -> str:
        return EXTERNAL_KIND

    @property
    def diagnostics(self) -> ExternalSizes:
        return ExternalSizes(len(self.chunks), sum(c.word_count for c in self.chunks), self.tokens)


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def span_hash(text: str) -> str:
    """The identity of an external chunk: xxh3-128 of its text's UTF-8 bytes."""
    return xxhash.xxh3_128_hexdigest(text.encode("utf-8", "surrogatepass"))


def text_tokens(text: str, token_counter: str = "chars4/1") -> int:
    """Tokens of a piece of text under a rule's counter: the sum over its words."""
    words = normalize(text)
    if not len(words):
        return 0
    return int(token_counters.get_counter(token_counter).count(words).sum())


def _canonical(piece: str) -> str:
    """`piece` as a chunk's `text` field gives it (docs/contract/normalizer.md#canonical-text):
    `steadlith chunk --format jsonl` writes offsets into the document beside the canonical
    text, and its output is read back as spans."""
    words = normalize(piece)
    return words.canonical_text(0, len(words))


def chunking_from_offsets(chunker: str, document: str, spans: Iterable[tuple[int, int]],
                          token_counter: str = "chars4/1", *, texts: Sequence[str | None] | None = None,
                          labels: Sequence[str] | None = None) -> ExternalChunking:
    """Check each (start, end) against `document` (and its text, when given) and hash it.
    `labels` name the spans in errors (default "span N", counted from 1)."""
    out = []
    n = len(document)
    for i, (start, end) in enumerate(spans):
        label = labels[i] if labels is not None else f"span {i + 1}"
        if type(start) is not int or type(end) is not int:
            raise ExternalChunkError(f"{chunker}: {label}: start and end must be integers, got {start!r}, {end!r}")
        if not 0 <= start < end <= n:
            raise ExternalChunkError(
                f"{chunker}: {label}: [{start}, {end}) is not a non-empty range inside the document "
                f"(0 to {n} code points)")
        piece = document[start:end]
        given = texts[i] if texts is not None else None
        if given is not None and given != piece and given != _canonical(piece):
            raise ExternalChunkError(
                f"{chunker}: {label}: its text does not match the document at [{start}, {end}): "
                f"text starts {given[:30]!r}, document there {piece[:30]!r}")
        out.append(ExternalSpan(len(out), start, end, text_tokens(piece, token_counter), piece, span_hash(piece)))
    return ExternalChunking(chunker, document, tuple(out), token_counter)


def locate_texts(chunker: str, document: str, texts: Sequence[str],
                 labels: Sequence[str] | None = None) -> list[tuple[int, int]]:
    """Offsets of chunk texts given without them, searched in order. A chunk starts after
    the previous chunk's start (splitters with overlap re-use its tail); when it also
    occurs right after the previous chunk (only whitespace between), that place wins, so
    repeated text is not matched inside the previous chunk."""
    offsets: list[tuple[int, int]] = []
    prev_start, prev_end = -1, 0
    for i, piece in enumerate(texts):
        label = labels[i] if labels is not None else f"chunk {i + 1}"
        if not isinstance(piece, str) or not piece:
            raise ExternalChunkError(f"{chunker}: {label}: chunk text must be a non-empty string")
        after = document.find(piece, prev_end)
        if after >= 0 and (after == prev_end or document[prev_end:after].isspace()):
            start = after
        else:
            start = document.find(piece, prev_start + 1)
        if start < 0:
            raise ExternalChunkError(
                f"{chunker}: {label}: its text ({piece[:30]!r}) does not occur in the document "
                f"after code point {prev_start + 1}")
        offsets.append((start, start + len(piece)))
        prev_start, prev_end = start, start + len(piece)
    return offsets


def chunking_from_texts(chunker: str, document: str, texts: Sequence[str], token_counter: str = "chars4/1",
                        labels: Sequence[str] | None = None) -> ExternalChunking:
    offsets = locate_texts(chunker, document, texts, labels)
    return chunking_from_offsets(chunker, document, offsets, token_counter, labels=labels)


# -- JSONL import --------------------------------------------------------------------------


def read_spans_jsonl(path: str | Path, document: str, token_counter: str = "chars4/1",
                     name: str | None = None) -> ExternalChunking:
    """Spans another pipeline wrote, one JSON object a line: {"start": s, "end": e} in code
    points (with an optional "text", then checked), or {"text": ...} alone (located in
    the document in order). Blank lines are skipped; errors name the file and line."""
    path = Path(path)
    label = name or f"jsonl:{path.name}"
    # spans with their texts can outweigh the document (overlap repeats text): room for
    # that, and a bound all the same for a file that never ends
    limits = Limits(max_bytes=max(64 * MiB, 8 * len(document) + 16 * MiB), max_depth=4)
    records: list[tuple[str, dict]] = []
    try:
        with open(path, "rb") as stream:
            for number, obj in read_jsonl(stream, limits):
                where = f"{path}:{number}"
                if not isinstance(obj, dict) or not ({"start", "end"} <= obj.keys() or "text" in obj):
                    raise ExternalChunkError(f'{label}: {where}: expected {{"start": …, "end": …}} or '
                                             '{"text": …}')
                records.append((where, obj))
    except JsonlError as e:
        raise ExternalChunkError(f"{label}: {path}:{e.line}: {e.problem}") from None
    except OSError as e:
        raise ExternalChunkError(f"{label}: cannot read {path}: {e.strerror or e}") from None
    labels = [w for w, _ in records]
    with_offsets = ["start" in o for _, o in records]
    if all(with_offsets):
        return chunking_from_offsets(label, document, [(o["start"], o["end"]) for _, o in records], token_counter,
                                     texts=[o.get("text") for _, o in records], labels=labels)
    if any(with_offsets):
        first = labels[with_offsets.index(False)]
        raise ExternalChunkError(f"{label}: {first}: every line needs start and end once one has them")
    return chunking_from_texts(label, document, [o["text"] for _, o in records], token_counter, labels)


def spans_jsonl(chunking: ExternalChunking) -> str:
    """The spans as JSON Lines that read_spans_jsonl reads back: start and end in code
    points, the exact text, its hash and tokens, and the chunker that cut them."""
    return "".join(json.dumps({"index": c.index, "start": c.start, "end": c.end, "tokens": c.tokens, "hash": c.hash,
                               "chunker": chunking.chunker, "text": c.text}, ensure_ascii=False) + "\n"
                   for c in chunking.chunks)


# -- splitters of other libraries -----------------------------------------------------------


class ExternalChunker(Protocol):
    """What compare_chunkers takes besides rule parameters."""

    name: str

    def chunk_pair(self, text_a: str, text_b: str) -> tuple[ExternalChunking, ExternalChunking]: ...


def _require(module: str, extra: str, chunker: str) -> Any:
    return import_extra(module, extra, chunker, ExternalChunkError)


@dataclass(frozen=True)
class SplitterChunker:
    """A size-driven splitter of another library, sized in the rules' tokens: its length
    function (or tokenizer) is `token_counter` over the words of a piece, so `chunk_size`
    means the same tokens as max_tokens."""

    kind: str  # a key of SPLITTERS
    chunk_size: int = 512
    chunk_overlap: int = 0
    token_counter: str = "chars4/1"

    def __post_init__(self) -> None:
        if self.kind not in SPLITTERS:
            raise ParameterError("chunker", f"unknown chunker {self.kind!r}; known: {', '.join(SPLITTERS)}", self.kind)
        if type(self.chunk_size) is not int or self.chunk_size < 1:
            raise ParameterError("chunk_size", f"must be an integer >= 1, got {self.chunk_size!r}", self.chunk_size)
        if type(self.chunk_overlap) is not int or not 0 <= self.chunk_overlap < self.chunk_size:
            raise ParameterError("chunk_overlap", f"must be an integer in [0, chunk_size), got {self.chunk_overlap!r}",
                                 self.chunk_overlap)
        if self.kind in NO_OVERLAP and self.chunk_overlap:
            raise ParameterError("chunk_overlap", f"{self.kind} has no overlap", self.chunk_overlap)
        token_counters.get_counter(self.token_counter)

    @property
    def name(self) -> str:
        overlap = f", chunk_overlap={self.chunk_overlap}" if self.kind not in NO_OVERLAP else ""
        return f"{self.kind}(chunk_size={self.chunk_size}{overlap})"

    def length(self) -> Callable[[str], int]:
        counter = self.token_counter
        return lambda piece: text_tokens(piece, counter)

    def chunk(self, text: str) -> ExternalChunking:
        try:
            return SPLITTERS[self.kind](self, text)
        except (SteadlithError, MemoryError):  # already one line; memory is the caller's to report
            raise
        except Exception as e:  # another library's failure (an import, a setting it cannot take): one line
            library = _MODULES.get(self.kind, self.kind).split(".")[0]
            detail = " ".join(str(e).split())
            raise ExternalChunkError(f"{self.name}: {library} failed on this text: {type(e).__name__}"
                                     f"{': ' + _short(detail) if detail else ''}") from None

    def chunk_pair(self, text_a: str, text_b: str) -> tuple[ExternalChunking, ExternalChunking]:
        return self.chunk(text_a), self.chunk(text_b)

    def with_chunk_size(self, chunk_size: int) -> "SplitterChunker":
        return replace(self, chunk_size=chunk_size, chunk_overlap=min(self.chunk_overlap, chunk_size - 1))


def _langchain_recursive(c: SplitterChunker, text: str) -> ExternalChunking:
    module = _require("langchain_text_splitters", "langchain", c.kind)
    splitter = module.RecursiveCharacterTextSplitter(chunk_size=c.chunk_size, chunk_overlap=c.chunk_overlap,
                                                     length_function=c.length())
    return chunking_from_texts(c.name, text, splitter.split_text(text), c.token_counter)


def _llama_index_sentence(c: SplitterChunker, text: str) -> ExternalChunking:
    # Our tokenizer, not llama-index's default tiktoken encoding: sizes in the rules'
    # tokens, and no tokenizer file to fetch (its bundled NLTK data covers sentences).
    module = _require("llama_index.core.node_parser", "llama-index", c.kind)
    length = c.length()
    splitter = module.SentenceSplitter(chunk_size=c.chunk_size, chunk_overlap=c.chunk_overlap,
                                       tokenizer=lambda piece: [0] * length(piece))
    return chunking_from_texts(c.name, text, splitter.split_text(text), c.token_counter)


def _chonkie_recursive(c: SplitterChunker, text: str) -> ExternalChunking:
    module = _require("chonkie", "external", c.kind)
    chunker = module.RecursiveChunker(tokenizer=c.length(), chunk_size=c.chunk_size)
    found = chunker(text)
    return chunking_from_offsets(c.name, text, [(x.start_index, x.end_index) for x in found], c.token_counter,
                                 texts=[x.text for x in found])


def _semchunk(c: SplitterChunker, text: str) -> ExternalChunking:
    module = _require("semchunk", "external", c.kind)
    texts, offsets = module.chunk(text, c.chunk_size, c.length(), offsets=True,
                                  overlap=c.chunk_overlap or None)
    return chunking_from_offsets(c.name, text, [tuple(o) for o in offsets], c.token_counter, texts=texts)


def _fixed_tokens(c: SplitterChunker, text: str) -> ExternalChunking:
    # the baseline at any window, so --match-size can size it like the splitters
    fixed = chunk_fixed(text, FixedTokenParams(c.chunk_size, c.token_counter))
    return chunking_from_offsets(c.name, text, [(x.start, x.end) for x in fixed.chunks], c.token_counter)


SPLITTERS: dict[str, Callable[[SplitterChunker, str], ExternalChunking]] = {
    "langchain-recursive": _langchain_recursive,
    "llama-index-sentence": _llama_index_sentence,
    "chonkie-recursive": _chonkie_recursive,
    "semchunk": _semchunk,
    "fixed-tokens": _fixed_tokens,
}
NO_OVERLAP = frozenset({"chonkie-recursive", "fixed-tokens"})
_MODULES = {"langchain-recursive": "langchain_text_splitters", "llama-index-sentence": "llama_index.core",
            "chonkie-recursive": "chonkie", "semchunk": "semchunk"}


_EXTRAS = {"langchain-recursive": "langchain", "llama-index-sentence": "llama-index",
           "chonkie-recursive": "external", "semchunk": "external"}


def install_hint(kind: str) -> str:
    """How to get a splitter that is not installed (the pip command with its extra)."""
    return pip_extra(_EXTRAS[kind]) if kind in _EXTRAS else ""


def installed_splitters() -> list[str]:
    """The splitters whose library is importable here (found without importing it)."""
    from importlib.util import find_spec

    def present(module: str) -> bool:
        try:
            return find_spec(module) is not None
        except ModuleNotFoundError:
            return False

    return [k for k in SPLITTERS if k not in _MODULES or present(_MODULES[k])]


@dataclass(frozen=True)
class JsonlChunker:
    """Spans of A and B read from two JSONL files (read_spans_jsonl)."""

    path_a: str
    path_b: str
    token_counter: str = "chars4/1"

    @property
    def name(self) -> str:
        return f"jsonl({Path(self.path_a).name},{Path(self.path_b).name})"

    def chunk_pair(self, text_a: str, text_b: str) -> tuple[ExternalChunking, ExternalChunking]:
        return (read_spans_jsonl(self.path_a, text_a, self.token_counter, self.name),
                read_spans_jsonl(self.path_b, text_b, self.token_counter, self.name))


def match_mean_tokens(chunker: SplitterChunker, text: str, target: float, *, lo: int = 4,
                      hi: int | None = None,
                      run: Callable[[SplitterChunker, str], ExternalChunking] | None = None) -> SplitterChunker:
    """The chunker at the chunk_size whose mean chunk tokens on `text` come closest to
    `target` (mean tokens grow with chunk_size: bisection, then the nearer neighbour).
    `run(chunker, text)` chunks one candidate size (default: chunker.chunk(text)); a
    caller that caches chunkings passes its cached lookup, so sizes tried before cost
    nothing."""
    hi = hi or max(lo + 1, int(target * 8))
    cache: dict[int, float] = {}
    run = run or (lambda c, t: c.chunk(t))

    def mean(size: int) -> float:
        if size not in cache:
            cache[size] = run(chunker.with_chunk_size(size), text).mean_chunk_tokens
        return cache[size]

    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mean(mid) < target:
            lo = mid
        else:
            hi = mid
    best = min((lo, hi), key=lambda s: (abs(mean(s) - target), s))
    return chunker.with_chunk_size(best)


# -- churn, one measure for every chunker ----------------------------------------------------


@dataclass(frozen=True)
class ChunkerChurn:
    """One row of the side-by-side table: a chunker's churn between A and B, by hash.

    family: "rule", "baseline" or "external". tokens_b is the sum of B's chunk tokens
    (more than the document's with overlapping spans: overlap is embedded twice).
    reused_*: B chunks whose hash occurs among A's; the rest is to embed."""

    chunker: str
    family: str
    chunks_a: int
    chunks_b: int
    tokens_a: int
    tokens_b: int
    mean_chunk_tokens_b: float
    reused_chunks: int
    reused_tokens: int
    reused_token_ratio: float
    chunks_to_embed: int
    tokens_to_embed: int
    settings: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


class _Hashed(Protocol):
    hash: str
    tokens: int


def churn_by_hash(chunker: str, family: str, chunks_a: Sequence[_Hashed], chunks_b: Sequence[_Hashed],
                  settings: Mapping[str, Any] | None = None) -> ChunkerChurn:
    seen = {c.hash for c in chunks_a}
    tokens_b = sum(c.tokens for c in chunks_b)
    hits = [c for c in chunks_b if c.hash in seen]
    reused_tokens = sum(c.tokens for c in hits)
    return ChunkerChurn(
        chunker=chunker, family=family,
        chunks_a=len(chunks_a), chunks_b=len(chunks_b),
        tokens_a=sum(c.tokens for c in chunks_a), tokens_b=tokens_b,
        mean_chunk_tokens_b=tokens_b / len(chunks_b) if chunks_b else 0.0,
        reused_chunks=len(hits), reused_tokens=reused_tokens,
        reused_token_ratio=reused_tokens / tokens_b if tokens_b else 1.0,
        chunks_to_embed=len(chunks_b) - len(hits), tokens_to_embed=tokens_b - reused_tokens,
        settings=dict(settings or {}),
    )


def statuses_by_hash(a: Sequence[_Hashed], b: Sequence[_Hashed]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Per-chunk statuses an external chunking can have, for a pane: a chunk whose hash
    the other version also has is reused; the rest is removed (A) or new (B). Spans need
    not follow words, so there is no "edited" or "shifted" here."""
    in_a, in_b = {c.hash for c in a}, {c.hash for c in b}
    return (tuple(REUSED if c.hash in in_b else REMOVED for c in a),
            tuple(REUSED if c.hash in in_a else NEW for c in b))


def compare_external(a: ExternalChunking, b: ExternalChunking) -> ChunkerChurn:
    """Churn of one external chunker between two versions."""
    if a.token_counter != b.token_counter:
        raise ExternalChunkError(f"{a.chunker}: A counted with {a.token_counter}, B with {b.token_counter}")
    return churn_by_hash(a.chunker, "external", a.chunks, b.chunks, {"token_counter": a.token_counter})


def compare_chunkers(text_a: str, text_b: str, chunkers: Sequence[AnyParams | ExternalChunker], *,
                     baseline: bool = True, analysis: Analysis | None = None) -> list[ChunkerChurn]:
    """The same two versions under boundary rules (their parameters) and external
    chunkers, one ChunkerChurn each in the order given; with `baseline`, the fixed-size
    baseline of each distinct window follows the last rule."""
    analysis = analysis if analysis is not None else Analysis()
    rows: list[ChunkerChurn] = []
    baselines: list[ChunkerChurn] = []
    windows: set[tuple[int, str]] = set()
    externals: list[ChunkerChurn] = []
    for item in chunkers:
        if hasattr(item, "chunk_pair"):
            externals.append(compare_external(*item.chunk_pair(text_a, text_b)))
            continue
        rule = rule_of(item)
        a, b = analysis.chunk(text_a, item), analysis.chunk(text_b, item)
        rows.append(churn_by_hash(rule, "rule", a.chunks, b.chunks, item.to_dict()))
        window = (item.max_tokens, item.token_counter)
        if baseline and window not in windows:
            windows.add(window)
            fa, fb = baseline_for(a), baseline_for(b)
            baselines.append(churn_by_hash(f"{fa.boundary_rule}({item.max_tokens})", "baseline", fa.chunks,
                                           fb.chunks, {"max_tokens": item.max_tokens,
                                                       "token_counter": item.token_counter}))
    return rows + baselines + externals


def chunkers_json(rows: Sequence[ChunkerChurn], name_a: str, name_b: str) -> dict:
    return {"schema": SCHEMA, "a": name_a, "b": name_b, "chunkers": [r.to_dict() for r in rows]}


def chunkers_table(rows: Sequence[ChunkerChurn]) -> list[str]:
    """The rows as aligned text lines (the CLI's table)."""
    head = ("chunker", "chunks A|B", "mean tok B", "reused chunks", "reused tokens", "to embed")
    body = [
        (r.chunker, f"{r.chunks_a}|{r.chunks_b}", f"{r.mean_chunk_tokens_b:.0f}",
         f"{r.reused_chunks} of {r.chunks_b}", f"{r.reused_tokens} of {r.tokens_b} ({100 * r.reused_token_ratio:.1f}%)",
         f"{r.tokens_to_embed} tokens")
        for r in rows
    ]
    widths = [max(len(row[i]) for row in [head, *body]) for i in range(len(head))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in [head, *body]]


def parse_chunker(spec: str, token_counter: str = "chars4/1") -> SplitterChunker | JsonlChunker:
    """A --chunker value other than a rule: NAME[:chunk_size=N[,chunk_overlap=M]] or
    jsonl:PATH_A,PATH_B."""
    if spec.startswith("jsonl:"):
        paths = spec[len("jsonl:"):].split(",")
        if len(paths) != 2 or not all(paths):
            raise ParameterError("chunker", f"jsonl takes two files, jsonl:SPANS_A.jsonl,SPANS_B.jsonl; got {spec!r}",
                                 spec)
        return JsonlChunker(paths[0], paths[1], token_counter)
    kind, _, rest = spec.partition(":")
    if kind not in SPLITTERS:
        known = ", ".join([*SPLITTERS, "jsonl:A,B"])
        raise ParameterError("chunker", f"unknown chunker {kind!r}; known: {known}", spec)
    options: dict[str, int] = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if key not in ("chunk_size", "chunk_overlap") or not eq or not value.strip().isdigit():
            raise ParameterError("chunker", f"{kind}: expected chunk_size=N or chunk_overlap=N, got {item!r}", spec)
        options[key] = int(value)
    return SplitterChunker(kind, token_counter=token_counter, **options)
