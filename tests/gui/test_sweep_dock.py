"""The Sweep dock: a sweep over the pair shown, its points where the core's figures put
them, the parameters under the mouse, a click applying them, Cancel, a bad grid."""

from __future__ import annotations

import threading

from gui_helpers import load_texts
import pyqtgraph as pg
from PySide6.QtCore import Qt
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.sweep.format import rule_colour
from steadlith_gui.model.sweep_state import SweepState, sweep_pair

GRID = "boundary_rule=tttd-v1,lmx2-v1\nmin_tokens=32,64\nmax_tokens=256,512"


def loaded(qtbot, window):
    versions = synthetic_history(3, 6000, seed=31).versions
    load_texts(qtbot, window, versions[0], versions[3])
    window.sweep_dock.show()
    window.sweep_view.set_grid_text(GRID)
    return versions[0], versions[3]


def run(qtbot, window):
    with qtbot.waitSignal(window.sweep_ctl.finished, timeout=60_000):
        window.sweep_view.run_button.click()


def test_the_points_are_the_sweeps_sets_and_the_front_is_drawn(qtbot, window):
    a, b = loaded(qtbot, window)
    run(qtbot, window)
    state = SweepState()
    state.grid_text = GRID
    expected = sweep_pair(state.plan_for_pair(a, b, window.session.params_by_rule)).rows
    spots = window.sweep_view.scatter.points()
    assert len(spots) == len(expected) == 8
    by_set = {int(s.data()): (s.pos().x(), s.pos().y()) for s in spots}
    assert by_set == {r.set: (r.mean_chunk_tokens, float(r.tokens_to_embed)) for r in expected}
    front = [r for r in expected if r.pareto]
    xs, ys = window.sweep_view.front_line.getData()
    assert list(xs) == sorted(r.mean_chunk_tokens for r in front)
    assert "on the Pareto front" in window.sweep_view.status.text()


def test_hovering_a_point_shows_its_parameters_and_clicking_applies_them(qtbot, window):
    loaded(qtbot, window)
    run(qtbot, window)
    view = window.sweep_view
    target = next(r for r in window.sweep_ctl.state.rows if r.boundary_rule == "lmx2-v1")
    assert window.session.rule == "tttd-v1"
    qtbot.waitUntil(lambda: view.plot.viewport().height() > 100, timeout=5000)
    # pyqtgraph drops a mouse move that follows the last one within 1/mouseRateLimit s
    apart_ms = int(1000 / max(1, pg.getConfigOption("mouseRateLimit"))) + 5

    def hovered() -> bool:  # the mouse comes from elsewhere, as a user's does, once the plot is laid out
        qtbot.mouseMove(view.plot.viewport(), view.plot.viewport().rect().topLeft())
        qtbot.wait(apart_ms)
        qtbot.mouseMove(view.plot.viewport(), view.scene_pos_of(target.set))
        return target.label in view.plot.plotItem.vb.toolTip()

    qtbot.waitUntil(hovered, timeout=20_000)
    pos = view.scene_pos_of(target.set)
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    applied = window.sweep_ctl.state.params_of(target.set)
    assert window.session.rule == "lmx2-v1" and window.session.params == applied
    assert window.panes["B"].chunking.params == applied


def test_cancel_stops_the_sweep_and_says_so(qtbot, window):
    loaded(qtbot, window)
    gate = threading.Event()
    real = window.sweep_ctl.job.start

    def held(fn):  # the first progress call waits until Cancel was pressed
        def slow(progress):
            def gated(done, total):
                gate.wait(10)
                progress(done, total)
            return fn(gated)
        return real(slow)

    window.sweep_ctl.job.start = held
    window.sweep_view.run_button.click()
    assert window.sweep_view.cancel_button.isEnabled()
    with qtbot.waitSignal(window.sweep_ctl.job.cancelled, timeout=20_000):
        window.sweep_view.cancel_button.click()
        gate.set()
    assert "cancelled" in window.sweep_view.status.text()
    assert window.sweep_view.run_button.isEnabled() and len(window.sweep_view.scatter.points()) == 0


def test_a_grid_with_nothing_runnable_says_why_and_runs_nothing(qtbot, window):
    loaded(qtbot, window)
    window.sweep_view.set_grid_text("min_tokens=abc\nhorizon=7")
    window.sweep_view.run_button.click()
    status = window.sweep_view.status.text()
    assert status.startswith("Nothing to run") and "'abc'" in status
    assert not window.sweep_ctl.job.running and window.sweep_view.run_button.isEnabled()


def commit_versions(root, name, versions):
    """A repository at `root` whose commits write `versions` of `name` in turn."""
    return commit_files(root, [{name: text} for text in versions])


