"""The session model alone: no window, no widgets, no QApplication, no PySide6.

Every model test (this folder) runs twice: in the suite's process (fast to read when it
fails), and in a fresh interpreter with neither the GUI conftest nor pytest-qt loaded,
where every test is also checked to have loaded no PySide6 module (model_qt_probe.py,
started by test_the_model_runs_without_qt)."""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from steadlith_core import ChunkerParams, chunk, compare
from steadlith_core.bench.examples import generate_prose

from steadlith_gui.model.demo import PAIR_EXAMPLES
from steadlith_gui.model.session import EditedText, Session
from steadlith_gui.model.workspace import CHUNK_FILTER_KEYS, DEFAULT_VIEW

ALONE = "STEADLITH_SESSION_ALONE"  # set in the subprocess run (model_qt_probe.py reads it)


def type_chars(s, side, n):
    """`n` characters typed at the start of a side: its revision moves on by `n`."""
    for _ in range(n):
        s.note_edit(side, 0, 0, 1)


def test_the_model_runs_without_qt():
    """Importing the session loads no PySide6, and every model test passes without Qt."""
    if os.environ.get(ALONE):
        pytest.skip("this is the run it starts")
    probe = "import sys, steadlith_gui.model.session; print(sorted(m for m in sys.modules if m.startswith('PySide6')))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    folder = Path(__file__).parent  # every model test, not only this file's
    helpers = str(folder.parent)  # git_helpers
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:pytest-qt", "-p", "no:cacheprovider", "--noconftest",
         "-c", os.devnull, "--rootdir", str(folder), "-p", "model_qt_probe", str(folder)],
        capture_output=True, text=True, cwd=folder,
        env={**os.environ, ALONE: "1", "PYTHONPATH": os.pathsep.join(filter(None, (helpers, str(folder),
                                                                                   os.environ.get("PYTHONPATH"))))})
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout


@dataclasses.dataclass(frozen=True, eq=False)
class Doc:
    """What the session needs of a LoadedDocument (the real one lives beside Qt models)."""

    text: str
    name: str
    path: str | None = None
    revision: int = 0
    origin: "Doc | None" = None

    @property
    def root(self) -> "Doc":
        return self.origin if self.origin is not None else self


def result_for(doc_a, doc_b, params=ChunkerParams()):
    """An analysis result as the worker makes it: chunkings, comparison, the documents."""
    a = chunk(doc_a.text, params) if doc_a is not None else None
    b = chunk(doc_b.text, params) if doc_b is not None else None
    comparison = compare(a, b) if a is not None and b is not None else None
    return SimpleNamespace(a=a, b=b, comparison=comparison, doc_a=doc_a, doc_b=doc_b, params=params,
                           side_status=lambda side: None)


class Recorder:
    def __init__(self, session: Session):
        self.events: list[tuple] = []
        for name in ("document_replaced", "side_changed", "documents_changed", "params_changed", "view_changed",
                     "analysis_wanted", "result_changed", "message", "load_failed"):
            getattr(session.events, name).connect(lambda *args, n=name: self.events.append((n, *args)))

    def names(self) -> list[str]:
        return [e[0] for e in self.events]

    def clear(self) -> None:
        self.events.clear()


def loaded_session(text_a="Alpha text here. " * 40, text_b="Beta text here. " * 40, confirm=None):
    texts = {}
    s = Session(confirm=confirm, text_provider=lambda side: texts[side])
    a, b = Doc(text_a, "a.txt", "/docs/a.txt"), Doc(text_b, "b.txt")
    s.begin_load(1, ("A", "B"))
    s.loaded(1, {"A": a, "B": b}, [])
    texts.update(A=text_a, B=text_b)
    return s, a, b, texts


def test_a_deleted_listener_is_not_called():
    """Slots are weakly referenced: a part that is gone stops listening without having
    to disconnect, and the session never keeps it alive."""

    class Listener:
        def __init__(self, calls: list):
            self.calls = calls

        def on_params(self, params) -> None:
            self.calls.append(params)

    s = Session()
    kept, dropped = [], []
    listener, gone = Listener(kept), Listener(dropped)
    s.events.params_changed.connect(listener.on_params)
    s.events.params_changed.connect(gone.on_params)
    del gone
    s.set_params(ChunkerParams(min_tokens=40))
    assert len(kept) == 1 and dropped == []


def test_blocked_events_are_not_emitted():
    s = Session()
    rec = Recorder(s)
    with s.events.params_changed.blocked():
        s.set_params(ChunkerParams(min_tokens=40))
    assert "params_changed" not in rec.names()
    rec.clear()
    with s.events.blocked():  # the whole group
        s.set_params(ChunkerParams(min_tokens=48))
        s.set_view(syntax_colour=False)
    assert rec.names() == []
    s.set_params(ChunkerParams(min_tokens=56))
    assert "params_changed" in rec.names()


