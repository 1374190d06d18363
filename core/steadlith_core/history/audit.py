"""What a repository's history cost to re-embed: replay its commits through the chunker.

`audit()` walks the first-parent history oldest to newest (a merge is its diff against
its first parent: what landed on the branch). For every changed file matching the
patterns it compares the version before with the version after, exactly as `steadlith
compare` would, under each boundary rule and the fixed-size baseline, and records a
`FileCost` per (file, rule). Renames are found by content similarity and compared with
their old version; an added file costs all its tokens; a deleted one costs nothing;
a binary, non-UTF-8 or over-large blob, a submodule or a symbolic link is reported in
`skipped`, never fatal.

Each version is chunked once per parameter set: chunkings are cached by (blob id,
params hash), so a file's "after" at one commit is its "before" at the next commit that
changes it, for free.

`replay_file()` is the same work for one file along commits of its own log: the unit a
parameter sweep distributes. `file_versions()` gives that file's successive (before,
after) texts alone, for chunkers that are not rules (a sweep's external rows).
"""

from __future__ import annotations

import csv
import io
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from typing import Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence

import numpy as np
import pygit2
from pygit2.enums import DiffFind, DeltaStatus

from ..chunking.chunks import AnyParams, Chunking
from ..comparison.baseline import BASELINE_STRATEGY, FixedChunking, baseline_for
from ..comparison.churn import ChurnSummary, compare
from ..comparison.diff import word_diff
from ..errors import LoadError, ParameterError
from .repository import (MODE_LINK, MODE_SUBMODULE, MODE_TREE, CorruptObjectError, GitError, Repo,
                         UnreadableCommitError, decode_blob, first_parent_walk, open_repository, path_before,
                         repo_name, resolve_commit, subject_of)
from ..chunking.lmx2_params import BOUNDARY_RULES
from ..chunking.pipeline import Pipeline
from ..chunking.rules import check_rule, default_params, rule_of
from ..progress import Cancelled, Progress, report
from .pathglob import DEFAULT_PATHS, path_matcher

SCHEMA = "steadlith-audit/1"
ADDED, MODIFIED, RENAMED, DELETED = "added", "modified", "renamed", "deleted"
SHALLOW_REASON = ("the history before this commit is not in this shallow clone, so what it changed is unknown "
                  "(git fetch --unshallow brings it)")


@dataclass(frozen=True)
class FileCost:
    """One file changed by one commit, under one rule (or the baseline, `fixed-tokens/1`).

    tokens_to_embed / chunks_to_embed: the new version's chunks no embedding cache keyed
    by the old version's chunks would hold (compare's `summary.tokens_to_embed`); all of
    them for an added file, none for a deleted one. reused_share: reused tokens / tokens
    of the new version (1.0 when it has none). chunk_tokens: the new version's chunk
    sizes. status: added, modified, renamed or deleted; old_path: the path before a
    rename (else the same as path). interior_cuts / paragraph_cuts / sentence_cuts: the
    new version's chunk ends other than the document's end, and how many of them fall at
    a paragraph or a sentence end (the chunk diagnostics' counts, as a pair sweep takes
    them); None for the baseline, whose windows have no boundary classes.
    words_changed_a / words_changed_b: the edit's size from the word diff the comparison
    already has (compare's changed_words_a: words of the old version deleted or replaced;
    changed_words_b: words of the new one inserted or replacing); every word of an added
    file is inserted, a deleted file's words are not counted (it costs nothing to embed).
    `words_changed` is the larger of the two, and `cost_per_word` the tokens to embed per
    changed word (None when no word changed)."""

    commit: str
    path: str
    rule: str
    tokens_to_embed: int
    chunks_to_embed: int
    reused_share: float
    phase_shift_regions: int
    locality_violations: int
    chunk_tokens: tuple[int, ...]
    status: str = MODIFIED
    old_path: Optional[str] = None
    tokens: int = 0
    chunks: int = 0
    interior_cuts: Optional[int] = 0
    paragraph_cuts: Optional[int] = 0
    sentence_cuts: Optional[int] = 0
    words_changed_a: int = 0
    words_changed_b: int = 0

    @property
    def words_changed(self) -> int:
        return max(self.words_changed_a, self.words_changed_b)

    @property
    def cost_per_word(self) -> Optional[float]:
        return cost_per_word(self.tokens_to_embed, self.words_changed)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["chunk_tokens"] = list(self.chunk_tokens)
        d["words_changed"] = self.words_changed
        d["cost_per_word"] = self.cost_per_word
        return d


