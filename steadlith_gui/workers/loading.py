"""Reading documents off the GUI thread: `FileSource`s, `TextSource`s and `RevisionSource`s
(a file at a git commit, read in-process with pygit2) become LoadedDocuments, a batch at
a time (`LoadBatch`), through `DocumentLoader`, a PoolRunner of `worker`. Every problem
is a one-line message naming the side, never a traceback.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

from PySide6.QtCore import Signal
from steadlith_core import LoadError, load_text
from steadlith_core.errors import visible
from steadlith_core.history.git_errors import GitError
from steadlith_core.history.repository import RevisionRef, blob_size, read_text_at, resolve_revision
from steadlith_core.chunking import loader as budgets
from steadlith_core.chunking.loader import human_bytes, max_document_bytes, memory_per_input_byte, out_of_memory_message

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


def load_revision(side: str, source: RevisionSource, limit: int | None = None, beside: int = 0) -> LoadedDocument:
    """Read and index a file at a revision (thread pool). GitError names the repository,
    the path and the revision when any of them is missing or the blob is not text; a blob
    over `limit` bytes is refused before it is read (window_budget)."""
    ref = resolve_revision(source.repo, source.path, source.rev)
    size = blob_size(ref) if limit is not None else None
    if size is not None and size > limit:
        raise LoadError(f"{ref.path} @ {source.rev}", _too_large(size, beside))
    doc = prepare_document(side, read_text_at(ref), name=ref.path)  # the path picks the syntax colour
    return dataclasses.replace(doc, name=source.label or ref.title(), git_ref=ref)


class LoadBatch(NamedTuple):
    seq: int
    documents: dict  # side -> LoadedDocument
    errors: list  # (side, message)


def window_budget() -> int:
    """The most UTF-8 bytes a pair may hold in the window (both documents together): the
    loader's memory budget at the window's measured peak per byte of the pair
    (loader.COMMAND_MEMORY["window"], the costlier rule: every analysis compares the pair
    under every rule)."""
    return max_document_bytes("window")


def _too_large(size: int, beside: int) -> str:
    pair = window_budget()
    other = f", and the other side already takes {human_bytes(beside)}" if beside else ""
    return (f"too large: {human_bytes(size)}; the window shows a pair of up to {human_bytes(pair)} "
            f"together{other} (it needs about {memory_per_input_byte('window')} bytes of memory per byte of "
            f"text, {human_bytes(budgets.MEMORY_BUDGET)} in all); compare larger files with `steadlith compare`")


def _sizes(sources: Mapping[str, FileSource | TextSource | RevisionSource], held: Mapping[str, str]) -> dict:
    """The UTF-8 size of each side as far as it is known before reading: a file's size on
    disk, a text's own, or (for a side this batch leaves alone) the text the window holds."""
    sizes: dict[str, int] = {side: utf8_size(text) for side, text in held.items() if side not in sources}
    for side, source in sources.items():
        if isinstance(source, FileSource):
            size = _file_size(source.path)
            if size:
                sizes[side] = size
        elif isinstance(source, TextSource):
            sizes[side] = utf8_size(source.text)
    return sizes


def _prepare(sources: dict[str, FileSource | TextSource | RevisionSource],
             held: Mapping[str, str] = {}) -> tuple[dict, list]:
    """Read and index `sources`, each file within the window's budget for the pair less
    what the other side takes (`held`: the texts the window shows on sides this batch
    leaves alone)."""
    documents: dict[str, LoadedDocument] = {}
    errors: list[tuple[str, str]] = []
    sizes = _sizes(sources, held)
    for side, source in sources.items():
        beside = sum(n for s, n in sizes.items() if s != side)
        limit = max(0, window_budget() - beside)
        try:
            if isinstance(source, FileSource):
                if sizes.get(side, 0) > limit:  # refused before it is read
                    raise LoadError(source.path, _too_large(sizes[side], beside))
                documents[side] = prepare_document(side, load_text(source.path, limit), name=source.label,
                                                   path=source.path)
            elif isinstance(source, RevisionSource):
                documents[side] = load_revision(side, source, limit, beside)
            else:
                documents[side] = prepare_document(side, source.text, name=source.name, path=source.path)
        except (LoadError, DocumentError, GitError) as e:
            errors.append((side, f"Cannot load {side}: {visible(str(e))}"))
        except MemoryError:
            if isinstance(source, RevisionSource):
                name, size = f"{source.path} @ {source.rev}", None  # the blob's size is not known here
            else:
                name, size = (source.path, _file_size(source.path) or None) if isinstance(source, FileSource) \
                    else (source.name or side, utf8_size(source.text))
            message = out_of_memory_message([(name, size)], memory_per_input_byte("window"))
            errors.append((side, f"Cannot load {side}: {visible(message)}"))
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

    def load(self, sources: dict[str, FileSource | TextSource | RevisionSource],
             held: Mapping[str, str] = {}) -> int:
        """Read and index `sources` (side -> source); `held`: the texts of the sides the
        window keeps, which count against its budget for the pair. Returns the batch seq."""
        held = dict(held)
        return self._run(lambda: _prepare(sources, held))

    def _on_done(self, seq: int, value) -> None:
        documents, errors = value
        self.loaded.emit(LoadBatch(seq, documents, errors))

    def _on_failed(self, seq: int, message: str) -> None:
        self.loaded.emit(LoadBatch(seq, {}, [("?", message)]))
