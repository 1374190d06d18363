"""The "Small edit in prose" example is a real edit of real prose: Pride and Prejudice as
shipped (SOURCES.md), one word respelled in its middle, and the window lands on it."""

from steadlith_core.chunking.normalize import normalize

from steadlith_gui.model.demo import DEMO_DIR, PAIR_EXAMPLES, SMALL_EDIT_TEXT
from test_churn import load_example


def test_the_small_edit_is_one_word_of_real_prose_in_its_middle():
    text_a, text_b, _params = PAIR_EXAMPLES["small-edit"].make()
    assert text_a == (DEMO_DIR / SMALL_EDIT_TEXT).read_text(encoding="utf-8")
    assert text_a.startswith("Chapter I.\n\nIt is a truth universally acknowledged, that a single man")
    assert SMALL_EDIT_TEXT in (DEMO_DIR / "SOURCES.md").read_text(encoding="utf-8")
    words_a, words_b = normalize(text_a), normalize(text_b)
    changed = [k for k, (x, y) in enumerate(zip(words_a.texts, words_b.texts)) if x != y]
    assert len(words_a) == len(words_b) and len(changed) == 1
    assert 0.3 < changed[0] / len(words_a) < 0.7  # in the middle


def test_the_example_opens_on_its_edit(qtbot, window):
    result = load_example(qtbot, window, "small-edit")
    assert result.comparison.summary.edits == 1
    pane = window.pane_b
    at = window.session.current_text("B").index("Tomorrow")
    lo, hi = pane.visible_position_range()
    assert lo <= at <= hi
