"""The fields of each boundary rule's parameters as data, and the field widget that
edits one integer of any size the core accepts.

A field applies on commit only: Enter, leaving the field, a step (Up/Down, Page Up/Down)
or a pause of `COMMIT_PAUSE_MS` after the last keystroke. Never on every keystroke:
typing `0xff` must not run `0xf` first, nor min `200` run 2 and 20. QSpinBox cannot hold
the range either (it is 32-bit; tttd-v1 fields go to 2^64 - 1), so integers are line
edits whose limits come from the core's ranges table (`rules.INT_RANGES_BY_RULE`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from PySide6.QtCore import QRegularExpression, Qt, QTimer, Signal
from PySide6.QtGui import QFontDatabase, QKeyEvent, QRegularExpressionValidator
from PySide6.QtWidgets import QLineEdit, QWidget
from steadlith_core import SNAP_MODES, ParameterError
from steadlith_core.chunking.lmx2_params import PREFERENCES
from steadlith_core.chunking.params import parse_int
from steadlith_core.chunking.rules import INT_RANGES_BY_RULE
from steadlith_core.chunking.tokens import known_counters
from superqt.utils import signals_blocked

COMMIT_PAUSE_MS = 600
PAGE_STEP = 10


@dataclass(frozen=True)
class FieldSpec:
    """One parameter field: `kind` is "int" (decimal), "hex", "mask" (bit count and hex)
    or "choice" (one of `choices()`)."""

    name: str
    label: str
    kind: str
    tip: str
    suffix: str = ""
    choices: Callable[[], tuple[str, ...]] | None = None
    # a field that only means something while another field is not "off" (the snap window)
    active_while: str | None = None
    default_when_active: int | None = None


def _counters() -> tuple[str, ...]:
    return tuple(known_counters())


TOKEN_COUNTER = FieldSpec("token_counter", "token counter", "choice", "How words are counted as tokens",
                          choices=_counters)

#: (group title, fields) per rule, in the order shown.
RULE_GROUPS: dict[str, tuple[tuple[str, tuple[FieldSpec, ...]], ...]] = {
    "tttd-v1": (
        ("Fingerprint", (
            FieldSpec("window_words", "window", "int", "Rolling window of the fingerprint, in words (≥ 1)", " words"),
            FieldSpec("polynomial", "polynomial", "hex", "Irreducible polynomial over GF(2), degree 8..63, in hex"),
        )),
        ("Cut candidates", (
            FieldSpec("primary_mask", "primary mask", "mask",
                      "primary mask as a bit count k: mask = 2^k - 1 (1 cut candidate every 2^k words), or in hex"),
            FieldSpec("primary_remainder", "primary rem.", "hex",
                      "A word is a primary candidate when fingerprint & mask == remainder (hex)"),
            FieldSpec("backup_mask", "backup mask", "mask", "backup mask as a bit count k, or in hex"),
            FieldSpec("backup_remainder", "backup rem.", "hex",
                      "Backup candidates: fingerprint & backup mask == backup remainder (hex)"),
        )),
        ("Chunk size", (
            TOKEN_COUNTER,
            FieldSpec("min_tokens", "min", "int", "No cut before a chunk reaches this many tokens (≥ 1)", " tokens"),
            FieldSpec("max_tokens", "max", "int", "A chunk never exceeds this (≥ min), unless one word does",
                      " tokens"),
        )),
        ("Snapping", (
            FieldSpec("snap_mode", "mode", "choice", "Move each cut to a nearby paragraph or sentence end",
                      choices=lambda: tuple(SNAP_MODES)),
            FieldSpec("snap_window_words", "window", "int", "How far a cut may move (≥ 1 when snapping is on)",
                      " words", active_while="snap_mode", default_when_active=8),
        )),
    ),
    "lmx2-v1": (
        ("Chunk size", (
            TOKEN_COUNTER,
            FieldSpec("min_tokens", "min", "int", "Every cut is at least this many tokens from the previous one "
                                                  "(≥ 1; a long word stands alone)", " tokens"),
            FieldSpec("max_tokens", "max", "int", "A chunk exceeds this only at a long word (≥ 3 × min − 1)",
                      " tokens"),
        )),
        ("Reach", (
            FieldSpec("horizon", "horizon", "int", "A primary cut is the highest key within this many tokens "
                                                   "each way (≥ min − 1)", " tokens"),
            FieldSpec("fill_horizon", "fill horizon", "int", "How far a fill cut looks for the highest level-2 key "
                                                             "(≥ min − 1)", " tokens"),
            FieldSpec("key_tokens", "key window", "int", "The key of a word hashes the words within this many "
                                                         "tokens before it (≥ 1)", " tokens"),
        )),
        ("Boundaries", (
            FieldSpec("boundary_preference", "preference", "choice",
                      "Prefer cuts at paragraph, then sentence ends (the class is the key's top bits)",
                      choices=lambda: tuple(PREFERENCES)),
        )),
    ),
}


def rule_fields(rule: str) -> tuple[FieldSpec, ...]:
    return tuple(spec for _, specs in RULE_GROUPS[rule] for spec in specs)


def derived_text(params) -> str:
    """What the rule derives from its fields, as the panel shows it under the fields."""
    if params.boundary_rule == "lmx2-v1":
        return (f"gate {params.gate:,} t · margin {params.margin:,} t"
                f"  (= fill horizon + gate + horizon + key window)")
    return f"margin {params.margin:,} t  (= max + window + snap window)"


def mono(widget: QWidget) -> None:
    widget.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))


def parse_hex(field: str, text: str) -> int:
    """A hex field's text ("0x7f", "7F", "7f_ff") to int; the core parses, we add the 0x."""
    s = text.strip().replace("_", "")
    if not s:
        raise ParameterError(field, "enter a hexadecimal value, e.g. 0x7f")
    neg = s.startswith("-")
    body = s[1:] if neg else s
    if not body.lower().startswith("0x"):
        body = "0x" + body
    return parse_int(field, ("-" if neg else "") + body)


