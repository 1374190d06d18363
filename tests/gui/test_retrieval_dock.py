"""The Retrieval dock: a run scores each rule's current parameters on a question set (BM25)
off the GUI thread and fills the table with the core's figures; Cancel stops the work;
the table is marked stale when a parameter changes; a bad question file is one line.

The question set is written by the tests over the inspector's own demo guides
(steadlith_gui/resources/demo, written for this project): two corpora, questions whose
references are sentences of them."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from PySide6.QtCore import QCoreApplication, Qt
from steadlith_core.retrieval import RULE, BM25Retriever, ChunkingSpec, evaluate, load_corpora, load_questions

from gui_helpers import load_texts
from steadlith_gui.model.demo import DEMO_DIR
from steadlith_gui.model.job_state import CANCELLED, DONE, RUNNING
from steadlith_gui.model.retrieval_state import STALE_NOTE
from steadlith_gui.workers.retrieval import run_retrieval

GUIDES = ("chunking-guide-v1", "chunking-guide-v2")
PHRASES = ("The simplest chunker counts.", "A content-defined chunker cuts where the text itself says so.",
           "The polynomial must be irreducible.", "That is the promise:")


def guide(cid: str) -> str:
    return (DEMO_DIR / f"{cid}.md").read_text(encoding="utf-8")


def write_questions(path: Path, refs: dict[str, list[tuple[int, int]]]) -> str:
    """One question per reference, as JSON Lines in Chroma's keys."""
    lines = []
    for cid, ranges in refs.items():
        text = guide(cid)
        for n, (s, e) in enumerate(ranges):
            lines.append(json.dumps({"question": f"What does the guide say about {text[s:e][:40]}? ({n})",
                                     "references": [{"content": text[s:e], "start_index": s, "end_index": e}],
                                     "corpus_id": cid}))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def benchmark(tmp_path: Path) -> tuple[str, str]:
    """(question file, corpora folder): the two guides, a question per phrase's sentence
    and paragraph in each."""
    folder = tmp_path / "corpora"
    folder.mkdir()
    refs = {}
    for cid in GUIDES:
        text = guide(cid)
        (folder / f"{cid}.md").write_text(text, encoding="utf-8")
        ranges = []
        for phrase in PHRASES:
            s = text.index(phrase)
            ranges.append((s, text.index("\n", s)))  # the rest of the paragraph
        refs[cid] = ranges
    return write_questions(tmp_path / "questions.jsonl", refs), str(folder)


def open_dock(window):
    window.retrieval_dock.toggleViewAction().trigger()


def run_and_wait(qtbot, window):
    with qtbot.waitSignal(window.retrieval.job.finished, timeout=60_000):
        qtbot.mouseClick(window.retrieval_view.run_button, Qt.MouseButton.LeftButton)


def table_rows(view):
    t = view.table
    return [[t.item(r, c).text() for c in range(t.columnCount())] for r in range(t.rowCount())]


def test_the_dock_opens_from_the_view_menu_in_front_of_the_diagnostics(qtbot, window):
    assert not window.retrieval_dock.isVisible()
    view_menu = next(a.menu() for a in window.menuBar().actions() if a.text() == "&View")
    assert window.retrieval_dock.toggleViewAction() in view_menu.actions()
    assert window.retrieval_dock.toggleViewAction().text() == "Retrie&val"
    open_dock(window)
    qtbot.waitUntil(lambda: not window.retrieval_view.visibleRegion().isEmpty())
    assert window.diagnostics_dock in window.tabifiedDockWidgets(window.retrieval_dock)


def test_a_run_fills_the_table_with_the_core_figures_of_each_rules_parameters(qtbot, window, tmp_path):
    questions, corpora = benchmark(tmp_path)
    open_dock(window)
    view = window.retrieval_view
    view.set_paths(questions, corpora)
    view.top_k.setValue(3)
    run_and_wait(qtbot, window)
    state = window.retrieval.state
    assert state.phase == DONE and not state.stale
    texts = load_corpora(corpora)
    specs = [ChunkingSpec(rule, RULE, window.session.params_for(rule)) for rule in ("tttd-v1", "lmx2-v1")]
    expected = evaluate(specs, texts, load_questions(questions, texts), BM25Retriever(), 3)
    rows = table_rows(view)
    assert [h for h in (view.table.horizontalHeaderItem(c).text() for c in range(7))] == \
        ["rule", "chunks", "mean tokens", "recall", "precision", "IoU", "precision_Ω"]
    assert [r[0] for r in rows] == ["tttd-v1", "lmx2-v1"]
    for row, result in zip(rows, expected.results):
        o = result.overall
        assert row[1:] == [f"{result.chunks:,}", f"{result.mean_tokens:,.1f}",
                           *(f"{v * 100:.1f} %" for v in (o.recall.mean, o.precision.mean, o.iou.mean,
                                                          o.precision_omega.mean))]
    assert 0 < expected.results[0].overall.recall.mean <= 1  # the questions find their passages
    assert view.status.text() == f"8 questions, BM25, top 3, {window.retrieval.state.seconds:.1f} s."
    assert not view.stale_note.isVisible() and view.progress.format() == "done"


