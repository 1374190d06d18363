"""Lmx2Params: the parameters of boundary rule `lmx2-v1`, their validation, canonical
bytes and hash (docs/contract/lmx2-v1.md#parameters, docs/contract/identity.md#params-hash),
and which fields belong to which rule (rules.py
parses a field mapping of either rule into its type)."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from functools import cached_property
from typing import Any, Mapping

import xxhash

from ..errors import ParameterError
from .params import BOUNDARY_RULE as TTTD_RULE
from .params import ChunkerParams, check_token_counter, require_int, enc, token_counter_id

LMX2_RULE = "lmx2-v1"
BOUNDARY_RULES = (TTTD_RULE, LMX2_RULE)
KEY_ID = "poly64-fmix-xxh3_64-word/1"
PREFERENCE_ON = "paragraph-sentence/1"
PREFERENCE_OFF = "off"
PREFERENCES = (PREFERENCE_ON, PREFERENCE_OFF)
# Every integer field is bounded by 2^32 (docs/contract/lmx2-v1.md#parameters), so a margin or a gate fits int64
# whatever the document.
LMX2_INT_LIMIT = 2**32
LMX2_INT_FIELDS = ("min_tokens", "max_tokens", "horizon", "fill_horizon", "key_tokens")
# The range each integer field can take, bounds included (as params.INT_RANGES): min_tokens
# stops where max_tokens >= 3 * min_tokens - 1 still fits 2^32; the lower bounds that
# depend on min_tokens are checked on construction.
LMX2_INT_RANGES: dict[str, tuple[int, int]] = {
    "min_tokens": (1, (LMX2_INT_LIMIT + 1) // 3),
    "max_tokens": (2, LMX2_INT_LIMIT),
    "horizon": (1, LMX2_INT_LIMIT),
    "fill_horizon": (1, LMX2_INT_LIMIT),
    "key_tokens": (1, LMX2_INT_LIMIT),
}


@dataclass(frozen=True)
class Lmx2Params:
    """lmx2-v1 parameters. Invalid values raise ParameterError on construction, the
    fields checked in the order of the table in docs/contract/lmx2-v1.md#parameters."""

    token_counter: str = "chars4/1"
    min_tokens: int = 96
    max_tokens: int = 512
    horizon: int = 128
    fill_horizon: int = 96
    key_tokens: int = 32
    boundary_preference: str = PREFERENCE_ON

    boundary_rule = LMX2_RULE  # a class constant, not a field: the type is the rule
    # the margin's formula as exports and reports print it, with the section that proves it
    margin_formula = "fill_horizon + gate + horizon + key_tokens (docs/contract/lmx2-v1.md#locality)"

    def __post_init__(self) -> None:
        _validate(self)

    # -- derived -------------------------------------------------------------------
    @property
    def gate(self) -> int:
        """G: how far from every edge and primary cut a fill cut must be (docs/contract/lmx2-v1.md#parameters)."""
        return (self.max_tokens + 1 - self.min_tokens) // 2

    @property
    def margin(self) -> int:
        """M (docs/contract/lmx2-v1.md#locality): chunks farther than this from an edit keep their hash."""
        return self.fill_horizon + self.gate + self.horizon + self.key_tokens

    @property
    def prefers_boundaries(self) -> bool:
        return self.boundary_preference == PREFERENCE_ON

    def canonical_fields(self) -> list[tuple[str, str]]:
        return [
            ("boundary_rule", LMX2_RULE),
            ("key", KEY_ID),
            ("token_counter", token_counter_id(self.token_counter)),
            ("min_tokens", str(self.min_tokens)),
            ("max_tokens", str(self.max_tokens)),
            ("horizon", str(self.horizon)),
            ("fill_horizon", str(self.fill_horizon)),
            ("key_tokens", str(self.key_tokens)),
            ("boundary_preference", self.boundary_preference),
        ]

    def canonical_bytes(self) -> bytes:
        out = [enc("steadlith-chunker-params")]
        for key, value in self.canonical_fields():
            out.append(enc(key) + enc(value))
        return b"".join(out)

    @cached_property
    def params_hash(self) -> str:
        return xxhash.xxh3_128_hexdigest(self.canonical_bytes())

    def to_dict(self) -> dict[str, int | str]:
        """The fields of docs/contract/lmx2-v1.md#parameters, `boundary_rule` first, so that
        `rules.params_from_mapping(p.to_dict()) == p`."""
        return {"boundary_rule": LMX2_RULE, **{f.name: getattr(self, f.name) for f in fields(self)}}

    @classmethod
    def from_dict(cls, values: Mapping[str, Any], base: "Lmx2Params | None" = None) -> "Lmx2Params":
        """Defaults (or `base`) changed by `values`; a `boundary_rule` in them must be ours."""
        values = dict(values)
        rule = values.pop("boundary_rule", LMX2_RULE)
        if rule != LMX2_RULE:
            raise ParameterError("boundary_rule", f"Lmx2Params are the parameters of {LMX2_RULE}, not {rule!r}", rule)
        _reject_foreign_names(values, LMX2_RULE)
        return replace(base or cls(), **values)

    def with_changes(self, **changes: Any) -> "Lmx2Params":
        return Lmx2Params.from_dict(changes, base=self)


RULE_FIELDS: dict[str, frozenset[str]] = {
    TTTD_RULE: frozenset(f.name for f in fields(ChunkerParams)),
    LMX2_RULE: frozenset(f.name for f in fields(Lmx2Params)),
}


def _reject_foreign_names(values: Mapping[str, Any], rule: str) -> None:
    """Unknown names and the other rule's fields, before any value (docs/contract/lmx2-v1.md#parameters)."""
    own = RULE_FIELDS[rule]
    every = frozenset().union(*RULE_FIELDS.values())
    for name in values:
        if name not in every:
            raise ParameterError(str(name), f"unknown parameter name for {rule}", values[name])
    for name in values:
        if name not in own:
            other = next(r for r, names in RULE_FIELDS.items() if name in names)
            raise ParameterError(name, f"a {other} field, not a field of {rule}", values[name])


def _require_bounded(name: str, value: Any, low: int, low_rule: str) -> int:
    v = require_int(name, value)
    if v < low:
        raise ParameterError(name, f"must be >= {low_rule}, got {v}", v)
    if v > LMX2_INT_LIMIT:
        raise ParameterError(name, f"must be <= 2^32, got {v}", v)
    return v


def _validate(p: Lmx2Params) -> None:
    check_token_counter(p.token_counter)
    lo = _require_bounded("min_tokens", p.min_tokens, 1, "1")
    _require_bounded("max_tokens", p.max_tokens, 3 * lo - 1, f"3 * min_tokens - 1 = {3 * lo - 1}")
    reach = max(1, lo - 1)
    _require_bounded("horizon", p.horizon, reach, f"max(1, min_tokens - 1) = {reach}")
    _require_bounded("fill_horizon", p.fill_horizon, reach, f"max(1, min_tokens - 1) = {reach}")
    _require_bounded("key_tokens", p.key_tokens, 1, "1")
    if not isinstance(p.boundary_preference, str) or p.boundary_preference not in PREFERENCES:
        raise ParameterError(
            "boundary_preference",
            f"unknown boundary preference {p.boundary_preference!r}; known: {', '.join(PREFERENCES)}",
            p.boundary_preference,
        )
