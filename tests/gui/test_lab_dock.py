"""The locality lab dock: a run on document A measures every rule at its current
parameters off the GUI thread, shows the core's figures, can be cancelled, says when its
result is stale, and opens a worst edit in the panes."""

import threading

import numpy as np
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtGui import QColor
from steadlith_core import load_text
from steadlith_core.lab import FIXED, LabError, run_lab

from gui_helpers import GOLDEN, golden_params, load_texts
from steadlith_gui.model.job_state import CANCELLED, DONE, RUNNING
from steadlith_gui.model.lab_state import position
from steadlith_gui.widgets.palette import DARK, LIGHT
from test_diagnostics import hover

EDITS, SEED = 60, 3


def lab_text():
    return load_text(GOLDEN / "long.txt")


def open_lab(window):
    """View → Locality lab, as the user opens it."""
    window.lab_dock.toggleViewAction().trigger()


def test_the_lab_opens_from_the_view_menu_as_a_tab_in_front_of_the_diagnostics(qtbot, window):
    assert not window.lab_dock.isVisible()  # hidden until asked for: it shows nothing before a run
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert window.lab_dock.toggleViewAction() in view_menu.actions()
    assert window.lab_dock.toggleViewAction().text() == "Loc&ality lab"
    open_lab(window)
    qtbot.waitUntil(lambda: not window.lab_view.visibleRegion().isEmpty())  # its tab is in front
    assert window.tabifiedDockWidgets(window.lab_dock) == [window.diagnostics_dock]
    assert window.diagnostics.visibleRegion().isEmpty()


def run_and_wait(qtbot, window, edits=EDITS, seed=SEED):
    view = window.lab_view
    view.edits.setValue(edits)
    view.seed.setValue(seed)
    with qtbot.waitSignal(window.lab.job.finished, timeout=60_000):
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    return window.lab.state.result


def cell(table, row_label, column):
    rows = [table.verticalHeaderItem(r).text() for r in range(table.rowCount())]
    cols = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    return table.item(rows.index(row_label), cols.index(column)).text()


