"""The parameters panel over a session, without a window: it follows the session, each
rule keeps its own parameters, values apply when the user commits them (never a typed
prefix), and every field takes the whole range the core accepts, up to 2^64 - 1."""

import json

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QLabel, QLineEdit
from steadlith_core import ChunkerParams, Lmx2Params
from steadlith_core.chunking.rules import INT_RANGES_BY_RULE

from steadlith_gui.controllers.settings import AppSettings
from steadlith_gui.model.session import Session
from steadlith_gui.model.workspace import DocumentRef, Workspace, save_workspace
from steadlith_gui.model.workspace_loading import load_workspace
from steadlith_gui.widgets.param_fields import COMMIT_PAUSE_MS
from steadlith_gui.widgets.params_panel import ParamsPanel

BIG = 5_000_000_000  # past 2^32: a QSpinBox cannot hold it
TOP = 2**64 - 1


@pytest.fixture
def bound(qtbot):
    session = Session()
    panel = ParamsPanel()
    panel.bind(session)
    qtbot.addWidget(panel)
    panel.show()
    applied = []
    session.events.params_changed.connect(applied.append)
    return session, panel, applied


def field(panel, name) -> QLineEdit:
    w = panel.form.findChild(QLineEdit, name)
    assert w is not None, name
    return w


def type_over(qtbot, w, text):
    w.setFocus()
    w.selectAll()
    qtbot.keyClicks(w, text)


def choose_rule(panel, rule):
    combo = panel.rule_combo
    combo.setCurrentText(rule)
    combo.activated.emit(combo.currentIndex())


def test_the_panel_follows_the_session(bound):
    session, panel, _ = bound
    p = ChunkerParams(min_tokens=40, max_tokens=TOP, primary_mask=0x1F, primary_remainder=0x1F)
    session.set_params(p)
    assert field(panel, "min_tokens").text() == "40"
    assert field(panel, "max_tokens").text() == str(TOP)
    assert panel.form.findChild(type(panel.form.fields["primary_mask"].bits), "primary_bits").value() == 5
    assert panel.findChild(QLabel, "paramsHash").text() == p.params_hash
    q = Lmx2Params(min_tokens=50, max_tokens=400)
    session.set_params(q, show=True)  # a rule shown from outside: the selector and fields follow
    assert panel.rule_combo.currentText() == "lmx2-v1" and panel.params == q
    assert field(panel, "max_tokens").text() == "400" and field(panel, "horizon").text() == str(q.horizon)
    assert panel.findChild(QLabel, "boundaryRule").text() == "lmx2-v1"
    assert f"margin {q.margin:,} t" in panel.findChild(QLabel, "derived_lmx2-v1").text()
    shown = json.loads(panel.findChild(type(panel.canonical), "canonicalParams").toPlainText())
    assert list(shown.items()) == q.canonical_fields()


def test_switching_rules_keeps_each_rules_parameters(qtbot, bound):
    session, panel, applied = bound
    type_over(qtbot, field(panel, "min_tokens"), "40")
    qtbot.keyClick(field(panel, "min_tokens"), Qt.Key.Key_Return)
    assert session.params == ChunkerParams(min_tokens=40)

    choose_rule(panel, "lmx2-v1")
    assert session.rule == "lmx2-v1" and session.params == Lmx2Params()
    type_over(qtbot, field(panel, "horizon"), "200")
    qtbot.keyClick(field(panel, "horizon"), Qt.Key.Key_Return)
    assert session.params == Lmx2Params(horizon=200)
    assert "gate 208 t" in panel.findChild(QLabel, "derived_lmx2-v1").text()

    choose_rule(panel, "tttd-v1")  # back: the first rule's edit is still there
    assert session.rule == "tttd-v1" and session.params == ChunkerParams(min_tokens=40)
    assert field(panel, "min_tokens").text() == "40"
    assert panel.findChild(QLabel, "paramsHash").text() == ChunkerParams(min_tokens=40).params_hash
    choose_rule(panel, "lmx2-v1")
    assert field(panel, "horizon").text() == "200" and session.params == Lmx2Params(horizon=200)
    presets = [panel.preset.itemText(i) for i in range(panel.preset.count())]
    assert presets[0].startswith("lmx2")  # the presets are the shown rule's


def test_typing_applies_only_the_value_meant(qtbot, bound):
    session, panel, applied = bound
    mask = field(panel, "primary_mask")
    type_over(qtbot, mask, "0xff")  # 0x, 0xf on the way: never applied
    assert applied == []
    qtbot.waitUntil(lambda: len(applied) == 1, timeout=COMMIT_PAUSE_MS * 5)  # the pause after the last key
    assert applied[0].primary_mask == 0xFF

    low = field(panel, "min_tokens")
    type_over(qtbot, low, "200")
    assert len(applied) == 1  # neither 2 nor 20 ran
    field(panel, "max_tokens").setFocus()  # leaving the field commits it
    qtbot.waitUntil(lambda: len(applied) == 2, timeout=1000)
    assert applied[1].min_tokens == 200
    assert [p.min_tokens for p in applied] == [96, 200]

    high = field(panel, "max_tokens")
    type_over(qtbot, high, "900")
    qtbot.keyClick(high, Qt.Key.Key_Return)  # Enter: at once, no pause
    assert applied[-1].max_tokens == 900 and len(applied) == 3
    qtbot.keyClick(high, Qt.Key.Key_Up)  # a step applies at once, as a spin box's arrow does
    assert applied[-1].max_tokens == 901 and high.text() == "901"
    qtbot.wait(COMMIT_PAUSE_MS * 2)
    assert len(applied) == 4  # and nothing more after the pause


