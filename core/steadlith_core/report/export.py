"""Machine-readable exports: chunks as JSON Lines, a comparison as JSON, atomic writes.

One function per schema, shared by every client: `steadlith chunk --format json|jsonl`
and `steadlith compare --format json` print exactly what these functions return, and
the inspector's File → Export writes the same bytes (via `to_json_text` and
`write_text_atomic`). A schema that exists twice drifts; this module is the only copy.
"""

from __future__ import annotations

import json
import os
import re
import stat
from typing import Any, Iterator, Mapping

from ..chunking.chunks import Chunk, Chunking
from ..comparison.churn import Comparison
from ..errors import ExportError, readable


# -- chunks --------------------------------------------------------------------------


def chunk_record(c: Chunk) -> dict[str, Any]:
    """The per-chunk fields of `steadlith chunk --format json` (word range, code-point
    range in the source text, kind, snapped, tokens, hash, boundary)."""
    return {
        "index": c.index, "start_word": c.start_word, "end_word": c.end_word,
        "start": c.start, "end": c.end, "kind": c.kind, "snapped": c.snapped,
        "tokens": c.tokens, "hash": c.hash, "boundary": c.boundary,
    }


def chunking_to_json(result: Chunking) -> dict[str, Any]:
    """What `steadlith chunk --format json` prints: identity, chunks, diagnostics (of
    either rule; `params` starts with its `boundary_rule`)."""
    return _chunking_json(result, [chunk_record(c) for c in result.chunks])


def _chunking_json(result: Chunking, chunks: Any) -> dict[str, Any]:
    return {
        "normalizer_version": result.normalizer_version,
        "boundary_rule": result.boundary_rule,
        "params": result.params.to_dict(),
        "params_hash": result.params_hash,
        "word_count": result.word_count,
        "chunks": chunks,
        "diagnostics": result.diagnostics.to_dict(),
    }


# Stands for the chunk list in the JSON around it: a private-use character no name or
# parameter value of a chunking's JSON holds.
_CHUNKS_HERE = "\ue000steadlith-chunks\ue000"


def chunking_json_pieces(result: Chunking) -> Iterator[str]:
    """to_json_text(chunking_to_json(result)), piece by piece: the text before the chunk
    list, each chunk's record, then the rest. A writer that streams them holds one
    chunk's record at a time instead of the whole document's JSON (a str of several
    times the document's size) and a dict per chunk. The pieces join to exactly the
    text to_json_text gives (tests/core/test_export_stream.py)."""
    around = to_json_text(_chunking_json(result, _CHUNKS_HERE))
    # from the right: a registered token counter's id (in params, before the chunks) is any
    # text; what follows the chunks (diagnostics) holds none of the user's
    before, after = around.rsplit(json.dumps(_CHUNKS_HERE, ensure_ascii=False), 1)
    yield before
    # json.dumps indents by nesting level: a record two levels down is its own
    # indented dump with every line moved right by those two levels
    first = True
    for c in result.iter_chunks():
        record = json.dumps(chunk_record(c), indent=2, ensure_ascii=False).replace("\n", "\n    ")
        yield ("[\n    " if first else ",\n    ") + record
        first = False
    yield "[]" if first else "\n  ]"
    yield after


def chunks_jsonl(result: Chunking) -> str:
    """The chunks as JSON Lines, ready to feed an indexing job: one object per chunk,
    in order, each line ending in "\\n" ("" when there are no chunks).

    Schema of a line (every key always present):
      index, start_word, end_word (half-open word range), start, end (code points of the
      first word's start and the last word's end in the source text), kind (tttd-v1:
      "primary" | "backup" | "hard" | "end"; lmx2-v1: "primary" | "fill" | "long-word" |
      "end"), snapped (bool), tokens (int), hash (32 hex, docs/contract/identity.md#chunk-hash), boundary
      ("paragraph" | "sentence" | "word" | "end": the class of the end cut),
      text (the canonical chunk text: the string the hash is computed over),
      params_hash (32 hex: the parameters that produced the cut and salt the hash).

    Each line stands alone (params_hash repeated on purpose), so lines from several
    documents or runs can be concatenated and still say how each chunk was made.
    Non-ASCII text is written as UTF-8, not \\u escapes.
    """
    return "".join(chunks_jsonl_lines(result))


def chunks_jsonl_lines(result: Chunking) -> Iterator[str]:
    """The lines of chunks_jsonl, one at a time, each made when it is reached (a writer
    that streams them never holds the whole output, nor every chunk's text)."""
    params_hash = result.params_hash
    for c in result.iter_chunks():
        record = chunk_record(c)
        record["text"] = c.text
        record["params_hash"] = params_hash
        yield json.dumps(record, ensure_ascii=False) + "\n"