def cost_per_word(tokens_to_embed: int, words_changed: int) -> Optional[float]:
    """Tokens to embed per changed word: what a small edit costs for its size. None when
    no word changed (nothing to divide by; a cost then came from whitespace alone)."""
    return tokens_to_embed / words_changed if words_changed else None


@dataclass(frozen=True)
class Skipped:
    """A changed file the audit could not chunk, and why (binary, not UTF-8, submodule…)."""

    commit: str
    path: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


@dataclass(frozen=True)
class RuleTotals:
    """One rule's sums over some file costs (one commit's, or the whole audit's).

    tokens / chunks: of the new versions of the changed files; reused_share: 1 -
    tokens_to_embed / tokens (1.0 when there are none). mean_chunk_tokens and
    p90_chunk_tokens: over the new versions' chunks (0 without any). words_changed: the
    files' edit sizes summed (FileCost.words_changed); cost_per_word: tokens_to_embed per
    changed word (None when none changed)."""

    rule: str
    files: int
    tokens_to_embed: int
    chunks_to_embed: int
    tokens: int
    chunks: int
    reused_share: float
    phase_shift_regions: int
    locality_violations: int
    mean_chunk_tokens: float
    p90_chunk_tokens: float
    words_changed: int = 0

    @property
    def cost_per_word(self) -> Optional[float]:
        return cost_per_word(self.tokens_to_embed, self.words_changed)

    @staticmethod
    def of(rule: str, costs: Iterable[FileCost]) -> "RuleTotals":
        costs = [c for c in costs if c.rule == rule]
        sizes = np.array([t for c in costs for t in c.chunk_tokens], dtype=np.int64)
        tokens = sum(c.tokens for c in costs)
        to_embed = sum(c.tokens_to_embed for c in costs)
        return RuleTotals(
            rule=rule, files=len(costs), tokens_to_embed=to_embed,
            chunks_to_embed=sum(c.chunks_to_embed for c in costs), tokens=tokens,
            chunks=sum(c.chunks for c in costs),
            reused_share=1.0 - to_embed / tokens if tokens else 1.0,
            phase_shift_regions=sum(c.phase_shift_regions for c in costs),
            locality_violations=sum(c.locality_violations for c in costs),
            mean_chunk_tokens=float(sizes.mean()) if sizes.size else 0.0,
            p90_chunk_tokens=float(np.percentile(sizes, 90)) if sizes.size else 0.0,
            words_changed=sum(c.words_changed for c in costs),
        )

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "cost_per_word": self.cost_per_word}


@dataclass(frozen=True)
class CommitCost:
    """One commit of the replay: who, when, what it cost per rule, what was skipped."""

    commit: str
    short: str
    subject: str
    author: str
    when: int
    parent: Optional[str]
    files: tuple[FileCost, ...]
    skipped: tuple[Skipped, ...] = ()
    totals: dict[str, RuleTotals] = field(default_factory=dict)

    def tokens_to_embed(self, rule: str) -> int:
        t = self.totals.get(rule)
        return t.tokens_to_embed if t is not None else 0

    def words_changed(self, rule: str) -> int:
        t = self.totals.get(rule)
        return t.words_changed if t is not None else 0

    def cost_per_word(self, rule: str) -> Optional[float]:
        t = self.totals.get(rule)
        return t.cost_per_word if t is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "commit": self.commit, "short": self.short, "subject": self.subject, "author": self.author,
            "when": self.when, "parent": self.parent,
            "totals": {rule: t.to_dict() for rule, t in self.totals.items()},
            "files": [f.to_dict() for f in self.files],
            "skipped": [s.to_dict() for s in self.skipped],
        }


