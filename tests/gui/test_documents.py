"""Documents: the original text is shown, code gets syntax colour, files can be dropped."""

import gc

import pytest

from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from gui_helpers import load_files, load_texts
from steadlith_gui.model.demo import demo_paths
from steadlith_gui.model.documents import prepare_document
from steadlith_gui.widgets.document_pane import DocumentPane


def formatted_blocks(pane) -> int:
    n, block = 0, pane.document().firstBlock()
    while block.isValid():
        n += bool(block.layout().formats())
        block = block.next()
    return n


def test_original_text_not_canonical(qtbot, window):
    text = "Tabs\tand   runs   of spaces\n\n\n\nstay as they are.\n"
    result = load_texts(qtbot, window, text, text)
    assert window.pane_a.toPlainText() == text
    assert result.a.chunks[0].text != text  # the canonical text differs; the pane shows the original


def test_code_gets_syntax_colour_and_the_toggle_removes_it(qtbot, window):
    a, b = demo_paths("python")
    load_files(qtbot, window, a, b)
    pane = window.pane_a
    assert pane.syntax_active and pane.document_info.syntax.lexer_name == "Python"
    assert formatted_blocks(pane) > 20
    window.act["syntax"].setChecked(False)
    assert not pane.syntax_active and formatted_blocks(pane) == 0
    window.act["syntax"].setChecked(True)
    assert formatted_blocks(pane) > 20


@pytest.mark.parametrize("toggles", [0, 1, 2], ids=["coloured", "colour-off", "colour-on-again"])
def test_a_code_pane_freed_by_the_garbage_collector_goes_quietly(qtbot, toggles):
    """The window's panes live as long as the app, but a pane made alone is freed by
    the cyclic collector (in the GUI thread, from a timer). Its syntax highlighter must
    not report to the pane while the pane is being torn down: PySide raised "Slot
    'DocumentPane::' not found" from that, and sometimes crashed."""
    source = "def f(x):\n    return x + 1\n" * 40
    pane = DocumentPane("A")
    pane.set_document(prepare_document("A", source, name="code.py"))
    assert pane.syntax_active
    for k in range(toggles):
        pane.set_syntax_enabled(k % 2 == 1)
    pane.show()
    qtbot.waitExposed(pane)
    pane.close()
    del pane
    gc.collect()  # pytest-qt fails the test on any exception raised in a Qt callback


def test_plain_text_has_no_lexer(qtbot, window, tmp_path):
    p = tmp_path / "notes.txt"
    p.write_text("Just some notes.\n", encoding="utf-8")
    load_files(qtbot, window, p, p)
    assert window.pane_a.document_info.syntax is None and not window.pane_a.syntax_active


# Qt 6 only offers the QPoint constructor of QDragEnterEvent, marked deprecated
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_drop_a_file_on_pane_b(qtbot, window, tmp_path):
    load_texts(qtbot, window, "Version A of a text.", "Version B of a text.")
    p = tmp_path / "dropped.md"
    p.write_text("# Dropped\n\nA dropped document.\n", encoding="utf-8")
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p))])
    viewport = window.pane_b.viewport()
    args = (Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier)
    enter = QDragEnterEvent(QPointF(20, 20).toPoint(), *args)  # a drop follows an accepted drag enter
    assert QApplication.sendEvent(viewport, enter) and enter.isAccepted()
    drop = QDropEvent(QPointF(20, 20), Qt.DropAction.CopyAction, mime, Qt.MouseButton.LeftButton,
                      Qt.KeyboardModifier.NoModifier)
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        QApplication.sendEvent(viewport, drop)
    assert blocker.args[0].b.text == "# Dropped\n\nA dropped document.\n"
    assert blocker.args[0].a.text == "Version A of a text."
    assert window.pane_b.document_info.name == "dropped.md"


def test_swap(qtbot, window):
    load_texts(qtbot, window, "first text here", "second text here")
    with qtbot.waitSignal(window.analysis_ready, timeout=10_000) as blocker:
        window.documents_ctl.swap()
    assert blocker.args[0].a.text == "second text here" and window.pane_a.toPlainText() == "second text here"


def test_result_is_a_named_tuple_with_chunkings_first(qtbot, window):
    from steadlith_core import Chunking

    result = load_texts(qtbot, window, "alpha beta gamma", "delta epsilon")
    a, b, *_ = result
    assert isinstance(a, Chunking) and isinstance(b, Chunking)
    assert result._fields[:3] == ("a", "b", "comparison")
    assert window.session.result is result
    for name in ("paneA", "paneB", "paramsPanel", "paramsHash", "diagnosticsA", "diagnosticsB", "legend"):
        assert window.findChild(object, name) is not None, name

