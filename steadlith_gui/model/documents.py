"""Documents as the inspector shows them: the source text, its name, the offset map
between code points and Qt positions, syntax spans; an edited document remembers the
loaded one it came from (`origin`) and the editor revision its text was taken at."""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass
from typing import Any

from steadlith_core import has_words

from .highlight import SyntaxSpans, syntax_spans
from .long_lines import display_breaks
from .offsets import OffsetMap, code_points


class DocumentError(Exception):
    """A document cannot be shown; the message is meant for the user as is."""


@dataclass(frozen=True, eq=False)
class LoadedDocument:
    text: str
    name: str  # shown in the pane header
    path: str | None
    offsets: OffsetMap
    syntax: SyntaxSpans | None
    revision: int = 0  # editor revision the text was taken at (0: as loaded)
    origin: "LoadedDocument | None" = None  # the loaded document an edited one came from
    git_ref: Any = None  # the RevisionRef it was read from (a file at a git commit), else None

    @property
    def root(self) -> "LoadedDocument":
        """The document as loaded (itself, unless this is an edited version of it)."""
        return self.origin if self.origin is not None else self

    @property
    def size_label(self) -> str:
        n = len(self.text)
        if n >= 1_000_000:
            return f"{n / 1e6:.1f} M chars"
        if n >= 10_000:
            return f"{n / 1e3:.0f} k chars"
        return f"{n:,} chars"


_FD_PATH = re.compile(r"^/(?:dev|proc/(?:self|\d+))/fd/(\d+)$")


def source_name(path: str) -> str:
    """The name a file is shown by: its base name, but "pipe 63" for a process
    substitution such as `<(git show HEAD:doc.md)` (/dev/fd/63), whose base name "63"
    says nothing, and "pipe NAME" for a named pipe."""
    m = _FD_PATH.match(path)
    if m:
        return f"pipe {m.group(1)}"
    try:
        fifo = stat.S_ISFIFO(os.stat(path).st_mode)
    except OSError:
        fifo = False
    return f"pipe {os.path.basename(path)}" if fifo else os.path.basename(path)


def prepare_document(side: str, text: str, name: str | None = None, path: str | None = None,
                     breaks: bool = True) -> LoadedDocument:
    """Check and index a text for display. Runs in the worker thread. `breaks`: lay
    long lines out with display breaks (long_lines); False for an edited pane's text,
    which is shown as typed."""
    shown = name or (source_name(path) if path else f"document {side}")
    if not has_words(text):
        problem = "is empty" if text == "" else "has only whitespace"
        raise DocumentError(f"{side} {problem}: nothing to chunk ({shown})")
    cp = code_points(text)
    offsets = OffsetMap(text, display_breaks(text, cp=cp) if breaks else None, cp)
    del cp
    return LoadedDocument(text, shown, path, offsets, syntax_spans(text, name or path, offsets))


def materialize(side: str, source) -> LoadedDocument | None:
    """A LoadedDocument for an analysis request entry (worker thread): an edited pane's
    text (session.EditedText) gets its offset map and syntax spans here, never on the
    GUI thread, since both are O(document)."""
    if source is None or isinstance(source, LoadedDocument):
        return source
    doc = prepare_document(side, source.text, name=source.name, path=source.path, breaks=False)
    return LoadedDocument(doc.text, source.name, source.path, doc.offsets, doc.syntax, source.revision, source.origin)
