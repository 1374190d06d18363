"""The locality lab dock's state and what it shows, without Qt.

A run measures many edits of document A under every rule at the parameters the session
holds for it (steadlith_core.lab.run_lab). The dock shows one result at a time and says
whether it still describes what is on screen: a newer run, another text in A, or other
parameters make it *stale*, and the dock says so instead of quietly keeping it.

The figures (summary table, shared-bin distributions, worst edits) are computed here from
the core's LabResult, so tests compare them with run_lab without a widget.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Callable, Mapping, NamedTuple

import numpy as np

from .job_state import CANCELLED, FAILED, RUNNING, JobState


#: Each rule's colour borrows one Okabe–Ito hue of the boundary kinds (palette.py), in the
#: theme's own variant, and a line style, so the overlaid curves part under colour blindness
#: too. Unknown rules take the last entry.
RULE_STYLES = (("tttd-v1", "snapped", "solid"), ("lmx2-v1", "backup", "dash"), ("fixed", "end", "dot"))

#: What the dock lets the user choose: how many edits a run draws, and the seed that draws
#: them (the same seed draws the same edits again). A workspace keeps both.
DEFAULT_EDITS, MAX_EDITS = 500, 100_000
DEFAULT_SEED, MAX_SEED = 0, 2**31 - 1

#: Bins of an overlaid distribution: enough to show its shape in a dock a third of a
#: screen wide, few enough that a bin holds several edits of a 500-edit run.
DISTRIBUTION_BINS = 32


def rule_style(rule: str) -> tuple[str, str]:
    """(kind whose colour the rule takes, line style name) for a rule's curves."""
    for name, kind, line in RULE_STYLES:
        if name == rule:
            return kind, line
    return RULE_STYLES[-1][1], RULE_STYLES[-1][2]


@dataclass(frozen=True)
class LabRequest:
    """What a run measures: the text of A as it was when Run was pressed, its name, and
    every rule's parameters (None: the fixed-size baseline)."""

    text: str
    name: str
    rules: tuple[tuple[str, Any], ...]
    edits: int
    seed: int

    @property
    def rules_dict(self) -> dict[str, Any]:
        return dict(self.rules)


class LabSettingsError(ValueError):
    """A workspace's "lab" entry cannot be used: `where` is the key under it ("" for the
    entry as a whole), `reason` what is wrong."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}" if where else reason)
        self.where, self.reason = where, reason


@dataclass(frozen=True)
class LabSettings:
    """What a workspace keeps of the lab dock: the edits a run draws and its seed. A result
    is not kept: Run measures A as shown then, and the same seed draws the same edits."""

    edits: int = DEFAULT_EDITS
    seed: int = DEFAULT_SEED

    def to_dict(self) -> dict[str, Any]:
        return {"edits": self.edits, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "LabSettings":
        """Checked against the dock's own ranges; an absent key keeps its default
        (workspaces saved before the lab was kept)."""
        if not isinstance(data, Mapping):
            raise LabSettingsError("", "must be an object")
        values = {}
        for key, low, high, default in (("edits", 1, MAX_EDITS, DEFAULT_EDITS), ("seed", 0, MAX_SEED, DEFAULT_SEED)):
            value = data.get(key, default)
            # bool is an int to Python, never to a person writing `"seed": true`
            if type(value) is not int:
                shown = json.dumps(value, default=str)
                shown = shown if len(shown) <= 40 else shown[:37] + "..."
                raise LabSettingsError(key, f"must be a whole number from {low:,} to {high:,}, not {shown}")
            if not low <= value <= high:
                raise LabSettingsError(key, f"must be from {low:,} to {high:,}, not {value:,}")
            values[key] = value
        return cls(**values)


class LabState(JobState):
    """One run at a time (JobState); the result shown, and why it may no longer apply.

    `changed` is emitted after every change (the dock re-renders from the state)."""

    pending: LabRequest | None
    shown: LabRequest | None  # the request `result` answers

    def __init__(self) -> None:
        super().__init__()
        self.result: Any = None  # the core's LabResult shown
        self.stale: str | None = None  # why `result` no longer describes the window (None: it does)

    def start(self, request: LabRequest, total: int = 0) -> None:
        super().start(request, total or request.edits)

    def _started(self) -> None:
        if self.result is not None:
            self.stale = "a newer run was started"

    def _take(self, result: Any) -> None:
        self.result = result
        self.stale = None

    def check_inputs(self, text: str | None, rules: Mapping[str, Any]) -> None:
        """A's text or a rule's parameters may have changed: the result shown is stale if
        they differ from what it measured. Comparing A's text with the measured one (not
        the document's identity) keeps the result when the same text is loaded again."""
        if self.result is None or self.shown is None or self.phase == RUNNING:
            return
        if text != self.shown.text:
            reason = "document A changed since this run"
        elif dict(rules) != self.shown.rules_dict:
            reason = "the parameters changed since this run"
        else:
            reason = None
        if reason != self.stale:
            self.stale = reason
            self.changed.emit()

    @property
    def status(self) -> str:
        """One line for the dock: what is going on and what the figures below are."""
        if self.phase == RUNNING:
            done, total = self.progress
            text = f"Measuring edits of {self.pending.name}: {done:,} of {total:,}…"
        elif self.phase == CANCELLED:
            text = "Cancelled: that run left no result."
        elif self.phase == FAILED:
            text = f"The lab could not run: {self.error}"
        elif self.result is not None and self.shown is not None:
            r = self.shown
            text = f"{r.edits:,} edits of {r.name} (seed {r.seed}, {self.result.words:,} words)."
        else:
            text = "Measures many realistic edits of document A under every rule's current parameters."
        if self.result is not None and self.stale:
            text += f" Stale: {self.stale}; the figures below are from the earlier run."
        return text


