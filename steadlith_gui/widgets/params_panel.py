"""The parameters dock: every SPEC §6 field, presets, and the identity box.

The panel only reads values from its widgets and asks the core: `ChunkerParams(...)`
validates (a `ParameterError` names the field and the rule, shown under that field),
`check_polynomial` checks the polynomial as it is typed, `params_hash` and
`canonical_fields` fill the identity box. While the values are invalid the last valid
parameters stay in force and the identity box says so.
"""

from __future__ import annotations

import json

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QTextBrowser,
    QToolButton,
    QVBoxLayout,
    QWidget,
)
from steadlith_core import (
    BOUNDARY_RULE,
    FINGERPRINT_ID,
    NORMALIZER_VERSION,
    PRESETS,
    SNAP_MODES,
    ChunkerParams,
    ParameterError,
)
from steadlith_core.params import SNAP_OFF, check_polynomial, parse_int
from steadlith_core.tokens import known_counters

from ..highlight import json_html
from ..palette import LIGHT, Theme

CUSTOM = "Custom"
DEFAULT_SNAP_WINDOW = 8
BIG = 1_000_000_000


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


def mask_bits(mask: int) -> int:
    """k when mask == 2^k - 1, else -1 (a custom mask)."""
    return mask.bit_length() if mask >= 0 and mask & (mask + 1) == 0 else -1


def mono_font() -> QFont:
    f = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    return f


