"""The Sweep dock's state, without Qt: the grid as typed, the plan it makes over the
documents shown, the last result, and what the scatter shows of it.

The sets vary the grid's fields over the window's own parameters of each rule (what
the Parameters dock holds), so a point clicked and applied changes only those fields.
External splitters chosen in the dock are more rows, as `steadlith sweep --chunker`
makes them: `chunk_size=…` in the grid sizes them (one row per size), else they run at
the first set's max_tokens. Their points have no rule parameters to apply: a click on
one offers to show that splitter in the panes instead.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from steadlith_core.errors import SteadlithError
from steadlith_core.comparison.external import EXTERNAL_KIND, SPLITTERS
from steadlith_core.history.repository import open_repository
from steadlith_core.sweep.external import ExternalSet, external_sets, split_chunk_size
from steadlith_core.sweep.format import rule_colour, series
from steadlith_core.sweep.git import repo_sources
from steadlith_core.sweep.grid import ParamSet, build_grid
from steadlith_core.sweep.results import SetRow
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, in_process
from steadlith_core.sweep.tasks import PairsSource

from .job_state import CANCELLED, FAILED, RUNNING, JobState

#: What a sweep replays: the two documents shown, the git history of B's file, or the
#: histories of a folder's text files.
PAIR, HISTORY, FOLDER = "pair", "history", "folder"
SOURCE_TITLES = {PAIR: "the pair shown (A → B)", HISTORY: "the git history of B's file",
                 FOLDER: "the git history of a folder's .md/.txt files"}
FOLDER_FILES = ("*.md", "*.txt")

DEFAULT_GRID = ("boundary_rule=tttd-v1,lmx2-v1", "min_tokens=32,64,96", "max_tokens=256,384,512")


def parse_grid_text(text: str) -> list[str]:
    """One grid entry a line (or `;`-separated), blank ones dropped."""
    return [entry.strip() for line in text.splitlines() for entry in line.split(";") if entry.strip()]


def _literal(path: str) -> str:
    """`path` as a pattern matching only itself (`[`, `*`, `?` in a file name)."""
    return "".join(f"[{c}]" if c in "[]*?" else c for c in path)


@dataclass(frozen=True)
class SweepOutcome:
    rows: tuple[SetRow, ...]
    sets: tuple[ParamSet | ExternalSet, ...]
    skipped: tuple[str, ...]


def sweep_pair(plan: SweepPlan, progress=None) -> SweepOutcome:
    """Run the plan in this thread (a pair is milliseconds a set; a file's history seconds,
    which the dock runs off the GUI thread); progress per task."""
    run = SweepRun(plan).execute(in_process, progress)
    return SweepOutcome(run.rows(), plan.sets, plan.skipped)


class SweepSettingsError(ValueError):
    """A workspace's "sweep" entry cannot be used: `where` is the key under it ("" for the
    entry as a whole), `reason` what is wrong."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}" if where else reason)
        self.where, self.reason = where, reason


@dataclass(frozen=True)
class SweepSettings:
    """What a workspace keeps of the Sweep dock: the grid as typed, the external splitters
    checked, what to replay and the folder. A result is not kept: it is recomputed on Run
    over the documents shown then."""

    grid: tuple[str, ...] = DEFAULT_GRID
    chunkers: tuple[str, ...] = ()
    source: str = PAIR
    folder: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"grid": list(self.grid), "chunkers": list(self.chunkers), "source": self.source,
                "folder": self.folder or None}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "SweepSettings":
        """Checked; an absent key keeps its default (workspaces saved before the dock was kept)."""
        if not isinstance(data, Mapping):
            raise SweepSettingsError("", "must be an object")
        grid = data.get("grid", list(DEFAULT_GRID))
        if not isinstance(grid, list) or not all(isinstance(entry, str) for entry in grid):
            raise SweepSettingsError("grid", "must be a list of entries such as \"min_tokens=32,64\"")
        chunkers = data.get("chunkers", [])
        if not isinstance(chunkers, list) or not all(isinstance(k, str) for k in chunkers):
            raise SweepSettingsError("chunkers", "must be a list of splitter names")
        unknown = [k for k in chunkers if k not in SPLITTERS]
        if unknown:
            raise SweepSettingsError("chunkers", f"unknown splitter {unknown[0][:40]!r}; known: {', '.join(SPLITTERS)}")
        source = data.get("source", PAIR)
        if not isinstance(source, str) or source not in SOURCE_TITLES:  # a list or an object is unhashable
            raise SweepSettingsError("source", f"must be one of {', '.join(SOURCE_TITLES)}, not {str(source)[:40]!r}")
        folder = data.get("folder") or ""
        if not isinstance(folder, str):
            raise SweepSettingsError("folder", "must be a path or null")
        return cls(tuple(grid), tuple(chunkers), source, folder)


