"""Unsaved edits kept while the user types, offered back after a crash (model.recovery
holds the file format). A pause in the typing (RECOVERY_PAUSE_MS, superqt's debounce)
takes the texts of the modified sides and writes them on a worker thread; a clean close
removes the file. At start, what a window that ended without closing left is offered in
the message bar: Restore loads it as edited copies (still unsaved), Discard deletes it."""

from __future__ import annotations

import time
from typing import Callable, Mapping

from PySide6.QtCore import QObject, QRunnable, QStandardPaths, QThreadPool, Signal
from superqt.utils import qdebounced

from steadlith_core.errors import ExportError

from ..model.recovery import Recovered, RecoveryStore, Unsaved
from ..model.session import Session
from ..widgets.document_pane import DocumentPane

RECOVERY_PAUSE_MS = 1000  # the unsaved text is written this long after the last keystroke


def default_folder() -> str:
    """Where this user's recovery files live: the platform's application data folder."""
    base = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return f"{base}/recovery"


class _Save(QRunnable):
    def __init__(self, run: Callable[[], None]):
        super().__init__()
        self.run_it = run

    def run(self) -> None:
        self.run_it()


class RecoveryController(QObject):
    """`store` None: nothing is kept (headless runs and tests that do not ask for it).
    `offer(text, actions)` shows the message bar's offer; `restore(texts)` loads
    {side: (text, name, path)} as edited documents. A save that fails is said once, as a
    warning through the session."""

    failed = Signal(str)  # a save could not be written (from the worker: queued to the GUI thread)

    def __init__(self, panes: Mapping[str, DocumentPane], session: Session, store: RecoveryStore | None,
                 offer: Callable, restore: Callable, pause_ms: int = RECOVERY_PAUSE_MS,
                 parent: QObject | None = None):
        super().__init__(parent)
        self.panes, self.session, self.store = panes, session, store
        self._offer, self._restore = offer, restore
        self.generation = 0
        self._warned = False
        self.save_soon = qdebounced(self.save_now, timeout=pause_ms, parent=self)
        self.save_soon.setObjectName("recoveryPause")
        self.failed.connect(self._on_failed)
        if store is None:
            return
        for pane in panes.values():
            pane.edited.connect(lambda *_change: self.save_soon())
        # saved, reverted or replaced: the file follows the modified flags at the next pause
        session.events.edit_state_changed.connect(lambda _side: self.save_soon())
        session.events.document_replaced.connect(lambda _side: self.save_soon())

    def unsaved(self) -> dict[str, Unsaved]:
        """The modified sides' texts as the panes hold them now."""
        out = {}
        for side, pane in self.panes.items():
            st = self.session.sides[side]
            if st.doc is not None and st.modified:
                name, path = st.identity
                out[side] = Unsaved(name or side, path, pane.toPlainText())
        return out

    def save_now(self) -> None:
        if self.store is None:
            return
        self.generation += 1
        generation, sides, store = self.generation, self.unsaved(), self.store

        def write() -> None:
            try:
                store.save(generation, sides)
            except ExportError as e:
                self.failed.emit(str(e))

        QThreadPool.globalInstance().start(_Save(write))

    def _on_failed(self, message: str) -> None:
        if not self._warned:  # once: a full disk should not repeat itself at every pause
            self._warned = True
            self.session.tell(f"Unsaved edits cannot be kept for recovery: {message}", "warning")

    def close(self) -> None:
        """A clean close (the user has saved or chosen to discard): nothing to recover."""
        self.save_soon.cancel()
        if self.store is not None:
            self.store.clear()

    def offer_left_behind(self) -> Recovered | None:
        """Offer the newest unsaved edits a window left when it ended without closing."""
        if self.store is None:
            return None
        found = self.store.left_behind()
        if not found:
            return None
        recovered = found[0]
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(recovered.saved))
        self._offer(f"Unsaved edits from a window that did not close ({recovered.names()}; last kept {when}).",
                    [("Restore", lambda: self.restore(recovered)), ("Discard", lambda: self.discard(recovered))])
        return recovered

    def restore(self, recovered: Recovered) -> None:
        if self.store is not None:
            self.store.adopt(recovered)  # ours now: kept until this window saves or closes
        self._restore({side: (u.text, u.name, u.path) for side, u in recovered.sides.items()})

    def discard(self, recovered: Recovered) -> None:
        if self.store is not None:
            self.store.discard(recovered)
