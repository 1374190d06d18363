"""Every way of opening a pair lands on its first change, as Meld does: the change centred
in B and the same words of A level with it (files as the command line opens them, the
revisions dialog, a History click, a workspace, a lab worst edit); and F7 / Shift+F7 step
from what is on screen, not from a caret scrolled out of sight."""

import html
import re

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontMetricsF
from steadlith_core import ChunkerParams, load_text
from steadlith_core.history.repository import resolve_revision

from git_helpers import MESSAGES
from gui_helpers import GOLDEN, load_files, load_texts, make_window, set_params
from steadlith_gui.model.viewmodel import change_target, first_change, landing
from steadlith_gui.widgets.pane_geometry import ABOVE, BELOW


def assert_landed(window) -> None:
    """B's first change centred (the edit, or the shift if it comes first), A level with it,
    and the chunk a first look is about selected."""
    comparison, view = window.session.comparison, window.pane_b.view()
    j, target, _region = landing(comparison, view, first_change(comparison))
    first_changed = next(k for k, s in enumerate(comparison.status_b) if s != "reused")
    assert target <= change_target(view, first_changed), "a change above the one landed on"
    pane_b, pane_a = window.pane_b, window.pane_a
    middle, line = pane_b.viewport().height() / 2, pane_b.line_height()
    y_b = pane_b.y_locator()(target)[0]
    assert y_b not in (ABOVE, BELOW), "B's first change is not on screen"
    bar = pane_b.verticalScrollBar()
    if bar.minimum() < bar.value() < bar.maximum():
        assert abs(y_b - middle) <= line, f"B's change at y={y_b}, not centred ({middle})"
    mapped = window.session.result.word_map.map("B", target)
    y_a = pane_a.y_locator()(mapped)[0]
    assert y_a not in (ABOVE, BELOW), "A does not show the place of B's first change"
    bar_a = pane_a.verticalScrollBar()
    if bar_a.minimum() < bar_a.value() < bar_a.maximum():
        assert abs(y_a - y_b) <= line, f"A's place at y={y_a}, B's change at y={y_b}"
    assert window.navigation.selection == ("B", j)


def write_pair(tmp_path, text_b_edit_at: float = 0.6):
    """A long real text and a one-word edit well below its first screen."""
    text = load_text(GOLDEN / "long.txt")
    at = text.index(" ", int(len(text) * text_b_edit_at))
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text, encoding="utf-8")
    b.write_text(text[:at] + " indeed" + text[at:], encoding="utf-8")
    return a, b


def wait_landed(qtbot, window) -> None:
    """assert_landed once it holds: the landing follows the result when the panes have laid
    it out, which on a busy machine can be a moment after analysis_ready."""
    qtbot.waitUntil(lambda: assert_landed(window), timeout=10_000)


def test_files_opened_as_the_command_line_opens_them_land_on_the_change(qtbot, window, tmp_path):
    a, b = write_pair(tmp_path)
    load_files(qtbot, window, str(a), str(b))
    wait_landed(qtbot, window)
    assert window.pane_b.verticalScrollBar().value() > 0


@pytest.mark.parametrize("width", [900, 1900])
def test_a_landing_holds_while_the_layout_settles(qtbot, window, tmp_path, width):
    """Docks that open or re-arrange after a result has landed (a git file opens History)
    change the panes' width and re-wrap their text: the change stays centred."""
    a, b = write_pair(tmp_path)
    load_files(qtbot, window, str(a), str(b))
    wait_landed(qtbot, window)
    before = window.pane_b.viewport().width()
    window.resize(width, 900)
    qtbot.waitUntil(lambda: window.pane_b.viewport().width() != before, timeout=5_000)
    wait_landed(qtbot, window)


def test_the_user_scrolling_away_ends_the_hold(qtbot, window, tmp_path):
    a, b = write_pair(tmp_path)
    load_files(qtbot, window, str(a), str(b))
    wait_landed(qtbot, window)
    pane = window.pane_b
    qtbot.keyClick(pane, Qt.Key.Key_Home, Qt.KeyboardModifier.ControlModifier)
    assert pane.verticalScrollBar().value() == 0
    before = pane.viewport().width()
    window.resize(900, 900)
    qtbot.waitUntil(lambda: pane.viewport().width() != before, timeout=5_000)
    qtbot.wait(100)
    assert pane.verticalScrollBar().value() == 0, "a layout change pulled the user back to the landing"


