"""What a sweep runs: its sources and parameter sets, and the fingerprint that names that
pairing (a journal is bound to it; Dask task keys carry it)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .._version import __version__
from ..chunking.chunks import AnyParams
from .grid import ParamSet
from .tasks import PairsSource, RepoFileSource, Source

TaskKey = tuple[int, int]  # (source index, set index)


@dataclass(frozen=True)
class SweepPlan:
    sources: tuple[Source, ...]
    sets: tuple[ParamSet, ...]
    skipped: tuple[str, ...] = ()

    def task_keys(self) -> list[TaskKey]:
        return [(source, s.index) for s in self.sets for source in range(len(self.sources))]

    def params_of(self, set_index: int) -> AnyParams:
        return self.sets[set_index].params

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