class ParamsPanel(QWidget):
    params_changed = Signal(object)  # a valid ChunkerParams
    params_invalid = Signal(object)  # the ParameterError of the current values

    def __init__(self, params: ChunkerParams | None = None, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName("paramsPanel")
        self.setAccessibleName("Chunker parameters")
        self.theme = theme
        self._updating = False
        self._valid: ChunkerParams = params or ChunkerParams()
        self.error: ParameterError | None = None
        self.errors: dict[str, QLabel] = {}
        self._forms: dict[str, QFormLayout] = {}

        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.setSpacing(6)

        # presets
        self.preset = QComboBox()
        self.preset.setObjectName("presetCombo")
        self.preset.setAccessibleName("Preset")
        self.preset.addItems([*PRESETS, CUSTOM])
        self.preset.setToolTip("Parameter presets; editing any field makes the set Custom")
        row = QHBoxLayout()
        row.addWidget(QLabel("Preset"))
        row.addWidget(self.preset, 1)
        outer.addLayout(row)

        # fingerprint
        g, form = self._group("Fingerprint", outer)
        self.window_words = self._spin("window_words", 0, BIG, " words", "Rolling window of the fingerprint, in words (≥ 1)")
        self._row(form, "window", self.window_words, "window_words")
        self.polynomial = self._line("polynomial", "Irreducible polynomial over GF(2), degree 8..63, in hex")
        self.poly_status = QLabel()
        self.poly_status.setObjectName("polynomialStatus")
        self.poly_status.setWordWrap(True)
        self._row(form, "polynomial", self.polynomial, "polynomial")
        form.addRow("", self.poly_status)

        # candidates
        g, form = self._group("Cut candidates", outer)
        self.primary_bits, self.primary_mask = self._mask_widgets("primary")
        self.primary_remainder = self._line("primary_remainder", "A word is a primary candidate when fingerprint & mask == remainder (hex)")
        self._mask_row(form, "primary mask", self.primary_bits, self.primary_mask, "primary_mask")
        self._row(form, "primary rem.", self.primary_remainder, "primary_remainder")
        self.backup_bits, self.backup_mask = self._mask_widgets("backup")
        self.backup_remainder = self._line("backup_remainder", "Backup candidates: fingerprint & backup mask == backup remainder (hex)")
        self._mask_row(form, "backup mask", self.backup_bits, self.backup_mask, "backup_mask")
        self._row(form, "backup rem.", self.backup_remainder, "backup_remainder")

        # sizes
        g, form = self._group("Chunk size", outer)
        self.token_counter = QComboBox()
        self.token_counter.setObjectName("token_counter")
        self.token_counter.addItems(list(known_counters()))
        self.token_counter.setToolTip("How words are counted as tokens")
        self._row(form, "token counter", self.token_counter, "token_counter")
        self.min_tokens = self._spin("min_tokens", 0, BIG, " tokens", "No cut before a chunk reaches this many tokens (≥ 1)")
        self._row(form, "min", self.min_tokens, "min_tokens")
        self.max_tokens = self._spin("max_tokens", 0, BIG, " tokens", "A chunk never exceeds this (≥ min), unless one word does")
        self._row(form, "max", self.max_tokens, "max_tokens")

        # snapping
        g, form = self._group("Snapping", outer)
        self.snap_mode = QComboBox()
        self.snap_mode.setObjectName("snap_mode")
        self.snap_mode.addItems(list(SNAP_MODES))
        self.snap_mode.setToolTip("Move each cut to a nearby paragraph or sentence end")
        self._row(form, "mode", self.snap_mode, "snap_mode")
        self.snap_window = self._spin("snap_window_words", 0, 100_000, " words", "How far a cut may move (≥ 1 when snapping is on)")
        self._row(form, "window", self.snap_window, "snap_window_words")

        # identity
        g = QGroupBox("Identity")
        g.setObjectName("identityBox")
        outer.addWidget(g)
        idl = QVBoxLayout(g)
        idl.setSpacing(4)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.normalizer = QLabel(NORMALIZER_VERSION)
        self.normalizer.setObjectName("normalizerVersion")
        self.rule = QLabel(BOUNDARY_RULE)
        self.rule.setObjectName("boundaryRule")
        self.fingerprint = QLabel(FINGERPRINT_ID)
        self.fingerprint.setObjectName("fingerprintId")
        for w in (self.normalizer, self.rule, self.fingerprint):
            w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("normalizer", self.normalizer)
        form.addRow("boundary rule", self.rule)
        form.addRow("fingerprint", self.fingerprint)
        idl.addLayout(form)
        caption = QLabel("params hash")
        caption.setToolTip("xxh3-128 of the canonical parameters below (SPEC §7)")
        idl.addWidget(caption)
        hrow = QHBoxLayout()
        self.hash_label = QLabel()
        self.hash_label.setObjectName("paramsHash")
        font = mono_font()
        font.setPointSize(9)
        self.hash_label.setFont(font)
        self.hash_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copyHash")
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy the full params hash")
        self.copy_button.clicked.connect(self.copy_hash)
        hrow.addWidget(self.hash_label, 1)
        hrow.addWidget(self.copy_button)
        idl.addLayout(hrow)
        self.stale = QLabel()
        self.stale.setObjectName("paramsStale")
        self.stale.setWordWrap(True)
        self.stale.hide()
        idl.addWidget(self.stale)
        self.canonical = QTextBrowser()
        self._canonical_html = ""
        self.canonical.setObjectName("canonicalParams")
        small = QFont(font)
        small.setPointSize(9)
        self.canonical.setFont(small)
        self.canonical.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        self.canonical.setMinimumHeight(110)
        self.canonical.setToolTip("The canonical parameters (SPEC §7), in hash order")
        idl.addWidget(self.canonical, 1)

        outer.addStretch(0)

        # signals
        self.preset.activated.connect(self._on_preset)
        for spin in (self.window_words, self.min_tokens, self.max_tokens, self.snap_window):
            spin.valueChanged.connect(self._on_edit)
        for line in (self.polynomial, self.primary_remainder, self.backup_remainder):
            line.textChanged.connect(self._on_edit)
        self.polynomial.textChanged.connect(self._check_polynomial)
        for combo in (self.token_counter, self.snap_mode):
            combo.currentIndexChanged.connect(self._on_edit)
        self.snap_mode.currentIndexChanged.connect(self._on_snap_mode)
        for which in ("primary", "backup"):
            bits, mask = self._masks(which)
            bits.valueChanged.connect(lambda _v, w=which: self._on_bits(w))
            mask.textChanged.connect(lambda _t, w=which: self._on_mask_text(w))

        self._write_widgets(self._valid)
        self._commit(self._valid)

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        """Ask a scroll area for the minimum height only: the canonical-parameters view
        takes whatever room is left instead of forcing a scroll bar."""
        return self.layout().minimumSize().height()

    # -- construction helpers ----------------------------------------------------------
    def _group(self, title: str, outer: QVBoxLayout):
        g = QGroupBox(title)
        form = QFormLayout(g)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        form.setVerticalSpacing(4)
        outer.addWidget(g)
        return g, form

    def _spin(self, name: str, lo: int, hi: int, suffix: str, tip: str) -> QSpinBox:
        s = QSpinBox()
        s.setObjectName(name)
        s.setRange(lo, hi)
        s.setSuffix(suffix)
        s.setToolTip(tip)
        s.setAccelerated(True)
        return s

    def _line(self, name: str, tip: str) -> QLineEdit:
        e = QLineEdit()
        e.setObjectName(name)
        e.setFont(mono_font())
        e.setToolTip(tip)
        return e

    def _error_label(self, field: str) -> QLabel:
        label = QLabel()
        label.setObjectName(f"error_{field}")
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.errors[field] = label
        return label

    def _row(self, form: QFormLayout, text: str, widget: QWidget, field: str) -> None:
        if not widget.accessibleName():
            widget.setAccessibleName(text.replace("&", "").strip(" :") or field)
        form.addRow(text, widget)
        label = self._error_label(field)
        form.addRow("", label)
        form.setRowVisible(label, False)
        self._forms[field] = form

    def _mask_widgets(self, which: str):
        bits = QSpinBox()
        bits.setObjectName(f"{which}_bits")
        bits.setRange(-1, 64)
        bits.setSpecialValueText("custom")
        bits.setSuffix(" bits")
        bits.setToolTip(f"{which} mask as a bit count k: mask = 2^k - 1 (1 cut candidate every 2^k words)")
        mask = self._line(f"{which}_mask", f"The raw {which} mask in hex")
        return bits, mask

    def _mask_row(self, form: QFormLayout, text: str, bits: QSpinBox, mask: QLineEdit, field: str) -> None:
        box = QWidget()
        lay = QHBoxLayout(box)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(bits, 1)
        lay.addWidget(mask, 1)
        name = text.replace("&", "").strip(" :")
        bits.setAccessibleName(f"{name} in bits")
        mask.setAccessibleName(f"{name} in hex")
        box.setAccessibleName(name)
        self._row(form, text, box, field)

    def _masks(self, which: str) -> tuple[QSpinBox, QLineEdit]:
        if which == "primary":
            return self.primary_bits, self.primary_mask
        return self.backup_bits, self.backup_mask

    def _remainder(self, which: str) -> QLineEdit:
        return self.primary_remainder if which == "primary" else self.backup_remainder

    # -- reading and writing widgets ---------------------------------------------------
    def _write_widgets(self, p: ChunkerParams) -> None:
        self._updating = True
        try:
            self.window_words.setValue(p.window_words)
            self.polynomial.setText(f"{p.polynomial:#x}")
            for which in ("primary", "backup"):
                bits, mask = self._masks(which)
                m = getattr(p, f"{which}_mask")
                mask.setText(f"{m:#x}")
                bits.setValue(mask_bits(m))
                self._remainder(which).setText(f"{getattr(p, f'{which}_remainder'):#x}")
            self.token_counter.setCurrentText(p.token_counter)
            self.min_tokens.setValue(p.min_tokens)
            self.max_tokens.setValue(p.max_tokens)
            self.snap_mode.setCurrentText(p.snap_mode)
            self.snap_window.setValue(p.snap_window_words)
            self.snap_window.setEnabled(p.snapping)
        finally:
            self._updating = False
        self._check_polynomial()

    def read(self) -> ChunkerParams:
        """The widgets' values as ChunkerParams; ParameterError when they break a rule."""
        values: dict = {
            "window_words": self.window_words.value(),
            "token_counter": self.token_counter.currentText(),
            "min_tokens": self.min_tokens.value(),
            "max_tokens": self.max_tokens.value(),
            "snap_mode": self.snap_mode.currentText(),
            "snap_window_words": self.snap_window.value(),
        }
        # parse in SPEC §6 order so the first broken rule is the one reported
        values["polynomial"] = parse_hex("polynomial", self.polynomial.text())
        for which in ("primary", "backup"):
            values[f"{which}_mask"] = parse_hex(f"{which}_mask", self._masks(which)[1].text())
            values[f"{which}_remainder"] = parse_hex(f"{which}_remainder", self._remainder(which).text())
        return ChunkerParams(**values)

    # -- public ------------------------------------------------------------------------
    @property
    def params(self) -> ChunkerParams:
        """The last valid parameters (in force while the widgets hold an invalid value)."""
        return self._valid

    @property
    def invalid(self) -> bool:
        return self.error is not None

    def set_params(self, params: ChunkerParams) -> None:
        """Show `params` in every widget and announce them (even if unchanged)."""
        self._write_widgets(params)
        self._commit(params)
        self.params_changed.emit(params)

    def copy_hash(self) -> None:
        QGuiApplication.clipboard().setText(self._valid.params_hash)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._show_error(self.error)
        self._check_polynomial()
        self._update_identity()

    # -- reacting to edits -------------------------------------------------------------
    def _on_preset(self, index: int) -> None:
        name = self.preset.itemText(index)
        if name in PRESETS:
            self.set_params(PRESETS[name])

    def _on_snap_mode(self) -> None:
        on = self.snap_mode.currentText() != SNAP_OFF
        self.snap_window.setEnabled(on)
        if on and self.snap_window.value() == 0 and not self._updating:
            self.snap_window.setValue(DEFAULT_SNAP_WINDOW)  # re-enters _on_edit

    def _on_bits(self, which: str) -> None:
        if self._updating:
            return
        bits, mask = self._masks(which)
        k = bits.value()
        if k < 0:  # "custom": the hex field rules
            return
        new_mask = (1 << k) - 1
        rem = self._remainder(which)
        self._updating = True
        try:
            old_mask = self._try_hex(mask.text())
            old_rem = self._try_hex(rem.text())
            mask.setText(f"{new_mask:#x}")
            if old_rem is not None and old_rem == old_mask:  # the all-ones convention follows the mask
                rem.setText(f"{new_mask:#x}")
        finally:
            self._updating = False
        self._on_edit()

    def _on_mask_text(self, which: str) -> None:
        if self._updating:
            return
        bits, mask = self._masks(which)
        value = self._try_hex(mask.text())
        self._updating = True
        try:
            bits.setValue(mask_bits(value) if value is not None else -1)
        finally:
            self._updating = False
        self._on_edit()

    @staticmethod
    def _try_hex(text: str) -> int | None:
        try:
            return parse_hex("mask", text)
        except ParameterError:
            return None

    def _check_polynomial(self) -> None:
        """Live irreducibility check of the polynomial field, with its degree."""
        try:
            p = check_polynomial(parse_hex("polynomial", self.polynomial.text()))
        except ParameterError as e:
            self.poly_status.setText("")
            self.poly_status.hide()
            if self.error is None or self.error.field != "polynomial":
                self._field_error("polynomial", e.rule)
            return
        if self.error is None or self.error.field != "polynomial":
            self._field_error("polynomial", None)
        d = p.bit_length() - 1
        self.poly_status.setText(f"<span style='color:{self.theme.ok}'>✓ irreducible</span> · degree {d}")
        self.poly_status.setToolTip(f"Irreducible over GF(2): fingerprints have {d} bits, masks must be < 2^{d}")
        self.poly_status.show()

    def _on_edit(self, *_args) -> None:
        if self._updating:
            return
        try:
            params = self.read()
        except ParameterError as e:
            self._show_error(e)
            self.params_invalid.emit(e)
            return
        changed = params != self._valid
        self._commit(params)
        if changed:
            self.params_changed.emit(params)

    def _commit(self, params: ChunkerParams) -> None:
        self._valid = params
        self._show_error(None)  # also refreshes the identity box
        self._update_preset()

    def _update_preset(self) -> None:
        name = next((n for n, p in PRESETS.items() if p.params_hash == self._valid.params_hash), CUSTOM)
        self.preset.blockSignals(True)
        self.preset.setCurrentText(name)
        self.preset.blockSignals(False)

    # -- errors and identity -------------------------------------------------------------
    def _field_error(self, field: str, rule: str | None) -> None:
        label = self.errors.get(field)
        if label is None:
            return
        form = self._forms[field]
        if rule:
            label.setText(f"<span style='color:{self.theme.error_text}'>⚠ {rule}</span>")
            form.setRowVisible(label, True)
        else:
            label.setText("")
            form.setRowVisible(label, False)

    def _show_error(self, error: ParameterError | None) -> None:
        self.error = error
        for field in self.errors:
            if field != "polynomial":
                self._field_error(field, None)
        if error is not None:
            self._field_error(error.field if error.field in self.errors else "window_words", error.rule)
        if error is None or error.field != "polynomial":
            self._check_polynomial()
        self._update_identity()

    def _update_identity(self) -> None:
        p = self._valid
        t = self.theme
        self.hash_label.setText(p.params_hash)
        if self.error is not None:
            self.stale.setText(
                f"<span style='color:{t.error_text}'>⚠ <b>{self.error.field}</b> is invalid. "
                f"The hash and the chunks shown belong to the last valid parameters.</span>"
            )
            self.stale.show()
            self.hash_label.setStyleSheet(f"color: {t.muted}; font-style: italic;")
        else:
            self.stale.hide()
            self.hash_label.setStyleSheet("")
        canonical = json.dumps(dict(p.canonical_fields()), indent=2)
        shown = json_html(canonical, t.pygments_style, t.text)
        if shown != self._canonical_html:
            self._canonical_html = shown
            self.canonical.setHtml(shown)