@dataclass(frozen=True)
class AuditResult:
    """The replay of a history. `rules` lists the boundary rules, then the baseline
    (`fixed-tokens/1`, or `fixed-tokens/1@N` per distinct window when the rules'
    max_tokens differ); `totals` sums each over every commit; `partial` is true when
    the replay was stopped before its last commit."""

    repo: str
    paths: tuple[str, ...]
    rules: tuple[str, ...]
    params: dict[str, dict[str, Any]]
    commits: list[CommitCost]
    totals: dict[str, RuleTotals]
    partial: bool
    skipped: list[Skipped]
    planned_commits: int = 0
    unreadable: list[Skipped] = field(default_factory=list)

    def top_commits(self, rule: str, n: int = 10, by: str = "tokens") -> list[CommitCost]:
        """The `n` commits with the most tokens to embed under `rule` (`by` "tokens"), or
        the most tokens per changed word ("cost-per-word": small edits that cost much
        come first; a cost with no changed word ranks above every ratio), most first;
        commits that cost nothing are left out. Ties keep history order."""
        costly = [c for c in self.commits if c.tokens_to_embed(rule) > 0]
        if by == "tokens":
            ranked = sorted(costly, key=lambda c: -c.tokens_to_embed(rule))
        elif by == "cost-per-word":
            ranked = sorted(costly, key=lambda c: -(c.cost_per_word(rule) or float("inf")))
        else:
            raise ValueError(f"unknown order {by!r}: {' or '.join(SORT_ORDERS)}")
        return ranked[:n]

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA, "repo": self.repo, "paths": list(self.paths), "rules": list(self.rules),
            "params": self.params, "partial": self.partial, "planned_commits": self.planned_commits,
            "replayed_commits": len(self.commits),
            "totals": {rule: t.to_dict() for rule, t in self.totals.items()},
            "commits": [c.to_dict() for c in self.commits],
            "skipped": [s.to_dict() for s in self.skipped],
            "unreadable_commits": [s.to_dict() for s in self.unreadable],
        }


SORT_ORDERS = ("tokens", "cost-per-word")

# new columns go last: a reader that takes the columns by position keeps working
CSV_FIELDS = ("commit", "short", "when", "author", "subject", "path", "old_path", "status", "rule", "tokens",
              "chunks", "tokens_to_embed", "chunks_to_embed", "reused_share", "phase_shift_regions",
              "locality_violations", "words_changed", "cost_per_word")


def csv_rows(result: AuditResult) -> list[dict[str, Any]]:
    """One row per (commit, file, rule), oldest commit first: the `--format csv` table."""
    rows = []
    for c in result.commits:
        for f in c.files:
            rows.append({
                "commit": c.commit, "short": c.short, "when": c.when, "author": c.author, "subject": c.subject,
                "path": f.path, "old_path": f.old_path or "", "status": f.status, "rule": f.rule,
                "tokens": f.tokens, "chunks": f.chunks, "tokens_to_embed": f.tokens_to_embed,
                "chunks_to_embed": f.chunks_to_embed, "reused_share": round(f.reused_share, 6),
                "phase_shift_regions": f.phase_shift_regions, "locality_violations": f.locality_violations,
                "words_changed": f.words_changed,
                "cost_per_word": "" if f.cost_per_word is None else round(f.cost_per_word, 6),
            })
    return rows


def to_csv(result: AuditResult) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=CSV_FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_rows(result))
    return out.getvalue()


# -- parameters --------------------------------------------------------------------------------


def resolve_params(params_by_rule: Mapping[str, AnyParams | None] | None) -> dict[str, AnyParams]:
    """{rule: params}, None meaning the rule's defaults; both rules when not given."""
    if params_by_rule is None:
        params_by_rule = {rule: None for rule in BOUNDARY_RULES}
    if not params_by_rule:
        raise ParameterError("--rules", "audit at least one boundary rule")
    out = {}
    for rule, p in params_by_rule.items():
        check_rule(rule)
        if p is None:
            p = default_params(rule)
        elif rule_of(p) != rule:
            raise ParameterError("boundary_rule", f"parameters of {rule_of(p)} given for {rule}", rule)
        out[rule] = p
    return out


def baseline_names(params: Mapping[str, AnyParams]) -> dict[str, str]:
    """{rule: the name its baseline is recorded under}: one `fixed-tokens/1` when every
    rule has the same window and counter, else one per window."""
    windows = {(p.max_tokens, p.token_counter) for p in params.values()}
    if len(windows) == 1:
        return {rule: BASELINE_STRATEGY for rule in params}
    return {rule: f"{BASELINE_STRATEGY}@{p.max_tokens}/{p.token_counter}" for rule, p in params.items()}


