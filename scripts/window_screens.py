"""Screenshots of the inspector in a real window, every dock open, dark theme, on a
revision pair of this repository's docs, with the locality lab run: what
docs/guide/window.md shows for each screen size and scale.

    QT_SCALE_FACTOR=1.5 xvfb-run -a -s "-screen 0 2049x1152x24" python scripts/window_screens.py out.png

The pinned fonts of the GUI tests are used, so the pictures do not depend on the
machine's fonts: it imports tests/gui/conftest.py, which imports pytest, so
it needs the inspector's test extra (`pip install ".[test]"`) and a checkout, not a wheel."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "gui"))
import conftest  # noqa: E402,F401  (pins the fonts)

os.environ["QT_QPA_PLATFORM"] = "xcb"  # a real window on the X server, not offscreen

from PySide6.QtCore import QTimer  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

app = QApplication([])
from steadlith_core.history.repository import resolve_revision  # noqa: E402
from steadlith_gui.dock_layout import DOCKS  # noqa: E402
from steadlith_gui.main_window import MainWindow  # noqa: E402

COMMIT = "3c7feb3"  # a commit of docs/guide/window.md with a shifted chunk
out = sys.argv[1]
window = MainWindow(theme="dark")
window.confirm_discard = lambda question: True
window.show()
window.documents_ctl.load_files(resolve_revision(str(ROOT), "docs/guide/window.md", f"{COMMIT}~1"),
                                resolve_revision(str(ROOT), "docs/guide/window.md", COMMIT))
steps = iter(range(1, 100))


def tick() -> None:
    step = next(steps)
    if step == 1:  # every dock, opened as a user opens them
        for name in DOCKS:
            action = getattr(window, name).toggleViewAction()
            if not action.isChecked():
                action.trigger()
    elif step == 2:
        window.lab_view.edits.setValue(20)
        window.lab_view.run_button.click()
    elif step == 8:  # the lab has finished
        screen = window.screen()
        print(out, "screen", screen.size().toTuple(), "scale", screen.devicePixelRatio(),
              "window minimum", window.minimumSizeHint().toTuple())
        screen.grabWindow(0).save(out)
        app.quit()
        return
    QTimer.singleShot(1500, tick)


QTimer.singleShot(2500, tick)
app.exec()