def test_a_value_past_32_bits_round_trips(qtbot, bound):
    session, panel, applied = bound
    high = field(panel, "max_tokens")
    type_over(qtbot, high, str(BIG))
    qtbot.keyClick(high, Qt.Key.Key_Return)
    assert session.params.max_tokens == BIG and high.text() == str(BIG)
    type_over(qtbot, high, str(TOP))
    qtbot.keyClick(high, Qt.Key.Key_Return)
    assert session.params.max_tokens == TOP
    qtbot.keyClick(high, Qt.Key.Key_Up)  # the top of the core's range: a step stays on it
    assert high.text() == str(TOP) and session.params.max_tokens == TOP

    # one past the core's range: explained, nothing applied, the value in force kept
    type_over(qtbot, high, str(TOP + 1))
    qtbot.keyClick(high, Qt.Key.Key_Return)
    assert session.params.max_tokens == TOP and panel.invalid
    assert "2^64" in panel.form.findChild(QLabel, "error_max_tokens").text()

    # lmx2-v1's range is the core's too: 2^32 in, 2^32 + 1 out
    choose_rule(panel, "lmx2-v1")
    lo, hi = INT_RANGES_BY_RULE["lmx2-v1"]["max_tokens"]
    high = field(panel, "max_tokens")
    type_over(qtbot, high, str(hi))
    qtbot.keyClick(high, Qt.Key.Key_Return)
    assert session.params.max_tokens == hi == 2**32
    type_over(qtbot, high, str(hi + 1))
    qtbot.keyClick(high, Qt.Key.Key_Return)
    assert session.params.max_tokens == hi and "2^32" in panel.form.findChild(QLabel, "error_max_tokens").text()


def test_big_values_survive_settings_and_a_workspace(qtbot, tmp_path):
    tttd = ChunkerParams(max_tokens=TOP, window_words=BIG)
    lmx2 = Lmx2Params(max_tokens=2**32, horizon=2**32)
    settings = AppSettings.memory()
    settings.set_params(lmx2, {"lmx2-v1": lmx2, "tttd-v1": tttd})
    by_rule, rule = settings.saved_params()
    assert by_rule == {"lmx2-v1": lmx2, "tttd-v1": tttd} and rule == "lmx2-v1"

    session = Session()
    session.set_all_params(by_rule, rule)
    panel = ParamsPanel()
    qtbot.addWidget(panel)
    panel.bind(session)
    assert field(panel, "horizon").text() == str(2**32)
    choose_rule(panel, "tttd-v1")
    assert field(panel, "max_tokens").text() == str(TOP) and field(panel, "window_words").text() == str(BIG)

    path = tmp_path / "big.steadlith"
    save_workspace(Workspace({"a": DocumentRef.pasted("one two", "a.txt"), "b": None}, session.params,
                             params_by_rule=session.params_by_rule), path)
    ws = load_workspace(path)
    assert ws.params == tttd and ws.params_by_rule == {"tttd-v1": tttd, "lmx2-v1": lmx2}


def test_invalid_saved_parameters_are_refused_whole():
    settings = AppSettings.memory()
    settings.set_params(ChunkerParams(min_tokens=40), {"lmx2-v1": Lmx2Params(horizon=300)})
    by_rule = json.loads(settings.store["params/by_rule"])
    by_rule["lmx2-v1"]["horizon"] = 2**33  # past lmx2-v1's range
    settings.store["params/by_rule"] = json.dumps(by_rule)
    assert settings.saved_params() is None and settings.params() is None  # not the valid half either
    assert "horizon" in settings.params_problem and "2^32" in settings.params_problem


def test_snap_window_follows_snapping(qtbot, bound):
    session, panel, applied = bound
    window = field(panel, "snap_window_words")
    assert not window.isEnabled()
    mode = panel.form.findChild(QComboBox, "snap_mode")
    mode.setCurrentText("paragraph-sentence/1")
    assert window.isEnabled() and session.params.snap_window_words == 8


