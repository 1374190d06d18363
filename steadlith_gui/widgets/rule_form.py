"""The fields of one boundary rule, built from its specs in `param_fields.RULE_GROUPS`.

The form reads its widgets into that rule's parameters (the core's constructor
validates them: a `ParameterError` names the field, shown under it) and writes
parameters into its widgets without a signal. It announces `committed` when the user
means a value (param_fields explains when); it never applies anything itself.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QComboBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QSpinBox, QVBoxLayout, QWidget
from steadlith_core import ParameterError
from steadlith_core.chunking.params import check_polynomial
from steadlith_core.chunking.rules import PARAMS_TYPES
from superqt.utils import signals_blocked

from .palette import LIGHT, Theme
from .param_fields import RULE_GROUPS, FieldSpec, IntField, derived_text, mask_bits, parse_hex


class MaskField(QWidget):
    """A mask as a bit count (k: mask = 2^k - 1, "custom" otherwise) beside its hex."""

    committed = Signal()
    resized = Signal(int, int)  # (old mask, new mask): the bit count was changed, before `committed`

    def __init__(self, rule: str, spec: FieldSpec, parent: QWidget | None = None):
        super().__init__(parent)
        self.setObjectName(f"{spec.name}_box")
        which = spec.name.split("_")[0]
        self.bits = QSpinBox()
        self.bits.setObjectName(f"{which}_bits")
        self.bits.setRange(-1, 63)
        self.bits.setSpecialValueText("custom")
        self.bits.setSuffix(" bits")
        self.bits.setKeyboardTracking(False)  # typed digits apply on Enter or leaving, like the other fields
        self.bits.setToolTip(spec.tip)
        self.bits.setAccessibleName(f"{spec.label} in bits")
        self.hex = IntField(rule, spec)
        self.hex.setAccessibleName(f"{spec.label} in hex")
        lay = QHBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.bits, 1)
        lay.addWidget(self.hex, 1)
        self.bits.valueChanged.connect(self._on_bits)
        self.hex.committed.connect(self._on_hex)

    def value(self) -> int:
        return self.hex.value()

    def set_value(self, value: int) -> None:
        self.hex.set_value(value)
        self._show_bits(value)

    def _show_bits(self, value: int | None) -> None:
        with signals_blocked(self.bits):
            self.bits.setValue(mask_bits(value) if value is not None else -1)

    def _on_bits(self, k: int) -> None:
        if k < 0:  # "custom": the hex field rules
            return
        try:
            old = self.hex.value()
        except ParameterError:
            old = None
        new = (1 << k) - 1
        self.hex.setText(self.hex.format(new))
        if old is not None:
            self.resized.emit(old, new)
        self.hex.commit_now()

    def _on_hex(self) -> None:
        try:
            self._show_bits(self.hex.value())
        except ParameterError:
            self._show_bits(None)
        self.committed.emit()


class RuleForm(QWidget):
    committed = Signal(str)  # the name of the field the user committed

    def __init__(self, rule: str, theme: Theme = LIGHT, parent: QWidget | None = None):
        super().__init__(parent)
        self.rule = rule
        self.theme = theme
        self.setObjectName(f"form_{rule}")
        self.fields: dict[str, QWidget] = {}
        self.specs: dict[str, FieldSpec] = {}
        self.errors: dict[str, QLabel] = {}
        self._forms: dict[str, QFormLayout] = {}
        self._last: object = None  # the parameters last written
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.setSpacing(6)
        for title, specs in RULE_GROUPS[rule]:
            box = QGroupBox(title)
            form = QFormLayout(box)
            form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
            form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
            form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)  # a narrow dock puts a field under its label
            form.setVerticalSpacing(4)
            for spec in specs:
                self._add_field(form, spec)
            outer.addWidget(box)
        self.derived = QLabel()
        self.derived.setObjectName(f"derived_{rule}")
        self.derived.setWordWrap(True)
        self.derived.setToolTip("Derived from the fields: chunks farther than the margin from an edit "
                                "are checked for reuse (the locality check)")
        self.derived.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        outer.addWidget(self.derived)
        if "polynomial" in self.fields:
            self.fields["polynomial"].textChanged.connect(self._check_polynomial)

    # -- construction ----------------------------------------------------------------------
    def _add_field(self, form: QFormLayout, spec: FieldSpec) -> None:
        if spec.kind == "choice":
            w = QComboBox()
            w.setObjectName(spec.name)
            w.addItems(list(spec.choices()))
            w.setToolTip(spec.tip)
            w.currentIndexChanged.connect(lambda _i, s=spec: self._on_choice(s))
        elif spec.kind == "mask":
            w = MaskField(self.rule, spec)
            w.committed.connect(lambda s=spec: self.committed.emit(s.name))
            w.resized.connect(lambda old, new, s=spec: self._mask_resized(s.name, old, new))
        else:
            w = IntField(self.rule, spec)
            w.committed.connect(lambda s=spec: self.committed.emit(s.name))
        w.setAccessibleName(w.accessibleName() or spec.label)
        self.fields[spec.name] = w
        self.specs[spec.name] = spec
        form.addRow(spec.label, w)
        label = QLabel()
        label.setObjectName(f"error_{spec.name}")
        label.setWordWrap(True)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("", label)
        form.setRowVisible(label, False)
        self.errors[spec.name] = label
        self._forms[spec.name] = form
        if spec.name == "polynomial":
            self.poly_status = QLabel()
            self.poly_status.setObjectName("polynomialStatus")
            self.poly_status.setWordWrap(True)
            form.addRow("", self.poly_status)

    # -- reading and writing ---------------------------------------------------------------
    def read(self):
        """The widgets' values as this rule's parameters; ParameterError when they break a rule."""
        values = {}
        for name, w in self.fields.items():
            values[name] = w.currentText() if isinstance(w, QComboBox) else w.value()
        return PARAMS_TYPES[self.rule](**values)

    def write(self, params) -> None:
        """Show `params` in every field, announcing nothing."""
        self._last = params
        for name, w in self.fields.items():
            value = getattr(params, name)
            if isinstance(w, QComboBox):
                with signals_blocked(w):
                    w.setCurrentText(value)
            else:
                w.set_value(value)
        self._update_active()
        self.derived.setText(derived_text(params))
        self._check_polynomial()

    def commit_pending(self) -> None:
        """Commit a field typed into and not committed yet (before the rule is switched)."""
        for w in self.fields.values():
            field = w.hex if isinstance(w, MaskField) else w
            if isinstance(field, IntField) and field.pending:
                field.commit_now()

    def _mask_resized(self, mask: str, old: int, new: int) -> None:
        """The all-ones convention (remainder == mask) follows a mask set by its bit count."""
        rem = self.fields[mask.replace("mask", "remainder")]
        try:
            follows = rem.value() == old
        except ParameterError:
            follows = False
        if follows:
            rem.set_value(new)

    def _on_choice(self, spec: FieldSpec) -> None:
        self._update_active(fill_defaults=True)
        self.committed.emit(spec.name)

    def _update_active(self, fill_defaults: bool = False) -> None:
        for name, spec in self.specs.items():
            if spec.active_while is None:
                continue
            on = self.fields[spec.active_while].currentText() != "off"
            w = self.fields[name]
            w.setEnabled(on)
            if on and fill_defaults and spec.default_when_active is not None:
                try:
                    zero = w.value() == 0
                except ParameterError:
                    zero = True
                if zero:
                    w.set_value(spec.default_when_active)

    # -- errors ------------------------------------------------------------------------------
    def show_error(self, error: ParameterError | None) -> None:
        """Explain `error` under its field (the first field when it names none of them)."""
        for name in self.errors:
            if name != "polynomial":
                self._field_error(name, None)
        if error is not None:
            self._field_error(error.field if error.field in self.errors else next(iter(self.errors)), error.rule)
        if error is None or error.field != "polynomial":
            self._check_polynomial()

    def _field_error(self, name: str, rule: str | None) -> None:
        label, form = self.errors[name], self._forms[name]
        label.setText(f"<span style='color:{self.theme.error_text}'>⚠ {rule}</span>" if rule else "")
        form.setRowVisible(label, bool(rule))

    def _check_polynomial(self) -> None:
        """tttd-v1's polynomial is checked as it is typed (shown, not applied)."""
        if "polynomial" not in self.fields:
            return
        try:
            p = check_polynomial(parse_hex("polynomial", self.fields["polynomial"].text()))
        except ParameterError as e:
            self.poly_status.hide()
            self._field_error("polynomial", e.rule)
            return
        self._field_error("polynomial", None)
        d = p.bit_length() - 1
        self.poly_status.setText(f"<span style='color:{self.theme.ok}'>✓ irreducible</span> · degree {d}")
        self.poly_status.setToolTip(f"Irreducible over GF(2): fingerprints have {d} bits, masks must be < 2^{d}")
        self.poly_status.show()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        self._check_polynomial()