# -- the replay engine --------------------------------------------------------------------------


class _Version:
    """One blob: its text (or why it has none), its chunking per params hash and its
    baseline per window. Everything the replay computes about a blob lives here, so the
    cache below forgets a blob's results all at once."""

    __slots__ = ("text", "error", "chunkings", "fixed")

    def __init__(self, text: str | None, error: LoadError | None):
        self.text, self.error = text, error
        self.chunkings: dict[str, Chunking] = {}
        self.fixed: dict[tuple[int, str], FixedChunking] = {}


class _VersionCache:
    """Blob versions, least recently used first out, bounded by the characters of text
    they hold: the chunkings of a version take about 32 bytes per character
    (loader.MEMORY_PER_INPUT_BYTE), so 8 M characters keep the cache near 256 MiB
    whatever the size of the files. A file's previous version is almost always the
    most recent one seen for its path, so a small cache already answers every "before"."""

    def __init__(self, max_chars: int = 8_000_000):
        self.max_chars = max_chars
        self._data: OrderedDict[pygit2.Oid, _Version] = OrderedDict()
        self._chars = 0

    def get(self, blob_id: pygit2.Oid, make: Callable[[], _Version]) -> _Version:
        version = self._data.get(blob_id)
        if version is not None:
            self._data.move_to_end(blob_id)
            return version
        version = self._data[blob_id] = make()
        self._chars += len(version.text or "")
        while self._chars > self.max_chars and len(self._data) > 1:
            _, old = self._data.popitem(last=False)
            self._chars -= len(old.text or "")
        return version


class _Replayer:
    """Chunks blobs once per parameter set and turns a (before, after) pair of blobs into
    FileCosts. Not thread-safe: one per replay."""

    def __init__(self, repo: pygit2.Repository, params: Mapping[str, AnyParams]):
        self.repo = repo
        self.params = dict(params)
        self.baseline_of = baseline_names(self.params)
        self.pipeline = Pipeline(2)
        self._versions = _VersionCache()

    def _version(self, blob_id: pygit2.Oid, origin: str) -> _Version:
        def read() -> _Version:
            try:
                return _Version(decode_blob(self.repo[blob_id], origin), None)
            except LoadError as e:
                return _Version(None, e)

        return self._versions.get(blob_id, read)

    def text(self, blob_id: pygit2.Oid, origin: str) -> str:
        """The blob's text, or LoadError (remembered too: a binary blob is refused once)."""
        version = self._version(blob_id, origin)
        if version.error is not None:
            raise version.error
        return version.text

    def chunking(self, blob_id: pygit2.Oid, text: str, rule: str) -> Chunking:
        p = self.params[rule]
        cache = self._version(blob_id, "").chunkings
        if p.params_hash not in cache:
            cache[p.params_hash] = self.pipeline.chunk(text, p)
        return cache[p.params_hash]

    def fixed(self, blob_id: pygit2.Oid, chunking: Chunking) -> FixedChunking:
        key = (chunking.params.max_tokens, chunking.params.token_counter)
        cache = self._version(blob_id, "").fixed
        if key not in cache:
            cache[key] = baseline_for(chunking)
        return cache[key]

    def costs(self, commit: str, status: str, old_path: Optional[str], old_id: Optional[pygit2.Oid],
              new_path: str, new_id: Optional[pygit2.Oid], short: str) -> tuple[list[FileCost], list[Skipped]]:
        """FileCosts of one changed file under every rule and baseline, or why it was skipped."""
        if status == DELETED or new_id is None:
            return [_deleted(commit, new_path, name) for name in self.names()], []
        version, skipped = read_change(commit, short, new_path, new_id, old_path, old_id, self.text)
        return (self.version_costs(version) if version is not None else []), list(skipped)

    def version_costs(self, v: FileVersion) -> list[FileCost]:
        """FileCosts of one change read by read_change (or file_versions, given `text` as its reader)."""
        if v.old_text is None:
            return self._added_costs(v.commit, v.path, v.new_blob, v.new_text)
        return self._compared_costs(v.commit, v.status, v.old_path, v.old_blob, v.old_text, v.path, v.new_blob,
                                    v.new_text)

    def _added_costs(self, commit: str, path: str, blob_id: pygit2.Oid, text: str) -> list[FileCost]:
        """No embeddable previous version: every chunk of every rule and baseline is to embed."""
        out: list[FileCost] = []
        for rule in self.params:
            b = self.chunking(blob_id, text, rule)
            out.append(_added(commit, path, rule, b.chunks, _cut_counts(b)))
            name = self.baseline_of[rule]
            if not any(f.rule == name for f in out):
                out.append(_added(commit, path, name, self.fixed(blob_id, b).chunks, NO_CUT_CLASSES))
        return out

    def _compared_costs(self, commit: str, status: str, old_path: Optional[str], old_id: pygit2.Oid, old_text: str,
                        new_path: str, new_id: pygit2.Oid, new_text: str) -> list[FileCost]:
        """compare() of the two versions under each rule, and its baseline once per window."""
        out: list[FileCost] = []
        ops = None
        for rule in self.params:
            a = self.chunking(old_id, old_text, rule)
            b = self.chunking(new_id, new_text, rule)
            if ops is None:  # the word diff does not depend on the rule
                ops = word_diff(a.words, b.words)
            c = compare(a, b, ops=ops, fixed=(self.fixed(old_id, a), self.fixed(new_id, b)))
            out.append(_from_summary(commit, new_path, old_path, status, rule, c.summary, b.chunks, _cut_counts(b)))
            name = self.baseline_of[rule]
            if c.baseline is not None and not any(f.rule == name for f in out):
                out.append(_from_summary(commit, new_path, old_path, status, name, c.baseline.summary,
                                         self.fixed(new_id, b).chunks, NO_CUT_CLASSES))
        return out

    def names(self) -> list[str]:
        """The rules, then each distinct baseline: the order costs are recorded in."""
        names = list(self.params)
        for rule in self.params:
            if self.baseline_of[rule] not in names:
                names.append(self.baseline_of[rule])
        return names


