"""Keyboard access and accessible names: every menu entry reachable by a mnemonic (unique
in its menu) or a shortcut, no key bound twice, custom widgets named for screen
readers, and the link map and overview usable from the keyboard."""

from __future__ import annotations

import re
from collections import Counter

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence

from compare_helpers import SMALL, small_pair
from gui_helpers import load_texts
from steadlith_gui.actions import menu_actions


def mnemonic(text: str) -> str | None:
    m = re.search(r"&([^&])", text.replace("&&", ""))
    return m.group(1).lower() if m else None


def menus(window):
    """(title, QMenu) of every menu and submenu of the menu bar."""
    out = []

    def walk(menu, title):
        out.append((title, menu))
        for act in menu.actions():
            if act.menu() is not None:
                walk(act.menu(), f"{title} → {act.text()}")

    for act in window.menuBar().actions():
        walk(act.menu(), act.text())
    return out


def test_no_key_sequence_is_bound_twice(window):
    bound = []
    for act in window.findChildren(QAction):
        for seq in act.shortcuts():
            if not seq.isEmpty():
                bound.append((seq.toString(QKeySequence.SequenceFormat.PortableText), act.text()))
    counts = Counter(key for key, _ in bound)
    assert not [k for k, n in counts.items() if n > 1], sorted(bound)
    keys = {k for k, _ in bound}
    # the menu bar's Alt+letter mnemonics are not shortcuts of an action either
    bar = {f"Alt+{mnemonic(a.text()).upper()}" for a in window.menuBar().actions()}
    assert len(bar) == len(window.menuBar().actions()) and not bar & keys
    # the ones people use most
    for act, key in ((window.act["open_a"], "Ctrl+O"), (window.act["open_b"], "Ctrl+Shift+O"),
                     (window.act["open_workspace"], "Ctrl+Alt+O"), (window.act["save_workspace"], "Ctrl+Alt+W"),
                     (window.act["export_report"], "Ctrl+E"), (window.act["save_b"], "Ctrl+S"),
                     (window.act["quit"], "Ctrl+Q")):
        assert act.shortcut() == QKeySequence(key), act.text()


def test_every_menu_entry_has_a_mnemonic_or_a_shortcut_and_mnemonics_are_unique(qtbot, window, tmp_path):
    # fill the dynamic menu too
    window.settings.add_recent({"workspace": str(tmp_path / "w.steadlith")})
    window.settings.add_recent({"a": str(tmp_path / "a.md"), "b": str(tmp_path / "b.md")})
    window.recent_menu.rebuild()
    for title, menu in menus(window):
        letters = []
        for act in menu.actions():
            if act.isSeparator():
                continue
            letter = mnemonic(act.text())
            assert act.text().strip(), f"{title}: an entry without text"
            assert letter or not act.shortcut().isEmpty(), f"{title}: {act.text()!r} has neither"
            if letter:
                letters.append(letter)
        dup = [k for k, n in Counter(letters).items() if n > 1]
        assert not dup, f"{title}: ambiguous mnemonics {dup}: {[a.text() for a in menu.actions()]}"
    file_entries = [a.text() for a in window.act.file_menu.actions() if not a.isSeparator()]
    for needle in ("Export re&port (HTML)…", "Export chunks of A as &JSONL…", "Export chunks of B as JSON&L…",
                   "Export &comparison as JSON…", "Export window as P&NG…", "Open &workspace…", "Save wor&kspace",
                   "Save w&orkspace as…", "Recent &files", "&Reload from disk", "&Quit"):
        assert needle in file_entries


def test_the_shortcut_table_names_every_shortcut(window):
    """Help → Keyboard shortcuts is a table built from the menus: every bound key of every
    menu, with its entry and menu."""
    window.act["keys"].trigger()
    dialog = window.act.shortcuts_dialog
    assert dialog.isVisible()
    rows = dialog.rows()
    keys = {(key, menu) for key, _, menu in rows}
    for menu_action in window.menuBar().actions():
        for act in menu_actions(menu_action.menu()):
            if not act.shortcut().isEmpty():
                key = act.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
                assert (key, menu_action.text().replace("&", "")) in keys, act.text()
    assert ("Ctrl+Shift+D", "Focus on documents", "View") in rows


