"""The unit of work of a sweep: one source (a document's history, or a batch of file
pairs) replayed under one parameter set, and the figures that come out of it.

A task is plain data and a pure function of it, so any executor can run it: the calling
process, a process pool, a Dask worker. What a task returns is made of integers only
(tokens, counts, a size histogram), so merging results is exact and the merged figures
are the same bytes whatever order the tasks finished in.

Sources travel to a worker once, not with every task (see sweep.run and sweep.dask):
a task names its source by index. A repository file's history is named by repository
path, file path and commit ids, and read on the worker (changes.file_versions); file
pairs and in-memory versions carry their text. A source's word diffs do not depend on
the set: the executors compute them once per sweep (source_diffs, in slices spread over
the workers) and hand them to each of its tasks (sweep.diffs).

Walking a file's history (resolving its commits, following renames, reading and
decoding every blob) costs more than chunking it under one set, so a repository file
runs as a batch of sets (run_batch): one walk, each version read once and handed to
every set in turn, one Pipeline for all of them (a version is scanned once; each set
adds its own cut stages), its word diff made once from the versions as they stream by.
Nothing holds the history: a batch keeps the version being replayed and, per set, the
chunking of the version before it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Sequence, Union

from ..chunking.chunks import AnyParams, Chunking
from ..chunking.pipeline import Pipeline
from ..comparison.churn import Comparison, compare
from ..comparison.external import EXTERNAL_KIND, ExternalChunking
from ..comparison.chunker_churn import churn_by_hash, compare_external
from ..errors import SteadlithError
from ..comparison.diff import DiffOp
from ..history.changes import FileVersion, file_versions
from ..progress import Progress, report
from .diffs import SourceDiffs, change_ops, diff_versions, unit_slices
from .external import ExternalParams


@dataclass(frozen=True)
class PairsSource:
    """Version pairs replayed independently: `(unit key, old text, new text)` each.

    The unit key is what per-unit figures (mean, p95) are counted by: a pair's number."""

    name: str
    pairs: tuple[tuple[str, str, str], ...]

    @property
    def units(self) -> int:
        return len(self.pairs)

    def size(self) -> int:
        return sum(len(a) + len(b) for _, a, b in self.pairs)


@dataclass(frozen=True)
class VersionsSource:
    """One document's history as its successive versions (oldest first); each version
    after the first is a unit, keyed by `keys[i]` (a commit id, a version number)."""

    name: str
    versions: tuple[str, ...]
    keys: tuple[str, ...]

    @property
    def units(self) -> int:
        return max(0, len(self.versions) - 1)

    def size(self) -> int:
        return sum(len(v) for v in self.versions)


@dataclass(frozen=True)
class RepoFileSource:
    """One file's history in a git repository: the commits (oldest first) that changed it,
    its path at the newest of them. Workers open `repo` themselves (a path they can see:
    a shared file system or their own clone), so a task carries ids, not blobs."""

    repo: str
    path: str
    commits: tuple[str, ...]

    @property
    def name(self) -> str:
        return self.path

    @property
    def units(self) -> int:
        return len(self.commits)


Source = Union[PairsSource, VersionsSource, RepoFileSource]


@dataclass(frozen=True)
class TaskResult:
    """The figures of one (source, parameter set) task; integers only, so they add up
    exactly. `units` gives (unit key, tokens to re-embed) per pair or commit;
    `size_counts` (chunk tokens, how many chunks) over every new version's chunks. The
    cut classes are None when not known (results saved before a repository replay
    reported them)."""

    source: int
    set: int
    units: tuple[tuple[str, int], ...]
    chunks_to_embed: int
    size_counts: tuple[tuple[int, int], ...]
    paragraph_cuts: int | None
    sentence_cuts: int | None
    interior_cuts: int | None
    violations: int
    phase_shift_regions: int

    @property
    def key(self) -> tuple[int, int]:
        return (self.source, self.set)

    def to_dict(self) -> dict:
        return {"source": self.source, "set": self.set, "units": [list(u) for u in self.units],
                "chunks_to_embed": self.chunks_to_embed, "size_counts": [list(s) for s in self.size_counts],
                "paragraph_cuts": self.paragraph_cuts, "sentence_cuts": self.sentence_cuts,
                "interior_cuts": self.interior_cuts, "violations": self.violations,
                "phase_shift_regions": self.phase_shift_regions}

    @classmethod
    def from_dict(cls, d: dict) -> "TaskResult":
        return cls(int(d["source"]), int(d["set"]), tuple((str(k), int(v)) for k, v in d["units"]),
                   int(d["chunks_to_embed"]), tuple((int(t), int(n)) for t, n in d["size_counts"]),
                   _count(d["paragraph_cuts"]), _count(d["sentence_cuts"]), _count(d["interior_cuts"]),
                   int(d["violations"]), int(d["phase_shift_regions"]))


