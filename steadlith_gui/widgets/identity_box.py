"""The identity box: what the params hash of either rule is made of (normalizer, rule,
fingerprint or key id), the hash with a copy button, and the canonical parameters in
hash order. It says so when the hash belongs to the last valid parameters while a
field holds an invalid value."""

from __future__ import annotations

import json

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import QFormLayout, QGroupBox, QHBoxLayout, QLabel, QTextBrowser, QToolButton, QVBoxLayout
from steadlith_core import NORMALIZER_VERSION, ParameterError

from ..model.highlight import json_html
from .palette import LIGHT, Theme


class IdentityBox(QGroupBox):
    def __init__(self, theme: Theme = LIGHT):
        super().__init__("Identity")
        self.setObjectName("identityBox")
        self.theme = theme
        self.params = None
        self.error: ParameterError | None = None
        lay = QVBoxLayout(self)
        lay.setSpacing(4)
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.normalizer = QLabel(NORMALIZER_VERSION)
        self.normalizer.setObjectName("normalizerVersion")
        self.rule = QLabel()
        self.rule.setObjectName("boundaryRule")
        self.fingerprint = QLabel()
        self.fingerprint.setObjectName("fingerprintId")
        for w in (self.normalizer, self.rule, self.fingerprint):
            w.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        form.addRow("normalizer", self.normalizer)
        form.addRow("boundary rule", self.rule)
        self.fingerprint_caption = QLabel("fingerprint")
        form.addRow(self.fingerprint_caption, self.fingerprint)
        lay.addLayout(form)
        caption = QLabel("params hash")
        caption.setToolTip("xxh3-128 of the canonical parameters below (docs/contract/identity.md#params-hash)")
        # the caption and the Copy button share a row so the 32-digit hash has a row of its
        # own: beside the button it held the dock (and a 1024-px window's panes) wide
        row = QHBoxLayout()
        row.addWidget(caption, 1)
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        mono.setPointSize(9)
        self.hash_label = QLabel()
        self.hash_label.setObjectName("paramsHash")
        self.hash_label.setFont(mono)
        self.hash_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.copy_button = QToolButton()
        self.copy_button.setObjectName("copyHash")
        self.copy_button.setText("Copy")
        self.copy_button.setToolTip("Copy the full params hash")
        self.copy_button.clicked.connect(self.copy_hash)
        row.addWidget(self.copy_button)
        lay.addLayout(row)
        lay.addWidget(self.hash_label)
        self.stale = QLabel()
        self.stale.setObjectName("paramsStale")
        self.stale.setWordWrap(True)
        self.stale.hide()
        lay.addWidget(self.stale)
        self.canonical = QTextBrowser()
        self.canonical.setObjectName("canonicalParams")
        self.canonical.setFont(QFont(mono))
        self.canonical.setLineWrapMode(QTextBrowser.LineWrapMode.WidgetWidth)
        self.canonical.setMinimumHeight(110)
        self.canonical.setToolTip("The canonical parameters, in hash order")
        self._canonical_html = ""
        lay.addWidget(self.canonical, 1)

    def show_params(self, params, error: ParameterError | None = None) -> None:
        """The identity of `params` (the ones in force); `error`: a field is invalid."""
        self.params, self.error = params, error
        t = self.theme
        fields = params.canonical_fields()
        self.rule.setText(params.boundary_rule)
        id_name, id_value = fields[1]  # tttd-v1's fingerprint id, lmx2-v1's key id
        self.fingerprint_caption.setText(id_name)
        self.fingerprint.setText(id_value)
        self.hash_label.setText(params.params_hash)
        if error is not None:
            self.stale.setText(
                f"<span style='color:{t.error_text}'>⚠ <b>{error.field}</b> is invalid. "
                f"The hash and the chunks shown belong to the last valid parameters.</span>")
            self.stale.show()
            self.hash_label.setStyleSheet(f"color: {t.muted}; font-style: italic;")
        else:
            self.stale.hide()
            self.hash_label.setStyleSheet("")
        shown = json_html(json.dumps(dict(fields), indent=2), t.pygments_style, t.text)
        if shown != self._canonical_html:
            self._canonical_html = shown
            self.canonical.setHtml(shown)

    def copy_hash(self) -> None:
        if self.params is not None:
            QGuiApplication.clipboard().setText(self.params.params_hash)

    def set_theme(self, theme: Theme) -> None:
        self.theme = theme
        if self.params is not None:
            self.show_params(self.params, self.error)