def test_a_load_shows_both_documents_and_asks_for_one_analysis():
    s = Session()
    rec = Recorder(s)
    a, b = Doc("Alpha.", "a.txt", "/docs/a.txt"), Doc("Beta.", "b.txt")
    s.begin_load(1, ("A", "B"), remember=True)
    assert s.loading and s.load_pending("A")
    outcome = s.loaded(1, {"A": a, "B": b}, [])
    assert outcome.applied == ("A", "B") and outcome.remember and outcome.message is None
    assert s.documents() == (a, b) and not s.loading
    assert s.identity("A") == ("a.txt", "/docs/a.txt") and s.identity("B") == ("b.txt", None)
    assert rec.names() == ["document_replaced", "document_replaced", "documents_changed", "analysis_wanted"]


def test_a_batch_overtaken_by_a_newer_load_of_the_same_side_is_dropped():
    s = Session()
    old, new = Doc("Old B.", "old"), Doc("New B.", "new")
    s.begin_load(1, ("B",))
    s.begin_load(2, ("B",))
    s.loaded(2, {"B": new}, [])
    rec = Recorder(s)
    outcome = s.loaded(1, {"B": old}, [])
    assert outcome.applied == () and s.documents() == (None, new) and "analysis_wanted" not in rec.names()


def test_typing_during_a_load_is_asked_about_and_no_keeps_the_edits():
    s, a, b, texts = loaded_session(confirm=lambda question: False)
    s.begin_load(2, ("B",))
    s.note_edit("B", 0, 0, 1)  # one typed character
    s.note_modified("B", True)
    rec = Recorder(s)
    outcome = s.loaded(2, {"B": Doc("Replacement.", "r")}, [])
    assert outcome.applied == () and s.documents()[1] is b
    assert ("message", "Loading B was cancelled: your edits are kept.", "info") in rec.events


def test_a_failed_load_says_what_is_still_shown():
    s, a, b, _ = loaded_session()
    rec = Recorder(s)
    s.begin_load(2, ("A",))
    s.loaded(2, {}, [("A", "Cannot load A: no such file")])
    assert s.documents() == (a, b)
    failed = [e for e in rec.events if e[0] == "load_failed"]
    assert failed == [("load_failed", "Cannot load A: no such file\nA still shows the document loaded before.")]


def test_what_is_analysed_follows_the_edit_state():
    s, a, b, texts = loaded_session()
    assert s.source("B") is b  # as loaded
    texts["B"] = "Typed. " + texts["B"]
    type_chars(s, "B", 3)
    s.note_modified("B", True)
    src = s.source("B")
    assert isinstance(src, EditedText) and src.text == texts["B"] and src.revision == 3 and src.origin is b
    type_chars(s, "B", 1)
    s.note_modified("B", False)  # undone back to the text as loaded: no re-indexing of typed text
    undone = s.source("B")
    assert undone.text == b.text and undone.revision == 4 and undone.root is b


def test_save_as_moves_the_identity_and_the_clean_state():
    s, a, b, texts = loaded_session()
    rec = Recorder(s)
    type_chars(s, "B", 2)
    s.note_modified("B", True)
    assert s.mark_saved("B", "/out/c.txt", b, revision=2)
    assert s.identity("B") == ("c.txt", "/out/c.txt") and s.sides["B"].path == "/out/c.txt"
    assert not s.sides["B"].modified and ("side_changed", "B") in rec.events
    # the clean state is now the saved text: unmodified no longer means "as loaded"
    assert isinstance(s.source("B"), EditedText)
    assert not s.mark_saved("A", "/out/x.txt", b, revision=0)  # A shows another document


def test_swap_trades_documents_with_their_save_targets():
    s, a, b, _ = loaded_session()
    s.mark_saved("B", "/out/c.txt", b, revision=0)
    assert s.swap_plan() == "identities"
    s.swap_identities()
    assert s.documents() == (b, a) and s.identity("A") == ("c.txt", "/out/c.txt")
    assert s.identity("B") == ("a.txt", "/docs/a.txt")
    s.note_modified("A", True)
    assert s.swap_plan() == "reload"
    s.begin_load(5, ("B",))
    assert s.swap_plan() == "refused"


def test_a_result_applies_only_to_the_documents_it_was_made_from():
    s, a, b, _ = loaded_session()
    rec = Recorder(s)
    r = result_for(a, b)
    assert s.accept_result(r) == {"A": True, "B": True}
    assert s.consistent and s.comparison is r.comparison
    assert len(s.alignment["A"]) == len(r.comparison.alignment)
    assert rec.events[-1] == ("result_changed", r, True)
    # B replaced while an analysis of the old pair was running: that result shows A only
    s.set_document("B", Doc("Another B entirely. " * 30, "b2"))
    assert s.comparison is None and s.sides["B"].chunking is None
    assert s.accept_result(result_for(a, b)) == {"A": True, "B": False}
    assert s.comparison is None and not s.alignment