CutCounts = tuple[Optional[int], Optional[int], Optional[int]]  # interior, at paragraph ends, at sentence ends
NO_CUT_CLASSES: CutCounts = (None, None, None)


def _cut_counts(b: Chunking) -> CutCounts:
    """The same counts a pair sweep takes (sweep.tasks), so both kinds of sweep agree."""
    d = b.diagnostics
    return (d.paragraph_boundaries + d.sentence_boundaries + d.word_boundaries, d.paragraph_boundaries,
            d.sentence_boundaries)


def _deleted(commit: str, path: str, rule: str) -> FileCost:
    return FileCost(commit, path, rule, 0, 0, 1.0, 0, 0, (), DELETED, path, 0, 0)


def _added(commit: str, path: str, rule: str, chunks, cuts: CutCounts) -> FileCost:
    """A file with no embeddable previous version: every chunk is to embed."""
    sizes = tuple(c.tokens for c in chunks)
    total = sum(sizes)
    words = chunks[-1].end_word if chunks else 0
    return FileCost(commit, path, rule, total, len(sizes), 0.0 if total else 1.0, 0, 0, sizes, ADDED, path, total,
                    len(sizes), *cuts, words_changed_b=words)


def _from_summary(commit: str, path: str, old_path: Optional[str], status: str, rule: str, s: ChurnSummary,
                  chunks, cuts: CutCounts) -> FileCost:
    return FileCost(commit, path, rule, s.tokens_to_embed, s.chunks_to_embed, s.reused_token_ratio,
                    s.phase_shift_regions, s.violations, tuple(c.tokens for c in chunks), status,
                    old_path or path, s.tokens_b, s.chunks_b, *cuts, words_changed_a=s.changed_words_a,
                    words_changed_b=s.changed_words_b)


# -- choosing commits ----------------------------------------------------------------------------