def write_pieces(write: Any, pieces: Any, batch: int = 1 << 16) -> None:
    """write(text) for `pieces` joined, in writes of about `batch` characters: few
    calls, and never more than a batch held."""
    held: list[str] = []
    size = 0
    for piece in pieces:
        held.append(piece)
        size += len(piece)
        if size >= batch:
            write("".join(held))
            held.clear()
            size = 0
    if held:
        write("".join(held))


# -- comparison ----------------------------------------------------------------------


def comparison_json(comparison: Comparison, name_a: str | None = None, name_b: str | None = None) -> dict[str, Any]:
    """What `steadlith compare --format json` prints (schema "steadlith-compare/1"):
    `{"files": {"a": name_a, "b": name_b}}` followed by `Comparison.to_dict()` (identity,
    summary, phase-shift regions, violations, alignment, diff, both chunk lists, the
    baseline). Names are the paths as given on the command line, or what the inspector
    shows for a document (null when unknown)."""
    return {"files": {"a": name_a, "b": name_b}, **comparison.to_dict()}


RULES_SCHEMA = "steadlith-compare-rules/1"


def rule_summary(c: Comparison) -> dict[str, Any]:
    """One rule's part of a side-by-side comparison: identity, margin and its formula,
    the verdict, the churn summary, violations and phase-shift regions (no chunk lists)."""
    return {
        "boundary_rule": c.a.boundary_rule,
        "params": c.a.params.to_dict(),
        "params_hash": c.a.params_hash,
        "margin": c.margin,
        "margin_formula": c.a.params.margin_formula,
        "locality_held": c.locality_held,
        "locality_verdict": c.verdict,
        "summary": c.summary.to_dict(),
        "violations": [v.to_dict() for v in c.violations],
        "phase_shift_regions": [r.to_dict() for r in c.phase_shift_regions],
    }


def rules_comparison_json(comparisons: Mapping[str, Comparison], name_a: str | None = None,
                          name_b: str | None = None) -> dict[str, Any]:
    """What `steadlith compare --rules ... --format json` prints (schema
    "steadlith-compare-rules/1"): one `rule_summary` per rule, in order, and the
    fixed-size baselines they were measured against (one per distinct window)."""
    baselines: dict[str, Any] = {}
    for c in comparisons.values():
        if c.baseline is not None:
            baselines.setdefault(c.baseline.params_hash, c.baseline.to_dict())
    return {
        "schema": RULES_SCHEMA,
        "files": {"a": name_a, "b": name_b},
        "rules": [rule_summary(c) for c in comparisons.values()],
        "baselines": list(baselines.values()),
    }


def to_json_text(data: Any) -> str:
    """The one JSON layout of every export and of the CLI: indented by 2, UTF-8 rather
    than \\u escapes, a final newline. A file name's undecodable bytes are written as
    U+FFFD (errors.readable): the text is always valid UTF-8."""
    return readable(json.dumps(data, indent=2, ensure_ascii=False)) + "\n"


# -- writing -------------------------------------------------------------------------


def write_text_atomic(path: str | os.PathLike, text: str) -> None:
    """Write `text` as UTF-8 (no newline translation) to `path`, all or nothing.

    The bytes go to a new temporary file in the same folder, are flushed to disk, then
    renamed over `path` (os.replace is atomic on one file system). A failed or
    interrupted export therefore never leaves half a file, nor destroys the previous
    one. On Linux the temporary file has no name while it is written (O_TMPFILE): a
    process killed then leaves nothing behind; it is named only for the rename. The temporary file is created with mode 0o666 so the umask applies, as for
    any ordinary file; an existing file keeps its mode. A symbolic link is followed (the
    file it names is replaced, not the link), and a path that is not a regular file (a
    device such as /dev/null or /dev/stdout, a pipe) is written to as it is, never
    replaced. Raises ExportError naming the path and the reason.

    The temporary file's name is made of its target's and the writing process's
    (`.report.html.steadlith-tmp-<pid>`), so a person who finds one after a crash knows
    what it is; the next write to the same target removes those whose process is gone.
    """
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise ExportError(os.fspath(path), f"cannot encode as UTF-8 ({e.reason} at character {e.start})") from None
    write_bytes_atomic(path, data)