def test_a_run_shows_the_figures_of_run_lab_on_document_a(qtbot, window):
    text = lab_text()
    load_texts(qtbot, window, text, text[: len(text) // 2], name_a="long.txt")
    open_lab(window)
    result = run_and_wait(qtbot, window)
    rules = {"tttd-v1": window.session.params, "lmx2-v1": window.session.params_for("lmx2-v1"), FIXED: None}
    expected = run_lab(text, rules, edits=EDITS, seed=SEED)
    assert list(result.rules) == ["tttd-v1", "lmx2-v1", FIXED]
    summary = window.lab_view.summary
    for rule, s in expected.rules.items():
        assert cell(summary, "margin", rule) == (f"{s.margin:,}" if s.margin is not None else "none")
        for k in ("p50", "p95", "p99", "max"):
            assert cell(summary, f"re-embed {k}", rule) == f"{int(s.tokens[k]):,}"
            assert cell(summary, f"reach {k}", rule) == f"{int(s.reach[k]):,}"
        mean = s.tokens["mean"]
        assert cell(summary, "re-embed mean", rule) == (f"{int(mean):,}" if mean.is_integer() else f"{mean:,.1f}")
        assert cell(summary, "past the margin", rule) == \
            ("–" if s.past_margin_share is None else f"{s.past_margin_share * 100:.1f} %")
    # the charts count every edit once per rule, in the bins of the core's figures
    for metric, attr in (("tokens", "tokens_to_embed"), ("reach", "reach")):
        chart = window.lab_view.charts[metric]
        for rule, outcomes in expected.outcomes.items():
            counts = chart.data.counts[rule]
            assert counts.sum() == EDITS
            values = [getattr(o, attr) for o in outcomes]
            assert list(counts) == list(np.histogram(values, bins=chart.data.edges)[0])
    # the margin is a line on the reach chart, where the core says
    reach = window.lab_view.charts["reach"]
    assert reach.margin_lines["tttd-v1"].value() == float(position(expected.rules["tttd-v1"].margin))
    assert FIXED not in reach.margin_lines
    view = window.lab_view
    assert view.progress.value() == view.progress.maximum() == EDITS
    assert view.status.text().startswith(f"{EDITS} edits of long.txt (seed {SEED}")


def test_hovering_a_bin_tells_each_rules_count(qtbot, window):
    text = lab_text()
    load_texts(qtbot, window, text, text)
    open_lab(window)
    run_and_wait(qtbot, window)
    chart = window.lab_view.charts["reach"]
    d = chart.data
    i = int(np.argmax(d.counts["tttd-v1"]))
    x = float((position(d.edges[i]) + position(d.edges[i + 1])) / 2)
    lo, hi = int(d.edges[i]), int(d.edges[i + 1]) - 1
    span = f"{lo:,}" if lo == hi else f"{lo:,}–{hi:,}"
    lines = [f"{rule}: {int(c[i]):,} edit{'s' if c[i] != 1 else ''}" for rule, c in d.counts.items()]
    hover(qtbot, chart, x, 0.5, f"{span} tokens\n" + "\n".join(lines))


def test_cancel_stops_the_run_and_leaves_no_result(qtbot, window):
    text = lab_text()
    load_texts(qtbot, window, text, text)
    view = window.lab_view
    view.edits.setValue(100_000)  # minutes of work: it must stop long before
    seen = []
    window.lab.job.progressed.connect(lambda done, total: seen.append(done))
    with qtbot.waitSignal(window.lab.job.progressed, timeout=30_000):
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert window.lab.state.phase == RUNNING and view.cancel_button.isEnabled()
    with qtbot.waitSignal(window.lab.job.cancelled, timeout=30_000):
        qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
    assert window.lab.job.shutdown(30_000)  # the run has ended: its last progress is queued by now
    QCoreApplication.processEvents()
    stopped_at = list(seen)
    QCoreApplication.processEvents()
    assert seen == stopped_at  # no progress after the cancel
    assert stopped_at[-1] < 100_000
    state = window.lab.state
    assert state.phase == CANCELLED and state.result is None
    assert view.status.text() == "Cancelled: that run left no result."
    assert view.progress.format() == "cancelled" and not view.cancel_button.isEnabled()
    assert view.summary.rowCount() == 0 and all(c.data is None for c in view.charts.values())


def test_a_new_run_another_a_or_other_parameters_make_the_result_stale(qtbot, window):
    text = lab_text()
    load_texts(qtbot, window, text, text)
    run_and_wait(qtbot, window)
    view, state = window.lab_view, window.lab.state
    assert state.stale is None and "Stale" not in view.status.text()

    # a second run: while it goes, the first result is said to be the earlier one
    gate = threading.Event()

    def held(text, rules, *, edits, seed, progress):
        progress(0, edits)
        gate.wait(10)
        return run_lab(text, rules, edits=edits, seed=seed, progress=progress)

    window.lab.runner = held
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert "Stale: a newer run was started" in view.status.text()
    with qtbot.waitSignal(window.lab.job.finished, timeout=60_000):
        gate.set()
    assert state.phase == DONE and state.stale is None and "Stale" not in view.status.text()

    load_texts(qtbot, window, text[: len(text) // 2], None)
    assert "Stale: document A changed since this run" in view.status.text()
    assert view.summary.rowCount() > 0  # the earlier figures stay, marked as such
    load_texts(qtbot, window, text, None)  # the measured text again
    assert "Stale" not in view.status.text()

    smaller = golden_params("small")
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        window.session.set_params(smaller, show=True)
    assert "Stale: the parameters changed since this run" in view.status.text()


def test_clicking_a_worst_edit_opens_a_and_the_edited_a(qtbot, window):
    text = lab_text()
    load_texts(qtbot, window, text, text[:2000], name_a="long.txt")
    open_lab(window)
    result = run_and_wait(qtbot, window)
    view = window.lab_view
    view.tables.setCurrentWidget(view.worst)
    table = view.worst
    tttd_rows = [r for r in range(table.rowCount()) if table.item(r, 0).text() == "tttd-v1"]
    row = tttd_rows[1]  # the second worst of tttd-v1
    outcome = result.rules["tttd-v1"].worst[1]
    assert table.item(row, 3).text().startswith(outcome.edit.describe())
    rect = table.visualItemRect(table.item(row, 3))
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    edited = outcome.edit.apply(text)
    assert edited != text
    assert window.session.current_text("A") == text
    assert window.session.current_text("B") == edited
    name_b = window.session.identity("B")[0]
    assert name_b == f"long.txt + tttd-v1 worst #2: {outcome.edit.describe()}"
    assert window.session.rule == "tttd-v1"
    assert window.lab.state.stale is None  # A is still the text the lab measured


def test_the_charts_follow_the_theme(qtbot, window):
    text = lab_text()
    load_texts(qtbot, window, text, text)
    run_and_wait(qtbot, window, edits=20)
    curve = window.lab_view.charts["tokens"].curves["lmx2-v1"]
    assert curve.opts["pen"].color() == QColor(LIGHT.kind["backup"])
    assert curve.opts["pen"].style() == Qt.PenStyle.DashLine  # not colour alone
    window.theme_ctl.set_choice("dark")
    assert curve.opts["pen"].color() == QColor(DARK.kind["backup"])
    chart = window.lab_view.charts["tokens"]
    assert chart.grab().toImage().pixelColor(2, 2) == QColor(DARK.window)


def test_a_lab_error_is_one_line_in_the_dock(qtbot, window):
    text = lab_text()
    load_texts(qtbot, window, text, text)

    def refuses(text, rules, *, edits, seed, progress):
        raise LabError("edits must be an integer >= 1, got 0")

    window.lab.runner = refuses
    with qtbot.waitSignal(window.lab.job.failed, timeout=10_000):
        qtbot.mouseClick(window.lab_view.run_button, Qt.MouseButton.LeftButton)
    assert window.lab_view.status.text() == "The lab could not run: edits must be an integer >= 1, got 0"


def test_run_without_document_a_says_what_to_do(qtbot, window):
    qtbot.mouseClick(window.lab_view.run_button, Qt.MouseButton.LeftButton)
    assert window.lab_view.status.text() == "The lab could not run: open a document as A first"
    assert not window.lab.job.running


def test_the_report_carries_the_lab_only_while_the_run_describes_a(qtbot, window, tmp_path):
    text = lab_text()
    load_texts(qtbot, window, text, text[: len(text) // 2], name_a="long.txt")
    open_lab(window)
    run_and_wait(qtbot, window)

    def report(name):
        target = tmp_path / name
        with qtbot.waitSignal(window.exported, timeout=30_000):
            window.exports.export_report(target)
        return target.read_text(encoding="utf-8")

    html = report("current.html")
    assert "<h2" in html and ">Locality lab</h2>" in html
    assert f"{EDITS} edits" in html or str(EDITS) in html

    load_texts(qtbot, window, text[: len(text) // 3], None)  # A changed: the run no longer describes it
    assert "Locality lab</h2>" not in report("stale.html")
