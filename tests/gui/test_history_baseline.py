"""The History dock's bars: spikes judged in each rule's own series, and the fixed-size
baseline shown on request so its bars do not flatten the rules'."""

import pytest
import pygit2
from git_helpers import commit, prose
from gui_helpers import color_near, make_window
from PySide6.QtGui import QColor

from steadlith_core.history.audit import FileCost
from steadlith_core.history.repository import CommitInfo, resolve_revision
from steadlith_gui.model.history_state import FIXED, HistoryState, HistoryTarget
from steadlith_gui.controllers.settings import AppSettings
from steadlith_gui.widgets.history_view import COLUMNS, SPIKE_ROLE, HistoryModel


def state_with(costs_by_column: dict[str, list[int]]) -> HistoryState:
    """A history of len(series) commits whose costs are the given tokens, newest first."""
    n = len(next(iter(costs_by_column.values())))
    state = HistoryState()
    commits = [CommitInfo(f"{r:040x}", f"{r:07x}", f"commit {r}", "Tester", 1_700_000_000 - r, None, "doc.md")
               for r in range(n)]
    state.set_history(HistoryTarget("/repo", "doc.md"), commits)
    state.costs = {c.commit: {column: FileCost(c.commit, "doc.md", column, series[r], 1, 0.5, 0, 0, ())
                              for column, series in costs_by_column.items()}
                   for r, c in enumerate(commits)}
    return state


def test_a_spike_of_lmx2_alone_is_marked_in_its_column(qtbot):
    # row 2 costs lmx2-v1 twenty times its usual; tttd-v1 handles it like any other commit
    state = state_with({"tttd-v1": [100, 110, 105, 95, 100], "lmx2-v1": [100, 90, 2000, 110, 100],
                        FIXED: [900, 950, 900, 880, 910]})
    model = HistoryModel(state)
    model.refresh()

    def spike(row, column):
        return model.index(row, COLUMNS.index(column)).data(SPIKE_ROLE)

    assert spike(2, "lmx2-v1")
    assert not spike(2, "tttd-v1")
    assert not any(spike(r, c) for r in (0, 1, 3, 4) for c in ("tttd-v1", "lmx2-v1", FIXED))


def test_the_baseline_sets_the_scale_only_when_shown():
    state = state_with({"tttd-v1": [100, 400], "lmx2-v1": [120, 300], FIXED: [4000, 3000]})
    assert not state.show_baseline  # the rules are what the dock is read for
    assert state.scale == 400
    state.show_baseline = True
    assert state.scale == 4000


@pytest.fixture
def history(tmp_path):
    """doc.md added short, then grown, then edited at its start: the last edit is one
    chunk for the rules and the whole file for the fixed-size baseline."""
    repo = pygit2.init_repository(str(tmp_path / "repo"))
    v1 = prose(10, seed=1)
    v2 = v1 + "\n" + prose(20, seed=2)
    v3 = "A preface. " + v2
    ids = [commit(repo, m, {"doc.md": v}, 1_700_000_000 + n * 60)
           for n, (m, v) in enumerate((("Add the doc", v1), ("Grow it", v2), ("Add a preface", v3)))]
    return tmp_path / "repo", repo, ids


def open_with_history(qtbot, window, root):
    a = resolve_revision(str(root), "doc.md", "HEAD~1")
    b = resolve_revision(str(root), "doc.md", "HEAD")
    with qtbot.waitSignal(window.history_ctl.costs_ready, timeout=60_000):
        window.documents_ctl.load_files(a, b)


def test_show_baseline_toggles_the_column_rescales_the_bars_and_is_remembered(qtbot, history):
    root, repo, ids = history
    settings = AppSettings.memory()
    window = make_window(qtbot, settings=settings)
    open_with_history(qtbot, window, root)
    view = window.history
    fixed = COLUMNS.index(FIXED)
    assert view.table.isColumnHidden(fixed) and not view.baseline_box.isChecked()

    view.table.clearSelection()
    view.table.setCurrentIndex(view.model.index(-1, -1))
    state = view.state
    # the costliest commit under a rule (the file's first version, or the rewrite)
    row, rule = max(((r, c) for r in range(len(ids)) for c in ("tttd-v1", "lmx2-v1")),
                    key=lambda rc: state.tokens(*rc))
    bar_colours = (QColor(window.theme_ctl.theme.status["shifted"]), QColor(window.theme_ctl.theme.bar))

    def bar_reaches(share):
        qtbot.wait(20)
        image = view.table.viewport().grab().toImage()
        cell = view.row_rect(row, rule)
        x, y = cell.left() + 3 + (cell.width() - 6) * share, cell.top() + 5  # above the number's glyphs
        return any(color_near(image, x, y, colour, radius=1) for colour in bar_colours)

    # without the baseline the costliest rule's bar spans its cell
    assert bar_reaches(0.97)
    view.baseline_box.click()
    assert not view.table.isColumnHidden(fixed)
    assert settings.history_baseline()
    # with it, the baseline's longer bars set the scale and the rule's bar shrinks
    assert state.scale > state.tokens(row, rule)
    assert not bar_reaches(0.97)

    again = make_window(qtbot, settings=settings)
    assert again.history.baseline_box.isChecked() and not again.history.table.isColumnHidden(fixed)
