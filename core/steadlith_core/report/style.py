"""The visual language shared by the inspector and the HTML report: one copy, no Qt.

Boundary kinds use the Okabe–Ito colour-blind-safe palette and never colour alone:
each kind also has its own marker shape. Chunk statuses between versions have their
own colours, "shifted" the loudest (it is what reviewers come to see). Each colour
exists for a light and a dark surface; the dark variants are lighter so markers keep
their contrast.

Consumers: `report/comparison.py` (the HTML report) and `steadlith_gui/palette.py` (the Qt themes)
import these constants; neither repeats a hex value. How strongly a status tints a
chunk's background stays with each consumer (a report's separate boxes and the
inspector's continuous panes need different strengths).
"""

from __future__ import annotations

from ..vocabulary import (BACKUP, BOUNDARIES, EDITED, END, FILL, HARD, LONG_WORD, NEW, PARAGRAPH, PRIMARY, REMOVED,
                          REUSED, SENTENCE, SHIFTED, SNAPPED, STATUSES, WORD)

# Marker kinds in legend order. "snapped" is not a core kind: a chunk whose cut was
# moved by snapping (Chunk.snapped) is drawn with the snapped marker; the tooltip
# still names the kind of the raw cut.
MARKER_KINDS = (PRIMARY, BACKUP, HARD, SNAPPED, END)
# lmx2-v1's kinds take tttd-v1's shapes and colours by role: primary the primary bar,
# fill (the second level) the backup diamond, long-word (forced by the text, not
# chosen) the hard-cut triangle.
LMX2_MARKER_KINDS = (PRIMARY, FILL, LONG_WORD, END)
# An external chunker's spans (steadlith_core.comparison.external) have no fingerprint kinds: every
# cut is "external", with a shape no rule uses, so a pane showing one cannot be read as a rule.
EXTERNAL = "external"
MARKER_KINDS_BY_RULE = {"tttd-v1": MARKER_KINDS, "lmx2-v1": LMX2_MARKER_KINDS, EXTERNAL: (EXTERNAL,)}
KIND_LABELS = {"primary": "primary", "backup": "backup", "hard": "hard cut", "snapped": "snapped", "end": "end",
               FILL: "fill", LONG_WORD: "long word", EXTERNAL: "external cut"}
KIND_SHAPES = {"primary": "bar", "backup": "diamond", "hard": "triangle", "snapped": "circle", "end": "square",
               FILL: "diamond", LONG_WORD: "triangle", EXTERNAL: "chevron"}
KIND_HELP = {
    "primary": "the fingerprint matched the primary mask (the usual cut)",
    "backup": "no primary candidate before max_tokens: the last backup candidate was used",
    "hard": "no candidate at all: forced cut at max_tokens",
    "snapped": "the cut was moved to a nearby paragraph or sentence end",
    "end": "end of the document",
    FILL: "lmx2-v1: the highest level-2 key near a gap that primary cuts left wider than the gate",
    LONG_WORD: "lmx2-v1: a word of min_tokens or more stands alone",
    EXTERNAL: "where an external chunker (another library's splitter, or imported spans) ended a chunk",
}
LMX2_KIND_HELP = {  # where a name is shared, lmx2-v1 means something else by it
    PRIMARY: "lmx2-v1: the highest key within the horizon, min_tokens away from any long word or edge",
}
KIND_COLOURS = {
    "light": {
        "primary": "#009E73",  # bluish green
        "backup": "#E69F00",  # orange
        "hard": "#D55E00",  # vermillion
        "snapped": "#0072B2",  # blue
        "end": "#7A7A7A",  # grey
        EXTERNAL: "#CC79A7",  # Okabe–Ito reddish purple: no rule's kind uses it
    },
    "dark": {
        "primary": "#2FC896",
        "backup": "#F5B027",
        "hard": "#FF7A33",
        "snapped": "#56B4E9",  # Okabe–Ito sky blue: the blue itself is too dark on a dark base
        "end": "#A8A8A8",
        EXTERNAL: "#E29BC4",
    },
}
for _theme in KIND_COLOURS.values():  # lmx2-v1's kinds by role, as their shapes
    _theme[FILL], _theme[LONG_WORD] = _theme[BACKUP], _theme[HARD]

# The boundary class of a chunk's end cut (Chunk.boundary), for tooltips and legends.
BOUNDARY_LABELS = {PARAGRAPH: "paragraph end", SENTENCE: "sentence end", WORD: "between words", END: "document end"}
BOUNDARY_HELP = {
    PARAGRAPH: "the next word starts a paragraph",
    SENTENCE: "the previous word ends a sentence",
    WORD: "no paragraph or sentence break at the cut",
    END: "end of the document",
}
assert set(BOUNDARY_LABELS) == set(BOUNDARIES)


def marker_kinds(rule: str) -> tuple[str, ...]:
    """The marker kinds of a rule, in legend order (tttd-v1's for an unknown rule)."""
    return MARKER_KINDS_BY_RULE.get(rule, MARKER_KINDS)


def kind_help(rule: str, kind: str) -> str:
    """What a kind of cut means under `rule`."""
    if rule == "lmx2-v1" and kind in LMX2_KIND_HELP:
        return LMX2_KIND_HELP[kind]
    return KIND_HELP[kind]

# Chunk statuses between versions (steadlith_core.comparison.churn), in legend and table order:
# vocabulary.STATUSES.
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