def select_commits(repo: pygit2.Repository, revs: str | None = None, max_commits: int | None = None,
                   unreadable: list[Skipped] | None = None) -> list[pygit2.Commit]:
    """The first-parent commits to replay, oldest first: those of `revs` (`A..B`: on B's
    first-parent line and not reachable from A; a single revision: its whole line;
    default HEAD), the newest `max_commits` of them when given.

    A commit of the line that cannot be read (a damaged object) raises
    UnreadableCommitError naming it; given an `unreadable` list, the line ends there
    instead (its ancestors are out of reach) and the commit is added to the list."""
    if max_commits is not None and max_commits < 1:
        raise ParameterError("--max-commits", f"must be >= 1, got {max_commits}")
    name = repo_name(repo)
    if repo.head_is_unborn:
        raise GitError(f"{name}: the repository has no commits yet", repo=name)
    hide = None
    spec = (revs or "HEAD").strip()
    if "..." in spec:
        raise GitError(f"{name}: {spec!r}: a symmetric range (A...B) has no first-parent line; use A..B", repo=name,
                       revision=spec)
    if ".." in spec:
        old, new = spec.split("..", 1)
        hide = resolve_commit(repo, old or "HEAD")
        head = resolve_commit(repo, new or "HEAD")
    else:
        head = resolve_commit(repo, spec)
    commits = []
    try:
        for commit in first_parent_walk(repo, head, hide):
            commits.append(commit)
            if max_commits is not None and len(commits) >= max_commits:
                break
    except UnreadableCommitError as e:
        if unreadable is None:
            raise GitError(f"{e}; --skip-unreadable replays the commits after it", repo=name) from None
        why = str(e).removeprefix(f"{name}: ")
        unreadable.append(Skipped(e.commit or "", "", f"{why}; the history before it is out of reach"))
    commits.reverse()
    return commits


def _changes(repo: pygit2.Repository, commit: pygit2.Commit):
    """The deltas of `commit` against its first parent (all added for a root), renames found."""
    if commit.parents:
        diff = repo.diff(commit.parents[0].tree, commit.tree)
    else:
        diff = commit.tree.diff_to_tree(swap=True)
    stats = {delta.status for delta in diff.deltas}
    if DeltaStatus.ADDED in stats and DeltaStatus.DELETED in stats:
        diff.find_similar(DiffFind.FIND_RENAMES)
    return diff.deltas


def _kind_problem(mode: int) -> str | None:
    if mode == MODE_SUBMODULE:
        return "a submodule (a commit of another repository), not a file"
    if mode == MODE_LINK:
        return "a symbolic link, not a file"
    if mode == MODE_TREE:
        return "a directory"
    return None


# -- entry points --------------------------------------------------------------------------------


def audit(repo: Repo, paths: Sequence[str] = DEFAULT_PATHS, revs: str | None = None, max_commits: int | None = None,
          params_by_rule: Mapping[str, AnyParams | None] | None = None, progress: Progress | None = None, *,
          keep_partial: bool = False, skip_unreadable: bool = False) -> AuditResult:
    """Replay the first-parent history of `repo` (see the module) and return what every
    commit cost under each rule of `params_by_rule` ({rule: params or None for the
    defaults}; both rules at their defaults when None) and the fixed-size baseline.

    `progress(done, total)` is called per commit; `Cancelled` raised from it (or
    KeyboardInterrupt) propagates, unless `keep_partial`, in which case the commits
    replayed so far come back with `partial=True` (what Ctrl+C in the command prints).

    A commit that cannot be read (a damaged commit, tree or blob object) stops the replay
    with a GitError naming it; with `skip_unreadable` it is left out and listed in the
    result's `unreadable` (a damaged commit object also ends the history there)."""
    r = open_repository(repo)
    matches = path_matcher(paths)
    params = resolve_params(params_by_rule)
    unreadable: list[Skipped] = []
    commits = select_commits(r, revs, max_commits, unreadable if skip_unreadable else None)
    engine = _Replayer(r, params)
    done: list[CommitCost] = []
    partial = False
    total = len(commits)
    report(progress, 0, total)
    try:
        for n, commit in enumerate(commits, 1):
            try:
                done.append(_replay_commit(engine, r, commit, matches))
            except (pygit2.GitError, CorruptObjectError) as e:  # a damaged (or missing) tree or blob
                why = str(e).removeprefix(f"{repo_name(r)}: ")
                if not skip_unreadable:
                    raise GitError(f"{repo_name(r)}: commit {commit.short_id} ({subject_of(commit)[:60]}) cannot be "
                                   f"read: {why}; --skip-unreadable leaves it out", repo=repo_name(r),
                                   revision=str(commit.id)) from None
                unreadable.append(Skipped(str(commit.id), "", f"cannot be read: {why}"))
            report(progress, n, total)
    except (Cancelled, KeyboardInterrupt):
        if not keep_partial:
            raise
        partial = True
    names = engine.names()
    all_files = [f for c in done for f in c.files]
    return AuditResult(
        repo=repo_name(r), paths=tuple(paths), rules=tuple(names),
        params={rule: p.to_dict() for rule, p in params.items()}, commits=done,
        totals={name: RuleTotals.of(name, all_files) for name in names}, partial=partial,
        skipped=[s for c in done for s in c.skipped], planned_commits=total, unreadable=unreadable,
    )


