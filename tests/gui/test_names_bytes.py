"""Names in the window that are not plain text: a file name with bytes that are not
UTF-8 keeps them (escaped, `\\xff`) in the title and the messages, so two such files
never look the same; a very long path is elided in the middle, the message stays on
one line."""

from __future__ import annotations

import os
import sys

import pytest

from gui_helpers import load_files
from steadlith_gui.widgets.message_bar import MessageBar
from steadlith_gui.widgets.names import MESSAGE_WORD_CHARS, elide_line, elide_middle

TEXT_A = "Alpha beta gamma delta.\n\nEpsilon zeta eta theta.\n"
TEXT_B = "Alpha beta gamma delta.\n\nEpsilon zeta eta iota.\n"

linux_only = pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")


def _write(folder, name: bytes, text: str) -> str:
    path = os.path.join(os.fsencode(folder), name)
    with open(path, "wb") as f:
        f.write(text.encode())
    return os.fsdecode(path)


@linux_only
def test_two_non_utf8_names_stay_two_names_in_the_title(qtbot, window, tmp_path):
    a = _write(tmp_path, b"bad\xff.md", TEXT_A)
    b = _write(tmp_path, b"bad\xfe.md", TEXT_B)
    load_files(qtbot, window, a, b)
    title = window.windowTitle()
    assert "bad\\xff.md" in title and "bad\\xfe.md" in title


@linux_only
def test_a_non_utf8_name_keeps_its_bytes_in_a_message(qtbot, window, tmp_path):
    name = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"gone\xff\xfe.md"))
    window.show_message(f"Cannot open {name}: no such file", "error")
    assert "gone\\xff\\xfe.md: no such file" in window.message_bar.text()


def test_elide_middle_keeps_both_ends():
    assert elide_middle("short", 10) == "short"
    long = "/home/" + "x" * 5000 + "/notes.md: no such file"
    shown = elide_middle(long, 80)
    assert len(shown) == 80 and shown.startswith("/home/xx") and shown.endswith("notes.md: no such file")
    assert "…" in shown
    line = "Cannot open " + long + "; the reason stays whole"
    shown = elide_line(line)
    assert shown.startswith("Cannot open /home/") and shown.endswith("notes.md: no such file; the reason stays whole")
    assert len(shown) < 200


def test_a_5000_character_path_is_one_elided_line(qtbot):
    bar = MessageBar()
    qtbot.addWidget(bar)
    bar.resize(1400, 200)
    short = "Cannot open /tmp/notes.md: no such file"
    bar.show_message(short, "error")
    one_line = bar.label.heightForWidth(1300)
    path = "/home/" + "/".join(["folder"] * 700) + "/notes.md"
    assert len(path) > 4900
    bar.show_message(f"Cannot open {path}: no such file\nNothing was changed.", "error")
    first, second = bar.text().split("\n")
    assert len(first) <= MESSAGE_WORD_CHARS + len("Cannot open  no such file") and first.startswith("Cannot open /home/folder")
    assert first.endswith("/notes.md: no such file") and second == "Nothing was changed."
    bar.show_message(f"Cannot open {path}: no such file", "error")
    assert bar.label.heightForWidth(1300) == one_line


def test_a_5000_character_name_is_elided_in_the_title(qtbot, window):
    from gui_helpers import load_texts

    long = "/home/" + "/".join(["folder"] * 700) + "/notes.md"
    load_texts(qtbot, window, TEXT_A, TEXT_B, name_a=long, name_b="b.md")
    title = window.windowTitle()
    assert len(title) < 2 * MESSAGE_WORD_CHARS + 60 and "…" in title
    assert "/home/folder" in title and "notes.md" in title and "b.md" in title
