"""Opening documents: the loader and the analyzer on the Qt side of the session.

Loads (files, texts, examples, swaps, drops) go to the loader thread; batches that
arrive are handed to the session, which decides what is still wanted. The session asks
for an analysis (`analysis_wanted`) and this controller submits its inputs to the
worker; a result goes back to the session, whose `result_changed` the presenter renders.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QFileDialog, QWidget
from steadlith_core.history.repository import RevisionRef

from ..model.demo import EXAMPLES, PAIR_EXAMPLES, demo_paths
from ..model.session import OTHER, SIDES, Session
from ..workers.loading import DocumentLoader, FileSource, LoadBatch, RevisionSource, TextSource
from ..workers.worker import Analyzer
from .recent import RecentFilesMenu
from .settings import is_revision


def _source(where, label: str | None) -> FileSource | RevisionSource:
    if isinstance(where, RevisionRef):
        return RevisionSource.of(where, label)
    return FileSource(str(where), label)


def _recent_source(side) -> FileSource | RevisionSource:
    """A side of a recent entry (settings.is_revision): read again exactly as when it was
    opened, so a commit that is gone is the loader's usual one-line error."""
    if is_revision(side):
        return RevisionSource(side["repo"], side["path"], side["commit"])
    return FileSource(side)


class DocumentController(QObject):
    """It holds the session, the recent-files menu (what opened is remembered there), a
    message callback and the widget its Open dialog belongs to, not the window."""

    def __init__(self, session: Session, recent: RecentFilesMenu,
                 dialogs: QWidget | None = None, parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.recent = recent
        self.show_message = session.tell
        self.dialogs = dialogs
        self.analyzer = Analyzer(parent)
        self.loader = DocumentLoader(parent)
        self.loader.loaded.connect(self._on_loaded)
        self.analyzer.result_ready.connect(session.accept_result)
        session.events.analysis_wanted.connect(self.submit)
        self._recent_loads: dict[int, dict] = {}  # load seq -> the recent entry it opens

    def submit(self) -> None:
        a, b, params = self.session.analysis_inputs()
        if a is not None or b is not None:
            others = {r: p for r, p in self.session.params_by_rule.items() if r != self.session.rule}
            self.analyzer.submit(a, b, params, others, self.session.external)

    def _start(self, sources: dict, land: bool = True, **kw) -> int | None:
        """Load `sources`; `land`: once analysed, show the pair's first change (every way
        of opening a pair does; a swap or a reload keeps the place the user was reading)."""
        if not sources:
            return None
        kept = {side: doc.text for side, doc in zip(SIDES, self.session.documents()) if doc is not None}
        seq = self.loader.load(sources, held=kept)  # a side kept counts against the pair's budget
        self.session.begin_load(seq, tuple(sources), **kw)
        self.session.jump_to_first_shift_after(seq if land else None)
        return seq

    def load_texts(self, text_a: str | None, text_b: str | None, name_a: str | None = None,
                   name_b: str | None = None) -> None:
        sources = {}
        if text_a is not None:
            sources["A"] = TextSource(text_a, name_a or "A (text)")
        if text_b is not None:
            sources["B"] = TextSource(text_b, name_b or "B (text)")
        if self.session.confirm_discard(sources):
            self._start(sources)

    def restore_texts(self, texts: dict) -> None:
        """{side: (text, name, path)} left unsaved by a window that ended (controllers.recovery):
        loaded as edited copies of their files, so they still count as unsaved."""
        sources = {s: TextSource(text, name, path) for s, (text, name, path) in texts.items()}
        if self.session.confirm_discard(sources):
            self._start(sources, modified={s: True for s in sources})

    def load_files(self, path_a=None, path_b=None, *, remember: bool = True, labels=None) -> None:
        """`labels`: side -> the name to show instead of the file's. A side given as a
        RevisionRef (steadlith_core.history.repository) is read from git at that commit."""
        labels = labels or {}
        sources = {s: _source(p, labels.get(s)) for s, p in (("A", path_a), ("B", path_b)) if p is not None}
        if self.session.confirm_discard(sources):
            self._start(sources, remember=remember)

    def open_recent(self, entry: dict) -> None:
        """Open a File → Recent files entry; one that no longer loads leaves the list."""
        sources = {s: _recent_source(entry[k]) for s, k in (("A", "a"), ("B", "b")) if entry.get(k)}
        if self.session.confirm_discard(sources):
            seq = self._start(sources, remember=True)
            if seq is not None:
                self._recent_loads[seq] = entry

    def load_revision_pair(self, ref_a, ref_b) -> None:
        """Show two revisions of a file (each a RevisionRef, or anything with `repo`,
        `path` and `commit`); without `ref_a` (B added the file) A is emptied, since any
        other document there would pass for the version before."""
        sides = SIDES if ref_a is None else {"A": ref_a, "B": ref_b}
        if not self.session.confirm_discard(sides):
            return
        if ref_a is None:
            self.session.sides["A"].seq = self.session.new_private_seq()  # a load still on its way is stale
            self.session.set_document("A", None)
        sources = {"B": RevisionSource.of(ref_b)}
        if ref_a is not None:
            sources["A"] = RevisionSource.of(ref_a)
        self._start(sources, remember=True)

    def load_example(self, name: str, params=None) -> None:
        """Show a built-in example. Parameters it brings are its own: the session puts
        the user's aside and gives them back when the user's documents load."""
        if not self.session.confirm_discard(SIDES):
            return
        rule_params = None
        if name in EXAMPLES:
            path_a, path_b = demo_paths(name)
            sources, note = {"A": FileSource(str(path_a)), "B": FileSource(str(path_b))}, ""
        else:
            ex = PAIR_EXAMPLES[name]
            text_a, text_b, ex_params = ex.make()
            params = params or ex_params
            rule_params = ex.rule_params() if ex.rule_params is not None else None
            sources = {"A": TextSource(text_a, ex.names[0]), "B": TextSource(text_b, ex.names[1])}
            note = ex.note
        restore = self.session.enter_example(name, own_params=params is not None or rule_params is not None)
        with self.session.hold_analysis():  # the load below asks once, with these parameters
            if rule_params is not None:
                self.session.set_all_params(rule_params)
            if params is not None or restore is not None:
                self.session.set_params(params if params is not None else restore, show=True)
        seq = self._start(sources, land=True)
        self.session.example_loading(seq)
        self.session.set_example_note(note)
        if note:
            self.show_message(note, "info")

    def swap(self) -> None:
        plan = self.session.swap_plan()
        if plan == "refused":
            self.show_message("Swap A and B: a document is still loading; wait for the load to finish.", "info")
        elif plan == "identities":
            self.session.swap_identities()
        elif plan == "reload":
            self._swap_edited()

    def _swap_edited(self) -> None:
        """Swap keeping the edits: the texts as shown are loaded on the other side."""
        sources, modified, emptied = {}, {}, []
        for src in SIDES:  # take both texts before a side is emptied
            dst = OTHER[src]
            st = self.session.sides[src]
            if st.doc is None:
                emptied.append(dst)
                continue
            name, path = st.identity
            sources[dst] = TextSource(self.session.current_text(src), name, path)
            modified[dst] = st.modified
        for dst in emptied:
            self.session.sides[dst].seq = self.session.new_private_seq()  # never a loader batch's number
            self.session.set_document(dst, None)
        self._start(sources, land=False, modified=modified, swap=True)

    def reload(self) -> None:
        paths = {s: self.session.identity(s)[1] for s in SIDES}
        sources = {s: FileSource(str(p)) for s, p in paths.items() if p}
        if sources and self.session.confirm_discard(sources):
            self._start(sources, land=False, remember=False, keeps_workspace=True)

    def _on_loaded(self, batch: LoadBatch) -> None:
        outcome = self.session.loaded(batch.seq, batch.documents, batch.errors)
        entry = self._recent_loads.pop(batch.seq, None)
        if entry is not None and batch.errors:
            self.recent.forget(entry)
        elif outcome.remember:
            self.recent.remember(self.session.sides)

    def open_dialog(self, side: str) -> None:
        path = self.session.identity(side)[1]
        start = str(Path(path).parent) if path else ""
        path, _ = QFileDialog.getOpenFileName(self.dialogs, f"Open {side}", start, "Text files (*);;All files (*)")
        if path:
            self.load_files(*(path, None) if side == "A" else (None, path))

    def files_dropped(self, paths: list[str], side: str | None) -> None:
        if len(paths) >= 2:
            self.load_files(paths[0], paths[1])
        elif paths:
            target = side or "A"
            self.load_files(*(paths[0], None) if target == "A" else (None, paths[0]))