class SweepState(JobState):
    """The dock's grid, source and splitters as typed, its run (JobState: `pending` is
    what the run sweeps, in words) and the outcome shown."""

    def __init__(self) -> None:
        super().__init__()
        self.grid_text = "\n".join(DEFAULT_GRID)
        self.source = PAIR
        self.folder = ""
        self.chunkers: tuple[str, ...] = ()  # external splitters (SPLITTERS kinds) swept beside the rules
        self.outcome: SweepOutcome | None = None

    def sets_for(self, bases: Mapping[str, Any]) -> tuple[tuple[ParamSet | ExternalSet, ...], tuple[str, ...]]:
        """The grid's sets, then the external splitters' rows, and what was skipped;
        nothing runnable for the rules raises ValueError with the reasons, one a line."""
        entries, sizes = split_chunk_size(parse_grid_text(self.grid_text))
        grid = build_grid(entries, bases=bases)
        if not grid.sets:
            raise ValueError("\n".join(grid.skipped) or "the grid is empty: give entries such as min_tokens=32,64")
        base = grid.sets[0].params
        try:
            externals, skipped = external_sets(self.chunkers, sizes, first_index=len(grid.sets),
                                               token_counter=base.token_counter, default_size=base.max_tokens,
                                               none_chosen="no splitter is checked under External")
        except SteadlithError as e:
            raise ValueError(str(e)) from None
        return grid.sets + externals, grid.skipped + skipped

    def plan_for_pair(self, text_a: str, text_b: str, bases: Mapping[str, Any]) -> SweepPlan:
        """The plan over the two documents shown; nothing runnable raises ValueError with
        the reasons, one a line."""
        sets, skipped = self.sets_for(bases)
        return SweepPlan((PairsSource("A → B", (("A → B", text_a, text_b),)),), sets, skipped)

    def plan_for_history(self, path: str | None, bases: Mapping[str, Any]) -> SweepPlan:
        """The plan over the first-parent history of the file at `path` in the repository
        holding it (its renames followed); ValueError says why there is none."""
        sets, skipped = self.sets_for(bases)
        if not path:
            raise ValueError("B is not a file on disk: open a file of a git repository in B")
        try:
            repo = open_repository(path)
            root = os.path.realpath(repo.workdir or os.path.dirname(repo.path.rstrip("/")))
            rel = os.path.relpath(os.path.realpath(path), root).replace(os.sep, "/")
            sources = repo_sources(root, ["/" + _literal(rel)])
        except SteadlithError as e:
            raise ValueError(str(e)) from None
        if not sources:
            raise ValueError(f"no commit of {root} changed {rel} (is it committed?)")
        return SweepPlan(sources, sets, skipped)

    def plan_for_folder(self, folder: str, bases: Mapping[str, Any]) -> SweepPlan:
        """The plan over the history of every .md/.txt file under `folder` (a loose file
        has no versions to compare, so only what the folder's repository recorded counts);
        ValueError says why there is none."""
        sets, skipped = self.sets_for(bases)
        if not folder:
            raise ValueError("choose the folder to sweep")
        if not os.path.isdir(folder):
            raise ValueError(f"{folder}: not a folder")
        try:
            repo = open_repository(folder)
            root = os.path.realpath(repo.workdir or os.path.dirname(repo.path.rstrip("/")))
            rel = os.path.relpath(os.path.realpath(folder), root).replace(os.sep, "/")
            prefix = "/" if rel == "." else "/" + _literal(rel) + "/"
            sources = repo_sources(root, [prefix + "**/" + pattern for pattern in FOLDER_FILES])
        except SteadlithError as e:
            raise ValueError(str(e)) from None
        if not sources:
            raise ValueError(f"no commit of {root} changed a .md or .txt file under {rel}")
        return SweepPlan(sources, sets, skipped)

    def settings(self) -> SweepSettings:
        return SweepSettings(tuple(parse_grid_text(self.grid_text)), self.chunkers, self.source, self.folder)

    def restore(self, settings: SweepSettings) -> None:
        self.grid_text = "\n".join(settings.grid)
        self.chunkers, self.source, self.folder = settings.chunkers, settings.source, settings.folder

    def set_outcome(self, outcome: SweepOutcome | None) -> None:
        self.outcome = outcome

    def _take(self, outcome: SweepOutcome) -> None:
        self.set_outcome(outcome)

    @property
    def status(self) -> str:
        """One line for the dock: the run going on, how the last one ended, or the outcome shown."""
        if self.phase == RUNNING:
            return f"Sweeping {self.pending}…"
        if self.phase == FAILED:
            return f"The sweep failed: {self.error}"
        if self.phase == CANCELLED:
            return "Sweep cancelled."
        return self.summary()

    @property
    def rows(self) -> tuple[SetRow, ...]:
        return self.outcome.rows if self.outcome is not None else ()

    def row(self, set_index: int) -> SetRow | None:
        return next((r for r in self.rows if r.set == set_index), None)

    def params_of(self, set_index: int) -> Any:
        assert self.outcome is not None
        return self.outcome.sets[set_index].params

    def external_of(self, set_index: int) -> tuple[str, int] | None:
        """(splitter kind, chunk_size) of an external row; None for a rule's set."""
        if self.outcome is None or set_index >= len(self.outcome.sets):
            return None
        s = self.outcome.sets[set_index]
        if not isinstance(s, ExternalSet):
            return None
        return s.params.chunker.kind, s.params.chunker.chunk_size

    def front(self) -> list[SetRow]:
        """The front's points by mean chunk size: the line the scatter draws."""
        return sorted((r for r in self.rows if r.pareto), key=lambda r: r.mean_chunk_tokens)

    def rules(self) -> list[str]:
        """The series of the scatter: the rules, then each external splitter, by name."""
        return sorted({series(r) for r in self.rows}, key=lambda name: (name in _EXTERNAL_NAMES, name))

    @staticmethod
    def series(row: SetRow) -> str:
        return series(row)

    @staticmethod
    def colour(rule: str) -> str:
        return rule_colour(rule)

    @staticmethod
    def tooltip(row: SetRow) -> str:
        external = row.boundary_rule == EXTERNAL_KIND
        lines = [row.label + ("  (Pareto front)" if row.pareto else ""),
                 f"tokens re-embedded {row.tokens_to_embed}",
                 f"mean chunk {row.mean_chunk_tokens:.1f} tokens, p90 {row.p90_chunk_tokens}"]
        if external:
            lines.append("an external splitter: it has no cut classes and no locality margin")
        lines.append(f"cuts at paragraph ends {_pct(row.paragraph_cut_share)}, sentence ends "
                     f"{_pct(row.sentence_cut_share)}")
        lines.append(f"locality violations {_dash(row.violations)}")
        lines.append("click to offer it in the panes (no rule parameters to apply)" if external
                     else "click to apply these parameters")
        return "\n".join(lines)

    def summary(self) -> str:
        if self.outcome is None:
            return ("Run a sweep over the pair shown, the history of B's file or a folder's: the grid's sets, "
                    "both rules, and the external splitters chosen.")
        front = len(self.front())
        text = f"{len(self.rows)} sets, {front} on the Pareto front (ringed)."
        if self.outcome.skipped:
            text += f" {len(self.outcome.skipped)} skipped: " + "; ".join(self.outcome.skipped[:3])
        return text

    @staticmethod
    def points(rows: Sequence[SetRow]) -> list[tuple[float, float]]:
        """(mean chunk size, tokens re-embedded) per row: the scatter's axes."""
        return [(r.mean_chunk_tokens, float(r.tokens_to_embed)) for r in rows]


_EXTERNAL_NAMES = frozenset(SPLITTERS)


def _pct(share: float | None) -> str:
    return "–" if share is None else f"{share:.0%}"


def _dash(value: int | None) -> str:
    return "–" if value is None else str(value)
