"""The parameters dock: the hash shown is the core's, committed edits re-chunk, invalid
values are explained under their field while the last valid result stays on screen.
(Rule switching, apply-on-commit and the full range: test_params_rules.py.)"""

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QComboBox, QLabel, QLineEdit, QSpinBox
from steadlith_core import ChunkerParams, ParameterError
from steadlith_core.bench.examples import generate_prose

from gui_helpers import load_texts
from steadlith_gui.widgets.params_panel import PRESETS

TEXT_A = generate_prose(12_000, seed=3)
TEXT_B = generate_prose(12_000, seed=4)


def widget(window, cls, name):
    """A widget of the shown rule's form (each rule has its own min_tokens), else of the panel."""
    panel = window.params_panel
    w = panel.form.findChild(cls, name) or panel.findChild(cls, name)
    assert w is not None, name
    return w


def hash_text(window) -> str:
    return window.findChild(QLabel, "paramsHash").text()


def enter(qtbot, window, name, text):
    """Type `text` over a field's value and press Enter, as a user does."""
    field = widget(window, QLineEdit, name)
    field.selectAll()
    qtbot.keyClicks(field, text)
    qtbot.keyClick(field, Qt.Key.Key_Return)


def edit(qtbot, window, action):
    """Run a widget edit and wait for the re-chunked result."""
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        action()
    return blocker.args[0]


def rule_of(**changes) -> str:
    with pytest.raises(ParameterError) as info:
        ChunkerParams(**changes)
    return info.value.rule


def error_label(window, field) -> QLabel:
    return widget(window, QLabel, f"error_{field}")


def test_hash_label_follows_widget_edits(qtbot, window):
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    assert hash_text(window) == ChunkerParams().params_hash

    result = edit(qtbot, window, lambda: enter(qtbot, window, "min_tokens", "50"))
    expected = ChunkerParams(min_tokens=50)
    assert hash_text(window) == expected.params_hash
    assert result.a.params_hash == result.b.params_hash == expected.params_hash
    assert result.a.params == expected

    # polynomial in hex: the degree-13 polynomial of the golden vectors
    result = edit(qtbot, window, lambda: enter(qtbot, window, "polynomial", "0x201b"))
    expected = expected.with_changes(polynomial=0x201B)
    assert hash_text(window) == expected.params_hash == result.a.params_hash
    assert "degree 13" in widget(window, QLabel, "polynomialStatus").text()

    # mask as a bit count: the hex field and an all-ones remainder follow it
    result = edit(qtbot, window, lambda: widget(window, QSpinBox, "primary_bits").setValue(5))
    assert widget(window, QLineEdit, "primary_mask").text() == "0x1f"
    assert widget(window, QLineEdit, "primary_remainder").text() == "0x1f"
    expected = expected.with_changes(primary_mask=0x1F, primary_remainder=0x1F)
    assert hash_text(window) == expected.params_hash == result.b.params_hash

    # token counter and snap mode are choices; turning snapping on enables its window
    result = edit(qtbot, window, lambda: widget(window, QComboBox, "token_counter").setCurrentText("words/1"))
    expected = expected.with_changes(token_counter="words/1")
    assert result.a.params == expected
    snap_window = widget(window, QLineEdit, "snap_window_words")
    assert not snap_window.isEnabled()
    result = edit(qtbot, window, lambda: widget(window, QComboBox, "snap_mode").setCurrentText("paragraph-sentence/1"))
    assert snap_window.isEnabled() and int(snap_window.text()) >= 1
    expected = expected.with_changes(snap_mode="paragraph-sentence/1", snap_window_words=int(snap_window.text()))
    assert hash_text(window) == expected.params_hash == result.a.params_hash

    # the canonical parameters are shown in hash order
    shown = json.loads(widget(window, type(window.params_panel.canonical), "canonicalParams").toPlainText())
    assert list(shown.items()) == expected.canonical_fields()

    # the copy button copies the full hash
    window.params_panel.copy_button.click()
    assert QApplication.clipboard().text() == expected.params_hash