def test_custom_widgets_have_accessible_names(window):
    widgets = [window.link_map, window.overview, window.legend, window.churn, window.churn.regions,
               window.pane_a, window.pane_b, window.pane_a.gutter, window.pane_b.gutter,
               window.columns["A"].header, window.diagnostics_a, window.diagnostics_b,
               window.diagnostics_a.histogram, window.diagnostics_b.histogram, window.chunk_table,
               window.table.filter_edit, window.message_bar, window.params_panel, *window.legend.swatches,
               *window.diagnostics_a.swatches]
    for w in widgets:
        assert w.accessibleName().strip(), w.objectName() or type(w).__name__
    names = [w.accessibleName() for w in (window.pane_a, window.pane_b, window.diagnostics_a.histogram,
                                          window.diagnostics_b.histogram)]
    assert len(set(names)) == len(names)  # A and B are told apart
    assert "hard cut" in window.legend.accessibleDescription()


def test_descriptions_follow_the_content(qtbot, window):
    a, b = small_pair(1500, seed=3)
    window.session.set_params(SMALL, show=True)
    result = load_texts(qtbot, window, a, b, name_a="first.txt", name_b="second.txt")
    assert "second.txt" in window.pane_b.accessibleDescription()
    assert f"{result.b.diagnostics.chunk_count} chunks" in window.pane_b.accessibleDescription()
    assert f"{result.b.diagnostics.chunk_count} chunks" in window.diagnostics_b.histogram.accessibleDescription()
    assert "reused" in window.churn.accessibleDescription()


def test_link_map_and_overview_work_from_the_keyboard(qtbot, window):
    a, b = small_pair(6000, seed=12)
    window.session.set_params(SMALL, show=True)
    result = load_texts(qtbot, window, a, b)
    links = result.links
    assert len(links) > 3
    for w in (window.link_map, window.overview):
        assert w.focusPolicy() & Qt.FocusPolicy.TabFocus
    # link map: Tab to it, then Home / Down step through the bands and show them
    window.link_map.setFocus()
    qtbot.keyClick(window.link_map, Qt.Key.Key_Home)
    assert window.link_map.current == 0
    qtbot.keyClick(window.link_map, Qt.Key.Key_Down)
    qtbot.keyClick(window.link_map, Qt.Key.Key_Down)
    assert window.link_map.current == 2
    assert "Band 3 of" in window.link_map.accessibleDescription()
    side, index = window.navigation.selection
    expected = int(links.b_lo[2]) if links.b_hi[2] > links.b_lo[2] else int(links.a_lo[2])
    assert index == expected  # the band's chunk is selected, as a click would
    qtbot.keyClick(window.link_map, Qt.Key.Key_End)
    assert window.link_map.current == len(links) - 1
    # overview: Right chooses B, End scrolls it to the bottom, Home back to the top
    window.act["sync"].setChecked(False)
    bar = window.pane_b.verticalScrollBar()
    assert bar.maximum() > 0
    window.overview.setFocus()
    qtbot.keyClick(window.overview, Qt.Key.Key_Right)
    qtbot.keyClick(window.overview, Qt.Key.Key_Home)
    assert bar.value() == 0
    qtbot.keyClick(window.overview, Qt.Key.Key_PageDown)
    assert bar.value() > 0
    qtbot.keyClick(window.overview, Qt.Key.Key_End)
    assert bar.value() == bar.maximum()
    a_bar = window.pane_a.verticalScrollBar()
    qtbot.keyClick(window.overview, Qt.Key.Key_Left)  # now A
    qtbot.keyClick(window.overview, Qt.Key.Key_Home)
    assert a_bar.value() == 0
    qtbot.keyClick(window.overview, Qt.Key.Key_Down)
    assert a_bar.value() > 0 and bar.value() == bar.maximum()  # B stays where it was


def test_an_ampersand_in_a_recent_name_is_shown_not_taken_as_a_mnemonic(qtbot, window, tmp_path):
    window.settings.add_recent({"a": str(tmp_path / "R&D notes.md"), "b": str(tmp_path / "Q&A.md")})
    window.recent_menu.rebuild()
    entry = window.recent_menu.actions()[0]
    assert mnemonic(entry.text()) == "1"  # the entry's own number, not "D" or "A"
    assert "R&&D notes.md" in entry.text() and "Q&&A.md" in entry.text()
