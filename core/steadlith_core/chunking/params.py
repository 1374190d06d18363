"""ChunkerParams: the frozen, validated parameter set, its canonical bytes and hash
(docs/contract/tttd-v1.md#parameters, docs/contract/identity.md#canonical-parameters)."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from typing import Any, Mapping

import xxhash

from ..errors import ParameterError
from ..kernel.polynomial import degree, is_irreducible
from ..vocabulary import BUILTIN_TOKEN_COUNTERS

BOUNDARY_RULE = "tttd-v1"
FINGERPRINT_ID = "rabin-gf2-xxh3_64-word/1"
SNAP_OFF = "off"
SNAP_PARAGRAPH_SENTENCE = "paragraph-sentence/1"
SNAP_MODES = (SNAP_OFF, SNAP_PARAGRAPH_SENTENCE)
INT_FIELDS = (
    "window_words", "polynomial", "primary_mask", "primary_remainder", "backup_mask",
    "backup_remainder", "min_tokens", "max_tokens", "snap_window_words",
)
STR_FIELDS = ("token_counter", "snap_mode")


def enc(x: str | bytes | int) -> bytes:
    """8-byte big-endian length, then the bytes (ints as decimal ASCII): docs/contract/identity.md#enc."""
    if isinstance(x, int):
        x = str(x)
    if isinstance(x, str):
        x = x.encode("utf-8")
    return len(x).to_bytes(8, "big") + x


# No field of docs/contract/tttd-v1.md#parameters can mean anything past 64 bits (the polynomial has degree <= 63); a
# bound also keeps error messages and decimal encoding away from 4300-digit integers.
INT_LIMIT = 2**64


def require_int(name: str, value: Any) -> int:
    """`value` if it is an int (not a bool) below 2^64 in magnitude, else a
    ParameterError naming `name`: the type rule of docs/contract/tttd-v1.md#parameters, shared by every rule."""
    if type(value) is not int:  # bool is an int subclass; docs/contract/tttd-v1.md#parameters rejects it too
        shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
        raise ParameterError(name, f"must be an integer, not {type(value).__name__} {shown}", value)
    if not -INT_LIMIT < value < INT_LIMIT:
        raise ParameterError(name, f"must be below 2^64 in magnitude (got {value.bit_length()} bits)", value)
    return value


# The range each integer field accepts on its own (docs/contract/tttd-v1.md#parameters), bounds included: the one
# table an editor of these fields reads its limits from. Relations between fields
# (max_tokens >= min_tokens, masks under the polynomial's degree, a snap window while
# snapping is on) are checked on construction.
_MASK_MAX = 2**63 - 1  # a mask fits the fingerprint of a degree <= 63 polynomial
INT_RANGES: dict[str, tuple[int, int]] = {
    "window_words": (1, INT_LIMIT - 1),
    "polynomial": (1, INT_LIMIT - 1),
    "primary_mask": (0, _MASK_MAX),
    "primary_remainder": (0, _MASK_MAX),
    "backup_mask": (0, _MASK_MAX),
    "backup_remainder": (0, _MASK_MAX),
    "min_tokens": (1, INT_LIMIT - 1),
    "max_tokens": (1, INT_LIMIT - 1),
    "snap_window_words": (0, INT_LIMIT - 1),
}


