"""Reading documents off the GUI thread: `FileSource`s, `TextSource`s and `RevisionSource`s
(a file at a git commit, read in-process with pygit2) become LoadedDocuments, a batch at
a time (`LoadBatch`), through `DocumentLoader`, a PoolRunner of `worker`. Every problem
is a one-line message naming the side, never a traceback.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, NamedTuple

from PySide6.QtCore import Signal
from steadlith_core import LoadError, load_text
from steadlith_core.errors import visible
from steadlith_core.history.git_errors import GitError
from steadlith_core.history.repository import RevisionRef, read_text_at, resolve_revision
from steadlith_core.chunking.loader import out_of_memory_message

from ..model.documents import DocumentError, LoadedDocument, prepare_document
from .analysis import utf8_size, describe_error
from .worker import PoolRunner


@dataclass(frozen=True)
class FileSource:
    """A document to read from a file; `label`: the name to show instead of the file's
    (`steadlith-gui --label`)."""

    path: str
    label: str | None = None


@dataclass(frozen=True)
class TextSource:
    """A document given as text (pasted, an example, an edited text moved by a swap);
    `path` is the file it stands for, if any."""

    text: str
    name: str
    path: str | None = None


@dataclass(frozen=True)
class RevisionSource:
    """A document read from git: the file `path` (relative to the repository's root) of
    the repository `repo` at `rev` (any revision git accepts; workspaces give the full
    commit). Shown as `path @ short — subject` unless `label` says otherwise. Its pane is
    not a file: nothing watches it on disk, and Reload leaves it as it is."""

    repo: str
    path: str
    rev: str
    label: str | None = None

    @classmethod
    def of(cls, ref: RevisionRef | Any, label: str | None = None) -> "RevisionSource":
        """From anything with `repo`, `path` and `commit` (a RevisionRef, a history row's)."""
        return cls(ref.repo, ref.path, ref.commit, label)


def load_revision(side: str, source: RevisionSource) -> LoadedDocument:
    """Read and index a file at a revision (thread pool). GitError names the repository,
    the path and the revision when any of them is missing or the blob is not text."""
    ref = resolve_revision(source.repo, source.path, source.rev)
    doc = prepare_document(side, read_text_at(ref), name=ref.path)  # the path picks the syntax colour
    return dataclasses.replace(doc, name=source.label or ref.title(), git_ref=ref)


class LoadBatch(NamedTuple):
    seq: int
    documents: dict  # side -> LoadedDocument
    errors: list  # (side, message)


def _prepare(sources: dict[str, FileSource | TextSource | RevisionSource]) -> tuple[dict, list]:
    documents: dict[str, LoadedDocument] = {}
    errors: list[tuple[str, str]] = []
    for side, source in sources.items():
        try:
            if isinstance(source, FileSource):
                documents[side] = prepare_document(side, load_text(source.path), name=source.label, path=source.path)
            elif isinstance(source, RevisionSource):
                documents[side] = load_revision(side, source)
            else:
                documents[side] = prepare_document(side, source.text, name=source.name, path=source.path)
        except (LoadError, DocumentError, GitError) as e:
            errors.append((side, f"Cannot load {side}: {visible(str(e))}"))
        except MemoryError:
            if isinstance(source, RevisionSource):
                name, size = f"{source.path} @ {source.rev}", 0
            else:
                name, size = (source.path, _file_size(source.path)) if isinstance(source, FileSource) \
                    else (source.name or side, utf8_size(source.text))
            errors.append((side, f"Cannot load {side}: {visible(out_of_memory_message([(name, size)]))}"))
        except BaseException as e:  # noqa: BLE001
            errors.append((side, f"Cannot load {side}: {describe_error(e)}"))
    return documents, errors


def _file_size(path: str) -> int:
    try:
        return os.stat(path).st_size
    except (OSError, ValueError):
        return 0


class DocumentLoader(PoolRunner):
    """Reads and indexes documents in the background, one batch per request."""

    loaded = Signal(object)  # LoadBatch

    def load(self, sources: dict[str, FileSource | TextSource | RevisionSource]) -> int:
        """Read and index `sources` (side -> source). Returns the batch seq."""
        return self._run(lambda: _prepare(sources))

    def _on_done(self, seq: int, value) -> None:
        documents, errors = value
        self.loaded.emit(LoadBatch(seq, documents, errors))

    def _on_failed(self, seq: int, message: str) -> None:
        self.loaded.emit(LoadBatch(seq, {}, [("?", message)]))