# -- what the dock shows of a LabResult ------------------------------------------------------

STATISTICS = ("mean", "p50", "p95", "p99", "max")


def figure(value: float | None) -> str:
    """A token count as the table shows it: whole numbers grouped, a mean to one decimal."""
    if value is None:
        return "–"
    if isinstance(value, float) and not value.is_integer():
        return f"{value:,.1f}"
    return f"{int(value):,}"


def share(value: float | None) -> str:
    return "–" if value is None else f"{value * 100:.1f} %"


class SummaryRow(NamedTuple):
    label: str
    tip: str
    cell: Callable[[Any], str]  # RuleSummary -> text


SUMMARY_ROWS: tuple[SummaryRow, ...] = (
    SummaryRow("margin", "The rule's locality margin: how far an edit's effect may reach",
               lambda s: figure(s.margin) if s.margin is not None else "none"),
    *(SummaryRow(f"re-embed {k}", f"Tokens of the chunks an edit forces to re-embed: {k} over the edits",
                 lambda s, k=k: figure(s.tokens[k])) for k in STATISTICS),
    *(SummaryRow(f"reach {k}", "Token distance from the edit to the far end of the last changed "
                 f"chunk on either side: {k} over the edits", lambda s, k=k: figure(s.reach[k])) for k in STATISTICS),
    SummaryRow("past the margin", "Share of the edits whose effect reached past the rule's margin",
               lambda s: share(s.past_margin_share)),
)


def summary_table(result: Any) -> tuple[list[str], list[tuple[SummaryRow, list[str]]]]:
    """Columns (one per rule, side by side) and rows of the summary table."""
    rules = list(result.rules)
    return rules, [(row, [row.cell(result.rules[r]) for r in rules]) for row in SUMMARY_ROWS]


class WorstEdit(NamedTuple):
    rule: str
    rank: int  # index in RuleSummary.worst
    outcome: Any  # EditOutcome

    @property
    def description(self) -> str:
        return self.outcome.edit.describe()


def worst_edits(result: Any) -> list[WorstEdit]:
    """Every rule's worst edits, rule by rule, largest reach first within a rule."""
    return [WorstEdit(rule, k, o) for rule, s in result.rules.items() for k, o in enumerate(s.worst)]


class Distribution(NamedTuple):
    """Counts of edits per bin, every rule over the same bins (so the curves overlay).

    Bin i holds the whole token counts edges[i] .. edges[i+1] - 1. The first bin is
    exactly 0 (an edit that re-embeds nothing); the others widen geometrically, because
    one rule's costs can be a hundred times another's (the fixed-size baseline re-embeds
    the rest of the document) and a linear axis would squeeze the others into one bar."""

    edges: np.ndarray
    counts: dict[str, np.ndarray]
    margins: dict[str, int | None]


METRICS = {"tokens": ("tokens_to_embed", "tokens re-embedded per edit"), "reach": ("reach", "reach of an edit (tokens)")}


def distribution(result: Any, metric: str, bins: int = DISTRIBUTION_BINS) -> Distribution:
    attr = METRICS[metric][0]
    values = {rule: np.fromiter((getattr(o, attr) for o in outs), dtype=np.int64, count=len(outs))
              for rule, outs in result.outcomes.items()}
    top = max((int(v.max()) for v in values.values() if v.size), default=0)
    geometric = np.unique(np.rint(np.geomspace(1, top + 1, max(bins, 2))).astype(np.int64)) if top else np.array([1])
    edges = np.concatenate(([0], geometric))
    if edges[-1] <= top:
        edges = np.append(edges, top + 1)
    # numpy closes its last bin; top + 1 is never a value, so every bin is half-open
    counts = {rule: np.histogram(v, bins=edges)[0] for rule, v in values.items()}
    margins = {rule: result.rules[rule].margin for rule in result.rules}
    return Distribution(edges, counts, margins)


def position(tokens: Any) -> Any:
    """Where a token count sits on the charts' axis: log10(tokens + 1), so 0 has a place."""
    return np.log10(np.asarray(tokens, dtype=float) + 1)


def tokens_at(x: float) -> float:
    return float(10 ** x - 1)


def bin_of(d: Distribution, tokens: float) -> int | None:
    """The bin holding `tokens` (a count, may be fractional under the pointer)."""
    if tokens < 0 or tokens >= d.edges[-1]:
        return None
    return int(np.searchsorted(d.edges, tokens, side="right")) - 1


def bin_label(d: Distribution, i: int) -> str:
    lo, hi = int(d.edges[i]), int(d.edges[i + 1]) - 1
    return f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