def write_bytes_atomic(path: str | os.PathLike, data: bytes) -> None:
    """Write `data` to `path` with the guarantees of write_text_atomic (a PNG, say)."""
    shown = os.fspath(path)
    if not shown:
        raise ExportError("''", "empty path: name a file to write")
    if "\0" in shown:
        raise ExportError(shown, "the path holds a NUL character, which no file name can contain")
    target = os.path.realpath(shown)
    try:
        existing = os.stat(target)
    except OSError:
        existing = None
    if existing is not None and stat.S_ISDIR(existing.st_mode):
        raise ExportError(shown, "is a directory, not a file")
    if existing is not None and not stat.S_ISREG(existing.st_mode):
        _write_in_place(shown, target, data)
        return
    folder = os.path.dirname(target)
    remove_stale_temporaries(target)
    tmp = None
    try:
        fd = _unnamed_file(folder)
        if fd is None:
            fd, tmp = _named_temporary(shown, target)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            if existing is not None:
                os.chmod(f.fileno() if os.chmod in os.supports_fd else tmp, stat.S_IMODE(existing.st_mode))
            os.fsync(f.fileno())
            if tmp is None:
                # the data is on disk under no name, so a kill until here leaves nothing
                # behind; it is named only for the rename, the next system call
                tmp = _link_unnamed(shown, f.fileno(), target)
            os.replace(tmp, target)
            tmp = None
    except ExportError:
        raise
    except FileNotFoundError:
        raise ExportError(shown, f"cannot write: folder {folder} does not exist") from None
    except PermissionError:
        raise ExportError(shown, "cannot write: permission denied") from None
    except OSError as e:
        raise ExportError(shown, f"cannot write: {e.strerror or e}") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _unnamed_file(folder: str) -> int | None:
    """A file in `folder` that has no name yet (Linux's O_TMPFILE), or None where the
    system or the file system has none: then a named temporary is used."""
    flag = getattr(os, "O_TMPFILE", 0)
    if not flag or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o666)
    except FileNotFoundError:
        raise
    except OSError:  # EOPNOTSUPP, EISDIR on kernels or file systems without it
        return None


def _link_unnamed(shown: str, fd: int, target: str) -> str:
    """Give the unnamed file `fd` a temporary name beside `target` (to rename it over)."""
    # linkat(AT_SYMLINK_FOLLOW) on /proc/self/fd/N: os.link takes that path only when
    # given a directory descriptor (else it calls link(), which gives EXDEV here)
    fds = os.open("/proc/self/fd", os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        for candidate in _temporary_names(target):
            try:
                os.link(str(fd), candidate, src_dir_fd=fds, follow_symlinks=True)
            except FileExistsError:
                continue
            return candidate
    finally:
        os.close(fds)
    raise ExportError(shown, "cannot create a temporary file beside it")


def _named_temporary(shown: str, target: str) -> tuple[int, str]:
    for candidate in _temporary_names(target):
        try:
            return os.open(candidate, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666), candidate
        except FileExistsError:
            continue
    raise ExportError(shown, "cannot create a temporary file beside it")


TEMPORARY_TAG = ".steadlith-tmp-"


def _temporary_prefix(target: str) -> str:
    # the target's name is cut so the temporary's name stays within NAME_MAX (255)
    return os.path.join(os.path.dirname(target), f".{os.path.basename(target)[:200]}{TEMPORARY_TAG}")


def _temporary_names(target: str):
    """`.name.steadlith-tmp-<pid>`, then `-<pid>.1` … when this process writes the same
    target twice at once (two exports from the thread pool)."""
    prefix = _temporary_prefix(target)
    yield f"{prefix}{os.getpid()}"
    for n in range(1, 8):
        yield f"{prefix}{os.getpid()}.{n}"


def remove_stale_temporaries(target: str | os.PathLike) -> list[str]:
    """Delete the temporaries of `target` left by writes whose process no longer runs
    (killed mid-write); those of a live process may still be renamed into place and
    are kept. Returns the paths removed. Never raises: cleaning is a courtesy."""
    prefix = _temporary_prefix(os.fspath(target))
    folder, start = os.path.split(prefix)
    pattern = re.compile(re.escape(start) + r"(\d+)(?:\.\d+)?")
    removed = []
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return removed
    for name in names:
        m = pattern.fullmatch(name)
        if m is None or _process_alive(int(m.group(1))):
            continue
        try:
            os.unlink(os.path.join(folder, name))
            removed.append(os.path.join(folder, name))
        except OSError:
            pass
    return removed


def _process_alive(pid: int) -> bool:
    if pid == os.getpid() or os.name == "nt":
        return True  # ours (another thread may be writing it); on Windows os.kill would end the process
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True  # another user's process, or cannot tell: keep it
    return True


def _write_in_place(shown: str, target: str, data: bytes) -> None:
    """Write to a device or pipe directly: replacing it would destroy it."""
    try:
        with open(target, "wb") as f:
            f.write(data)
    except OSError as e:
        raise ExportError(shown, f"cannot write: {e.strerror or e}") from None
