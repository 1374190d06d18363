"""The parameters dock: a boundary-rule selector, that rule's fields (one `RuleForm` per
rule), its presets, the derived gate and margin, and the identity box.

The panel follows the session: `bind(session)` subscribes it to `params_changed` and
`rule_changed`, and every value it shows is written from there with signals blocked,
so parameters set anywhere (a workspace, the command line, an example, a test) are
what the fields show. The user's edits go the other way only when committed (Enter,
leaving a field, a step, a pause: see param_fields): the form's values are read into
the rule's parameters (the core validates; a `ParameterError` is shown under its
field and the last valid parameters stay in force) and `params_changed` carries them
to the session. Each rule keeps its own last valid parameters there, so switching
rules and back restores them.
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QSizePolicy, QStackedWidget, QVBoxLayout, QWidget
from steadlith_core import BOUNDARY_RULES, RULE_PRESETS, ParameterError
from steadlith_core.chunking.rules import default_params, rule_of
from superqt.utils import signals_blocked

from .identity_box import IdentityBox
from .palette import LIGHT, Theme
from .rule_form import RuleForm

CUSTOM = "Custom"
PRESETS = RULE_PRESETS["tttd-v1"]
RULE_HELP = {
    "tttd-v1": "tttd-v1: word-level Rabin fingerprint, two-threshold cut selection. "
               "Each cut depends on the previous one: an edit can shift cuts far away.",
    "lmx2-v1": "lmx2-v1: local maxima of word-window keys. Strictly local: every chunk "
               "farther than the margin from an edit keeps its hash.",
}


class _FormStack(QStackedWidget):
    """The rules' forms, one shown, sized by its minimum, not by height-for-width: a form
    layout's height-for-width leaves out a row made visible since (an inline error), and
    the panel then squeezed every field to a sliver."""

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt override
        return False


class ParamsPanel(QWidget):
    params_changed = Signal(object)  # valid parameters the user committed (either rule's type)
    params_invalid = Signal(object)  # the ParameterError of the committed values
    rule_selected = Signal(str)  # the user chose another boundary rule

    def __init__(self, params=None, theme: Theme = LIGHT, parent: QWidget | None = None):
        """`params`: shown until `bind` (a panel without a session shows the defaults)."""
        super().__init__(parent)
        self.setObjectName("paramsPanel")
        self.setAccessibleName("Chunker parameters")
        self.theme = theme
        self.session = None
        # the panel's own parameters until a session is bound; then the session's are shown
        self._own = {rule: default_params(rule) for rule in BOUNDARY_RULES}
        self.rule = "tttd-v1"
        self.error: ParameterError | None = None

        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)
        outer.setSpacing(6)
        self.rule_combo = self._combo("boundaryRuleCombo", "Boundary rule", BOUNDARY_RULES,
                                      "The rule the panes show; the churn panel compares every rule")
        self.preset = self._combo("presetCombo", "Preset", (), "Parameter presets of the rule; "
                                  "editing any field makes the set Custom")
        for label, combo in (("Rule", self.rule_combo), ("Preset", self.preset)):
            row = QHBoxLayout()
            row.addWidget(QLabel(label))
            row.addWidget(combo, 1)
            outer.addLayout(row)
        self.rule_help = QLabel()
        self.rule_help.setObjectName("ruleHelp")
        self.rule_help.setWordWrap(True)
        outer.addWidget(self.rule_help)
        self.stack = _FormStack()
        self.forms = {rule: RuleForm(rule, theme) for rule in BOUNDARY_RULES}
        for rule, form in self.forms.items():
            self.stack.addWidget(form)
            form.committed.connect(lambda _field, r=rule: self._on_commit(r))
            form.write(self._own[rule])
        outer.addWidget(self.stack)
        self.identity = IdentityBox(theme)
        outer.addWidget(self.identity, 1)
        outer.addStretch(0)
        # the identity box's parts, under the names the window and tests know
        self.hash_label, self.copy_button, self.canonical = (self.identity.hash_label, self.identity.copy_button,
                                                            self.identity.canonical)

        self.rule_combo.activated.connect(lambda i: self._choose_rule(self.rule_combo.itemText(i)))
        self.preset.activated.connect(lambda i: self._on_preset(self.preset.itemText(i)))
        if params is not None:
            self._own[rule_of(params)] = params
            self.rule = rule_of(params)
        self._show_rule(self.rule)

    @staticmethod
    def _combo(name: str, accessible: str, items, tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        combo.setAccessibleName(accessible)
        combo.addItems(list(items))
        combo.setToolTip(tip)
        return combo

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt override
        """Ask a scroll area for the minimum height only: the canonical-parameters view
        takes whatever room is left instead of forcing a scroll bar. The minimum at this
        width: wrapped lines (the rule's help, an inline error under a field) take more
        rows when narrow, and a height short of them squeezed every field to a sliver."""
        lay = self.layout()
        return max(lay.minimumSize().height(), lay.totalHeightForWidth(width))

    # -- following the session -------------------------------------------------------------
    def bind(self, session) -> None:
        """Show the session's parameters and rule from now on, and hand it the user's."""
        self.session = session
        session.events.params_changed.connect(self._on_session_params)
        session.events.rule_changed.connect(self._show_rule)
        self.params_changed.connect(lambda p: session.set_params(p))
        self.rule_selected.connect(session.set_rule)
        for rule in BOUNDARY_RULES:
            self.forms[rule].write(session.params_for(rule))
        self._show_rule(session.rule)

    def _params_of(self, rule: str):
        """A rule's last valid parameters: the session's once bound (it owns them)."""
        return self.session.params_for(rule) if self.session is not None else self._own[rule]

    def _on_session_params(self, params) -> None:
        rule = rule_of(params)
        if self.session is None:
            self._own[rule] = params
        self.forms[rule].write(params)
        if rule == self.rule:
            self.error = None
            self.forms[rule].show_error(None)
            self._refresh()

    def _show_rule(self, rule: str) -> None:
        self.rule = rule
        with signals_blocked(self.rule_combo):
            self.rule_combo.setCurrentText(rule)
        self.stack.setCurrentWidget(self.forms[rule])
        for r, form in self.forms.items():  # the stack takes the shown form's height, not the tallest's
            ignored = QSizePolicy.Policy.Ignored
            form.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred if r == rule else ignored)
        self.stack.adjustSize()
        self.rule_help.setText(RULE_HELP[rule])
        self.error = None
        self.forms[rule].write(self._params_of(rule))  # an invalid value left typed is dropped
        self.forms[rule].show_error(None)
        with signals_blocked(self.preset):
            self.preset.clear()
            self.preset.addItems([*RULE_PRESETS[rule], CUSTOM])
        self._refresh()

    # -- public --------------------------------------------------------------------------------
    @property
    def params(self):
        """The shown rule's last valid parameters (in force while a field is invalid)."""
        return self._params_of(self.rule)

    @property
    def invalid(self) -> bool:
        return self.error is not None

    @property
    def form(self) -> RuleForm:
        return self.forms[self.rule]

    def set_params(self, params) -> None:
        """Announce `params` as if the user chose them (the session shows them back)."""
        self._apply(params)

    def copy_hash(self) -> None:
        self.identity.copy_hash()

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        for form in self.forms.values():
            form.set_theme(theme)
        self.identity.set_theme(theme)
        self.form.show_error(self.error)

    # -- the user's edits ------------------------------------------------------------------
    def _choose_rule(self, rule: str) -> None:
        self.form.commit_pending()
        if self.session is None:
            self._show_rule(rule)
        self.rule_selected.emit(rule)

    def _on_preset(self, name: str) -> None:
        presets = RULE_PRESETS[self.rule]
        if name in presets:
            self._apply(presets[name])

    def _on_commit(self, rule: str) -> None:
        if rule != self.rule:
            return
        form = self.form
        try:
            params = form.read()
        except ParameterError as e:
            self.error = e
            form.show_error(e)
            self._refresh()
            self.params_invalid.emit(e)
            return
        self.error = None
        form.show_error(None)
        if params != self._params_of(self.rule):
            self._apply(params)
        else:
            self._refresh()

    def _apply(self, params) -> None:
        if self.session is None:  # alone: the panel is its own state
            self._on_session_params(params)
        self.params_changed.emit(params)

    def _refresh(self) -> None:
        p = self._params_of(self.rule)
        self.identity.show_params(p, self.error)
        name = next((n for n, q in RULE_PRESETS[self.rule].items() if q.params_hash == p.params_hash), CUSTOM)
        with signals_blocked(self.preset):
            self.preset.setCurrentText(name)