def test_an_older_edit_result_never_replaces_a_newer_one():
    s, a, b, texts = loaded_session()
    edited = [Doc("Edit %d. " % n + b.text, "b.txt", None, n, b) for n in (1, 2)]
    assert s.accept_result(result_for(a, edited[1]))["B"]
    assert s.documents()[1] is edited[1] and s.sides["B"].shown_revision == 2
    assert not s.accept_result(result_for(a, edited[0]))["B"]
    assert s.documents()[1] is edited[1] and not s.consistent


def test_the_session_keeps_the_edits_the_shown_chunks_move_by():
    """One keeper of a side's revision: each change the pane reports is recorded here; a
    result made part-way through the typing keeps only the later edits to shift by."""
    s, a, b, texts = loaded_session()
    s.note_edit("B", 0, 0, 4)
    s.note_edit("B", 10, 2, 0)
    s.note_edit("B", 5, 0, 0)  # changed nothing: no revision
    side = s.sides["B"]
    assert side.revision == 2 and side.shown_revision == 0 and side.has_pending_edits
    assert side.edits.pending() == [(0, 0, 4), (10, 2, 0)]
    assert s.accept_result(result_for(a, Doc("Typed" + b.text, "b.txt", None, 1, b)))["B"]
    assert side.shown_revision == 1 and side.edits.pending() == [(10, 2, 0)] and side.has_pending_edits
    s.set_document("B", Doc("Another B entirely. " * 30, "b2"))
    assert side.revision == side.shown_revision == 0 and side.edits.pending() == []


def test_parameters_are_held_per_rule_and_carried_by_their_event():
    s, a, b, _ = loaded_session()
    rec = Recorder(s)
    p = ChunkerParams(min_tokens=40)
    s.set_params(p)
    assert s.params is p and s.params_for("tttd-v1") is p
    assert rec.events == [("params_changed", p), ("analysis_wanted",)]
    rec.clear()
    with s.hold_analysis():
        s.set_params(ChunkerParams(min_tokens=50))
    assert rec.names() == ["params_changed"]
    with pytest.raises(TypeError, match="no boundary rule"):
        s.set_params({"min_tokens": 3})


def test_view_options_are_what_a_workspace_saves():
    s = Session()
    view = s.view.as_dict()
    assert {k: v for k, v in view.items() if k != "chunk_filter"} == DEFAULT_VIEW  # a new window's view
    assert set(s.view.chunk_filter) == set(CHUNK_FILTER_KEYS)
    rec = Recorder(s)
    s.set_view(legend=True)  # unchanged: no event
    assert rec.events == []
    s.apply_view({"legend": False, "sync_scroll": "yes", "theme": "dark", "chunk_filter": {"status": "shifted",
                                                                                          "text": 3}})
    assert not s.view.legend and s.view.sync_scroll and s.view.theme == "dark"  # a wrong type is ignored
    assert s.view.chunk_filter == {"text": "", "version": "", "status": "shifted"}
    assert rec.names() == ["view_changed"]
    s.apply_view({"theme": "light", "edit_a": True}, keep_theme=True)
    assert s.view.theme == "dark" and s.view.edit_a
    # a workspace's filter value the table does not offer is not kept (nor saved again)
    s.apply_view({"chunk_filter": {"version": "Z", "status": "bogus", "text": "hash"}})
    assert s.view.chunk_filter == {"text": "hash", "version": "", "status": "shifted"}
    s.apply_view({"chunk_filter": {"version": "A", "status": "changed"}})
    assert s.view.chunk_filter == {"text": "hash", "version": "A", "status": "changed"}


def test_an_example_with_a_jump_shows_its_first_shifted_region_once():
    text_a, text_b, params = PAIR_EXAMPLES["phase-shift"].make()
    s = Session(params)
    s.begin_load(1, ("A", "B"))
    s.jump_to_first_shift_after(1)
    a, b = Doc(text_a, "v1"), Doc(text_b, "v2")
    s.loaded(1, {"A": a, "B": b}, [])
    s.accept_result(result_for(a, b, params))
    assert s.comparison.phase_shift_regions
    assert s.take_jump() and not s.take_jump()


def test_no_analysis_is_asked_for_without_documents():
    s = Session()
    rec = Recorder(s)
    s.set_params(ChunkerParams(min_tokens=64))
    assert "analysis_wanted" not in rec.names()
    assert generate_prose(10, seed=1)  # the core's example text is importable without Qt too
