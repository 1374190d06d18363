"""The report exported from the window carries every rule side by side (the core's
table), with each rule's verdict, when the churn panel compared both."""

from steadlith_core.bench.examples import phase_shift_answer


def test_the_windows_report_has_both_rules(qtbot, window, tmp_path):
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        window.act.examples["phase-shift"].trigger()
    out = tmp_path / "report.html"
    with qtbot.waitSignal(window.exported, timeout=20_000):
        window.exports.export_report(out)
    html = out.read_text(encoding="utf-8")
    assert 'id="rules"' in html and "Rules side by side" in html
    table = html[html.index('id="rules"'):html.index("</table>", html.index('id="rules"'))]
    answer = phase_shift_answer()
    for rule, c in answer.items():
        assert rule in table
        assert f"{c.summary.reused_chunks}" in table
