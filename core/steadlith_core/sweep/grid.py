"""A sweep's grid: `--grid NAME=V1,V2,…` entries over a base (`--preset`, `--set`) as the
list of parameter sets to replay, and the entries and combinations that cannot run.

Fields go to the rules that have them, as in `compare --rules`: with
`boundary_rule=tttd-v1,lmx2-v1` in the grid, `window_words=8,16` multiplies the tttd-v1
sets only and `horizon=…` the lmx2-v1 sets only, so a grid over both rules does not turn
into a list of errors. What cannot run is reported once and skipped, never fatal for the
rest: an entry that is not `NAME=V1,…`, a name no rule of the sweep has, a value that is
not a value of its field, and a combination its rule refuses (min_tokens above
max_tokens, …). Sets that come out identical (same params hash) run once.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from ..chunking.chunks import AnyParams
from ..chunking.lmx2_params import RULE_FIELDS
from ..chunking.params import BOUNDARY_RULE as TTTD_RULE
from ..chunking.rules import check_rule, params_from_mapping, parse_value, rule_of
from ..errors import ParameterError

RULE_FIELD = "boundary_rule"


@dataclass(frozen=True)
class ParamSet:
    """One parameter set of the sweep: its place in the grid and what it changes."""

    index: int
    params: AnyParams
    assignments: tuple[tuple[str, int | str], ...]  # the grid values it takes, in grid order

    @property
    def rule(self) -> str:
        return rule_of(self.params)

    @property
    def label(self) -> str:
        values = " ".join(f"{name}={value}" for name, value in self.assignments)
        return f"{self.rule} {values}".rstrip()

    def to_dict(self) -> dict:
        return {"index": self.index, "boundary_rule": self.rule, "label": self.label,
                "grid": {name: value for name, value in self.assignments},
                "params": self.params.to_dict(), "params_hash": self.params.params_hash}


@dataclass(frozen=True)
class Grid:
    """The runnable sets, in grid order, and one message per thing skipped."""

    sets: tuple[ParamSet, ...]
    skipped: tuple[str, ...]
    combinations: int  # the size of the product, before anything was skipped


def _entry(text: str) -> tuple[str, list[str]]:
    name, sep, values = text.partition("=")
    name = name.strip()
    items = [v.strip() for v in values.split(",")]
    if not sep or not name or not any(items):
        raise ParameterError(name or "--grid", f"expected NAME=V1,V2,…, got {text!r}")
    return name, [v for v in items if v]


def _base_rules(base: AnyParams | None, set_rule: str | None) -> list[str]:
    if set_rule is not None:
        return [set_rule]
    return [rule_of(base)] if base is not None else [TTTD_RULE]


def build_grid(entries: Sequence[str], *, assignments: Iterable[str] = (),
               base: AnyParams | None = None, bases: Mapping[str, AnyParams] | None = None) -> Grid:
    """The grid of `--grid` `entries` over `base` (a preset) changed by `assignments`
    (`--set NAME=VALUE`). `bases` gives a start per rule instead (the window's current
    parameters of each rule); without `boundary_rule` in the grid, the first one's rule
    is swept. A `--set` that no rule of the sweep takes is a ParameterError (the base is
    wrong, nothing could run); everything wrong in the grid is skipped."""
    skipped: list[str] = []
    dims: list[tuple[str, list]] = []
    for text in entries:
        try:
            name, values = _entry(text)
        except ParameterError as e:
            skipped.append(f"grid entry skipped: {e}")
            continue
        if any(name == other for other, _ in dims):
            skipped.append(f"grid entry skipped: {name}: given twice; the first one counts")
            continue
        dims.append((name, values))

    rules_dim = next((values for name, values in dims if name == RULE_FIELD), None)
    fixed = _parse_set(assignments)
    set_rule = fixed.pop(RULE_FIELD, None)
    if rules_dim is not None and set_rule is not None:
        raise ParameterError("--set", "boundary_rule is swept by --grid here; --set it or grid it, not both")
    if bases:
        base = base if base is not None else next(iter(bases.values()))
    bases = {**(bases or {}), **({rule_of(base): base} if base is not None else {})}

    checked: list[tuple[str, list]] = []
    for name, values in dims:
        kept = []
        for value in dict.fromkeys(values):  # a value given twice runs once
            try:
                kept.append(check_rule(value) if name == RULE_FIELD else value)
            except ParameterError as e:
                skipped.append(f"grid value skipped: {e}")
        if kept:
            checked.append((name, kept))
    rules = next((values for name, values in checked if name == RULE_FIELD), None)
    if rules_dim is not None and rules is None:
        return Grid((), tuple(skipped), 0)  # every rule named was unknown: nothing to run
    sweep_rules = rules if rules is not None else _base_rules(base, set_rule)
    for name in fixed:
        if not any(name in RULE_FIELDS[r] for r in sweep_rules):
            raise ParameterError(name, f"--set: not a field of {' or '.join(sweep_rules)}")

    dims = []
    for name, values in checked:
        if name != RULE_FIELD and not any(name in RULE_FIELDS[r] for r in sweep_rules):
            skipped.append(f"grid entry skipped: {name}: not a field of {' or '.join(sweep_rules)}")
            continue
        if name == RULE_FIELD:
            dims.append((name, values))
            continue
        parsed = []
        for value in values:
            try:
                parsed.append(parse_value(name, value))
            except ParameterError as e:
                skipped.append(f"grid value skipped: {e}")
        if parsed:
            dims.append((name, parsed))
    if entries and not dims:  # every entry skipped: the base alone is not the sweep asked for
        return Grid((), tuple(skipped), 0)
    return _combine(dims, fixed, set_rule or (rule_of(base) if base is not None else TTTD_RULE), bases,
                    skipped)


def _parse_set(assignments: Iterable[str]) -> dict[str, int | str]:
    out: dict[str, int | str] = {}
    for item in assignments:
        name, sep, value = item.partition("=")
        name = name.strip()
        if not sep or not name:
            raise ParameterError(name or "--set", f"expected NAME=VALUE, got {item!r}")
        out[name] = check_rule(value.strip()) if name == RULE_FIELD else parse_value(name, value)
    return out


def _combine(dims: list[tuple[str, list]], fixed: dict[str, int | str], default_rule: str,
             bases: Mapping[str, AnyParams], skipped: list[str]) -> Grid:
    sets: list[ParamSet] = []
    seen: set[str] = set()
    failures: dict[str, int] = {}
    combinations = 0
    for combo in itertools.product(*(values for _, values in dims)):
        combinations += 1
        chosen = dict(zip((name for name, _ in dims), combo))
        rule = str(chosen.get(RULE_FIELD, default_rule))
        applied = tuple((name, value) for name, value in chosen.items()
                        if name == RULE_FIELD or name in RULE_FIELDS[rule])
        values = {**{k: v for k, v in fixed.items() if k in RULE_FIELDS[rule]},
                  **{k: v for k, v in applied if k != RULE_FIELD}}
        try:
            params = params_from_mapping({RULE_FIELD: rule, **values}, bases.get(rule))
        except ParameterError as e:
            shown = " ".join(f"{k}={v}" for k, v in applied) or "the base"
            message = f"set skipped ({shown}): {e}"
            failures[message] = failures.get(message, 0) + 1
            continue
        if params.params_hash in seen:
            continue
        seen.add(params.params_hash)
        sets.append(ParamSet(len(sets), params, tuple((k, v) for k, v in applied if k != RULE_FIELD)))
    skipped += list(failures)  # a combination whose fields other rules ignore fails once, not per copy
    return Grid(tuple(sets), tuple(skipped), combinations)
