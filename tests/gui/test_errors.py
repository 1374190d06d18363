"""Bad files and empty documents give a clear message in the window; the app lives
on and what was loaded before stays loaded."""

import sys

import pytest
from PySide6.QtWidgets import QLabel, QToolButton
from steadlith_core import ChunkerParams, TokenCounter, register_counter, unregister_counter

from gui_helpers import load_files, set_params
from steadlith_gui.app import install_excepthook

GOOD_A = "The first version of a small document. It has a few sentences.\n\nAnd a second paragraph.\n"
GOOD_B = "The second version of a small document. It has a few more sentences than before.\n"


def message(window) -> str:
    return window.findChild(QLabel, "messageText").text()


@pytest.fixture
def loaded(qtbot, window, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(GOOD_A, encoding="utf-8")
    b.write_text(GOOD_B, encoding="utf-8")
    result = load_files(qtbot, window, a, b)
    return window, result


def bad_file(tmp_path, kind):
    p = tmp_path / f"bad-{kind}.txt"
    if kind == "missing":
        return p
    if kind == "directory":
        p.mkdir()
    elif kind == "binary":
        p.write_bytes(b"PNG\x00\x01\x02 not text")
    elif kind == "utf8":
        p.write_bytes(b"caf\xe9 au lait")
    elif kind == "empty":
        p.write_bytes(b"")
    elif kind == "blank":
        p.write_bytes(b" \n\t\r\n ")
    return p


@pytest.mark.parametrize(
    "kind, expected",
    [
        ("missing", "no such file"),
        ("directory", "is a directory"),
        ("binary", "binary file (NUL byte at byte offset 3)"),
        ("utf8", "not valid UTF-8: byte 0xe9 at byte offset 3"),
        ("empty", "A is empty: nothing to chunk"),
        ("blank", "A has only whitespace: nothing to chunk"),
    ],
)
def test_bad_file_keeps_previous_documents(qtbot, loaded, tmp_path, kind, expected):
    window, before = loaded
    path = bad_file(tmp_path, kind)
    with qtbot.waitSignal(window.load_failed, timeout=10_000) as blocker:
        window.documents_ctl.load_files(path, None)
    assert expected in blocker.args[0]
    bar = window.message_bar
    assert bar.isVisible() and bar.objectName() == "messageBar"
    assert expected in message(window) and "still shows the document loaded before" in message(window)
    # nothing was lost: the same documents, the same result, and the window still works
    assert window.pane_a.toPlainText() == GOOD_A.replace("\r\n", "\n")
    assert window.session.result is before
    assert window.session.documents()[0].text == GOOD_A
    after = set_params(qtbot, window, ChunkerParams(min_tokens=4, max_tokens=16))
    assert after.a.text == GOOD_A and after.b.text == GOOD_B


def test_empty_text_keeps_previous_and_other_side_loads(qtbot, loaded):
    window, before = loaded
    with qtbot.waitSignal(window.load_failed, timeout=10_000):
        with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as ready:
            window.documents_ctl.load_texts("", "A new B that loads fine.")
    assert "A is empty: nothing to chunk" in message(window)
    assert ready.args[0].a.text == GOOD_A  # A kept
    assert ready.args[0].b.text == "A new B that loads fine."


def test_message_bar_is_dismissible(qtbot, loaded, tmp_path):
    window, _ = loaded
    with qtbot.waitSignal(window.load_failed, timeout=10_000):
        window.documents_ctl.load_files(tmp_path / "nope.txt", None)
    assert window.message_bar.isVisible()
    window.message_bar.findChild(QToolButton, "messageClose").click()
    assert not window.message_bar.isVisible()


def test_failing_token_counter_is_reported_and_result_kept(qtbot, loaded):
    window, before = loaded
    register_counter(TokenCounter("broken/1", "returns zero", per_word=lambda w: 0))
    try:
        with qtbot.waitSignal(window.analyzer.failed, timeout=10_000):
            window.session.set_params(ChunkerParams(token_counter="broken/1"), show=True)
        assert "Analysis failed" in message(window) and "broken/1" in message(window)
        assert window.session.result is before
    finally:
        unregister_counter("broken/1")


def test_unexpected_exception_goes_to_the_message_bar(loaded, capsys):
    window, _ = loaded
    previous = sys.excepthook
    install_excepthook(window)
    try:
        try:
            raise RuntimeError("something odd")
        except RuntimeError:
            sys.excepthook(*sys.exc_info())
    finally:
        sys.excepthook = previous
    assert "Unexpected error: RuntimeError: something odd" in message(window)
    assert window.isVisible()
