"""Colours and marker shapes of the inspector, light and dark.

Boundary kinds use the Okabe–Ito colour-blind-safe palette and never colour alone:
each kind also has its own marker shape (see widgets/markers.py). The dark theme uses
lighter variants of the same hues so the markers keep their contrast on a dark base.
The kind and status colours, shapes and labels are steadlith_core.report.style's (the HTML
report uses the same module); this file adds the surfaces of each theme.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtGui import QColor, QPalette
from steadlith_core.report.style import KIND_COLOURS, STATUS_COLOURS
from steadlith_core.vocabulary import REUSED

# The kinds, statuses, their shapes, labels, help and colours are the core's
# (steadlith_core.report.style), shared with the HTML report: one visual language, one copy.

# How strongly each status tints the chunk background (blend of base and status colour).
# Shifted is loudest: it is what reviewers come to see; reused stays quiet.
STATUS_TINT_ALPHA = {REUSED: 0.0, "shifted": 0.36, "edited": 0.20, "new": 0.24, "removed": 0.24}


# The second channel besides colour (under deuteranopia shifted magenta and removed grey
# are one grey): a fill pattern per status for the gutter stripe, the overview strips and
# the shifted tint, and a glyph in the gutter beside each chunk that was not reused.
# Qt.BrushStyle names, kept as strings so this table stays readable without Qt.
# Removed stays flat on purpose: flat mid grey against shifted's bold diagonals is the
# pair that colour alone confused.
STATUS_PATTERNS = {REUSED: None, "shifted": "BDiagPattern", "edited": "HorPattern", "new": "Dense6Pattern",
                   "removed": None}
STATUS_GLYPHS = {REUSED: "", "shifted": "⇄", "edited": "Δ", "new": "+", "removed": "−"}


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
    # a question set's reference excerpts, underlined in the panes: a hue no kind or status
    # uses, at >= 3:1 against the base and the chunk tints (tests/gui/test_reference_marks.py)
    reference: str = "#5B2A86"

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
        if status == REUSED:
            return (blend(base, QColor(self.tints[0]), 0.55), blend(base, QColor(self.tints[1]), 0.55))
        a = STATUS_TINT_ALPHA[status]
        c = QColor(self.status[status])
        return (blend(base, c, a), blend(base, c, a + 0.10))

    def changed_word_color(self) -> QColor:
        """Background of changed words: a stronger edited colour, under which the text
        keeps at least 4.5:1 (the dark theme's light text needs a dark one)."""
        return blend(QColor(self.base), QColor(self.status["edited"]), 0.62 if not self.dark else 0.35)

    def changed_word_edge(self) -> QColor:
        """Frame and underline of changed words: at least 3:1 against the edited chunk's
        tints and the changed word's own background (WCAG non-text contrast), so a changed
        word stands out inside an edited chunk in either theme. A yellow background alone
        cannot: 3:1 against a pale yellow tint leaves too dark a ground for the text."""
        edited = QColor(self.status["edited"])
        return edited if self.dark else blend(edited, QColor("#000000"), 0.45)


LIGHT = Theme(
    name="light",
    dark=False,
    kind=dict(KIND_COLOURS["light"]),
    status=dict(STATUS_COLOURS["light"]),
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
    kind=dict(KIND_COLOURS["dark"]),
    status=dict(STATUS_COLOURS["dark"]),
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
    reference="#E2D1FF",
)

THEMES = {"light": LIGHT, "dark": DARK}


def blend(a: QColor, b: QColor, t: float) -> QColor:
    """a mixed with b: t = 0 gives a, t = 1 gives b (opaque)."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * t),
        round(a.green() + (b.green() - a.green()) * t),
        round(a.blue() + (b.blue() - a.blue()) * t),
    )


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


def system_theme_name(scheme=None) -> str:
    """The theme that matches the desktop's colour scheme: "dark" for Qt.ColorScheme.Dark,
    "light" otherwise (Light, or Unknown on platforms that do not say). `scheme` defaults
    to the current one (QStyleHints.colorScheme(), Qt 6.5+)."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication

    if scheme is None:
        hints = QGuiApplication.styleHints() if QGuiApplication.instance() is not None else None
        getter = getattr(hints, "colorScheme", None)
        scheme = getter() if getter is not None else None
    return "dark" if scheme == Qt.ColorScheme.Dark else "light"
