"""Many edits keep the window's caches at their bounds: every analysed edit is a new
text, and each cache keyed by text (the pipeline's documents, the comparison's diffs and
baselines, the other rule's comparisons) keeps at most its own number of them, whatever
the number of edits (python -m steadlith_gui.tools.edit_memory measures the memory)."""

from __future__ import annotations

from gui_helpers import load_texts
from PySide6.QtTest import QTest

EDITS = 12  # twice the pipeline's six documents
TEXT = "A sentence of words that goes on. Another one follows here, longer still.\n\n" * 40


def _analysed_edit(qtbot, window, i: int) -> None:
    pane = window.panes["B"]
    cursor = pane.textCursor()
    cursor.setPosition((i * 97) % (len(TEXT) - 1))
    pane.setTextCursor(cursor)
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        QTest.keyClicks(pane, "x")
        window.editing.pause.flush()  # the typing pause runs out now


def _sizes(analysis) -> dict[str, int]:
    return {"documents": len(analysis.pipeline._docs), "diffs": len(analysis._diffs.data),
            "baselines": len(analysis._baselines.data), "baseline churns": len(analysis._baseline_churns.data)}


def test_every_cache_keyed_by_text_stays_at_its_bound(qtbot, window):
    load_texts(qtbot, window, TEXT, TEXT)
    analyzer = window.documents_ctl.analyzer
    analysis = analyzer._pipeline
    bounds = {"documents": analysis.pipeline._docs.size, "diffs": analysis._diffs.size,
              "baselines": analysis._baselines.size, "baseline churns": analysis._baseline_churns.size}
    seen = []
    for i in range(1, EDITS + 1):
        _analysed_edit(qtbot, window, i)
        seen.append(_sizes(analysis))
    assert window.panes["B"].toPlainText().count("x") == EDITS  # every edit was typed
    assert seen[-1]["documents"] == bounds["documents"]  # full: the edits did pass through it
    for sizes in seen:
        assert all(sizes[name] <= bounds[name] for name in bounds), (sizes, bounds)
    # the other rule's comparisons: one per rule, however many texts were compared
    assert len(analyzer._other_rules._last) <= 2
