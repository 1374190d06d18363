"""What a sweep runs: its sources and parameter sets, and the fingerprint that names that
pairing (a journal is bound to it; Dask task keys carry it)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from .._version import __version__
from ..chunking.chunks import AnyParams
from .grid import ParamSet
from .tasks import PairsSource, RepoFileSource, Source

TaskKey = tuple[int, int]  # (source index, set index)


@dataclass(frozen=True)
class Batch:
    """What an executor runs as one unit: some sets of one source (tasks.run_batch)."""

    source: int
    sets: tuple[int, ...]

    def keys(self) -> list[TaskKey]:
        return [(self.source, s) for s in self.sets]


@dataclass(frozen=True)
class SweepPlan:
    sources: tuple[Source, ...]
    sets: tuple[ParamSet, ...]
    skipped: tuple[str, ...] = ()

    def task_keys(self) -> list[TaskKey]:
        return [(source, s.index) for s in self.sets for source in range(len(self.sources))]

    def params_of(self, set_index: int) -> AnyParams:
        return self.sets[set_index].params

    def batches(self, keys: Sequence[TaskKey], workers: int = 1) -> list[Batch]:
        """`keys` as the units executors run. A repository file's sets go together, so its
        history is walked once for all of them; on `workers` processes, a file's sets are
        dealt into as many batches as it takes for every worker to have one (each batch
        walks the file again: a worker reads it once). The repository batches come first,
        longest first, so the short ones fill in at the end; every other task runs alone,
        in `keys` order (its versions are in memory: no walk to share, and its word diffs
        are sliced over the workers before the tasks)."""
        by_file: dict[int, list[int]] = {}
        alone: list[Batch] = []
        for source, s in keys:
            if isinstance(self.sources[source], RepoFileSource):
                by_file.setdefault(source, []).append(s)
            else:
                alone.append(Batch(source, (s,)))
        per_file = -(-max(1, workers) // len(by_file)) if by_file else 1
        files: list[Batch] = []
        for source, sets in by_file.items():
            parts = min(per_file, len(sets))
            files.extend(Batch(source, tuple(sets[k::parts])) for k in range(parts))  # dealt: rules mixed evenly
        files.sort(key=lambda b: -self.sources[b.source].units * len(b.sets))
        return files + alone

    def fingerprint(self) -> str:
        """What a journal must match to be resumed: the tool's version (another version
        may count differently), the sources' contents, and the sets in grid order."""
        h = hashlib.sha256(f"steadlith-core {__version__}\0".encode())
        for source in self.sources:
            h.update(_source_digest(source))
        for s in self.sets:
            h.update(f"{s.index}\0{s.params.params_hash}\0".encode())
        return h.hexdigest()


def _source_digest(source: Source) -> bytes:
    h = hashlib.sha256(type(source).__name__.encode())
    if isinstance(source, PairsSource):
        parts = [x for pair in source.pairs for x in pair]
    elif isinstance(source, RepoFileSource):  # commit ids name the contents
        parts = [source.repo, source.path, *source.commits]
    else:
        parts = [*source.keys, *source.versions]
    for part in parts:
        data = part.encode("utf-8", "surrogatepass")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return h.digest()
