"""Named parameter sets: starting points offered by the inspector and `steadlith --preset`.

A preset is only a ChunkerParams; what identifies a chunking is still its params hash,
so a preset can be renamed or retuned without changing any stored hash.
"""

from __future__ import annotations

from .errors import ParameterError
from .params import SNAP_PARAGRAPH_SENTENCE, ChunkerParams

PRESETS: dict[str, ChunkerParams] = {
    "Default": ChunkerParams(),
    "Small chunks": ChunkerParams(
        window_words=4, min_tokens=8, max_tokens=40,
        primary_mask=0xF, primary_remainder=0xF, backup_mask=0x3, backup_remainder=0x3,
    ),
    "Snapping on": ChunkerParams(snap_mode=SNAP_PARAGRAPH_SENTENCE, snap_window_words=8),
}


def preset(name: str) -> ChunkerParams:
    """The preset called `name`, ignoring case and the difference of "-", "_" and " "
    (so `--preset small-chunks` works in a shell); ParameterError names the known ones."""
    wanted = _key(name)
    for known, params in PRESETS.items():
        if _key(known) == wanted:
            return params
    raise ParameterError("preset", f"unknown preset {name!r}; known: {', '.join(PRESETS)}", name)


def _key(name: str) -> str:
    return " ".join(name.replace("-", " ").replace("_", " ").lower().split())
