"""Named parameter sets: starting points offered by the inspector and `steadlith --preset`.

A preset is only a parameter set of one rule; what identifies a chunking is still its
params hash, so a preset can be renamed or retuned without changing any stored hash.
`PRESETS` holds tttd-v1's (the inspector's parameter dock lists them), `LMX2_PRESETS`
lmx2-v1's; `RULE_PRESETS` has both by rule, and `preset(name)` finds a name in either.
"""

from __future__ import annotations

from ..errors import ParameterError
from .lmx2_params import LMX2_RULE, Lmx2Params
from .params import BOUNDARY_RULE, SNAP_PARAGRAPH_SENTENCE, ChunkerParams

PRESETS: dict[str, ChunkerParams] = {
    "Default": ChunkerParams(),
    "Small chunks": ChunkerParams(
        window_words=4, min_tokens=8, max_tokens=40,
        primary_mask=0xF, primary_remainder=0xF, backup_mask=0x3, backup_remainder=0x3,
    ),
    "Snapping on": ChunkerParams(snap_mode=SNAP_PARAGRAPH_SENTENCE, snap_window_words=8),
}

LMX2_PRESETS: dict[str, Lmx2Params] = {
    "lmx2 Default": Lmx2Params(),
    # the sizes of tttd-v1's "Small chunks", with horizons at their smallest useful reach
    "lmx2 Small chunks": Lmx2Params(min_tokens=8, max_tokens=40, horizon=10, fill_horizon=8, key_tokens=6),
}

RULE_PRESETS: dict[str, dict[str, ChunkerParams | Lmx2Params]] = {BOUNDARY_RULE: PRESETS, LMX2_RULE: LMX2_PRESETS}


def preset(name: str) -> ChunkerParams | Lmx2Params:
    """The preset called `name` (of either rule), ignoring case and the difference of
    "-", "_" and " " (so `--preset lmx2-default` works in a shell); ParameterError names
    the known ones."""
    wanted = _key(name)
    for presets in RULE_PRESETS.values():
        for known, params in presets.items():
            if _key(known) == wanted:
                return params
    every = [n for presets in RULE_PRESETS.values() for n in presets]
    raise ParameterError("preset", f"unknown preset {name!r}; known: {', '.join(every)}", name)


def _key(name: str) -> str:
    return " ".join(name.replace("-", " ").replace("_", " ").lower().split())