@dataclass(frozen=True)
class ChunkerParams:
    """tttd-v1 parameters. Invalid values raise ParameterError on construction.

    `snap_window_words` keeps the value given even when snapping is off, so a user's
    choice survives toggling snapping; identity (canonical bytes, params hash) and the
    chunker treat it as 0 while snapping is off, as docs/contract/tttd-v1.md#parameters asks.
    """

    window_words: int = 16
    polynomial: int = 0x3DA3358B4DC173
    primary_mask: int = 0x7F
    primary_remainder: int = 0x7F
    backup_mask: int = 0x3F
    backup_remainder: int = 0x3F
    token_counter: str = "chars4/1"
    min_tokens: int = 96
    max_tokens: int = 512
    snap_mode: str = SNAP_OFF
    snap_window_words: int = 0

    boundary_rule = BOUNDARY_RULE  # a class constant, not a field: the type is the rule
    # the margin's formula as exports and reports print it, with the section that proves it
    margin_formula = "max_tokens + window_words + snap_window_words (docs/contract/tttd-v1.md#locality)"

    def __post_init__(self) -> None:
        _validate(self)

    # -- derived -------------------------------------------------------------------
    @property
    def degree(self) -> int:
        return degree(self.polynomial)

    @property
    def snapping(self) -> bool:
        return self.snap_mode != SNAP_OFF

    @property
    def effective_snap_window(self) -> int:
        return self.snap_window_words if self.snapping else 0

    @property
    def margin(self) -> int:
        """The locality margin (docs/contract/tttd-v1.md#locality), in tokens (window and snap window counted as given)."""
        return self.max_tokens + self.window_words + self.effective_snap_window

    def canonical_fields(self) -> list[tuple[str, str]]:
        return [
            ("boundary_rule", BOUNDARY_RULE),
            ("fingerprint", FINGERPRINT_ID),
            ("polynomial", str(self.polynomial)),
            ("window_words", str(self.window_words)),
            ("primary_mask", str(self.primary_mask)),
            ("primary_remainder", str(self.primary_remainder)),
            ("backup_mask", str(self.backup_mask)),
            ("backup_remainder", str(self.backup_remainder)),
            ("token_counter", token_counter_id(self.token_counter)),
            ("min_tokens", str(self.min_tokens)),
            ("max_tokens", str(self.max_tokens)),
            ("snap_mode", self.snap_mode),
            ("snap_window_words", str(self.effective_snap_window)),
        ]

    def canonical_bytes(self) -> bytes:
        out = [enc("steadlith-chunker-params")]
        for key, value in self.canonical_fields():
            out.append(enc(key) + enc(value))
        return b"".join(out)

    @property
    def params_hash(self) -> str:
        return params_hash(self)

    def to_dict(self) -> dict[str, int | str]:
        """`boundary_rule` first, then the fields of docs/contract/tttd-v1.md#parameters as canonically meant (snap
        window 0 when snapping is off): the same shape as Lmx2Params.to_dict, so a
        mapping says which rule it is for (rules.params_from_mapping reads it back)."""
        d: dict[str, int | str] = {"boundary_rule": BOUNDARY_RULE}
        d.update((f.name, getattr(self, f.name)) for f in fields(self))
        d["snap_window_words"] = self.effective_snap_window
        return d

    @classmethod
    def from_dict(cls, values: Mapping[str, Any], base: "ChunkerParams | None" = None) -> "ChunkerParams":
        """Defaults (or `base`) changed by `values`; unknown names are a ParameterError.
        A `boundary_rule` in `values` must be tttd-v1's (to_dict writes it)."""
        values = dict(values)
        rule = values.pop("boundary_rule", BOUNDARY_RULE)
        if rule != BOUNDARY_RULE:
            raise ParameterError("boundary_rule", f"ChunkerParams are the parameters of {BOUNDARY_RULE}, "
                                 f"not {rule!r}", rule)
        known = {f.name for f in fields(cls)}
        for name in values:
            if name not in known:
                raise ParameterError(str(name), "unknown parameter name", values[name])
        return replace(base or cls(), **dict(values))

    def with_changes(self, **changes: Any) -> "ChunkerParams":
        return ChunkerParams.from_dict(changes, base=self)


_HASH_CACHE: dict[tuple, str] = {}


def params_hash(p: ChunkerParams) -> str:
    key = tuple(v for _, v in p.canonical_fields())
    h = _HASH_CACHE.get(key)
    if h is None:
        h = xxhash.xxh3_128_hexdigest(p.canonical_bytes())
        if len(_HASH_CACHE) > 4096:
            _HASH_CACHE.clear()
        _HASH_CACHE[key] = h
    return h


_IRREDUCIBLE_CACHE: dict[int, bool] = {}