def test_a_workspace_lands_on_the_change(qtbot, window, tmp_path):
    a, b = write_pair(tmp_path, 0.45)
    load_files(qtbot, window, str(a), str(b))
    with qtbot.waitSignal(window.workspace_saved, timeout=20_000):
        window.workspaces.save(str(tmp_path / "pair.steadlith"))
    other = make_window(qtbot)
    with qtbot.waitSignal(other.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        other.workspaces.open(str(tmp_path / "pair.steadlith"))
    wait_landed(qtbot, other)


def test_the_revisions_dialog_lands_on_the_change(qtbot, window, history):
    root, repo, ids, texts = history

    def choose(dialog):
        dialog.list_b.setCurrentRow(1)  # "Revise paragraph fifty": far down the file
        return True

    window.revisions.ask = choose
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        window.revisions.open(str(root / "doc.md"))
    assert window.session.identity("B")[0].endswith(MESSAGES[-2])
    wait_landed(qtbot, window)
    assert window.pane_b.verticalScrollBar().value() > 0


def test_a_history_click_lands_on_the_change(qtbot, window, history):
    root, repo, ids, texts = history
    a = resolve_revision(str(root), "doc.md", "HEAD~1")
    b = resolve_revision(str(root), "doc.md", "HEAD")
    with qtbot.waitSignal(window.history_ctl.costs_ready, timeout=60_000):
        window.documents_ctl.load_files(a, b)
    for pane in window.panes.values():
        pane.verticalScrollBar().setValue(0)
    view = window.history
    row = view.state.row_of(ids[2])  # "Revise paragraph forty"
    rect = view.row_rect(row, "Subject")
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.b is not None and r.doc_b.root.git_ref.commit == ids[2]):
        qtbot.mouseClick(view.table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    wait_landed(qtbot, window)
    assert window.pane_b.verticalScrollBar().value() > 0


def first_line_width(column) -> float:
    """The width the header's first line (side badge, name, marks) takes."""
    bold = QFont(column.header.font())
    bold.setBold(True)
    text = column.header.text().split("<br>")[0]
    plain = re.sub(r"<[^>]+>", "", text).replace("&nbsp;", " ")
    return QFontMetricsF(bold).horizontalAdvance(html.unescape(plain))


def test_a_lab_worst_edit_lands_on_the_change_and_its_header_fits(qtbot, window):
    from test_lab_dock import open_lab, run_and_wait

    text = load_text(GOLDEN / "long.txt")
    load_texts(qtbot, window, text, text[:2000], name_a="long.txt")
    set_params(qtbot, window, ChunkerParams(min_tokens=40, max_tokens=160))
    open_lab(window)
    result = run_and_wait(qtbot, window, edits=30)
    view = window.lab_view
    view.tables.setCurrentWidget(view.worst)
    table = view.worst
    rows = [r for r in range(table.rowCount()) if table.item(r, 0).text() == "tttd-v1"]
    rect = table.visualItemRect(table.item(rows[0], 3))
    window.pane_a.verticalScrollBar().setValue(0)
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000,
                          check_params_cb=lambda r: r.doc_b is not None and "worst" in r.doc_b.root.name):
        qtbot.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
    wait_landed(qtbot, window)
    name = window.session.identity("B")[0]
    assert name.endswith(result.rules["tttd-v1"].worst[0].edit.describe())
    header = window.columns["B"].header
    assert name.replace(" ", "\xa0") in header.toolTip()  # plain_tooltip keeps spaces unbroken
    assert first_line_width(window.columns["B"]) <= header.width(), "the header's name runs off its edge"
    # narrow: the name is elided in its middle, its start and its end (the edit) kept
    window.resize(900, window.height())
    qtbot.waitUntil(lambda: "…" in header.text())
    assert first_line_width(window.columns["B"]) <= header.width()
    shown = html.unescape(header.text().split("\u2068")[1].split("\u2069")[0])
    head, tail = shown.split("…")
    assert name.startswith(head) and name.endswith(tail) and head and tail


@pytest.mark.parametrize("direction", [1, -1])
def test_f7_steps_from_the_middle_of_the_screen_not_from_a_hidden_caret(qtbot, window, direction):
    text = load_text(GOLDEN / "long.txt")
    words = text.split(" ")
    edited = " ".join(w + " very" if k % 400 == 200 else w for k, w in enumerate(words))  # a change every 400 words
    load_texts(qtbot, window, text, edited)
    pane = window.pane_b
    view = pane.view()
    pane.setFocus()
    window.navigation.active_side = "B"
    cursor = pane.textCursor()
    cursor.setPosition(0)
    pane.setTextCursor(cursor)  # the caret at the top, then the user scrolls away from it
    bar = pane.verticalScrollBar()
    bar.setValue(bar.maximum() // 2)
    lo, hi = pane.visible_position_range()
    assert not lo <= 0 <= hi
    middle = pane.position_at_y(pane.viewport().height() / 2)
    changed = [k for k in range(view.count) if window.session.comparison.status_b[k] != "reused"]
    targets = {k: change_target(view, k) for k in changed}
    if direction > 0:
        expected = min((k for k in changed if targets[k] > middle), key=lambda k: targets[k])
    else:
        expected = max((k for k in changed if targets[k] < middle), key=lambda k: targets[k])
    with qtbot.waitSignal(window.chunk_selected, timeout=5000):
        (window.act["next_changed"] if direction > 0 else window.act["prev_changed"]).trigger()
    assert window.navigation.selection == ("B", expected)
    y = pane.y_locator()(targets[expected])[0]
    assert abs(y - pane.viewport().height() / 2) <= pane.line_height()
