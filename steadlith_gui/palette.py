"""Colours and marker shapes of the inspector, light and dark.

Boundary kinds use the Okabe–Ito colour-blind-safe palette and never colour alone:
each kind also has its own marker shape (see widgets/markers.py). The dark theme uses
lighter variants of the same hues so the markers keep their contrast on a dark base.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QPalette


# Marker kinds in legend order. "snapped" is not a core kind: a chunk whose cut was
# moved by snapping (Chunk.snapped) is drawn with the snapped marker; the tooltip
# still names the kind of the raw cut.
MARKER_KINDS = ("primary", "backup", "hard", "snapped", "end")
KIND_LABELS = {
    "primary": "primary",
    "backup": "backup",
    "hard": "hard cut",
    "snapped": "snapped",
    "end": "end",
}
KIND_SHAPES = {
    "primary": "bar",
    "backup": "diamond",
    "hard": "triangle",
    "snapped": "circle",
    "end": "square",
}
KIND_HELP = {
    "primary": "the fingerprint matched the primary mask (the usual cut)",
    "backup": "no primary candidate before max_tokens: the last backup candidate was used",
    "hard": "no candidate at all: forced cut at max_tokens",
    "snapped": "the cut was moved to a nearby paragraph or sentence end",
    "end": "end of the document",
}

# Chunk statuses between versions (steadlith_core.compare): legend and table order.
STATUSES = ("reused", "shifted", "edited", "new", "removed")
STATUS_LABELS = {
    "reused": "reused",
    "shifted": "shifted",
    "edited": "edited",
    "new": "new",
    "removed": "removed",
}
STATUS_HELP = {
    "reused": "same hash in both versions, paired by the alignment: its embedding is reused",
    "shifted": "no word changed, yet the hash differs: the cut moved (a phase shift); it must be re-embedded",
    "edited": "holds changed words (or spans a deletion)",
    "new": "B only: every word is new",
    "removed": "A only: every word was removed",
}
# How strongly each status tints the chunk background (blend of base and status colour).
# Shifted is loudest: it is what reviewers come to see; reused stays quiet.
STATUS_TINT_ALPHA = {"reused": 0.0, "shifted": 0.36, "edited": 0.20, "new": 0.24, "removed": 0.24}


@dataclass(frozen=True)
class Theme:
    name: str
    dark: bool
    kind: dict[str, str]
    status: dict[str, str]
    tints: tuple[str, str]  # alternating chunk backgrounds
    hover_tint: str
    base: str
    text: str
    window: str
    window_text: str
    button: str
    mid: str  # borders, axis lines
    muted: str  # secondary text
    highlight: str
    gutter_bg: str
    gutter_fg: str
    bar: str  # histogram bars
    error_bg: str
    error_fg: str
    error_text: str  # inline field errors
    warning_bg: str
    info_bg: str
    ok: str
    pygments_style: str
    extra: dict[str, str] = field(default_factory=dict)

    def color(self, name: str) -> QColor:
        return QColor(getattr(self, name))

    def kind_color(self, kind: str) -> QColor:
        return QColor(self.kind[kind])

    def status_color(self, status: str) -> QColor:
        return QColor(self.status[status])

    def status_tints(self, status: str) -> tuple[QColor, QColor]:
        """Two alternating chunk backgrounds for a status (neighbours stay distinguishable).
        Reused chunks keep the quiet alternating tints of a single document, lightly greyed."""
        base = QColor(self.base)
        if status == "reused":
            return (blend(base, QColor(self.tints[0]), 0.55), blend(base, QColor(self.tints[1]), 0.55))
        a = STATUS_TINT_ALPHA[status]
        c = QColor(self.status[status])
        return (blend(base, c, a), blend(base, c, a + 0.10))

    def changed_word_color(self) -> QColor:
        """Background of changed words: a stronger edited colour."""
        return blend(QColor(self.base), QColor(self.status["edited"]), 0.62 if not self.dark else 0.55)


LIGHT = Theme(
    name="light",
    dark=False,
    kind={
        "primary": "#009E73",  # bluish green
        "backup": "#E69F00",  # orange
        "hard": "#D55E00",  # vermillion
        "snapped": "#0072B2",  # blue
        "end": "#7A7A7A",  # grey
    },
    status={
        "reused": "#A8B4C0",  # quiet
        "edited": "#E6C300",
        "shifted": "#CC1F7A",  # loudest: what reviewers come to see
        "new": "#56B4E9",
        "removed": "#8C8C8C",
    },
    tints=("#E3EEF9", "#F8EBD3"),
    hover_tint="#C9DDF2",
    base="#FFFFFF",
    text="#1D1F22",
    window="#EFEFF1",
    window_text="#1D1F22",
    button="#F4F4F6",
    mid="#B8BCC4",
    muted="#5F6670",
    highlight="#2F6FD0",
    gutter_bg="#F1F2F4",
    gutter_fg="#6B7280",
    bar="#6F8FB3",
    error_bg="#FBE3DC",
    error_fg="#6E1E00",
    error_text="#B3261E",
    warning_bg="#FFF1C9",
    info_bg="#E1EEFB",
    ok="#00805D",
    pygments_style="default",
)

DARK = Theme(
    name="dark",
    dark=True,
    kind={
        "primary": "#2FC896",
        "backup": "#F5B027",
        "hard": "#FF7A33",
        "snapped": "#56B4E9",  # Okabe–Ito sky blue: the blue itself is too dark here
        "end": "#A8A8A8",
    },
    status={
        "reused": "#56606B",
        "edited": "#D9C100",
        "shifted": "#FF4FA8",
        "new": "#56B4E9",
        "removed": "#8C8C8C",
    },
    tints=("#1F3247", "#3D3220"),
    hover_tint="#2E4D6E",
    base="#1B1D21",
    text="#E2E4E8",
    window="#2A2C31",
    window_text="#E2E4E8",
    button="#34373D",
    mid="#555A63",
    muted="#A0A6B0",
    highlight="#3B74D4",
    gutter_bg="#23262B",
    gutter_fg="#8C929C",
    bar="#7FA3CC",
    error_bg="#4A211A",
    error_fg="#FFD9CC",
    error_text="#FF8A75",
    warning_bg="#4A3D12",
    info_bg="#1E3550",
    ok="#2FC896",
    pygments_style="one-dark",
)

THEMES = {"light": LIGHT, "dark": DARK}


def blend(a: QColor, b: QColor, t: float) -> QColor:
    """a mixed with b: t = 0 gives a, t = 1 gives b (opaque)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


