"""The Retrieval dock's question set in the panes: a pane whose text is a corpus underlines
that corpus's references, the churn panel counts the cuts that split one per side, and
F9 / Shift+F9 step through those cuts in the focused pane, centred.

The references are made by hand around the cuts the window shows, so every answer is
known: two references straddle a cut, one is exactly a chunk, one ends in the space
before the next chunk (split by nothing)."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor

from gui_helpers import color_near, load_texts
from steadlith_gui.actions import shortcut_table
from steadlith_gui.model.demo import DEMO_DIR
from steadlith_gui.widgets.palette import DARK, LIGHT, blend

V1, V2 = "chunking-guide-v1", "chunking-guide-v2"


def guide(cid: str) -> str:
    return (DEMO_DIR / f"{cid}.md").read_text(encoding="utf-8")


def spans(window, side):
    chunks = window.session.sides[side].chunking.chunks
    return [c.start for c in chunks], [c.end for c in chunks]


def hand_made(window, tmp_path: Path):
    """Write the corpora and questions around the shown cuts; (question file, corpora
    folder, the two cuts of A that split a reference, A's expected underline runs)."""
    starts, ends = spans(window, "A")
    n = len(starts)
    assert n >= 8, "enough chunks to put cuts deep in the document"
    i1, i2 = n // 3, 2 * n // 3
    assert ends[0] < starts[1], "whitespace between chunks 0 and 1"
    refs_a = [(ends[i1] - 10, starts[i1 + 1] + 10),  # across cut i1
              (ends[i2] - 5, starts[i2 + 1] + 3),  # across cut i2
              (starts[1], ends[1]),  # exactly chunk 1
              (starts[0] + 3, starts[1])]  # ends in the space before chunk 1: split by nothing
    b_starts, b_ends = spans(window, "B")
    refs_b = [(b_starts[2] + 1, b_ends[2] - 1)]
    folder = tmp_path / "corpora"
    folder.mkdir()
    lines = []
    for cid, refs in ((V1, refs_a), (V2, refs_b)):
        text = guide(cid)
        (folder / f"{cid}.md").write_text(text, encoding="utf-8")
        lines += [json.dumps({"question": f"question {k}", "corpus_id": cid,
                              "references": [{"content": text[s:e], "start_index": s, "end_index": e}]})
                  for k, (s, e) in enumerate(refs)]
    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = [(starts[0] + 3, ends[1]), refs_a[0], refs_a[1]]  # the touching reference and chunk 1: one run
    return str(questions), str(folder), (i1, i2), runs


def show_guides(qtbot, window, tmp_path):
    load_texts(qtbot, window, guide(V1), guide(V2), name_a="v1.md", name_b="v2.md")
    questions, corpora, cuts, runs = hand_made(window, tmp_path)
    window.retrieval_view.set_paths(questions, corpora)
    qtbot.waitUntil(lambda: window.references.sides["A"] is not None, timeout=30_000)
    return cuts, runs


def test_references_are_underlined_and_the_splitting_cuts_counted_per_side(qtbot, window, tmp_path):
    (i1, i2), runs = show_guides(qtbot, window, tmp_path)
    marks = window.references
    assert marks.split_count("A") == 2 and marks.sides["A"].splitting.tolist() == [i1, i2]
    assert marks.split_count("B") == 0
    pane = window.pane_a
    _, ends = spans(window, "A")
    assert list(zip(pane.reference_starts.tolist(), pane.reference_ends.tolist())) == runs  # plain text: Qt = code points
    assert pane.reference_splits.tolist() == [ends[i1], ends[i2]]
    label = window.churn.reference_splits
    assert label.isVisible()
    assert label.text() == (f"References split: A 2 cuts (4 refs in {V1}) · B 0 cuts (1 ref in {V2})  (F9: next)")

    # B no longer a corpus: its side says so, A's count stays
    load_texts(qtbot, window, None, guide(V2) + "\nOne more line.\n")
    assert marks.sides["B"] is None and not window.pane_b.reference_starts.size
    assert label.text().startswith("References split: A 2 cuts") and "· B –" in label.text()

    # another question set: the files changed, the underlines go until it is read
    window.retrieval_view.set_paths("", "")
    assert marks.sides["A"] is None and not pane.reference_starts.size and not label.isVisible()


def contrast(a: QColor, b: QColor) -> float:
    def lum(c: QColor) -> float:
        def ch(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * ch(c.red()) + 0.7152 * ch(c.green()) + 0.0722 * ch(c.blue())
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_underline_colour_stands_out_in_both_themes():
    for theme in (LIGHT, DARK):
        ref = QColor(theme.reference)
        backgrounds = [QColor(theme.base), theme.changed_word_color(),
                       *(blend(QColor(theme.base), QColor(t), 0.55) for t in theme.tints),
                       *(c for s in theme.status for c in theme.status_tints(s))]
        for bg in backgrounds:
            assert contrast(ref, bg) >= 3.0, (theme.name, bg.name())
        assert theme.reference not in theme.kind.values() and theme.reference not in theme.status.values()


def underline_drawn(qtbot, window, pane, theme) -> bool:
    qtbot.waitUntil(lambda: bool(pane.painter.reference_rects(pane.visible_blocks())))
    rect = pane.painter.reference_rects(pane.visible_blocks())[0]
    image = pane.viewport().grab().toImage()
    return any(color_near(image, rect.left() + dx, rect.bottom() - 0.5, QColor(theme.reference), radius=1,
                          tolerance=8) for dx in range(2, 12, 2))


def test_the_underline_is_painted_in_the_themes_colour(qtbot, window, tmp_path):
    show_guides(qtbot, window, tmp_path)
    pane = window.pane_a
    pane.scroll_position_to_y(int(pane.reference_starts[0]), 40)
    assert underline_drawn(qtbot, window, pane, LIGHT)
    window.theme_ctl.set_choice("dark")
    assert underline_drawn(qtbot, window, pane, DARK)


def test_f9_steps_through_the_splitting_cuts_of_the_focused_pane_centred(qtbot, window, tmp_path):
    (i1, i2), _ = show_guides(qtbot, window, tmp_path)
    assert ("F9", "Next reference split", "Navigate") in shortcut_table(window)
    assert ("Shift+F9", "Previous reference split", "Navigate") in shortcut_table(window)
    pane = window.pane_a
    _, ends = spans(window, "A")
    pane.setFocus()
    pane.move_caret(0)
    pane.verticalScrollBar().setValue(0)
    for index in (i1, i2):
        qtbot.keyClick(pane, Qt.Key.Key_F9)
        caret = pane.textCursor().position()
        assert caret == ends[index] and window.navigation.selection == ("A", index)
        top, bottom = pane.y_locator()(caret)
        assert abs((top + bottom) / 2 - pane.viewport().height() / 2) < pane.viewport().height() * 0.15, "centred"
    window.statusBar().clearMessage()
    qtbot.keyClick(pane, Qt.Key.Key_F9)
    assert pane.textCursor().position() == ends[i2]
    assert "no cut splitting a reference after this one (2 in all)" in window.statusBar().currentMessage()
    qtbot.keyClick(pane, Qt.Key.Key_F9, Qt.KeyboardModifier.ShiftModifier)
    assert pane.textCursor().position() == ends[i1] and window.navigation.selection == ("A", i1)

    window.pane_b.setFocus()
    qtbot.keyClick(window.pane_b, Qt.Key.Key_F9)
    assert window.statusBar().currentMessage() == "B: no cut splits a reference"
