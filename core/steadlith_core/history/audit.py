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
parameter sweep distributes; it compares the changes `changes.file_versions()` reads.
What a replay records (`FileCost` and its totals, the CSV rows) is `audit_costs`.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Callable, Mapping, Optional, Sequence

import pygit2
from pygit2.enums import DiffFind, DeltaStatus

from ..chunking.chunks import AnyParams, Chunking
from ..comparison.baseline import BASELINE_STRATEGY, FixedChunking, baseline_for
from ..comparison.churn import compare
from ..comparison.measurement import ChurnSummary
from ..comparison.diff import word_diff
from ..errors import LoadError, ParameterError
from .audit_costs import ADDED, DELETED, MODIFIED, RENAMED, AuditResult, CommitCost, FileCost, RuleTotals, Skipped
from .changes import FileVersion, file_versions, kind_problem, read_change
from .git_errors import CorruptObjectError, GitError, UnreadableCommitError
from .repository import Repo, decode_blob, first_parent_walk, open_repository, repo_name, resolve_commit, subject_of
from ..chunking.lmx2_params import BOUNDARY_RULES
from ..chunking.pipeline import Pipeline
from ..chunking.rules import check_rule, default_params, rule_of
from ..progress import Cancelled, Progress, report
from .pathglob import DEFAULT_PATHS, path_matcher

SHALLOW_REASON = ("the history before this commit is not in this shallow clone, so what it changed is unknown "
                  "(git fetch --unshallow brings it)")


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
        self.pipeline = Pipeline(2, word_symbols=True)  # the word diff reads a long version's symbols too
        self._versions = _VersionCache()

    def _version(self, blob_id: pygit2.Oid, origin: str) -> _Version:
        def read() -> _Version:
            try:
                # a version is held to the audit's own figure under the rules it runs
                return _Version(decode_blob(self.repo[blob_id], origin, command="audit", rules=list(self.params)),
                                None)
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
            if kind_problem(old.mode) is None:
                f, _ = engine.costs(cid, DELETED, old.path, old.id, old.path, None, short)
                files.extend(f)
            continue
        problem = kind_problem(new.mode)
        if problem is not None:
            skipped.append(Skipped(cid, new.path, problem))
            continue
        old_id = None if status == ADDED or kind_problem(old.mode) is not None else old.id
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
