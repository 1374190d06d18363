"""The History dock's state, without Qt: which file's history is shown, its commits
newest first, and what each commit cost to re-embed under every rule.

A file's history is the first-parent log of the file (steadlith_core.history.repository.file_log,
renames followed); the costs come from replaying it (steadlith_core.history.audit.replay_file),
which the dock runs on its own thread. The rows keep their order and the costs fill in
when the replay ends, so a cancelled replay still leaves a usable list of commits.

Bars share one scale across every row and shown column: a commit that cost ten times
another has a bar ten times as long, whichever rule, so the spikes of a history stand
out and the rules compare at a glance. The fixed-size baseline re-embeds everything after
an edit, so its bars would set that scale and flatten the rules' into slivers: it is a
column the user shows on request (`show_baseline`), and only then counts for the scale.
A spike is judged in each column's own series: a commit only one rule handles badly is
marked in that rule's column.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Sequence

from steadlith_core.history.audit import baseline_names
from steadlith_core.history.audit_costs import ADDED, FileCost
from steadlith_core.history.git_errors import GitError
from steadlith_core.history.repository import CommitInfo, file_log, open_repository, repo_name
from steadlith_core.history.revisions import repo_relative

#: The columns of costs, in order: both boundary rules, then the fixed-size baseline.
COST_COLUMNS = ("tttd-v1", "lmx2-v1", "fixed")
FIXED = "fixed"
#: The rule whose tokens per changed word the "t/word" column shows.
PER_WORD_RULE = "tttd-v1"
#: The columns a history can be sorted by (besides the cost columns): the commit's
#: place in the log, its date, the words it changed, the tokens per changed word, its subject.
WORDS = "words"
PER_WORD = "t/word"
#: At most this many commits are listed and replayed: the most recent ones.
MAX_COMMITS = 500


@dataclass(frozen=True)
class HistoryTarget:
    """The file whose history is listed: `path` relative to the repository `repo`,
    its log taken from `rev` back."""

    repo: str
    path: str
    rev: str = "HEAD"


@dataclass(frozen=True)
class Revision:
    """A file at a commit, as the window loads it (worker.RevisionSource takes these)."""

    repo: str
    path: str
    commit: str


def locate(path: str) -> HistoryTarget:
    """The history of a file on disk: its repository and its path there. GitError when
    it lies in no repository (or outside its working tree)."""
    repo = open_repository(path)
    rel = repo_relative(repo, path)
    if rel is None:
        raise GitError(f"{path}: not in the working tree of the repository {repo_name(repo)}", repo=repo_name(repo))
    return HistoryTarget(repo_name(repo), rel)


def read_history(target: HistoryTarget, fallback_rev: str | None = None) -> tuple[HistoryTarget, list[CommitInfo]]:
    """The file's commits from `target.rev` back, newest first (at most MAX_COMMITS). A
    file no longer at that revision (deleted or renamed since) is listed from
    `fallback_rev` back instead, when given: the commit the window shows it at."""
    try:
        return target, file_log(target.repo, target.path, MAX_COMMITS, target.rev)
    except GitError:
        if fallback_rev is None:
            raise
    target = HistoryTarget(target.repo, target.path, fallback_rev)
    return target, file_log(target.repo, target.path, MAX_COMMITS, target.rev)


class HistoryState:
    """The listed file, its commits (newest first) and their costs by rule."""

    def __init__(self) -> None:
        self.target: HistoryTarget | None = None
        self.commits: list[CommitInfo] = []
        self.costs: dict[str, dict[str, FileCost]] = {}  # commit -> column -> cost
        self.params_hashes: tuple[str, ...] = ()  # of the parameters the costs were computed with
        self.note = "Open a file of a git repository in A to see its history."
        self.show_baseline = False

    # -- what is listed -------------------------------------------------------------------
    def set_history(self, target: HistoryTarget, commits: Sequence[CommitInfo]) -> None:
        self.target = target
        self.commits = list(commits)
        self.costs = {}
        self.params_hashes = ()
        n = len(self.commits)
        self.note = f"{target.path}: {n} commit{'s' if n != 1 else ''} changed it" + (
            f" (the {MAX_COMMITS} most recent are listed)" if n >= MAX_COMMITS else "")

    def clear(self, note: str) -> None:
        self.target = None
        self.commits = []
        self.costs = {}
        self.params_hashes = ()
        self.note = note

    def covers(self, repo: str, path: str) -> bool:
        """Whether the file `path` of `repo` is the listed one (under any of its names)."""
        if self.target is None or self.target.repo != repo:
            return False
        return path == self.target.path or any(c.path == path for c in self.commits)

    # -- costs ----------------------------------------------------------------------------
    def set_costs(self, costs: Iterable[FileCost], params_by_rule: Mapping[str, Any]) -> None:
        """The replay's FileCosts: by commit and column (the baseline of tttd-v1's window
        is the "fixed" column)."""
        fixed = baseline_names(dict(params_by_rule)).get("tttd-v1")
        by_commit: dict[str, dict[str, FileCost]] = {}
        for cost in costs:
            column = FIXED if cost.rule == fixed else cost.rule
            if column in COST_COLUMNS:
                by_commit.setdefault(cost.commit, {})[column] = cost
        self.costs = by_commit
        self.params_hashes = tuple(p.params_hash for p in params_by_rule.values())

    def tokens(self, row: int, column: str) -> int | None:
        """Tokens to re-embed at a row's commit under a rule; None when not computed."""
        cost = self.costs.get(self.commits[row].commit, {}).get(column)
        return None if cost is None else cost.tokens_to_embed

    def words_changed(self, row: int) -> int | None:
        """Words the row's commit changed in the file (the word diff's, the same under
        every rule); None when not computed."""
        costs = self.costs.get(self.commits[row].commit, {})
        cost = costs.get(PER_WORD_RULE) or next(iter(costs.values()), None)
        return None if cost is None else cost.words_changed

    def cost_per_word(self, row: int, column: str = PER_WORD_RULE) -> float | None:
        """Tokens to re-embed per changed word under `column`: "small edit, big cost" is a
        large number. None when not computed or when no word changed."""
        cost = self.costs.get(self.commits[row].commit, {}).get(column)
        return None if cost is None else cost.cost_per_word

    def sort_key(self, row: int, key: str) -> Any:
        """A row's value under a sort key (a cost column, WORDS, PER_WORD, "date",
        "subject" or "log"); None sorts last either way."""
        if key in COST_COLUMNS:
            return self.tokens(row, key)
        if key == WORDS:
            return self.words_changed(row)
        if key == PER_WORD:
            return self.cost_per_word(row)
        if key == "date":
            return self.commits[row].when
        if key == "subject":
            return self.commits[row].subject.lower()
        return -row  # the log's order: newest first when descending

    def sorted_rows(self, key: str, descending: bool = True) -> list[int]:
        """The rows ordered by `key` (ties keep the log's order); rows without a value last."""
        rows = list(range(len(self.commits)))
        known = [r for r in rows if self.sort_key(r, key) is not None]
        unknown = [r for r in rows if self.sort_key(r, key) is None]
        known.sort(key=lambda r: (self.sort_key(r, key), -r if descending else r), reverse=descending)
        return known + unknown

    @property
    def shown_columns(self) -> tuple[str, ...]:
        return COST_COLUMNS if self.show_baseline else tuple(c for c in COST_COLUMNS if c != FIXED)

    def added(self, row: int) -> bool:
        """The row's commit added the file: every token is new under every rule."""
        return any(c.status == ADDED for c in self.costs.get(self.commits[row].commit, {}).values())

    @property
    def scale(self) -> int:
        """The longest shown bar's tokens: every bar is drawn against this one number.
        A commit that added the file does not count (unless nothing else does): it costs
        the whole file, which would flatten every edit's bar into a sliver."""
        shown = self.shown_columns
        rows = [row for row in self.costs.values() if not any(c.status == ADDED for c in row.values())]
        return max((c.tokens_to_embed for row in (rows or self.costs.values()) for col, c in row.items()
                    if col in shown), default=0)

    def spike_rows(self, column: str = "tttd-v1", factor: float = 3.0) -> list[int]:
        """Rows costing over `factor` times the median commit under `column` (that
        column's own series): the commits to look at first."""
        values = [(r, t) for r in range(len(self.commits)) if (t := self.tokens(r, column)) is not None]
        if not values:
            return []
        ordered = sorted(t for _, t in values)
        median = ordered[len(ordered) // 2]
        return [r for r, t in values if t > factor * max(median, 1)]

    def stale(self, params_by_rule: Mapping[str, Any]) -> bool:
        """The costs shown were computed with other parameters than these."""
        return bool(self.costs) and self.params_hashes != tuple(p.params_hash for p in params_by_rule.values())

    # -- rows -----------------------------------------------------------------------------
    def date(self, row: int) -> str:
        """The commit's date (UTC, to the minute): enough to place it, short enough for a column."""
        when = _dt.datetime.fromtimestamp(self.commits[row].when, tz=_dt.timezone.utc)
        return when.strftime("%Y-%m-%d %H:%M")

    def row_tooltip(self, row: int) -> str:
        c = self.commits[row]
        lines = [f"{c.short}  {c.subject}", f"{c.author}, {self.date(row)} UTC"]
        if c.path != (self.target.path if self.target else c.path):
            lines.append(f"the file was {c.path} then")
        for column in COST_COLUMNS:
            t = self.tokens(row, column)
            if t is not None:
                cost = self.costs[c.commit][column]
                per_word = cost.cost_per_word
                lines.append(f"{column}: {t:,} tokens to re-embed ({cost.chunks_to_embed:,} chunks) of {cost.tokens:,}"
                             + ("" if per_word is None else f", {per_word:,.1f} per changed word"))
        words = self.words_changed(row)
        if words is not None:
            lines.append(f"{words:,} word{'s' if words != 1 else ''} changed")
        lines.append("Click: its parent in A, this commit in B")
        return "\n".join(lines)

    def pair(self, row: int) -> tuple[Revision | None, Revision]:
        """What clicking a row loads: the file at the commit's parent (None when the
        commit added the file) and at the commit. The parent's version of the file is
        the one the next older row lists, under that row's name (a rename in between)."""
        c = self.commits[row]
        assert self.target is not None
        after = Revision(self.target.repo, c.path, c.commit)
        if c.parent is None or row + 1 >= len(self.commits):
            return None, after
        older = self.commits[row + 1]
        return Revision(self.target.repo, older.path, c.parent), after

    def row_of(self, commit: str) -> int | None:
        for row, c in enumerate(self.commits):
            if c.commit == commit:
                return row
        return None
