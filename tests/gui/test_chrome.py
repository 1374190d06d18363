"""The window's chrome parts alone, over a session and the few widgets each draws (no
window): the title follows the session's workspace and edits, the status line the
result and the analysis being busy, the churn columns the rule the panes show."""

from PySide6.QtWidgets import QLabel, QStatusBar

from steadlith_gui.controllers.chrome import ChurnColumns, StatusLine, WindowTitle
from steadlith_gui.model.session import Session
from steadlith_gui.widgets.churn import ChurnPanel
from steadlith_gui.widgets.palette import LIGHT


def test_the_title_names_the_workspace_the_session_opened():
    titles = []
    session = Session(None)
    title = WindowTitle(session, lambda text, modified: titles.append((text, modified)))
    session.set_workspace_path("/work/review[*].steadlith")
    # the name isolated from the title's direction, its "[*]" kept literal
    assert titles[-1] == ("Steadlith Inspector — \u2068review[[*]].steadlith\u2069[*]", False)
    assert title.session is session


def test_the_status_line_says_what_to_do_without_a_result_and_when_busy(qtbot):
    bar, shown, busy = QStatusBar(), QLabel("old"), QLabel("")
    qtbot.addWidget(bar)
    line = StatusLine(bar, shown, busy, Session(None), lambda: LIGHT)
    line.update()
    assert shown.text() == "" and "Open two versions" in bar.currentMessage()
    line.set_busy(True)
    assert busy.text() == "● analysing…"
    line.set_busy(False)
    assert busy.text() == ""


def test_the_churn_columns_follow_the_rule_the_session_shows(qtbot):
    churn = ChurnPanel(LIGHT)
    qtbot.addWidget(churn)
    session = Session(None)
    ChurnColumns(churn, session)
    session.set_rule("lmx2-v1")
    assert churn.shown_rule == "lmx2-v1"
