"""Menus, shortcuts and the toolbar as data (meld's action tuples, napari's qactions).

Each `ActionSpec` becomes a QAction of `Actions` (the window's `act["<id>"]`); `MENUS`
places them. A handler gets the window when triggered (and the checked state, for a checkable action), so the table
names what an entry does without holding widgets. Every menu entry has a mnemonic
(unique in its menu) and the frequent ones a shortcut; no key sequence is bound twice
(tests/gui/test_keyboard.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from PySide6.QtCore import QObject, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import QLabel, QMainWindow, QMenu, QSizePolicy, QToolBar, QToolButton, QWidget

from .controllers.settings import THEME_CHOICES
from .model.demo import EXAMPLE_TITLES, EXAMPLES, PAIR_EXAMPLES
from .model.workspace import SUFFIX as WORKSPACE_SUFFIX

THEME_TITLES = {"system": "&System (follow the desktop)", "light": "&Light", "dark": "&Dark"}
SEPARATOR = "-"
NAV_TIP = "In the pane that last had the focus (B at first)"
SAVE_TIP = "Write {} as shown, with your edits, to a UTF-8 text file"


@dataclass(frozen=True)
class ActionSpec:
    id: str  # the key in Actions
    text: str
    handler: Callable[..., Any]  # handler(window) or, checkable, handler(window, checked)
    shortcut: str | QKeySequence.StandardKey | None = None
    tip: str | None = None
    checkable: bool = False
    checked: bool = False
    window_shortcut: bool = False  # active anywhere in the window, not only in its menu's widget


def about(window) -> None:
    window.show_message(
        "Steadlith Inspector shows where and why the content-defined chunker (tttd-v1) cut two versions "
        "of a document, which chunks an edit kept and which it cost (shifted chunks are the phase shift). "
        "Hover a chunk for its details; change parameters on the left; type into B to see the effect live.",
        "info")


def compare_rules(window) -> None:
    """View → Compare rules: the panes show the next boundary rule; the churn panel keeps all."""
    from steadlith_core import BOUNDARY_RULES

    rules = list(BOUNDARY_RULES)
    window.session.set_rule(rules[(rules.index(window.session.rule) + 1) % len(rules)])


def _nav(key: str, text: str, shortcut: str, what: str, direction: int) -> ActionSpec:
    return ActionSpec(key, text, lambda w: w.navigation.navigate(what, direction), shortcut, NAV_TIP, window_shortcut=True)


ACTIONS = (
    ActionSpec("open_a", "Open &A…", lambda w: w.documents_ctl.open_dialog("A"), QKeySequence.StandardKey.Open),
    ActionSpec("open_b", "Open &B…", lambda w: w.documents_ctl.open_dialog("B"), "Ctrl+Shift+O"),
    ActionSpec("open_revisions", "Open rev&isions…", lambda w: w.revisions.open(), "Ctrl+Alt+G",
               "Pick a file in a git repository, then two of its commits: A and B"),
    ActionSpec("open_workspace", "Open &workspace…", lambda w: w.workspaces.open(), "Ctrl+Alt+O",
               f"Open a {WORKSPACE_SUFFIX} workspace: documents, edits, parameters and view options"),
    ActionSpec("swap", "&Swap A and B", lambda w: w.documents_ctl.swap(), "Ctrl+Shift+S"),
    ActionSpec("reload", "&Reload from disk", lambda w: w.documents_ctl.reload(), QKeySequence.StandardKey.Refresh),
    ActionSpec("save_b", "Sa&ve B as…", lambda w: w.exports.save_as("B"), "Ctrl+S", SAVE_TIP.format("B")),
    ActionSpec("save_a", "Sav&e A as…", lambda w: w.exports.save_as("A"), "Ctrl+Alt+S", SAVE_TIP.format("A")),
    ActionSpec("save_workspace", "Save wor&kspace", lambda w: w.workspaces.save(), "Ctrl+Alt+W",
               "Save the documents (with edited or pasted text), parameters and view options to the "
               "workspace file (asked the first time)"),
    ActionSpec("save_workspace_as", "Save w&orkspace as…", lambda w: w.workspaces.save_as(),
               tip="Save the workspace to a new file"),
    ActionSpec("export_report", "Export re&port (HTML)…", lambda w: w.exports.export_report(), "Ctrl+E"),
    ActionSpec("export_chunks_a", "Export chunks of A as &JSONL…", lambda w: w.exports.export_chunks("A")),
    ActionSpec("export_chunks_b", "Export chunks of B as JSON&L…", lambda w: w.exports.export_chunks("B")),
    ActionSpec("export_comparison", "Export &comparison as JSON…", lambda w: w.exports.export_comparison()),
    ActionSpec("export_png", "Export window as P&NG…", lambda w: w.exports.export_png(),
               tip="Save a picture of the window as it is now"),
    # not StandardKey.Quit: it is empty on some platforms (Windows, offscreen)
    ActionSpec("quit", "&Quit", lambda w: w.close(), "Ctrl+Q"),
    ActionSpec("undo", "&Undo", lambda w: w.editing.undo(), QKeySequence.StandardKey.Undo,
               "Undo the last edit in the focused editable pane (B at first)"),
    ActionSpec("redo", "&Redo", lambda w: w.editing.redo(), QKeySequence.StandardKey.Redo),
    ActionSpec("edit_b", "Edit &B", lambda w, on: w.editing.set_editable("B", on), checkable=True, checked=True,
               tip="Type into B: the analysis reruns after a short pause"),
    ActionSpec("edit_a", "Allow editing &A", lambda w, on: w.editing.set_editable("A", on), checkable=True,
               tip="Type into A too"),
    ActionSpec("sync", "S&ynchronized scrolling", lambda w, on: w.session.set_view(sync_scroll=on), "Ctrl+Shift+Y",
               "Keep aligned chunks level while either pane scrolls", checkable=True, checked=True),
    ActionSpec("syntax", "&Syntax colour for code", lambda w, on: w.session.set_view(syntax_colour=on),
               checkable=True, checked=True),
    ActionSpec("wrap", "&Wrap long lines", lambda w, on: w.session.set_display(wrap=on), "Alt+Z",
               "Wrap lines at the pane's width (off: one text line per screen line, as code reads best)",
               checkable=True, checked=True),
    ActionSpec("zoom_in", "Zoom &in", lambda w: w.session.zoom_by(1), QKeySequence.StandardKey.ZoomIn,
               "Larger text in both panes (also Ctrl+wheel)", window_shortcut=True),
    ActionSpec("zoom_out", "Zoom &out", lambda w: w.session.zoom_by(-1), QKeySequence.StandardKey.ZoomOut,
               "Smaller text in both panes", window_shortcut=True),
    ActionSpec("zoom_reset", "&Normal size", lambda w: w.session.zoom_by(0), "Ctrl+0", window_shortcut=True),
    ActionSpec("focus_documents", "&Focus on documents", lambda w: w.document_focus.toggle(), "Ctrl+Shift+D",
               "Hide every dock so the two documents get the whole window; again to bring the docks back",
               window_shortcut=True),
    ActionSpec("legend", "&Legend", lambda w, on: w.session.set_view(legend=on), checkable=True, checked=True),
    ActionSpec("find", "&Find in A and B…", lambda w: w.find_bar.open(), QKeySequence.StandardKey.Find,
               "Find text in both panes; Enter or F3 for the next match, Shift+F3 for the previous",
               window_shortcut=True),
    ActionSpec("find_next", "Find ne&xt", lambda w: w.find_bar.request(1), QKeySequence.StandardKey.FindNext,
               window_shortcut=True),
    ActionSpec("find_prev", "Find pre&vious", lambda w: w.find_bar.request(-1), QKeySequence.StandardKey.FindPrevious,
               window_shortcut=True),
    ActionSpec("compare_rules", "Compare &rules: panes show the other rule", compare_rules, "Ctrl+Shift+R",
               "Switch the panes between tttd-v1 and lmx2-v1 (each with its own parameters); the churn "
               "panel shows both side by side", window_shortcut=True),
    _nav("next_boundary", "Next &boundary", "Alt+Down", "boundary", 1),
    _nav("prev_boundary", "Previous b&oundary", "Alt+Up", "boundary", -1),
    _nav("next_changed", "Next &changed chunk", "F7", "changed", 1),
    _nav("prev_changed", "Previous c&hanged chunk", "Shift+F7", "changed", -1),
    _nav("next_shifted", "Next &shifted chunk", "F8", "shifted", 1),
    _nav("prev_shifted", "Previous sh&ifted chunk", "Shift+F8", "shifted", -1),
    ActionSpec("next_reference_split", "Next reference s&plit", lambda w: w.references.step(1), "F9",
               "In the focused pane: the next cut that splits a reference excerpt of the Retrieval dock's "
               "question set, centred", window_shortcut=True),
    ActionSpec("prev_reference_split", "Previous reference spli&t", lambda w: w.references.step(-1), "Shift+F9",
               "In the focused pane: the previous cut that splits a reference excerpt", window_shortcut=True),
    ActionSpec("keys", "&Keyboard shortcuts", lambda w: w.act.show_shortcuts(),
               tip="List every shortcut of the window"),
    ActionSpec("about", "&About Steadlith Inspector", about),
)
NAV_IDS = ("next_boundary", "prev_boundary", "next_changed", "prev_changed", "next_shifted", "prev_shifted")

#: Menus in order: action ids, SEPARATOR, or "@name" for a part built in code.
MENUS = (
    ("&File", ("open_a", "open_b", "open_revisions", "open_workspace", "@recent", "swap", "reload", SEPARATOR, "save_b", "save_a",
               "save_workspace", "save_workspace_as", SEPARATOR, "export_report", "export_chunks_a",
               "export_chunks_b", "export_comparison", "export_png", SEPARATOR, "quit")),
    ("&Edit", ("undo", "redo", SEPARATOR, "edit_b", "edit_a")),
    ("&View", ("sync", "syntax", "wrap", "@theme", SEPARATOR, "zoom_in", "zoom_out", "zoom_reset", SEPARATOR,
               "focus_documents", "@docks", "legend", SEPARATOR, "compare_rules")),
    ("&Navigate", ("find", "find_next", "find_prev", SEPARATOR, "next_boundary", "prev_boundary", SEPARATOR, "next_changed", "prev_changed", SEPARATOR,
                   "next_shifted", "prev_shifted", SEPARATOR, "next_reference_split", "prev_reference_split")),
    ("E&xamples", ("@examples",)),
    ("&Help", ("keys", "about")),
)
DOCK_TITLES = (("params_dock", "&Parameters"), ("churn_dock", "C&hurn (A → B)"),
               ("diagnostics_dock", "&Diagnostics (A | B)"), ("table_dock", "&Chunks table"),
               ("history_dock", "&Git history of A"),
               ("sweep_dock", "Sw&eep"),
               ("lab_dock", "Loc&ality lab"),
               ("retrieval_dock", "Retrie&val"))


def with_mnemonic(text: str, used: set[str]) -> str:
    """`text` with "&" before its first letter or digit not in `used` (which it extends),
    for menu entries built from data; unchanged if it has one or none is free."""
    if "&" in text:
        return text
    for i, ch in enumerate(text):
        if ch.isalnum() and ch.lower() not in used:
            used.add(ch.lower())
            return text[:i] + "&" + text[i:]
    return text


def make_action(parent: QObject, target, spec: ActionSpec) -> QAction:
    """`spec` as a QAction of `parent`; its handler is called with `target`."""
    act = QAction(spec.text, parent)
    if spec.shortcut is not None:
        act.setShortcut(QKeySequence(spec.shortcut))
    if spec.checkable:
        act.setCheckable(True)
        act.setChecked(spec.checked)
        act.toggled.connect(lambda on, h=spec.handler: h(target, on))
    else:
        act.triggered.connect(lambda _c=False, h=spec.handler: h(target))
    if spec.tip:
        act.setStatusTip(spec.tip)
        act.setToolTip(spec.tip)
    if spec.window_shortcut:
        act.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
    return act


class Actions(Mapping[str, QAction]):
    """Every action of ACTIONS by id (`actions["sync"]`), placed in the menus of MENUS and
    the toolbar of `host` (the QMainWindow whose menu bar and toolbar they fill). A
    handler is called with `target`, the window whose parts do the work. Also the theme
    group (`theme`), the navigation actions (`nav`), the examples (`examples`) and the
    File, Theme and Examples menus. `docks`: the docks the View menu opens, by the names
    of DOCK_TITLES (dock_layout.Docks, a sibling this module does not import); `theme_choice`
    the theme checked at first; `toolbar_label` ends the toolbar (the shown parameters)."""

    def __init__(self, host: QMainWindow, target, *, recent_menu: QMenu, docks: Any, theme_choice: str,
                 toolbar_label: QLabel):
        self.host = host
        self._by_id = {spec.id: make_action(host, target, spec) for spec in ACTIONS}
        self.nav = {key: self._by_id[key] for key in NAV_IDS}
        self.theme: dict[str, QAction] = {}
        self.examples: dict[str, QAction] = {}
        self.shortcuts_dialog = None  # Help → Keyboard shortcuts, once opened
        parts = {"@recent": lambda menu: menu.addMenu(recent_menu),
                 "@theme": lambda menu: self._theme(menu, theme_choice, target),
                 "@docks": lambda menu: self._docks(menu, docks),
                 "@examples": lambda menu: self._examples(menu, target)}
        menus = {}
        for title, items in MENUS:
            menu = host.menuBar().addMenu(title)
            for item in items:
                if item == SEPARATOR:
                    menu.addSeparator()
                elif item in parts:
                    parts[item](menu)
                else:
                    menu.addAction(self._by_id[item])
            menus[title] = menu
        self.file_menu = menus["&File"]
        self.file_menu.setToolTipsVisible(True)  # a disabled export says why
        self.examples_menu = menus["E&xamples"]
        self.toolbar = self._toolbar(toolbar_label)

    def __getitem__(self, key: str) -> QAction:
        return self._by_id[key]

    def __iter__(self):
        return iter(self._by_id)

    def __len__(self) -> int:
        return len(self._by_id)

    def show_shortcuts(self) -> None:
        """Help → Keyboard shortcuts: a table of every bound key (non-modal, kept open)."""
        from .widgets.shortcuts_dialog import ShortcutsDialog

        self.shortcuts_dialog = ShortcutsDialog(shortcut_table(self.host), self.host)
        self.shortcuts_dialog.show()

    def _theme(self, menu: QMenu, choice: str, target) -> None:
        self.theme_menu = menu.addMenu("&Theme")
        group = QActionGroup(self.host)
        group.setExclusive(True)
        for name in THEME_CHOICES:
            act = QAction(THEME_TITLES[name], self.host, checkable=True)
            act.setChecked(name == choice)
            act.triggered.connect(lambda _c=False, n=name: target.theme_ctl.set_choice(n, True))
            group.addAction(act)
            self.theme_menu.addAction(act)
            self.theme[name] = act
        self.theme["system"].setStatusTip("Light or dark as the desktop is, switching when it does")

    @staticmethod
    def _docks(menu: QMenu, docks: Any) -> None:
        for attr, text in DOCK_TITLES:
            act = getattr(docks, attr).toggleViewAction()
            act.setText(text)
            menu.addAction(act)

    def _examples(self, menu: QMenu, target) -> None:
        used: set[str] = set()
        entries = [(name, EXAMPLE_TITLES[name], None) for name in EXAMPLES]
        entries += [(name, ex.title, ex.note) for name, ex in PAIR_EXAMPLES.items()]
        for n, (name, title, note) in enumerate(entries):
            if n == len(EXAMPLES):
                menu.addSeparator()
            act = QAction(with_mnemonic(title, used), self.host)
            if note:
                act.setStatusTip(note)
            act.triggered.connect(lambda _c=False, e=name: target.documents_ctl.load_example(e))
            menu.addAction(act)
            self.examples[name] = act

    def _toolbar(self, label: QLabel) -> QToolBar:
        tb = QToolBar("Main", self.host)
        tb.setObjectName("mainToolbar")
        tb.setMovable(False)
        for key in ("open_a", "open_b", "swap"):
            tb.addAction(self[key])
        ex = QToolButton()
        ex.setText("Examples")
        ex.setAccessibleName("Examples")
        ex.setToolTip("Open a built-in example (also the Examples menu, Alt+X)")
        ex.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        ex.setMenu(self.examples_menu)
        tb.addWidget(ex)
        tb.addSeparator()
        tb.addAction(self["prev_shifted"])
        tb.addAction(self["next_shifted"])
        self["prev_shifted"].setIconText("◀ shifted")
        self["next_shifted"].setIconText("shifted ▶")
        spacer = QWidget()
        spacer.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        tb.addWidget(spacer)
        tb.addWidget(label)
        self.host.addToolBar(Qt.ToolBarArea.TopToolBarArea, tb)
        return tb


def menu_actions(menu: QMenu | None):
    """Every action of a menu and its submenus, separators left out."""
    if menu is None:
        return
    for act in menu.actions():
        if act.isSeparator():
            continue
        yield act
        if act.menu() is not None:
            yield from menu_actions(act.menu())


def shortcut_table(window) -> list[tuple[str, str, str]]:
    """(key, entry, menu) for every menu entry with a shortcut, in menu order."""
    rows = []
    for menu_action in window.menuBar().actions():
        title = menu_action.text().replace("&", "")
        for act in menu_actions(menu_action.menu()):
            for seq in act.shortcuts():
                if not seq.isEmpty():
                    rows.append((seq.toString(QKeySequence.SequenceFormat.NativeText),
                                 act.text().replace("&", "").rstrip("…"), title))
    return rows


def shortcut_rows(window) -> list[str]:
    """"key: entry" for every menu entry with a shortcut, in menu order."""
    rows = []
    for menu_action in window.menuBar().actions():
        for act in menu_actions(menu_action.menu()):
            if not act.shortcut().isEmpty():
                rows.append(f"{act.shortcut().toString(QKeySequence.SequenceFormat.NativeText)}: "
                            f"{act.text().replace('&', '').rstrip('…')}")
    return rows
