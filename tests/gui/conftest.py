"""GUI tests: offscreen Qt, pytest-qt's qtbot, waiting on signals (never sleeping).

Settings are hermetic: every test gets its own QSettings folder (both formats, both
scopes), so no test reads or writes the developer's real settings, and tests never
see each other's recent files or window layout."""

import os
import tempfile
from pathlib import Path

os.environ["QT_QPA_PLATFORM"] = "offscreen"  # before any QApplication exists

FONTS = Path(__file__).resolve().parent.parent / "fonts"


def pin_fonts() -> None:
    """Every GUI test (and every inspector it starts as a subprocess) sees exactly the
    DejaVu fonts in tests/fonts and nothing of the machine's: a fontconfig configuration
    listing that folder alone, with the generic families mapped onto it and the
    rendering (antialiasing, slight hinting, as desktops default to) set here rather than
    by the machine's own rules. Pixel-reading tests then draw the same glyphs, line
    heights and widths on any machine."""
    folder = Path(tempfile.mkdtemp(prefix="steadlith-fonts-"))
    (folder / "fonts.conf").write_text(f"""<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "fonts.dtd">
<fontconfig>
  <dir>{FONTS}</dir>
  <cachedir>{folder / "cache"}</cachedir>
  <alias binding="strong"><family>monospace</family><prefer><family>DejaVu Sans Mono</family></prefer></alias>
  <alias binding="strong"><family>sans-serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <alias binding="strong"><family>serif</family><prefer><family>DejaVu Sans</family></prefer></alias>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>true</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
""")
    os.environ["FONTCONFIG_FILE"] = str(folder / "fonts.conf")


pin_fonts()  # before any QApplication exists, like the platform

import pytest
from git_helpers import doc_history
from gui_helpers import make_window
from PySide6.QtCore import QSettings, QThreadPool


@pytest.fixture(autouse=True, scope="session")
def gui_thread_gc(qapp):
    """As in the app: cycles are collected in the GUI thread only (gui_thread_gc)."""
    from steadlith_gui.workers.gui_thread_gc import collect_in_gui_thread

    return collect_in_gui_thread()


@pytest.fixture(autouse=True)
def hermetic_settings(tmp_path_factory, monkeypatch):
    folder = tmp_path_factory.mktemp("qsettings")
    for fmt in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
            QSettings.setPath(fmt, scope, str(folder / scope.name))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(folder / "xdg"))  # for subprocesses too
    yield folder


@pytest.fixture
def window(qtbot):
    w = make_window(qtbot)
    yield w
    QThreadPool.globalInstance().waitForDone(10_000)


@pytest.fixture
def history(tmp_path):
    """doc.md's history (git_helpers.doc_history): (repository root, repository, commit ids, texts)."""
    repo, ids, texts = doc_history(tmp_path / "repo")
    return tmp_path / "repo", repo, ids, texts
