"""Files the window writes: Save as… and the exports (report, comparison, chunks, PNG).

What to write is taken from the session (documents, identities, the shown result) in
the GUI thread; rendering and writing run on the thread pool (worker.Jobs)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable, Mapping

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QAction, QImage
from PySide6.QtWidgets import QFileDialog, QWidget
from steadlith_core.report.export import write_text_atomic

from ..model.session import SIDES, Session
from ..workers import exports
from ..workers.worker import Jobs
from .settings import AppSettings

NEEDS_COMPARISON = "it needs two analysed versions. Load A and B (or an example) and wait for the analysis."
EXPORT_WHAT = {"report": "report", "comparison": "comparison", "chunks-A": "chunks of A", "chunks-B": "chunks of B",
               "png": "picture of the window"}
REPORT_TIP = ("Write one self-contained HTML file for reviewers: both documents' chunks by kind and status, the "
              "legend, identity, churn, phase-shift regions and the locality verdict")
COMPARISON_TIP = "Write the comparison as JSON (the schema of `steadlith compare --format json`)"


def revision_file_name(path: str, short: str) -> str:
    """`docs/README.md` at `a6e7281` -> `README@a6e7281.md`: the commit in the name keeps
    two revisions of one file apart and never proposes the checked-out file itself; the
    extension stays last, so the copy opens with its syntax colour."""
    stem, ext = os.path.splitext(os.path.basename(path))
    return f"{stem}@{short}{ext}"


class ExportController(QObject):
    """Save as… and the exports. It holds the session, the jobs that write off the GUI
    thread, the settings (the folders last written to), the panes (Save as… clears a
    pane's modified flag), callables for messages, the status line, the lab's result and
    the window's picture, the export actions it enables, and the widget its file
    dialogs belong to; not the window."""

    saved = Signal(str, str)  # side, path
    save_failed = Signal(str, str)  # side, message
    exported = Signal(str, str)  # kind, path
    export_failed = Signal(str, str)  # kind, message

    def __init__(self, session: Session, jobs: Jobs, settings: AppSettings, panes: Mapping, *,
                 lab_result: Callable[[], Any], picture: Callable[[], QImage], actions: Mapping[str, QAction],
                 dialogs: QWidget | None = None, parent: QObject | None = None):
        """`actions`: the export actions by kind (report, comparison, chunks-A, chunks-B)."""
        super().__init__(parent)
        self.session = session
        self.jobs = jobs
        self.settings = settings
        self.panes = panes
        self.show_message = session.tell
        self.status = session.note
        self.lab_result = lab_result
        self.picture = picture
        self.actions = actions
        self.dialogs = dialogs
        session.events.document_replaced.connect(lambda _side: self.update_actions())
        session.events.result_changed.connect(lambda _result, _consistent: self.update_actions())

    def shown_names(self) -> tuple[str | None, str | None]:
        return self.session.identity("A")[0], self.session.identity("B")[0]

    def ask_save_path(self, title: str, name: str, filters: str, which: str = "export") -> str | None:
        folder = self.settings.folder(which)
        if folder is None:
            paths = [self.session.sides[s].path for s in ("B", "A")]
            folder = next((os.path.dirname(p) for p in paths if p), None) or os.getcwd()
        path, _ = QFileDialog.getSaveFileName(self.dialogs, title, os.path.join(folder, name), filters)
        return path or None

    def save_as(self, side: str, path: str | Path | None = None) -> int | None:
        st = self.session.sides[side]
        if st.doc is None:
            return None
        if path is None:
            path, _ = QFileDialog.getSaveFileName(self.dialogs, f"Save {side} as", self._save_start(side),
                                                  "Text files (*);;All files (*)")
            if not path:
                return None
        path = Path(path)
        text, revision, origin = self.session.current_text(side), st.revision, st.doc.root

        def write() -> str:
            write_text_atomic(path, text)
            return str(path)

        def done(_value) -> None:
            self.settings.set_folder("save", os.path.dirname(os.path.abspath(path)))
            if self.session.mark_saved(side, str(path), origin, revision):
                if self.session.sides[side].revision == revision:  # not typed in since the text was taken
                    self.panes[side].document().setModified(False)
            self.status(f"Saved {side} to {path}")
            self.saved.emit(side, str(path))

        def failed(message: str) -> None:
            self.show_message(f"Cannot save {side}: {message}", "error")
            self.save_failed.emit(side, message)

        return self.jobs.start(write, done, failed)

    def _save_start(self, side: str) -> str:
        """What Save as… proposes: a file's own path; for a git revision (whose title is
        no file name) `README@a6e7281.md` in the folder Save as… last wrote to, else in
        the file's folder of the working tree."""
        st = self.session.sides[side]
        name, path = st.identity
        ref = getattr(st.doc.root, "git_ref", None)
        if st.saved_as is not None or ref is None:
            return str(path or name)
        folder = self.settings.folder("save")
        if folder is None:
            beside = os.path.join(ref.repo, os.path.dirname(ref.path))
            folder = beside if os.path.isdir(beside) else os.getcwd()
        return os.path.join(folder, revision_file_name(ref.path, ref.short))

    def _comparison_or_say(self, what: str):
        comparison = self.session.comparison
        if comparison is None:
            self.show_message(f"{what}: " + NEEDS_COMPARISON, "warning")
        return comparison

    def export_report(self, path: str | os.PathLike | None = None) -> int | None:
        comparison = self._comparison_or_say("Export report")
        if comparison is None:
            return None
        name_a, name_b = self.shown_names()
        path = path or self.ask_save_path("Export report", exports.default_name("report", name_a, name_b),
                                          "HTML files (*.html *.htm);;All files (*)")
        if not path:
            return None
        result = self.session.result
        ours = result is not None and result.comparison is comparison
        rules = result.rules if ours else None
        chunkers = tuple(col.row for col in result.externals if col.row is not None) if ours else ()
        lab = self.lab_result()  # the lab's section, when its run still describes A
        return self._run("report", exports.report_job(comparison, name_a, name_b, os.fspath(path), rules, chunkers,
                                                      lab))

    def export_comparison(self, path: str | os.PathLike | None = None) -> int | None:
        comparison = self._comparison_or_say("Export comparison")
        if comparison is None:
            return None
        name_a, name_b = self.shown_names()
        path = path or self.ask_save_path("Export comparison as JSON",
                                          exports.default_name("comparison", name_a, name_b),
                                          "JSON files (*.json);;All files (*)")
        if not path:
            return None
        return self._run("comparison", exports.comparison_job(comparison, name_a, name_b, os.fspath(path)))

    def export_chunks(self, side: str, path: str | os.PathLike | None = None) -> int | None:
        chunking = self.session.sides[side].chunking
        if chunking is None:
            self.show_message(f"Export chunks of {side}: load {side} and wait for its analysis.", "warning")
            return None
        name_a, name_b = self.shown_names()
        path = path or self.ask_save_path(f"Export chunks of {side} as JSONL",
                                          exports.default_name(f"chunks-{side}", name_a, name_b),
                                          "JSON Lines (*.jsonl);;All files (*)")
        if not path:
            return None
        return self._run(f"chunks-{side}", exports.chunks_job(chunking, os.fspath(path)))

    def export_png(self, path: str | os.PathLike | None = None) -> int | None:
        name_a, name_b = self.shown_names()
        path = path or self.ask_save_path("Export window as PNG", exports.default_name("png", name_a, name_b),
                                          "PNG images (*.png)")
        if not path:
            return None
        image = self.picture()
        return self._run("png", exports.png_job(image, os.fspath(path)))

    def _run(self, kind: str, fn: Callable[[], str]) -> int:
        what = EXPORT_WHAT[kind]

        def done(path: str) -> None:
            self.settings.set_folder("export", os.path.dirname(os.path.abspath(path)))
            self.show_message(f"Exported the {what} to {path}", "info")
            self.exported.emit(kind, path)

        def failed(message: str) -> None:
            self.show_message(f"Could not export the {what}: {message}", "error")
            self.export_failed.emit(kind, message)

        return self.jobs.start(fn, done, failed)

    def update_actions(self) -> None:
        """Exports are enabled once there is something to export; a disabled one says why."""
        ok = self.session.comparison is not None
        for act, tip in ((self.actions["report"], REPORT_TIP), (self.actions["comparison"], COMPARISON_TIP)):
            act.setEnabled(ok)
            act.setToolTip(tip if ok else "Not available yet: " + NEEDS_COMPARISON)
            act.setStatusTip(act.toolTip())
        for side in SIDES:
            act = self.actions[f"chunks-{side}"]
            ok = self.session.sides[side].chunking is not None
            act.setEnabled(ok)
            act.setToolTip(f"Write the chunks of {side} as JSON Lines, one chunk a line with its text and hash"
                           if ok else f"Not available yet: load {side} and wait for its analysis")
            act.setStatusTip(act.toolTip())