def _count(value: object) -> int | None:
    return None if value is None else int(value)  # type: ignore[arg-type]


class _Tally:
    def __init__(self) -> None:
        self.units: list[tuple[str, int]] = []
        self.sizes: Counter[int] = Counter()
        self.chunks_to_embed = self.paragraph = self.sentence = self.interior = 0
        self.violations = self.regions = 0

    def add(self, key: str, c: Comparison) -> None:
        s = c.summary
        self.units.append((key, s.tokens_to_embed))
        self.chunks_to_embed += s.chunks_to_embed
        self.violations += s.violations
        self.regions += s.phase_shift_regions
        self._cuts(c.b)

    def add_all(self, key: str, b: Chunking) -> None:
        """A version with nothing before it to reuse (an added file): all of it to embed."""
        self.units.append((key, sum(ch.tokens for ch in b.chunks)))
        self.chunks_to_embed += len(b.chunks)
        self._cuts(b)

    def _cuts(self, b: Chunking) -> None:
        self.sizes.update(ch.tokens for ch in b.chunks)
        d = b.diagnostics
        self.paragraph += d.paragraph_boundaries
        self.sentence += d.sentence_boundaries
        self.interior += d.paragraph_boundaries + d.sentence_boundaries + d.word_boundaries

    def result(self, source: int, set_index: int) -> TaskResult:
        return TaskResult(source, set_index, tuple(self.units), self.chunks_to_embed, tuple(sorted(self.sizes.items())),
                          self.paragraph, self.sentence, self.interior, self.violations, self.regions)


def needs_diffs(params: AnyParams) -> bool:
    """Whether a task under `params` compares through word diffs (the rules do; an
    external splitter's churn is by chunk hash alone)."""
    return not isinstance(params, ExternalParams)


def diff_slices(source: Source, parts: int) -> list[tuple[int, int]]:
    """[lo, hi) unit ranges to diff `source` in, about `parts` of them: a repository
    file's history is one (its units are known only once its log is walked)."""
    if isinstance(source, RepoFileSource):
        return [(0, source.units)]
    return unit_slices(source.units, parts)


def source_diffs(source: Source, lo: int = 0, hi: int | None = None) -> SourceDiffs:
    """The word diffs of units [lo, hi) of `source` (all of them by default): what
    run_task compares every set's chunkings through. A repository file's units are its
    versions as file_versions yields them, an added one without a diff."""
    hi = source.units if hi is None else hi
    if isinstance(source, RepoFileSource):
        if (lo, hi) != (0, source.units):
            raise ValueError(f"{source.path}: a repository file's history is diffed whole, not units {lo}..{hi}")
        return diff_versions(0, ((v.old_text, v.new_text) for v in file_versions(source.repo, source.path,
                                                                                 source.commits)))
    if isinstance(source, PairsSource):
        return diff_versions(lo, ((a, b) for _, a, b in source.pairs[lo:hi]))
    return diff_versions(lo, zip(source.versions[lo:hi], source.versions[lo + 1 : hi + 1]))