def _replay_commit(engine: _Replayer, repo: pygit2.Repository, commit: pygit2.Commit, matches) -> CommitCost:
    cid, short = str(commit.id), commit.short_id
    files: list[FileCost] = []
    skipped: list[Skipped] = []
    if not commit.parents and repo.is_shallow:
        # a shallow clone's oldest commit looks like a root: counting every file as added
        # would invent a spike, so its cost is left out and said to be unknown
        skipped.append(Skipped(cid, "", SHALLOW_REASON))
        return _commit_cost(engine, commit, files, skipped)
    for delta in _changes(repo, commit):
        old, new = delta.old_file, delta.new_file
        if not (matches(new.path) or matches(old.path)):
            continue
        status = {DeltaStatus.ADDED: ADDED, DeltaStatus.DELETED: DELETED,
                  DeltaStatus.RENAMED: RENAMED}.get(delta.status, MODIFIED)
        if status == DELETED:
            if _kind_problem(old.mode) is None:
                f, _ = engine.costs(cid, DELETED, old.path, old.id, old.path, None, short)
                files.extend(f)
            continue
        problem = _kind_problem(new.mode)
        if problem is not None:
            skipped.append(Skipped(cid, new.path, problem))
            continue
        old_id = None if status == ADDED or _kind_problem(old.mode) is not None else old.id
        if old_id is None and status != ADDED:
            status = ADDED  # it was a link or submodule before: this is the first text version
        f, s = engine.costs(cid, status, old.path if old_id is not None else None, old_id, new.path, new.id, short)
        files.extend(f)
        skipped.extend(s)
    return _commit_cost(engine, commit, files, skipped)


def _commit_cost(engine: _Replayer, commit: pygit2.Commit, files: list[FileCost],
                 skipped: list[Skipped]) -> CommitCost:
    return CommitCost(str(commit.id), commit.short_id, subject_of(commit), commit.author.name, int(commit.commit_time),
                      str(commit.parent_ids[0]) if commit.parent_ids else None, tuple(files), tuple(skipped),
                      {name: RuleTotals.of(name, files) for name in engine.names()})


@dataclass(frozen=True)
class FileVersion:
    """One commit's change of one file, as a replay compares it: the text before (None
    when there is no embeddable one: the commit added the file, or its previous version
    is binary or not UTF-8) and the text after. status is added, modified or renamed;
    old_path the path in the first parent (None without an old text). The blob ids let
    a caller cache what it computes per version (the "after" of one change is the
    "before" of the next)."""

    commit: str
    short: str
    status: str
    path: str
    old_path: Optional[str]
    old_text: Optional[str]
    new_text: str
    old_blob: Optional[pygit2.Oid] = field(default=None, compare=False, repr=False)
    new_blob: Optional[pygit2.Oid] = field(default=None, compare=False, repr=False)


def file_versions(repo: Repo, path: str, commits: Sequence[str], progress: Progress | None = None, *,
                  read: Callable[[pygit2.Oid, str], str] | None = None) -> Iterator[FileVersion]:
    """The changes of the one file whose path at the newest of `commits` (oldest first;
    ids or any revision) is `path`, oldest first: one FileVersion per commit that changed
    it. Renames at those commits are followed back (give the commits as file_log lists
    them, reversed). A commit that did not change the file yields nothing; nor does one
    where it is a symbolic link, a submodule, or a binary, non-UTF-8 or over-large blob.

    The commits are resolved here (an unknown one raises now); the blobs are read as the
    iterator is consumed, `progress(done, total)` per commit, and `Cancelled` from it
    propagates. `read(blob id, origin)` gives a blob's text or raises LoadError (default:
    decode it, by the loader's rules); replay_file passes its cached reader."""
    r = open_repository(repo)
    resolved = [resolve_commit(r, c) for c in commits]
    plan: list[tuple[pygit2.Commit, str, Optional[str], bool]] = []
    current: Optional[str] = path.replace("\\", "/").strip("/")
    for commit in reversed(resolved):  # newest first, so a rename maps the path back
        if current is None:
            break
        try:
            commit.tree[current]
        except KeyError:
            continue
        before, changed = path_before(r, commit, current)
        plan.append((commit, current, before, changed))
        current = before
    plan.reverse()
    return _walk_versions(plan, read if read is not None else _RecentBlobs(r).read, progress)


