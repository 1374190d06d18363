"""What an audit records: the cost of one file under one rule (`FileCost`), what was
skipped and why, the totals per rule, per commit and for the whole replay, and the rows
of its CSV. `audit` fills these by replaying a history; `audit_report` draws them.
"""

from __future__ import annotations

import csv
import io
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Optional

import numpy as np

SCHEMA = "steadlith-audit/1"
ADDED, MODIFIED, RENAMED, DELETED = "added", "modified", "renamed", "deleted"


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