def run_task(source: Source, source_index: int, params: AnyParams, set_index: int,
             progress: Progress | None = None, diffs: Sequence[SourceDiffs] | None = None) -> TaskResult:
    """Replay `source` under `params`. `progress(done, total)` counts its units. `diffs`:
    the source's word diffs (source_diffs), in pieces that together cover every unit;
    computed here when not given."""
    if isinstance(source, RepoFileSource):
        return _replay_repo_file(source, source_index, ((set_index, params),), diffs, progress)[0]
    if isinstance(params, ExternalParams):
        return _run_external(source, source_index, params, set_index, progress)
    shared = SourceDiffs.join(diffs) if diffs else source_diffs(source)
    pipeline = Pipeline(4, pause_gc=True)  # the task's own chunk caches; the diffs are shared
    tally = _Tally()
    if isinstance(source, PairsSource):
        for n, (key, a, b) in enumerate(source.pairs):
            tally.add(key, _compare(pipeline.chunk(a, params), pipeline.chunk(b, params), shared, n))
            report(progress, n + 1, source.units)
    else:
        previous = pipeline.chunk(source.versions[0], params) if source.versions else None
        for n in range(1, len(source.versions)):
            current = pipeline.chunk(source.versions[n], params)
            tally.add(source.keys[n], _compare(previous, current, shared, n - 1))
            previous = current
            report(progress, n, source.units)
    return tally.result(source_index, set_index)


def _compare(a: Chunking, b: Chunking, diffs: SourceDiffs, unit: int) -> Comparison:
    # a sweep reports no fixed-size baseline: computing one would be thrown away
    return compare(a, b, baseline=False, ops=diffs.ops(unit))


def run_batch(source: Source, source_index: int, sets: Sequence[tuple[int, AnyParams]],
              progress: Progress | None = None, diffs: Sequence[SourceDiffs] | None = None) -> tuple[TaskResult, ...]:
    """The tasks of `source` under each (set index, params) of `sets`, in that order. A
    repository file's history is walked once for all of them (see the module); other
    sources run their tasks one after the other (their versions are in memory already).
    `diffs`: the source's word diffs, for the rule sets; a repository file's are made
    here when not given."""
    if isinstance(source, RepoFileSource):
        return _replay_repo_file(source, source_index, sets, diffs, progress)
    return tuple(run_task(source, source_index, params, s, progress, diffs) for s, params in sets)


class _RuleReplay:
    """One rule set's replay of a file's history: its tally and the chunking of the last
    version (a change's "after" is the next change's "before": chunked once)."""

    def __init__(self, set_index: int, params: AnyParams, pipeline: Pipeline):
        self.set_index, self.params, self.pipeline = set_index, params, pipeline
        self.tally = _Tally()
        self.last: tuple[object, Chunking] | None = None

    def before(self, v: FileVersion) -> Chunking:
        if self.last is not None and self.last[0] == v.old_blob:
            return self.last[1]
        return self.pipeline.chunk(v.old_text, self.params)


class _ExternalReplay:
    """An external splitter's replay of a file's history (churn by hash)."""

    def __init__(self, set_index: int, params: ExternalParams):
        self.set_index, self.chunk = set_index, params.chunker.chunk
        self.tally = _ExternalTally()
        self.last: tuple[object, ExternalChunking] | None = None

    def add(self, v: FileVersion) -> None:
        before = None
        if v.old_text is not None:
            before = self.last[1] if self.last is not None and self.last[0] == v.old_blob else self.chunk(v.old_text)
        after = self.chunk(v.new_text)
        self.tally.add(v.commit, before, after)
        self.last = (v.new_blob, after)