def parse_decimal(field: str, text: str) -> int:
    s = text.strip().replace("_", "").replace(",", "")
    if not s:
        raise ParameterError(field, "enter a number")
    return parse_int(field, s)


def mask_bits(mask: int) -> int:
    """k when mask == 2^k - 1, else -1 (a custom mask)."""
    return mask.bit_length() if mask >= 0 and mask & (mask + 1) == 0 else -1


class IntField(QLineEdit):
    """One integer parameter, decimal or hex, of any size the core accepts.

    `committed` is emitted when the user means the value (see the module docstring);
    `set_value` shows a value without a signal. Up/Down step by one and Page Up/Down
    by ten within the rule's range, and commit at once, as a spin box's arrows do."""

    committed = Signal()

    def __init__(self, rule: str, spec: FieldSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.spec = spec
        self.hex = spec.kind in ("hex", "mask")
        self.range = INT_RANGES_BY_RULE[rule].get(spec.name, (0, 2**64 - 1))
        self.setObjectName(spec.name if spec.kind != "mask" else f"{spec.name}")
        lo, hi = self.range
        shown = (lambda v: f"{v:#x}") if self.hex else (lambda v: f"{v:,}")
        self.setToolTip(f"{spec.tip}\nAccepted: {shown(lo)} … {shown(hi)}{spec.suffix}. "
                        "Applies on Enter, when you leave the field, or after a short pause; "
                        "Up/Down step by one.")
        pattern = r"\s*-?(0[xX])?[0-9a-fA-F_]*\s*" if self.hex else r"\s*-?[0-9_,]*\s*|\s*0[xX][0-9a-fA-F_]*\s*"
        self.setValidator(QRegularExpressionValidator(QRegularExpression(pattern), self))
        mono(self)
        self._shown = ""  # the text of the value last shown or committed
        self._pause = QTimer(self)
        self._pause.setSingleShot(True)
        self._pause.setInterval(COMMIT_PAUSE_MS)
        self._pause.timeout.connect(self._commit)
        self.textEdited.connect(lambda _t: self._pause.start())
        self.editingFinished.connect(self._commit)

    def value(self) -> int:
        """The typed value; ParameterError naming the field when it is not an integer."""
        parse = parse_hex if self.hex else parse_decimal
        return parse(self.spec.name, self.text())

    def format(self, value: int) -> str:
        return f"{value:#x}" if self.hex else str(value)

    def set_value(self, value: int) -> None:
        """Show `value` (the value in force) without announcing it."""
        self._pause.stop()
        text = self.format(value)
        self._shown = text
        if self.text() != text:
            with signals_blocked(self):
                self.setText(text)

    @property
    def pending(self) -> bool:
        """Typed and not committed yet."""
        return self._pause.isActive()

    def commit_now(self) -> None:
        self._commit()

    def _commit(self) -> None:
        self._pause.stop()
        if self.text() == self._shown:
            return
        self._shown = self.text()
        self.committed.emit()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt override
        steps = {Qt.Key.Key_Up: 1, Qt.Key.Key_Down: -1, Qt.Key.Key_PageUp: PAGE_STEP,
                 Qt.Key.Key_PageDown: -PAGE_STEP}
        step = steps.get(Qt.Key(event.key()))
        if step is None:
            super().keyPressEvent(event)
            return
        try:
            current = self.value()
        except ParameterError:
            current = self.range[0] if step > 0 else self.range[1]
            step = 0
        lo, hi = self.range
        self.setText(self.format(min(hi, max(lo, current + step))))
        self._commit()
