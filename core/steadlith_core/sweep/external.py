"""External splitters as rows of a sweep: `--chunker NAME[:chunk_size=N]` beside the
boundary rules, and `--grid chunk_size=…` as their grid dimension.

An external row is measured the way `compare --chunker` measures it (external.
churn_by_hash): a B chunk whose hash occurs among A's chunks is reused, the rest is
to embed; sizes are the new version's spans. A splitter has no cut classes and no
locality margin, so those figures are not known for its rows (None, shown "–").

`chunk_size` is not a field of either rule: it goes to the external chunkers only. A
grid that has it and no external chunker says so once, and the rules run as if it
were not there.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Sequence

from ..comparison.external import EXTERNAL_KIND, SplitterChunker, install_hint, installed_splitters, parse_chunker
from ..errors import ParameterError

CHUNK_SIZE = "chunk_size"


@dataclass(frozen=True)
class ExternalParams:
    """What a sweep task runs for an external row: a splitter with its size. Has the
    params_hash a rule's parameters have, so plans, journals and rows read both alike."""

    chunker: SplitterChunker

    @property
    def params_hash(self) -> str:
        # the name carries kind, size and overlap; the counter decides the sizes
        key = f"{EXTERNAL_KIND}\0{self.chunker.name}\0{self.chunker.token_counter}"
        return hashlib.sha256(key.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class ExternalSet:
    """One external row of the sweep, numbered after the rules' sets."""

    index: int
    params: ExternalParams
    assignments: tuple[tuple[str, int | str], ...]

    @property
    def rule(self) -> str:
        return EXTERNAL_KIND

    @property
    def label(self) -> str:
        return self.params.chunker.name


def split_chunk_size(entries: Sequence[str]) -> tuple[list[str], str | None]:
    """The --grid entries for the rules, and the chunk_size entry's values (None if absent)."""
    rules, sizes = [], None
    for entry in entries:
        name, sep, values = entry.partition("=")
        if sep and name.strip() == CHUNK_SIZE:
            sizes = values if sizes is None else sizes  # given twice: the first counts, as for the rules
        else:
            rules.append(entry)
    return rules, sizes


def external_sets(specs: Sequence[str], sizes: str | None, *, first_index: int, token_counter: str,
                  default_size: int | None, none_chosen: str = "no --chunker is given"
                  ) -> tuple[tuple[ExternalSet, ...], tuple[str, ...]]:
    """One set per --chunker spec × chunk_size of the grid, and one message per thing
    skipped (a splitter not installed, a size that is not a size). Without a grid size,
    a spec without chunk_size is sized at `default_size` (the base's max_tokens), as
    the lab does, so its row is comparable with the rules' rows. `none_chosen` ends the
    message of a grid size without any splitter (the window names its own control)."""
    skipped: list[str] = []
    if sizes is not None and not specs:
        return (), (f"grid entry skipped: {CHUNK_SIZE}: sizes external chunkers only, and {none_chosen}",)
    grid_sizes: list[int] = []
    for value in (v.strip() for v in (sizes or "").split(",")):
        if not value:
            continue
        if value.isdigit() and int(value) >= 1:
            grid_sizes.append(int(value))
        else:
            skipped.append(f"grid value skipped: {CHUNK_SIZE}: must be an integer >= 1, got {value!r}")
    if sizes is not None and not grid_sizes:
        skipped.append(f"grid entry skipped: {CHUNK_SIZE}: no size left; the chunkers keep their own")
    installed = set(installed_splitters())
    sets: list[ExternalSet] = []
    seen: set[str] = set()
    for spec in specs:
        chunker = parse_chunker(spec, token_counter)
        if not isinstance(chunker, SplitterChunker):
            raise ParameterError("--chunker", "a sweep replays many pairs: spans written for one pair (jsonl:) "
                                              "cannot be its rows; name a splitter", spec)
        if chunker.kind not in installed:
            skipped.append(f"chunker skipped: {chunker.kind} is not installed ({install_hint(chunker.kind)})")
            continue
        if grid_sizes:
            chosen = [(chunker.with_chunk_size(n), ((CHUNK_SIZE, n),)) for n in dict.fromkeys(grid_sizes)]
        elif f"{CHUNK_SIZE}=" not in spec and default_size is not None:
            chosen = [(chunker.with_chunk_size(default_size), ())]
        else:
            chosen = [(chunker, ())]
        for sized, assignments in chosen:
            params = ExternalParams(sized)
            if params.params_hash in seen:
                continue
            seen.add(params.params_hash)
            sets.append(ExternalSet(first_index + len(sets), params, assignments))
    return tuple(sets), tuple(dict.fromkeys(skipped))