def test_a_sweep_over_the_history_of_bs_file(qtbot, window, tmp_path):
    from gui_helpers import load_files
    from steadlith_core.sweep.git import repo_sources
    from steadlith_core.sweep.plan import SweepPlan
    from steadlith_core.sweep.run import SweepRun, in_process
    from steadlith_gui.model.sweep_state import HISTORY

    versions = synthetic_history(6, 5000, seed=41).versions
    commit_versions(tmp_path, "guide.md", versions)
    old = tmp_path / "old.md"
    old.write_text(versions[0], encoding="utf-8")
    load_files(qtbot, window, str(old), str(tmp_path / "guide.md"))
    window.sweep_dock.show()
    window.sweep_view.set_grid_text(GRID)
    window.sweep_view.set_source(HISTORY)
    run(qtbot, window)
    state = SweepState()
    state.grid_text = GRID
    plan = SweepPlan(repo_sources(str(tmp_path), ["/guide.md"]), state.sets_for(window.session.params_by_rule)[0])
    expected = SweepRun(plan).execute(in_process).rows()
    assert [r.units for r in expected] == [7] * 8  # the commit that added it, and six edits
    shown = {int(s.data()): (s.pos().x(), s.pos().y()) for s in window.sweep_view.scatter.points()}
    assert shown == {r.set: (r.mean_chunk_tokens, float(r.tokens_to_embed)) for r in expected}


def test_an_external_splitter_over_the_history_of_bs_file_counts_the_rules_commits(qtbot, window, tmp_path):
    from gui_helpers import load_files
    from steadlith_core.comparison.external import parse_chunker
    from steadlith_core.comparison.chunker_churn import compare_chunkers
    from steadlith_gui.model.sweep_state import HISTORY

    versions = synthetic_history(4, 4000, seed=43).versions
    commit_versions(tmp_path, "guide.md", versions)
    load_files(qtbot, window, str(tmp_path / "guide.md"), str(tmp_path / "guide.md"))
    window.sweep_dock.show()
    view = window.sweep_view
    view.external_actions["fixed-tokens"].trigger()
    view.set_grid_text("max_tokens=256\nchunk_size=200")
    view.set_source(HISTORY)
    run(qtbot, window)
    rule, external = window.sweep_ctl.state.rows
    splitter = parse_chunker("fixed-tokens:chunk_size=200")
    added = splitter.chunk(versions[0]).tokens  # the commit that added the file: every chunk to embed
    edits = [compare_chunkers(a, b, [splitter])[0].tokens_to_embed for a, b in zip(versions, versions[1:])]
    assert external.label == "fixed-tokens(chunk_size=200)" and external.units == rule.units == len(versions)
    assert external.tokens_to_embed == added + sum(edits)
    assert external.set in {int(s.data()) for s in view.scatter.points()}


def test_the_history_of_a_file_outside_any_repository_says_so(qtbot, window, tmp_path):
    from gui_helpers import load_files
    from steadlith_gui.model.sweep_state import HISTORY

    for name in ("a.md", "b.md"):
        (tmp_path / name).write_text("Some text. More text.\n", encoding="utf-8")
    load_files(qtbot, window, str(tmp_path / "a.md"), str(tmp_path / "b.md"))
    window.sweep_dock.show()
    window.sweep_view.set_source(HISTORY)
    with qtbot.waitSignal(window.sweep_ctl.job.failed, timeout=20_000):
        window.sweep_view.run_button.click()
    assert "not a git repository" in window.sweep_view.status.text()


def commit_files(root, steps):
    """A repository at `root` whose commits write each step's {name: text} in turn."""
    import pygit2
    from git_helpers import commit

    repo = pygit2.init_repository(str(root), initial_head="main")
    for n, files in enumerate(steps):
        commit(repo, f"v{n}", files, 1_700_000_000 + 60 * n)
    return repo


def test_a_sweep_over_a_folder_replays_its_text_files_histories_only(qtbot, window, tmp_path):
    from steadlith_core.sweep.git import repo_sources
    from steadlith_core.sweep.plan import SweepPlan
    from steadlith_core.sweep.run import SweepRun, in_process
    from steadlith_gui.model.sweep_state import FOLDER

    guide = synthetic_history(3, 4000, seed=51).versions
    notes = synthetic_history(3, 3000, seed=52).versions
    top = synthetic_history(3, 3000, seed=53).versions
    commit_files(tmp_path, [{"docs/guide.md": guide[0], "docs/notes.txt": notes[0], "top.md": top[0],
                             "docs/code.py": "x = 1\n"},
                            {"docs/guide.md": guide[1], "top.md": top[1], "docs/code.py": "x = 2\n"},
                            {"docs/notes.txt": notes[2], "top.md": top[2]}])
    window.sweep_dock.show()
    window.sweep_view.set_grid_text(GRID)
    window.sweep_view.set_source(FOLDER)
    assert window.sweep_view.folder_edit.isVisibleTo(window.sweep_view)
    window.sweep_view.set_folder(str(tmp_path / "docs"))
    run(qtbot, window)
    state = SweepState()
    state.grid_text = GRID
    sources = repo_sources(str(tmp_path), ["/docs/guide.md", "/docs/notes.txt"])
    expected = SweepRun(SweepPlan(sources, state.sets_for(window.session.params_by_rule)[0])).execute(in_process).rows()
    assert [r.units for r in expected] == [3] * 8  # both files added, then one edit each
    shown = {int(s.data()): (s.pos().x(), s.pos().y()) for s in window.sweep_view.scatter.points()}
    assert shown == {r.set: (r.mean_chunk_tokens, float(r.tokens_to_embed)) for r in expected}


