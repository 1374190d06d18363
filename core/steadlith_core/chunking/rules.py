"""The boundary rules by id, and the one way from field names and values to a rule's
parameters: a mapping (`params_from_mapping`), `NAME=VALUE` strings as from `--set`
(`parse_assignments`), or one set of strings applied to several rules at once
(`parse_rule_assignments`, for `steadlith compare --rules`).

Each rule owns its parameter type (docs/contract/lmx2-v1.md#parameters): `tttd-v1` ChunkerParams, `lmx2-v1`
Lmx2Params. A mapping without `boundary_rule` is tttd-v1's. Unknown names and fields of
the other rule are rejected before any value is looked at, and every error is a
ParameterError naming the field.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..errors import ParameterError
from .lmx2_params import (BOUNDARY_RULES, LMX2_INT_FIELDS, LMX2_INT_RANGES, LMX2_RULE, RULE_FIELDS, Lmx2Params,
                          _reject_foreign_names)
from .params import BOUNDARY_RULE as TTTD_RULE
from .params import INT_FIELDS, INT_RANGES, ChunkerParams, parse_int
from .presets import preset

if TYPE_CHECKING:  # chunks imports numpy, which parsing parameters does not need
    from .chunks import AnyParams

PARAMS_TYPES: dict[str, type] = {TTTD_RULE: ChunkerParams, LMX2_RULE: Lmx2Params}
# Each rule's fields in the order of its spec table (a parameter form lists them so).
FIELDS_BY_RULE: dict[str, tuple[str, ...]] = {rule: tuple(f.name for f in fields(t)) for rule, t in PARAMS_TYPES.items()}

#: {rule: {integer field: (lowest, highest) accepted on its own}}: what an editor may offer.
INT_RANGES_BY_RULE: dict[str, dict[str, tuple[int, int]]] = {TTTD_RULE: INT_RANGES, LMX2_RULE: LMX2_INT_RANGES}
_EVERY_FIELD = frozenset().union(*RULE_FIELDS.values())
_INT_FIELDS = frozenset(INT_FIELDS) | frozenset(LMX2_INT_FIELDS)


def is_int_field(name: str) -> bool:
    """Whether a field of either rule takes an integer (typed as decimal or 0x hex)."""
    return name in _INT_FIELDS


def parse_value(name: str, text: str) -> int | str:
    """One field's value from text as a user typed it (the CLI's --set, a form field):
    an integer for integer fields, else the stripped text; ParameterError names the field."""
    return _value(name, text)


def rule_of(params: Any) -> str:
    """The id of the rule `params` belong to; TypeError for anything else."""
    for rule, typ in PARAMS_TYPES.items():
        if type(params) is typ:
            return rule
    raise TypeError(f"no boundary rule takes parameters of type {type(params).__name__}")


def check_rule(rule: Any) -> str:
    if not isinstance(rule, str) or rule not in BOUNDARY_RULES:
        shown = repr(rule) if len(repr(rule)) <= 40 else repr(rule)[:37] + "..."
        raise ParameterError("boundary_rule", f"unknown boundary rule {shown}; known: {', '.join(BOUNDARY_RULES)}",
                             rule)
    return rule


def default_params(rule: str) -> AnyParams:
    return PARAMS_TYPES[check_rule(rule)]()


def params_from_mapping(values: Mapping[str, Any], base: AnyParams | None = None) -> AnyParams:
    """A field mapping, with an optional `boundary_rule`, as the parameters of that rule
    (the rule of `base` when absent, else `tttd-v1`). Fields not given come from `base`
    when it is of that rule, else from the rule's defaults."""
    fields_only = {k: v for k, v in values.items() if k != "boundary_rule"}
    for name in fields_only:  # unknown to both rules: rejected whatever the rule says
        if name not in _EVERY_FIELD:
            raise ParameterError(str(name), "unknown parameter name", fields_only[name])
    rule = check_rule(values.get("boundary_rule", rule_of(base) if base is not None else TTTD_RULE))
    _reject_foreign_names(fields_only, rule)
    start = base if base is not None and rule_of(base) == rule else None
    return PARAMS_TYPES[rule].from_dict(fields_only, start)