def test_custom_mask_and_presets(qtbot, window):
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    bits = widget(window, QSpinBox, "primary_bits")
    # a raw mask that is not 2^k - 1: bits show "custom"; the remainder 0x7f now breaks its rule
    generation = window.analyzer.generation
    enter(qtbot, window, "primary_mask", "0x2d")
    assert bits.text() == "custom"
    label = error_label(window, "primary_remainder")
    assert label.isVisible() and rule_of(primary_mask=0x2D) in label.text()
    assert window.analyzer.generation == generation  # nothing was submitted
    result = edit(qtbot, window, lambda: enter(qtbot, window, "primary_remainder", "5"))
    assert result.a.params == ChunkerParams(primary_mask=0x2D, primary_remainder=0x5)
    assert not label.isVisible()

    combo = widget(window, QComboBox, "presetCombo")
    assert combo.currentText() == "Custom"
    for name, params in PRESETS.items():
        result = edit(qtbot, window, lambda n=name: combo.activated.emit(combo.findText(n)))
        assert result.a.params == params and hash_text(window) == params.params_hash
        assert combo.currentText() == name
        assert widget(window, QLineEdit, "min_tokens").text() == str(params.min_tokens)


@pytest.mark.parametrize(
    "apply, field, changes",
    [
        (("polynomial", "0x3da3358b4dc175"), "polynomial", {"polynomial": 0x3DA3358B4DC175}),
        (("min_tokens", "600"), "max_tokens", {"min_tokens": 600}),
        (("window_words", "0"), "window_words", {"window_words": 0}),
        (("backup_remainder", "0x40"), "backup_remainder", {"backup_remainder": 0x40}),
    ],
    ids=["reducible-polynomial", "min-over-max", "zero-window", "remainder-outside-mask"],
)
def test_invalid_value_is_explained_and_last_result_kept(qtbot, window, apply, field, changes):
    before = load_texts(qtbot, window, TEXT_A, TEXT_B)
    shown_a, shown_b = window.pane_a.chunking, window.pane_b.chunking
    generation = window.analyzer.generation
    enter(qtbot, window, *apply)

    label = error_label(window, field)
    assert label.isVisible()
    assert rule_of(**changes) in label.text()
    assert window.analyzer.generation == generation  # no analysis was requested
    assert window.session.result is before
    assert window.pane_a.chunking is shown_a and window.pane_b.chunking is shown_b
    assert hash_text(window) == before.a.params_hash == ChunkerParams().params_hash
    stale = widget(window, QLabel, "paramsStale")
    assert stale.isVisible() and "last valid" in stale.text()
    assert window.params_panel.invalid


def test_fixing_an_invalid_value_resumes(qtbot, window):
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    enter(qtbot, window, "min_tokens", "600")
    assert error_label(window, "max_tokens").isVisible()
    result = edit(qtbot, window, lambda: enter(qtbot, window, "max_tokens", "1000"))
    assert result.a.params == ChunkerParams(min_tokens=600, max_tokens=1000)
    assert not error_label(window, "max_tokens").isVisible()
    assert not widget(window, QLabel, "paramsStale").isVisible()
    assert hash_text(window) == result.a.params_hash


def test_unparsable_hex_is_explained(qtbot, window):
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    enter(qtbot, window, "primary_remainder", "0x")  # the field takes hex digits only
    label = error_label(window, "primary_remainder")
    assert label.isVisible() and "integer" in label.text()
    assert hash_text(window) == ChunkerParams().params_hash


def test_the_parameters_signal_alone_drives_the_repaint(qtbot, window):
    """The analysis uses the parameters the panel announced, not a read-back of the panel:
    announced parameters the panel's widgets never held still re-chunk both panes."""
    load_texts(qtbot, window, TEXT_A, TEXT_B)
    announced = ChunkerParams(min_tokens=50, max_tokens=300)
    assert window.params_panel.params != announced
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.params_panel.params_changed.emit(announced)
    result = blocker.args[0]
    assert result.params == announced and window.session.params == announced
    assert window.session.result.a.params == announced and window.session.result.b.params == announced
    assert window.pane_b.chunking is result.b and window.table.model.rowCount() == len(result.a.chunks) + len(
        result.b.chunks)
