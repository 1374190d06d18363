"""The first look: the demo opens on its first shifted (else edited)
chunk with one line saying what to look at; text with few spaces gets a warning that
words are whitespace-separated in steadlith-norm/1 (threshold: viewmodel)."""

import os
import subprocess
import sys

from PySide6.QtGui import QImage
from steadlith_core import chunk

from compare_helpers import chunk_visible
from gui_helpers import load_texts
from steadlith_gui.model.viewmodel import FEW_SPACES_MEAN_WORD_CHARS, few_spaces_warning

JAPANESE = ("文書を小さな断片に分けて埋め込みを作る。見出しごとに区切ると、読み手が探す一節だけが返ってくる。"
            "編集が一文だけなら、変わるのはその周りの断片だけであってほしい。 ") * 60
ENGLISH = "Chunks near an edit change; every other chunk keeps its identity and its embedding. " * 60


def test_few_spaces_threshold_tells_japanese_from_english():
    assert few_spaces_warning("A", chunk(ENGLISH)) is None
    text = few_spaces_warning("B", chunk(JAPANESE))
    assert text is not None and "whitespace" in text and "steadlith-norm/1" in text and text.startswith("B ")
    # the threshold is the mean word length: just above it warns, at it does not
    word = "x" * FEW_SPACES_MEAN_WORD_CHARS
    assert few_spaces_warning("A", chunk((word + " ") * 400)) is None
    assert few_spaces_warning("A", chunk((word + "y ") * 400)) is not None


def test_text_with_few_spaces_gets_a_visible_warning(qtbot, window):
    load_texts(qtbot, window, JAPANESE, JAPANESE.replace("一文", "二文", 1))
    bar = window.message_bar
    assert bar.isVisible() and bar.level == "warning"
    assert "whitespace" in bar.text()
    load_texts(qtbot, window, ENGLISH, ENGLISH.replace("edit", "change", 1))
    assert not (bar.isVisible() and "whitespace" in bar.text())


def test_demo_opens_on_its_first_shifted_chunk_and_says_what_to_look_at(qtbot, window):
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.documents_ctl.load_example("prose")
    c = blocker.args[0].comparison
    first = next(j for j, s in enumerate(c.status_b) if s == "shifted")
    assert window.navigation.selection == ("B", first)
    assert chunk_visible(window.pane_b, first)
    assert window.pane_b.verticalScrollBar().value() > 0, "scrolled to it, not left at the top"
    bar = window.message_bar
    assert bar.isVisible() and bar.level == "info"
    assert f"shifted chunk B {first}" in bar.text() and "F8" in bar.text()


def test_demo_screenshot_shows_the_first_change(tmp_path):
    out = tmp_path / "demo.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    r = subprocess.run([sys.executable, "-m", "steadlith_gui", "--demo", "--size", "1366x768", "--screenshot", str(out)],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1366, 768)
