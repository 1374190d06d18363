"""Files changed on disk: a debounced watcher over exactly the files the session shows,
and the reload that follows (asking first when the side was edited)."""

from __future__ import annotations

import os

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal
from steadlith_core import load_text

from ..model.documents import prepare_document
from ..model.session import SIDES, Session
from ..workers.worker import Jobs

DISK_CHANGE_PAUSE_MS = 150  # a change on disk is handled once the file was quiet this long
DISK_MISSING_RETRIES = 6  # a vanished file is looked for again this often (editors replace files)


class DiskWatcher(QObject):
    """Watches a set of files; an editor's save (often several events, or a delete and a
    rename over) becomes one `changed(path)`, or `vanished(path)` if the file stays gone."""

    changed = Signal(str)
    vanished = Signal(str)

    def __init__(self, parent: QObject | None = None):
        super().__init__(parent)
        self.watcher = QFileSystemWatcher(self)
        self.watcher.fileChanged.connect(self._on_file_changed)
        self._timers: dict[str, QTimer] = {}
        self._missing: dict[str, int] = {}

    def watch(self, paths) -> None:
        """Watch exactly `paths` (those that exist)."""
        want = {p for p in paths if p}
        have = set(self.watcher.files())
        if have - want:
            self.watcher.removePaths(sorted(have - want))
        add = [p for p in sorted(want - have) if os.path.isfile(p)]
        if add:
            self.watcher.addPaths(add)

    def _on_file_changed(self, path: str) -> None:
        timer = self._timers.get(path)
        if timer is None:
            timer = QTimer(self)
            timer.setSingleShot(True)
            timer.timeout.connect(lambda p=path: self._settled(p))
            self._timers[path] = timer
        timer.start(DISK_CHANGE_PAUSE_MS)

    def _settled(self, path: str) -> None:
        if not os.path.isfile(path):
            tries = self._missing.get(path, 0)
            if tries < DISK_MISSING_RETRIES:
                self._missing[path] = tries + 1
                self._timers[path].start(DISK_CHANGE_PAUSE_MS * 2)
                return
            self._missing.pop(path, None)
            self.vanished.emit(path)
            return
        self._missing.pop(path, None)
        self.watcher.addPath(path)  # a file replaced by rename is no longer watched: watch the new one
        self.changed.emit(path)


class ReloadOnChange(QObject):
    """The reload policy: an unedited side reloads (unless the text on disk is what it
    shows already), an edited one asks first; `handled(side, outcome)` reports reloaded,
    unchanged, kept, missing or failed.

    It holds the session, the jobs that read files off the GUI thread and a message
    callback, not the window."""

    handled = Signal(str, str)  # side, outcome

    def __init__(self, session: Session, jobs: Jobs,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.session = session
        self.jobs = jobs
        self.show_message = session.tell
        self.disk = DiskWatcher(self)
        self.disk.changed.connect(self._changed)
        self.disk.vanished.connect(self._vanished)
        self._asking: set[str] = set()
        session.events.document_replaced.connect(lambda _s: self.update_watch())
        session.events.side_changed.connect(lambda _s: self.update_watch())

    def update_watch(self) -> None:
        self.disk.watch(self.session.sides[s].path for s in SIDES)

    def _sides_of(self, path: str) -> list[str]:
        return [s for s in SIDES if self.session.sides[s].path == path]

    def _vanished(self, path: str) -> None:
        for side in self._sides_of(path):
            self.show_message(f"{side}: {path} was removed from disk; the text stays as shown.", "warning")
            self.handled.emit(side, "missing")

    def _changed(self, path: str) -> None:
        for side in self._sides_of(path):
            st = self.session.sides[side]
            if side in self._asking or st.doc is None:
                continue
            if st.modified:
                if self._ask(side, path):
                    self._reload(side, path, None)
            else:
                # unchanged text (e.g. our own Save as…) needs no reload; compared on the thread pool
                self._reload(side, path, self.session.current_text(side) if st.saved_as else st.doc.root.text)

    def _ask(self, side: str, path: str) -> bool:
        self._asking.add(side)
        try:
            yes = bool(self.session.confirm(
                f"{side} ({os.path.basename(path)}) changed on disk, and you edited it here. "
                "Reload it from disk and discard your edits?"))
        finally:
            self._asking.discard(side)
        if not yes:
            self.show_message(f"{side} changed on disk; your edits are kept (File → Reload from disk loads "
                              "the file).", "warning")
            self.handled.emit(side, "kept")
        return yes

    def _reload(self, side: str, path: str, shown: str | None) -> None:
        session = self.session
        st = session.sides[side]
        before, was_modified, seq = st.doc.root, st.modified, st.seq

        def read():
            text = load_text(path)
            if shown is not None and text == shown:
                return None
            return prepare_document(side, text, path=path)

        def done(doc) -> None:
            now = session.sides[side]
            if now.doc is None or now.doc.root is not before or now.seq != seq or session.load_pending(side):
                return  # the side shows something else by now
            if doc is None:
                self.handled.emit(side, "unchanged")
                return
            if now.modified and not was_modified and not self._ask(side, path):
                return  # typed while the file was read
            now.seq = session.new_private_seq()
            session.set_document(side, doc)
            session.request_analysis()
            self.show_message(f"{side} reloaded: changed on disk", "info")
            self.handled.emit(side, "reloaded")

        def failed(message: str) -> None:
            self.show_message(f"{side} changed on disk but cannot be reloaded: {message}. "
                           "The text stays as shown.", "error")
            self.handled.emit(side, "failed")

        self.jobs.start(read, done, failed)