class GatedBM25(BM25Retriever):
    """BM25 that waits inside its first ranking until the test lets it go on."""

    def __init__(self):
        super().__init__()
        self.entered, self.gate, self.calls = threading.Event(), threading.Event(), 0

    def rank(self, *args):
        self.calls += 1
        self.entered.set()
        self.gate.wait(20)
        return super().rank(*args)


def test_cancel_stops_the_work_and_leaves_the_table_empty(qtbot, window, tmp_path):
    questions, corpora = benchmark(tmp_path)
    view = window.retrieval_view
    view.set_paths(questions, corpora)
    retriever = GatedBM25()
    window.retrieval.runner = lambda request, progress: run_retrieval(request, progress, retriever=retriever)
    seen = []
    window.retrieval.job.progressed.connect(lambda done, total: seen.append((done, total)))
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(retriever.entered.is_set, timeout=30_000)  # inside the first rule's ranking
    assert window.retrieval.state.phase == RUNNING and view.cancel_button.isEnabled()
    assert not view.run_button.isEnabled()
    with qtbot.waitSignal(window.retrieval.job.cancelled, timeout=30_000):
        qtbot.mouseClick(view.cancel_button, Qt.MouseButton.LeftButton)
        retriever.gate.set()
    assert window.retrieval.job.shutdown(30_000)  # the worker has ended
    QCoreApplication.processEvents()
    assert retriever.calls == 1, "the second rule was never ranked: the work stopped"
    state = window.retrieval.state
    assert state.phase == CANCELLED and state.rows == ()
    assert view.table.rowCount() == 0
    assert view.status.text() == "Cancelled: that run left no result."
    assert view.progress.format() == "cancelled" and not view.cancel_button.isEnabled()
    assert view.run_button.isEnabled()


def test_a_parameter_change_after_the_run_marks_the_table_stale(qtbot, window, tmp_path):
    questions, corpora = benchmark(tmp_path)
    open_dock(window)
    view = window.retrieval_view
    view.set_paths(questions, corpora)
    run_and_wait(qtbot, window)
    measured = window.session.params_for("lmx2-v1")
    before = table_rows(view)
    assert not view.stale and view.table.item(0, 3).foreground().color().name() == window.theme_ctl.theme.text.lower()

    window.session.set_params(measured.with_changes(max_tokens=measured.max_tokens + 64))
    assert view.stale and view.stale_note.isVisible() and view.stale_note.text() == STALE_NOTE
    assert f"Stale: {STALE_NOTE}." in view.status.text()
    assert table_rows(view) == before  # the earlier figures stay, greyed
    assert all(view.table.item(r, c).foreground().color().name() == window.theme_ctl.theme.muted.lower()
               and view.table.item(r, c).font().italic() for r in range(2) for c in range(7))

    window.session.set_params(measured)  # the measured parameters again
    assert not view.stale and not view.stale_note.isVisible()
    assert "Stale" not in view.status.text()


def test_a_bad_question_file_is_one_line_in_the_dock_and_the_message_bar(qtbot, window, tmp_path):
    _, corpora = benchmark(tmp_path)
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"question": "q", "references": [], "corpus_id": "chunking-guide-v1"}\n', encoding="utf-8")
    view = window.retrieval_view
    with qtbot.waitSignal(window.retrieval.loader.failed, timeout=30_000):
        view.set_paths(str(bad), corpora)
    for text in (view.status.text(), window.message_bar.text()):
        assert "\n" not in text and "Traceback" not in text
        assert f"{bad}: line 1: question 1 ('q'): references must be a non-empty JSON list" in text
    unknown = tmp_path / "unknown.csv"
    unknown.write_text('question,references,corpus_id\nq,"[]",nowhere\n', encoding="utf-8")
    with qtbot.waitSignal(window.retrieval.job.failed, timeout=30_000):
        view.set_paths(str(unknown), corpora)
        qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert "unknown corpus id 'nowhere'" in view.status.text() and "\n" not in view.status.text()
    assert window.retrieval.state.rows == () and view.table.rowCount() == 0
    view.set_paths("", corpora)
    qtbot.mouseClick(view.run_button, Qt.MouseButton.LeftButton)
    assert view.status.text() == "Could not run: choose a question file (Chroma's CSV or JSON Lines)"


def test_a_run_loads_the_real_text_of_both_guides(qtbot, window, tmp_path):
    """The dock's run is steadlith_core's: the same figures as run_retrieval called directly."""
    questions, corpora = benchmark(tmp_path)
    load_texts(qtbot, window, guide(GUIDES[0]), guide(GUIDES[1]))
    window.retrieval_view.set_paths(questions, corpora)
    run_and_wait(qtbot, window)
    direct = run_retrieval(window.retrieval.state.request(window.retrieval.rules()))
    assert window.retrieval.state.rows == direct.rows