def check_polynomial(value: Any) -> int:
    """Validate a polynomial alone (the GUI checks it as the user types)."""
    p = require_int("polynomial", value)
    if p <= 0:
        raise ParameterError("polynomial", "must be a positive integer (a polynomial over GF(2))", p)
    d = degree(p)
    if d < 8:
        raise ParameterError("polynomial", f"degree must be 8..63, this one has degree {d}", p)
    if d > 63:
        raise ParameterError("polynomial", f"degree must be 8..63, this one has degree {d}", p)
    irreducible = _IRREDUCIBLE_CACHE.get(p)
    if irreducible is None:
        irreducible = _IRREDUCIBLE_CACHE[p] = is_irreducible(p)
    if not irreducible:
        raise ParameterError("polynomial", f"must be irreducible over GF(2); {p:#x} is reducible", p)
    return p


def _check_mask(p: ChunkerParams, mask_name: str, rem_name: str, d: int) -> None:
    mask = require_int(mask_name, getattr(p, mask_name))
    if mask < 0:
        raise ParameterError(mask_name, f"must be >= 0, got {mask}", mask)
    if mask >= 1 << d:
        raise ParameterError(
            mask_name, f"must fit the {d}-bit fingerprint of a degree-{d} polynomial (< 2^{d})", mask
        )
    rem = require_int(rem_name, getattr(p, rem_name))
    if rem < 0 or rem & ~mask:
        raise ParameterError(
            rem_name, f"must only use bits of {mask_name} ({mask:#x}); got {rem:#x}", rem
        )


def check_token_counter(name: object) -> None:
    """`name` is a registered token counter or a tokenizer spec that loads
    (docs/contract/tokens.md#tokenizers). A built-in one is known without importing the
    counters (numpy), which `steadlith params` has no other use for."""
    if isinstance(name, str) and name in BUILTIN_TOKEN_COUNTERS:
        return
    from . import tokens

    if not isinstance(name, str):
        raise ParameterError(
            "token_counter", f"unknown token counter {name!r}; known: {', '.join(tokens.known_counters())}", name)
    tokens.get_counter(name)


def token_counter_id(name: str) -> str:
    """What the canonical parameters hold for `token_counter`: the counter's id
    (docs/contract/tokens.md#identity), which for a tokenizer spec (`hf:PATH`) names the
    tokenizer and pins its vocabulary by content, so the path itself never enters it."""
    if name in BUILTIN_TOKEN_COUNTERS:
        return name
    from . import tokens

    return tokens.counter_id(name)


def _validate(p: ChunkerParams) -> None:
    window = require_int("window_words", p.window_words)
    if window < 1:
        raise ParameterError("window_words", f"must be >= 1, got {window}", window)
    d = degree(check_polynomial(p.polynomial))
    _check_mask(p, "primary_mask", "primary_remainder", d)
    _check_mask(p, "backup_mask", "backup_remainder", d)
    check_token_counter(p.token_counter)
    lo = require_int("min_tokens", p.min_tokens)
    if lo < 1:
        raise ParameterError("min_tokens", f"must be >= 1 (no empty chunks), got {lo}", lo)
    hi = require_int("max_tokens", p.max_tokens)
    if hi < lo:
        raise ParameterError("max_tokens", f"must be >= min_tokens ({lo}), got {hi}", hi)
    if not isinstance(p.snap_mode, str) or p.snap_mode not in SNAP_MODES:
        raise ParameterError(
            "snap_mode", f"unknown snap mode {p.snap_mode!r}; known: {', '.join(SNAP_MODES)}", p.snap_mode
        )
    sw = require_int("snap_window_words", p.snap_window_words)
    if sw < 0:
        raise ParameterError("snap_window_words", f"must be >= 0, got {sw}", sw)
    if p.snapping and sw < 1:
        raise ParameterError("snap_window_words", "must be >= 1 when snapping is on", sw)


def parse_int(name: str, text: str) -> int:
    """CLI/GUI text to int: decimal or 0x hex, else a ParameterError naming the field."""
    s = text.strip()
    shown = text if len(text) <= 40 else text[:37] + "..."
    if not re.fullmatch(r"-?(0[xX][0-9a-fA-F]+|[0-9]+)", s):
        raise ParameterError(name, f"expected an integer (decimal or 0x hex), got {shown!r}")
    if len(s) > 40:  # past 64 bits whatever the base; int() would refuse 4300 digits anyway
        raise ParameterError(name, f"must be below 2^64 in magnitude, got {shown!r}")
    return int(s, 16) if "x" in s.lower() else int(s, 10)