def test_the_command_line_takes_a_value_past_32_bits_and_refuses_one_past_the_core(tmp_path):
    """`steadlith-gui A B --set max_tokens=5000000000` runs (it crashed with an
    OverflowError in a 32-bit spin box); one past the core's range is one line, exit 2."""
    from test_cli_export import read_report, run

    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("One two three. Four five six.\n\nSeven eight nine.\n", encoding="utf-8")
    b.write_text("One two three. Four five six seven.\n\nSeven eight nine.\n", encoding="utf-8")
    out = tmp_path / "r.html"
    r = run([str(a), str(b), "--set", f"max_tokens={BIG}", "--export-report", str(out)])
    assert r.returncode == 0, r.stderr
    assert ChunkerParams(max_tokens=BIG).params_hash in "".join(read_report(out).data)
    r = run([str(a), str(b), "--set", "boundary_rule=lmx2-v1", "--set", f"horizon={2**32 + 1}",
             "--export-report", str(out)])
    assert r.returncode == 2 and "horizon" in r.stderr and len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("rule", ["tttd-v1", "lmx2-v1"])
def test_every_integer_field_across_the_core_range(qtbot, rule):
    """Hypothesis over every integer field of a rule and values from below its range to
    past 2^64: whatever the user enters is applied exactly when the core accepts it with
    the other fields in force, and otherwise explained under a field with nothing applied
    (never clamped, never an exception)."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from steadlith_core import ParameterError

    session = Session()
    panel = ParamsPanel()
    qtbot.addWidget(panel)
    panel.bind(session)
    session.set_rule(rule)
    table = INT_RANGES_BY_RULE[rule]
    values = st.one_of(st.integers(-2, 2**65), st.sampled_from([2**31 - 1, 2**31, 2**32, 2**32 + 1, 2**63,
                                                                 2**64 - 1, 2**64]))

    @settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(name=st.sampled_from(sorted(table)), value=values)
    def check(name, value):
        before = session.params
        w = field(panel, name)
        w.setText(w.format(value) if value >= 0 else str(value) if not w.hex else f"-{-value:#x}")
        w.commit_now()
        try:
            expected = before.with_changes(**{name: value})
        except ParameterError:
            assert session.params == before and panel.invalid
            assert any(label.isVisibleTo(panel) and label.text() for label in panel.form.errors.values())
        else:
            assert session.params == expected and not panel.invalid
            assert w.text() == w.format(value)  # the value in force, not a clamped one
        session.set_params(before)  # back to a known state for the next example

    check()


def test_the_window_says_when_saved_parameters_are_refused(qtbot):
    from gui_helpers import make_window

    settings = AppSettings.memory()
    settings.set_params(Lmx2Params(horizon=300), {"tttd-v1": ChunkerParams(min_tokens=40)})
    settings.store["params/last"] = settings.store["params/last"].replace("300", str(2**40))
    w = make_window(qtbot, settings=settings)
    w.restore_settings()
    assert w.session.params_by_rule == {"tttd-v1": ChunkerParams(), "lmx2-v1": Lmx2Params()}  # none taken
    assert "saved parameters were not used" in w.message_bar.text() and "horizon" in w.message_bar.text()

    settings.set_params(Lmx2Params(horizon=300), {"tttd-v1": ChunkerParams(max_tokens=TOP)})
    w.restore_settings()  # valid: both rules taken, the saved shown rule shown
    assert w.session.rule == "lmx2-v1" and w.session.params == Lmx2Params(horizon=300)
    assert w.session.params_for("tttd-v1").max_tokens == TOP and w.params_panel.rule == "lmx2-v1"


def test_a_workspace_keeps_both_rules_through_the_window(qtbot, tmp_path):
    """Saved from one window with lmx2-v1 shown and a tttd-v1 value past 2^62, opened in
    another: both rules' parameters, the shown rule and the analysis come back whole."""
    import json as _json

    from gui_helpers import load_texts, make_window

    first = make_window(qtbot)
    load_texts(qtbot, first, "One two three. Four five.\n\nSix seven.\n", "One two three. Four.\n\nSix seven.\n")
    tttd, lmx2 = ChunkerParams(max_tokens=2**62 + 5), Lmx2Params(min_tokens=32, max_tokens=200)
    with qtbot.waitSignal(first.analysis_ready, timeout=20_000):
        first.session.set_params(tttd, show=True)
    with qtbot.waitSignal(first.analysis_ready, timeout=20_000):
        first.session.set_params(lmx2, show=True)
    path = tmp_path / "rules.steadlith"
    with qtbot.waitSignal(first.workspace_saved, timeout=10_000):
        first.workspaces.save(path)
    data = _json.loads(path.read_text(encoding="utf-8"))
    assert data["params"]["boundary_rule"] == "lmx2-v1" and data["params_by_rule"]["tttd-v1"]["max_tokens"] == 2**62 + 5

    second = make_window(qtbot)
    with qtbot.waitSignals([second.workspace_opened, second.analysis_ready], timeout=20_000):
        second.workspaces.open(path)
    assert second.session.rule == "lmx2-v1" and second.session.params == lmx2 and second.session.result.params == lmx2
    assert second.session.params_for("tttd-v1") == tttd
    choose_rule(second.params_panel, "tttd-v1")
    assert field(second.params_panel, "max_tokens").text() == str(2**62 + 5)