def test_a_folder_sweep_without_a_folder_says_so(qtbot, window):
    from steadlith_gui.model.sweep_state import FOLDER

    window.sweep_dock.show()
    window.sweep_view.set_source(FOLDER)
    window.sweep_view.set_folder("")
    with qtbot.waitSignal(window.sweep_ctl.job.failed, timeout=20_000):
        window.sweep_view.run_button.click()
    assert "choose the folder" in window.sweep_view.status.text()


def external_run(qtbot, window, sizes="128,256"):
    """A sweep of the pair with the always-installed fixed-size splitter (and LangChain's
    when it is here) checked in the dock's External menu, sized by the grid."""
    a, b = loaded(qtbot, window)
    view = window.sweep_view
    chosen = [k for k in ("fixed-tokens", "langchain-recursive") if view.external_actions[k].isEnabled()]
    for key in chosen:
        view.external_actions[key].trigger()
    view.set_grid_text(GRID + f"\nchunk_size={sizes}")
    run(qtbot, window)
    return a, b, chosen


def test_external_splitters_are_more_points_with_their_own_marker_and_legend_entry(qtbot, window):
    a, b, chosen = external_run(qtbot, window)
    view = window.sweep_view
    assert list(view.external_actions) == list(window.churn.external_actions)[:len(view.external_actions)]
    assert view.external_button.text().startswith("External: ")
    state = SweepState()
    assert sorted(view.chunkers()) == sorted(chosen)
    state.grid_text, state.chunkers = GRID + "\nchunk_size=128,256", view.chunkers()
    expected = sweep_pair(state.plan_for_pair(a, b, window.session.params_by_rule)).rows
    externals = [r for r in expected if r.boundary_rule == "external"]
    assert len(externals) == 2 * len(chosen) and len(expected) == 8 + len(externals)
    spots = {int(s.data()): s for s in view.scatter.points()}
    assert {k: (s.pos().x(), s.pos().y()) for k, s in spots.items()} == {
        r.set: (r.mean_chunk_tokens, float(r.tokens_to_embed)) for r in expected}
    for r in externals:
        kind = r.label.partition("(")[0]
        assert spots[r.set].symbol() == "t1"  # no rule's shape
        assert spots[r.set].brush().color().name().lower() == rule_colour(kind).lower()
    rule_symbols = {spots[r.set].symbol() for r in expected if r.boundary_rule != "external"}
    assert rule_symbols == {"o", "s"}
    colours = {spots[r.set].brush().color().name() for r in externals}
    assert len(colours) == len(chosen)  # one colour per splitter, none a rule's
    assert not colours & {rule_colour("tttd-v1").lower(), rule_colour("lmx2-v1").lower()}
    legend = [label.text for _, label in view.legend.items]
    assert legend == ["Pareto front (ringed)", "lmx2-v1", "tttd-v1", *sorted(chosen)]


def test_an_external_point_shows_dashes_and_a_click_offers_it_to_the_panes(qtbot, window):
    external_run(qtbot, window, sizes="96")
    view, ctl = window.sweep_view, window.sweep_ctl
    target = next(r for r in ctl.state.rows if r.label.startswith("fixed-tokens"))
    tip = view._tip(0, 0, target.set)
    assert target.label in tip and "None" not in tip
    assert "locality violations –" in tip and "paragraph ends –, sentence ends –" in tip
    params_before = window.session.params
    qtbot.waitUntil(lambda: view.plot.viewport().height() > 100, timeout=5000)
    qtbot.mouseClick(view.plot.viewport(), Qt.MouseButton.LeftButton, pos=view.scene_pos_of(target.set))
    qtbot.waitUntil(view.show_external_button.isVisible, timeout=5000)
    assert window.session.params == params_before and window.session.external.shown is None
    assert "not parameters of a rule" in window.message_bar.text()
    assert view.show_external_button.text() == "Show fixed-tokens at 96 in the panes"

    def shown(result) -> bool:
        return result.b.boundary_rule == "external"

    with qtbot.waitSignal(window.analysis_ready, timeout=60_000, check_params_cb=shown) as blocker:
        view.show_external_button.click()
    assert window.session.external.shown == "fixed-tokens" and window.session.external.chunk_size == 96
    assert blocker.args[0].b.chunker == "fixed-tokens(chunk_size=96)" == target.label
    assert window.session.params == params_before and not view.show_external_button.isVisible()


def test_a_chunk_size_without_a_splitter_says_where_to_check_one(window):
    state = SweepState()
    state.grid_text = "min_tokens=32\nchunk_size=128"
    sets, skipped = state.sets_for(window.session.params_by_rule)
    assert [s.rule for s in sets] == ["tttd-v1"]
    assert skipped == ("grid entry skipped: chunk_size: sizes external chunkers only, and no splitter is checked "
                       "under External",)