def _replay_repo_file(source: RepoFileSource, source_index: int, sets: Sequence[tuple[int, AnyParams]],
                      diffs: Sequence[SourceDiffs] | None, progress: Progress | None) -> tuple[TaskResult, ...]:
    """The file's versions (changes.file_versions: what `audit` compares for this file),
    walked once, each chunked under every set of `sets` and compared: each commit's cost
    as the audit counts it under each rule, and each external splitter's churn. The
    rule sets compare through `diffs` when given, else through the word diff of each
    change, made here once for all of them."""
    # the versions' scans, shared by every rule set; the word diff reads a long version's symbols too
    pipeline = Pipeline(2, pause_gc=True, word_symbols=True)
    rules = [_RuleReplay(s, p, pipeline) for s, p in sets if needs_diffs(p)]
    externals = [_ExternalReplay(s, p) for s, p in sets if isinstance(p, ExternalParams)]
    shared = SourceDiffs.join(diffs) if diffs and rules else None
    unit = -1
    for unit, v in enumerate(file_versions(source.repo, source.path, source.commits, progress)):
        ops: tuple[DiffOp, ...] | None = shared.ops(unit) if shared is not None else None
        for r in rules:
            b = r.pipeline.chunk(v.new_text, r.params)
            if v.old_text is None:
                r.tally.add_all(v.commit, b)
            else:
                a = r.before(v)
                if ops is None:  # the word diff does not depend on the set
                    ops = change_ops(a.words, b.words)
                r.tally.add(v.commit, compare(a, b, baseline=False, ops=ops))
            r.last = (v.new_blob, b)
        for e in externals:
            e.add(v)
    if shared is not None and unit + 1 != shared.units:
        raise SteadlithError(f"{source.path}: {unit + 1} versions, but diffs of {shared.units}: the repository "
                             "changed during the sweep")
    done = {r.set_index: r.tally.result(source_index, r.set_index) for r in rules}
    done.update((e.set_index, e.tally.result(source_index, e.set_index)) for e in externals)
    return tuple(done[s] for s, _ in sets)


class _ExternalTally:
    """An external splitter's figures: churn by hash, sizes of the new version's spans;
    no cut classes, no locality margin (None)."""

    def __init__(self) -> None:
        self.units: list[tuple[str, int]] = []
        self.sizes: Counter[int] = Counter()
        self.chunks_to_embed = 0

    def add(self, key: str, a: ExternalChunking | None, b: ExternalChunking) -> None:
        # no version before (an added file): every chunk is to embed, as for the rules
        churn = compare_external(a, b) if a is not None else churn_by_hash(b.chunker, EXTERNAL_KIND, (), b.chunks)
        self.units.append((key, churn.tokens_to_embed))
        self.chunks_to_embed += churn.chunks_to_embed
        self.sizes.update(c.tokens for c in b.chunks)

    def result(self, source: int, set_index: int) -> TaskResult:
        return TaskResult(source, set_index, tuple(self.units), self.chunks_to_embed, tuple(sorted(self.sizes.items())),
                          None, None, None, 0, 0)


def _run_external(source: Source, source_index: int, params: ExternalParams, set_index: int,
                  progress: Progress | None) -> TaskResult:
    """An external splitter over pairs or versions (a repository file's history runs
    through _replay_repo_file)."""
    chunk = params.chunker.chunk
    tally = _ExternalTally()
    if isinstance(source, PairsSource):
        for n, (key, a, b) in enumerate(source.pairs):
            tally.add(key, chunk(a), chunk(b))
            report(progress, n + 1, source.units)
    elif isinstance(source, VersionsSource):
        previous = chunk(source.versions[0]) if source.versions else None
        for n in range(1, len(source.versions)):
            current = chunk(source.versions[n])
            tally.add(source.keys[n], previous, current)
            previous = current
            report(progress, n, source.units)
    return tally.result(source_index, set_index)


def batch_pairs(pairs: Sequence[tuple[str, str, str]], *, chars_per_task: int = 2_000_000,
                name: str = "pairs") -> tuple[PairsSource, ...]:
    """Pairs cut into batches of about `chars_per_task` characters, in order: a pair of
    small files takes milliseconds, and a task should run long enough (seconds) that
    shipping it costs little beside it."""
    batches: list[PairsSource] = []
    current: list[tuple[str, str, str]] = []
    size = 0
    for pair in pairs:
        current.append(pair)
        size += len(pair[1]) + len(pair[2])
        if size >= chars_per_task:
            batches.append(PairsSource(f"{name} {len(batches) + 1}", tuple(current)))
            current, size = [], 0
    if current:
        batches.append(PairsSource(f"{name} {len(batches) + 1}", tuple(current)))
    return tuple(batches)