def marker_kind(kind: str, snapped: bool) -> str:
    """The marker drawn for a chunk's cut: snapped wins over the raw kind."""
    return "snapped" if snapped else kind


def qt_palette(theme: Theme) -> QPalette:
    """A full QPalette for the Fusion style in this theme."""
    pal = QPalette()
    R = QPalette.ColorRole
    G = QPalette.ColorGroup
    c = QColor
    roles = {
        R.Window: theme.window,
        R.WindowText: theme.window_text,
        R.Base: theme.base,
        R.AlternateBase: theme.gutter_bg,
        R.ToolTipBase: theme.base,
        R.ToolTipText: theme.text,
        R.PlaceholderText: theme.muted,
        R.Text: theme.text,
        R.Button: theme.button,
        R.ButtonText: theme.window_text,
        R.BrightText: "#FFFFFF",
        R.Highlight: theme.highlight,
        R.HighlightedText: "#FFFFFF",
        R.Link: "#6CB4EE" if theme.dark else "#1F5FBF",
        R.Mid: theme.mid,
        R.Midlight: theme.mid,
        R.Dark: "#15171A" if theme.dark else "#9AA0A8",
        R.Shadow: "#000000",
        R.Light: "#4A4E55" if theme.dark else "#FFFFFF",
    }
    for role, value in roles.items():
        pal.setColor(role, c(value))
    disabled = "#6E737B" if theme.dark else "#9AA0A8"
    for role in (R.WindowText, R.Text, R.ButtonText):
        pal.setColor(G.Disabled, role, c(disabled))
    return pal
