"""Helpers shared by the GUI tests (imported as `gui_helpers`)."""

import json
from pathlib import Path

from PySide6.QtGui import QColor, QImage

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "tests" / "golden"
EXPECTED = json.loads((GOLDEN / "expected.json").read_text(encoding="utf-8"))


def golden_params(name: str):
    from steadlith_core import ChunkerParams

    return ChunkerParams(**EXPECTED["param_sets"][name]["params"])


def make_window(qtbot, theme="light", params=None, settings=None):
    """A shown window. `theme`: "light", "dark" or "system"; `settings`: an AppSettings
    (default: in memory only)."""
    from PySide6.QtCore import QRect

    from steadlith_gui.main_window import MainWindow
    from steadlith_gui.widgets.palette import THEMES

    w = MainWindow(params, THEMES.get(theme, theme), settings=settings)
    # never a modal prompt in tests: edits are discarded on close unless a test says otherwise
    w.confirm_discard = lambda question: True
    qtbot.addWidget(w)
    # the offscreen screen is 800×800, which would give the compact layout: tests see the
    # standard one (docks beside the panes) unless they ask for a screen (test_screen_fit.py)
    w.dock_layout.fit_to_screen(QRect(0, 0, 1920, 1080))
    w.resize(1400, 900)
    w.show()
    qtbot.waitExposed(w)
    return w


def load_texts(qtbot, window, text_a, text_b, **kw):
    """Load two texts and wait until their analysis is on screen."""
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.documents_ctl.load_texts(text_a, text_b, **kw)
    return blocker.args[0]


def load_files(qtbot, window, path_a, path_b):
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.documents_ctl.load_files(path_a, path_b)
    return blocker.args[0]


def load_pair(qtbot, window, a, b):
    """Load two files (or PATH@REV revisions) and wait until both sides are analysed."""
    with qtbot.waitSignal(window.analysis_ready, timeout=30_000,
                          check_params_cb=lambda r: r.a is not None and r.b is not None):
        window.documents_ctl.load_files(a, b)


def set_params(qtbot, window, params):
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.session.set_params(params, show=True)
    return blocker.args[0]


def color_near(image: QImage, x: float, y: float, color: QColor, radius: int = 3, tolerance: int = 6) -> bool:
    """True if a pixel within `radius` of (x, y) has `color` (per channel +- tolerance)."""
    cx, cy = int(round(x)), int(round(y))
    for yy in range(cy - radius, cy + radius + 1):
        for xx in range(cx - radius, cx + radius + 1):
            if 0 <= xx < image.width() and 0 <= yy < image.height():
                c = image.pixelColor(xx, yy)
                if (
                    abs(c.red() - color.red()) <= tolerance
                    and abs(c.green() - color.green()) <= tolerance
                    and abs(c.blue() - color.blue()) <= tolerance
                ):
                    return True
    return False


def type_into(qtbot, pane, position: int, text: str) -> None:
    """Type `text` into `pane` at Qt position `position`, as a user would."""
    cursor = pane.textCursor()
    cursor.setPosition(position)
    pane.setTextCursor(cursor)
    pane.setFocus()
    qtbot.keyClicks(pane, text)