def _split(item: str) -> tuple[str, str]:
    name, sep, value = item.partition("=")
    name = name.strip()
    if not sep or not name:
        raise ParameterError(name or "--set", f"expected NAME=VALUE, got {item!r}")
    return name, value


def _value(name: str, text: str) -> int | str:
    return parse_int(name, text) if name in _INT_FIELDS else text.strip()


def _known(rule: str) -> str:
    return ", ".join(sorted(RULE_FIELDS[rule] | {"boundary_rule"}))


def parse_assignments(items: Iterable[str], base: AnyParams | None = None) -> AnyParams:
    """`NAME=VALUE` strings (as from `--set`) applied to `base` or the defaults.

    `boundary_rule=lmx2-v1` (anywhere among the items) switches to that rule's type;
    `base` then counts only if it is of that rule, else the rule's defaults are the
    start. Integers in decimal or 0x hex. Names are checked before values."""
    pairs = [_split(item) for item in items]
    rule = rule_of(base) if base is not None else TTTD_RULE
    for name, value in pairs:
        if name == "boundary_rule":
            rule = check_rule(value.strip())
    for name, _ in pairs:
        if name != "boundary_rule" and name not in RULE_FIELDS[rule]:
            if name in _EVERY_FIELD:
                other = next(r for r, names in RULE_FIELDS.items() if name in names)
                raise ParameterError(name, f"a {other} field, not a field of {rule} (set boundary_rule={other} "
                                           f"to use it); {rule} fields: {_known(rule)}")
            raise ParameterError(name, f"unknown parameter name; known for {rule}: {_known(rule)}")
    changes = {name: _value(name, value) for name, value in pairs if name != "boundary_rule"}
    return params_from_mapping({"boundary_rule": rule, **changes}, base)


def parse_rule_assignments(items: Iterable[str], rules: Sequence[str],
                           bases: Mapping[str, AnyParams] | None = None) -> dict[str, AnyParams]:
    """One list of `NAME=VALUE` strings applied to several rules at once: each field goes
    to every rule in `rules` that has it (`min_tokens`, `max_tokens`, `token_counter` to
    both; `window_words` to tttd-v1 only; `horizon` to lmx2-v1 only). A field none of
    the rules has is an error, and so is `boundary_rule` (the rules are given).
    `bases` gives a starting point per rule (a preset); otherwise the defaults."""
    rules = [check_rule(r) for r in rules]
    pairs = [_split(item) for item in items]
    for name, _ in pairs:
        if name == "boundary_rule":
            raise ParameterError("boundary_rule", "is chosen by --rules here; --set only the rules' fields")
        if not any(name in RULE_FIELDS[r] for r in rules):
            known = ", ".join(sorted(frozenset().union(*(RULE_FIELDS[r] for r in rules))))
            raise ParameterError(name, f"not a field of {' or '.join(rules)}; known: {known}")
    out = {}
    for rule in rules:
        changes = {name: _value(name, value) for name, value in pairs if name in RULE_FIELDS[rule]}
        base = (bases or {}).get(rule)
        out[rule] = params_from_mapping({"boundary_rule": rule, **changes}, base)
    return out


def preset_bases(preset_name: str | None, rules: Sequence[str], listed: str | None = None) -> dict[str, AnyParams]:
    """`--preset NAME` as the base of its rule, for commands that take several `--rules`:
    an error if its rule is not among them (`listed` is how --rules read, for the message)."""
    if preset_name is None:
        return {}
    base = preset(preset_name)
    rule = rule_of(base)
    if rule not in rules:
        raise ParameterError("--preset", f"{preset_name!r} is a {rule} preset, not one of --rules "
                                         f"{listed if listed is not None else ', '.join(rules)}")
    return {rule: base}


def parse_rules(text: str) -> list[str]:
    """`tttd-v1,lmx2-v1` as a list of known rule ids, each once, in the order given."""
    rules = [r.strip() for r in text.split(",") if r.strip()]
    if not rules:
        raise ParameterError("--rules", "name at least one boundary rule: " + ", ".join(BOUNDARY_RULES))
    seen: list[str] = []
    for r in rules:
        check_rule(r)
        if r not in seen:
            seen.append(r)
    return seen
