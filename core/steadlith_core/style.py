"""The visual language shared by the inspector and the HTML report: one copy, no Qt.

Boundary kinds use the Okabe–Ito colour-blind-safe palette and never colour alone:
each kind also has its own marker shape. Chunk statuses between versions have their
own colours, "shifted" the loudest (it is what reviewers come to see). Each colour
exists for a light and a dark surface; the dark variants are lighter so markers keep
their contrast.

Consumers: `report.py` (the HTML report) and `steadlith_gui/palette.py` (the Qt themes)
import these constants; neither repeats a hex value. How strongly a status tints a
chunk's background stays with each consumer (a report's separate boxes and the
inspector's continuous panes need different strengths).
"""

from __future__ import annotations

from .vocabulary import BACKUP, EDITED, END, HARD, NEW, PRIMARY, REMOVED, REUSED, SHIFTED, SNAPPED, STATUSES

# Marker kinds in legend order. "snapped" is not a core kind: a chunk whose cut was
# moved by snapping (Chunk.snapped) is drawn with the snapped marker; the tooltip
# still names the kind of the raw cut.
MARKER_KINDS = (PRIMARY, BACKUP, HARD, SNAPPED, END)
KIND_LABELS = {"primary": "primary", "backup": "backup", "hard": "hard cut", "snapped": "snapped", "end": "end"}
KIND_SHAPES = {"primary": "bar", "backup": "diamond", "hard": "triangle", "snapped": "circle", "end": "square"}
KIND_HELP = {
    "primary": "the fingerprint matched the primary mask (the usual cut)",
    "backup": "no primary candidate before max_tokens: the last backup candidate was used",
    "hard": "no candidate at all: forced cut at max_tokens",
    "snapped": "the cut was moved to a nearby paragraph or sentence end",
    "end": "end of the document",
}
KIND_COLOURS = {
    "light": {
        "primary": "#009E73",  # bluish green
        "backup": "#E69F00",  # orange
        "hard": "#D55E00",  # vermillion
        "snapped": "#0072B2",  # blue
        "end": "#7A7A7A",  # grey
    },
    "dark": {
        "primary": "#2FC896",
        "backup": "#F5B027",
        "hard": "#FF7A33",
        "snapped": "#56B4E9",  # Okabe–Ito sky blue: the blue itself is too dark on a dark base
        "end": "#A8A8A8",
    },
}

# Chunk statuses between versions (steadlith_core.compare), in legend and table order:
# vocabulary.STATUSES, re-exported here for the palette.
STATUS_LABELS = {s: s for s in STATUSES}
STATUS_HELP = {
    REUSED: "same hash in both versions, paired by the alignment: its embedding is reused",
    SHIFTED: "no word changed, yet the hash differs: the cut moved (a phase shift); it must be re-embedded",
    EDITED: "holds changed words (or spans a deletion)",
    NEW: "B only: every word is new",
    REMOVED: "A only: every word was removed",
}
STATUS_COLOURS = {
    "light": {
        REUSED: "#A8B4C0",  # quiet
        EDITED: "#E6C300",
        SHIFTED: "#CC1F7A",  # loudest
        NEW: "#56B4E9",
        REMOVED: "#8C8C8C",
    },
    "dark": {REUSED: "#56606B", EDITED: "#D9C100", SHIFTED: "#FF4FA8", NEW: "#56B4E9", REMOVED: "#8C8C8C"},
}


def marker_kind(kind: str, snapped: bool) -> str:
    """The marker drawn for a chunk's cut: snapped wins over the raw kind."""
    return SNAPPED if snapped else kind
