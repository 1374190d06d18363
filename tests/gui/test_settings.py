"""What the window remembers (QSettings, pointed at a per-test folder by conftest.py):
recent files, window geometry and docks, the last valid parameters, the theme choice."""

from __future__ import annotations

import os

from PySide6.QtCore import QSettings
from steadlith_core import ChunkerParams

from compare_helpers import SMALL, small_pair
from gui_helpers import load_files, make_window
from steadlith_gui.app import build_parser
from steadlith_gui.controllers.settings import MAX_RECENT, AppSettings


def write_pair(tmp_path, stem="doc"):
    a, b = small_pair(900, seed=3)
    pa, pb = tmp_path / f"{stem}-1.md", tmp_path / f"{stem}-2.md"
    pa.write_text(a, encoding="utf-8")
    pb.write_text(b, encoding="utf-8")
    return pa, pb


def close(qtbot, window):
    window.close()
    assert not window.isVisible()


def test_settings_are_hermetic_in_tests(hermetic_settings):
    store = AppSettings.user().store
    assert store.fileName().startswith(str(hermetic_settings))
    assert QSettings().fileName().startswith(str(hermetic_settings))


def test_parameters_geometry_and_docks_survive_closing_and_reopening(qtbot):
    first = make_window(qtbot, settings=AppSettings.user())
    first.session.set_params(SMALL, show=True)
    # restoreGeometry keeps a window on its screen (offscreen: 800 x 800, narrower than the
    # window's minimum width, so x is clamped there): the height and y position must survive
    first.resize(first.minimumSizeHint().width(), 731)
    first.move(12, 34)
    first.churn_dock.hide()
    saved = first.geometry()
    close(qtbot, first)

    second = make_window(qtbot, settings=AppSettings.user())
    assert second.session.params == ChunkerParams()  # nothing is restored unless asked (the app asks)
    assert second.geometry() != saved
    second.restore_settings()
    assert second.session.params == SMALL and second.params_panel.params.params_hash == SMALL.params_hash
    g = second.geometry()
    assert (g.y(), g.width(), g.height()) == (saved.y(), saved.width(), saved.height()) == (g.y(), g.width(), 731)
    assert second.churn_dock.isHidden() and not second.table_dock.isHidden()


def test_corrupt_settings_are_ignored(qtbot):
    settings = AppSettings.user()
    settings.store.setValue("params/last", '{"min_tokens": 0}')
    settings.store.setValue("recent/entries", "[not json")
    settings.store.setValue("window/geometry", "nonsense")
    w = make_window(qtbot, settings=settings)
    w.restore_settings()  # nothing raised, defaults kept
    assert w.session.params == ChunkerParams() and w.recent_menu.entries() == []


def test_recent_files_update_survive_a_restart_and_reopen(qtbot, tmp_path):
    pa, pb = write_pair(tmp_path)
    first = make_window(qtbot, settings=AppSettings.user())
    load_files(qtbot, first, pa, pb)
    assert first.recent_menu.entries() == [{"a": str(pa), "b": str(pb)}]
    labels = [a.text() for a in first.recent_menu.actions()]
    assert labels[0] == "&1  doc-1.md ↔ doc-2.md" and first.recent_menu.menuAction().isEnabled()
    close(qtbot, first)

    second = make_window(qtbot, settings=AppSettings.user())
    second.restore_settings()
    entry = second.recent_menu.actions()[0]
    assert "doc-1.md ↔ doc-2.md" in entry.text() and str(pa) in entry.toolTip()
    with qtbot.waitSignal(second.analysis_ready, timeout=20_000):
        entry.trigger()
    a, b = second.session.documents()
    assert (a.path, b.path) == (str(pa), str(pb))


def test_a_missing_recent_file_is_reported_and_removed(qtbot, tmp_path):
    pa, pb = write_pair(tmp_path)
    qa, qb = write_pair(tmp_path, "other")
    w = make_window(qtbot, settings=AppSettings.user())
    load_files(qtbot, w, pa, pb)
    load_files(qtbot, w, qa, qb)
    assert [e["a"] for e in w.recent_menu.entries()] == [str(qa), str(pa)]  # most recent first
    os.remove(pb)
    stale = next(a for a in w.recent_menu.actions() if "doc-1.md" in a.text())
    stale.trigger()
    assert str(pb) in w.message_bar.text() and "removed from the recent files" in w.message_bar.text()
    assert w.recent_menu.entries() == [{"a": str(qa), "b": str(qb)}]
    assert not any("doc-1.md" in a.text() for a in w.recent_menu.actions())
    assert w.session.documents()[0].path == str(qa)  # nothing else happened


def test_recent_list_is_bounded_and_completes_pairs():
    s = AppSettings.memory()
    s.add_recent({"a": "/x/a.md", "b": None})
    s.add_recent({"a": "/x/a.md", "b": "/x/b.md"})  # A first, then B: one entry for the pair
    assert s.recent() == [{"a": "/x/a.md", "b": "/x/b.md"}]
    for i in range(15):
        s.add_recent({"workspace": f"/w/{i}.steadlith"})
    entries = s.recent()
    assert len(entries) == MAX_RECENT and entries[0] == {"workspace": "/w/14.steadlith"}
    s.add_recent({"workspace": "/w/10.steadlith"})
    assert s.recent()[0] == {"workspace": "/w/10.steadlith"} and len(s.recent()) == MAX_RECENT


def test_saved_workspaces_join_the_recent_files(qtbot, tmp_path):
    pa, pb = write_pair(tmp_path)
    w = make_window(qtbot, settings=AppSettings.user())
    load_files(qtbot, w, pa, pb)
    with qtbot.waitSignal(w.workspace_saved, timeout=10_000):
        w.workspaces.save(tmp_path / "r.steadlith")
    assert w.recent_menu.entries()[0] == {"workspace": str(tmp_path / "r.steadlith")}
    assert w.recent_menu.actions()[0].text() == "&1  r.steadlith  (workspace)"


def test_theme_choice_is_remembered_only_when_chosen_in_the_menu(qtbot):
    first = make_window(qtbot, settings=AppSettings.user())
    first.theme_ctl.set_choice("dark")  # like --theme: for this run only
    assert AppSettings.user().theme() is None
    first.act.theme["light"].trigger()  # View → Theme → Light
    assert AppSettings.user().theme() == "light"
    first.act.theme["dark"].trigger()
    close(qtbot, first)
    second = make_window(qtbot, theme="system", settings=AppSettings.user())
    second.restore_settings()
    assert second.session.view.theme == "dark" and second.theme_ctl.theme.name == "dark"
    second.theme_ctl.set_choice("light")


def test_command_line_precedence_is_documented():
    text = " ".join(build_parser().format_help().split())
    assert "Command-line choices win over remembered settings" in text


def test_open_recent_from_a_script_removes_a_missing_entry_as_the_menu_does(qtbot, tmp_path):
    pa, pb = write_pair(tmp_path)
    w = make_window(qtbot, settings=AppSettings.user())
    load_files(qtbot, w, pa, pb)
    os.remove(pa)
    w.recent_menu.choose({"a": str(pa), "b": str(pb)})
    assert "removed from the recent files" in w.message_bar.text() and w.recent_menu.entries() == []