class _RecentBlobs:
    """A blob reader remembering the last few texts it read (or why it could not): one
    change's "after" is the next change's "before", so each version is read and
    decoded once, not twice."""

    def __init__(self, repo: pygit2.Repository, size: int = 4):
        self.repo, self.size = repo, size
        self._texts: OrderedDict[pygit2.Oid, str | LoadError] = OrderedDict()

    def read(self, blob_id: pygit2.Oid, origin: str) -> str:
        text = self._texts.get(blob_id)
        if text is None:
            try:
                text = decode_blob(self.repo[blob_id], origin)
            except LoadError as e:
                text = e
            self._texts[blob_id] = text
            if len(self._texts) > self.size:
                self._texts.popitem(last=False)
        if isinstance(text, LoadError):
            raise text
        return text


def _walk_versions(plan, read: Callable[[pygit2.Oid, str], str], progress: Progress | None) -> Iterator[FileVersion]:
    report(progress, 0, len(plan))
    for n, (commit, new_path, old_path, changed) in enumerate(plan, 1):
        if changed:
            version = _version_at(commit, new_path, old_path, read)
            if version is not None:
                yield version
        report(progress, n, len(plan))


def _version_at(commit: pygit2.Commit, new_path: str, old_path: Optional[str],
                read: Callable[[pygit2.Oid, str], str]) -> Optional[FileVersion]:
    new_entry = commit.tree[new_path]
    if _kind_problem(new_entry.filemode) is not None:
        return None
    old_id = commit.parents[0].tree[old_path].id if old_path is not None else None
    version, _ = read_change(str(commit.id), commit.short_id, new_path, new_entry.id, old_path, old_id, read)
    return version


def read_change(commit: str, short: str, new_path: str, new_id: pygit2.Oid, old_path: Optional[str],
                old_id: Optional[pygit2.Oid], read: Callable[[pygit2.Oid, str], str]
                ) -> tuple[Optional[FileVersion], tuple[Skipped, ...]]:
    """The texts of one changed file (`old_id` None: it has no version before), and
    what could not be read: None and why, when the new version is not text; when only
    the old one is not, the change counts as an addition (nothing of the old version
    was embeddable), and why is said too. The status is modified, renamed or added."""
    try:
        new_text = read(new_id, f"{new_path} @ {short}")
    except LoadError as e:
        return None, (Skipped(commit, new_path, e.reason),)
    if old_id is not None:
        try:
            old_text = read(old_id, f"{old_path} @ {short}^")
        except LoadError as e:
            return (FileVersion(commit, short, ADDED, new_path, None, None, new_text, None, new_id),
                    (Skipped(commit, old_path or new_path, f"previous version: {e.reason}; counted as added"),))
        status = RENAMED if old_path != new_path else MODIFIED
        return FileVersion(commit, short, status, new_path, old_path, old_text, new_text, old_id, new_id), ()
    return FileVersion(commit, short, ADDED, new_path, None, None, new_text, None, new_id), ()


def replay_file(repo: Repo, path: str, commits: Sequence[str],
                params_by_rule: Mapping[str, AnyParams | None] | None = None,
                progress: Progress | None = None) -> list[FileCost]:
    """What each of `commits` (oldest first; ids or any revision) cost for the one file
    whose path at the newest of them is `path`, under each rule and the baseline, in
    commit order: file_versions' changes, each compared as the audit compares it (so a
    commit that did not change the file, or where it is not a text file, gives no
    FileCost). `progress(done, total)` per commit; `Cancelled` from it propagates."""
    r = open_repository(repo)
    params = resolve_params(params_by_rule)
    engine = _Replayer(r, params)
    out: list[FileCost] = []
    for v in file_versions(r, path, commits, progress, read=engine.text):
        out.extend(engine.version_costs(v))
    return out
