"""Loading documents from files: UTF-8, no newline translation, one BOM stripped
(docs/contract/normalizer.md#loading)."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Iterable

import numpy as np

from ..errors import LoadError
from ..kernel import select as kernel

# Peak memory of each command, in bytes per byte of its documents' UTF-8 text, net of
# the interpreter and the command's imports, by text kernel, command and boundary rule,
# as `steadlith bench --memory-only --memory-mb 50` measures it (bench/memory.py) on the
# checkout's Markdown (real text with an emoji: a str of it takes four bytes a
# character), a tenth added and rounded up. `chunk` reads checked UTF-8 bytes and writes
# each chunk as it goes (json, jsonl and text alike); `compare` and `explain` read both
# documents as checked UTF-8 bytes too and chunk them lean, compare after diffing the
# two documents' uint32 word ids and letting them go (comparison/analysis.py,
# Analysis.prepare_diff), explain keeping each document's symbols (its explanations read
# them), and their figures are per byte of the two together; `lab` holds one
# document and its chunkers over it, measured with each chunker alone ("fixed": the
# fixed-size baseline) and with its default set together (a comma-separated key; an
# external --chunker adds what its library holds). The numpy fallback's whole-text
# temporaries cost more, lmx2-v1's the most. `audit` and `sweep` were measured over a
# repository of two commits, the document then its edited version, per byte of both
# versions (a change holds the two, as compare does): `audit` with each rule and with
# both (its default; each rule also cuts its fixed-size baseline), `sweep` with one set
# in its own process (each more set of a batch adds its chunks of two versions).
# "window" is the inspector with a pair open (steadlith-gui), per byte of both
# documents, by the rule in its panes, as `python -m steadlith_gui.tools.window_memory`
# measures it on 20 and 50 MB pairs (20 MB on numpy): it holds each document with its
# offset map, syntax spans and display pieces, and compares the pair under every rule
# for the churn panel, so either rule in the panes takes the costlier of the two runs.
COMMAND_MEMORY: dict[str, dict[str, dict[str, int]]] = {
    "c": {"chunk": {"tttd-v1": 5, "lmx2-v1": 5}, "compare": {"tttd-v1": 5, "lmx2-v1": 5},
          "explain": {"tttd-v1": 7, "lmx2-v1": 10},
          "lab": {"tttd-v1": 19, "lmx2-v1": 19, "fixed": 19, "tttd-v1,lmx2-v1,fixed": 23},
          "audit": {"tttd-v1": 19, "lmx2-v1": 23, "tttd-v1,lmx2-v1": 24}, "sweep": {"tttd-v1": 11, "lmx2-v1": 15},
          "window": {"tttd-v1": 39, "lmx2-v1": 39}},
    "numpy": {"chunk": {"tttd-v1": 15, "lmx2-v1": 33}, "compare": {"tttd-v1": 11, "lmx2-v1": 21},
              "explain": {"tttd-v1": 13, "lmx2-v1": 23},
              "lab": {"tttd-v1": 24, "lmx2-v1": 41, "fixed": 24, "tttd-v1,lmx2-v1,fixed": 44},
              "audit": {"tttd-v1": 23, "lmx2-v1": 31, "tttd-v1,lmx2-v1": 31},
              "sweep": {"tttd-v1": 15, "lmx2-v1": 27},
              "window": {"tttd-v1": 51, "lmx2-v1": 51}},
}
# The window is a process of its own with its own budget (the loader of steadlith_gui
# holds a pair to it): the generic limits are those of the `steadlith` commands.
_COMMANDS = ("chunk", "compare", "explain", "lab", "audit", "sweep")
# What no command's figure covers is held to the costliest figure the kernel has for a
# `steadlith` command, what the generic limits below assume: each blob the history's
# reader decodes for sweep and batch (history.repository.decode_blob without a command:
# read before the version it is compared with). The audit holds each blob to its own
# figure under the rules it runs (decode_blob's `command`). Neither per-blob limit covers
# a change of two blobs both near it: the audit's and the sweep's figures are per byte
# of both versions.
MEMORY_PER_INPUT_BYTE = max(f for c in _COMMANDS for f in COMMAND_MEMORY[kernel.KERNEL][c].values())
# What a document may ask of memory: the loader refuses files that would need more.
MEMORY_BUDGET = 8 * 2**30
MAX_DOCUMENT_BYTES = MEMORY_BUDGET // MEMORY_PER_INPUT_BYTE  # 341 MiB compiled, 186 MiB on numpy


# Text denser in words than one every DENSE_BYTES_PER_WORD bytes (whitespace included)
# costs more than COMMAND_MEMORY says: the per-word arrays grow with its words, not its
# bytes, and lmx2-v1 cuts repeated short lines, whose keys are equal, as short as a word a
# chunk (docs/contract/lmx2-v1.md#sizes). Markdown and prose take more bytes a word (the
# checkout's docs and the golden documents 5.5 or more), so their figures stand.
DENSE_BYTES_PER_WORD = 4
# Bytes of memory per word past one every DENSE_BYTES_PER_WORD bytes, by kernel, command
# and rule: measured as COMMAND_MEMORY is, net of the command on one paragraph, on "a\n"
# repeated to 1 MB (5 MB for compiled tttd-v1 chunk, compare, explain), the densest text there
# is (two bytes a word) and lmx2-v1's costliest (a chunk a word); compare and explain with
# that file and its version with one word changed. The figure is (peak - COMMAND_MEMORY x
# size) / (words - size / DENSE_BYTES_PER_WORD), a tenth added and rounded up to ten.
# What was not measured takes the kernel's costliest figure (dense_word_memory).
DENSE_WORD_MEMORY: dict[str, dict[str, dict[str, int]]] = {
    "c": {"chunk": {"tttd-v1": 20, "lmx2-v1": 990}, "compare": {"tttd-v1": 20, "lmx2-v1": 830},
          "explain": {"tttd-v1": 30, "lmx2-v1": 840},
          "lab": {"tttd-v1": 100, "lmx2-v1": 1190, "fixed": 80, "tttd-v1,lmx2-v1,fixed": 1200}},
    "numpy": {"chunk": {"tttd-v1": 170, "lmx2-v1": 880}, "compare": {"tttd-v1": 120, "lmx2-v1": 810},
              "explain": {"tttd-v1": 120, "lmx2-v1": 820},
              "lab": {"tttd-v1": 110, "lmx2-v1": 1180, "fixed": 120, "tttd-v1,lmx2-v1,fixed": 1210}},
}


def memory_per_input_byte(command: str | None = None, rules: "Iterable[str]" = ()) -> int:
    """Bytes of memory per byte of text `command` needs at its peak (COMMAND_MEMORY) under
    the costliest of `rules` (every rule it was measured with when none is given), with
    the text kernel in use; MEMORY_PER_INPUT_BYTE for a command that was not measured.

    A command that runs several chunkers side by side on one document (the lab) was also
    measured with a set of them together (a key naming them, comma-separated): several
    rules take the figure of the smallest measured set holding them all."""
    return _figure_of(COMMAND_MEMORY[kernel.KERNEL].get(command or ""), rules, MEMORY_PER_INPUT_BYTE)


def max_document_bytes(command: str | None = None, rules: "Iterable[str]" = ()) -> int:
    """The largest text (in UTF-8 bytes; both documents together for compare) `command`
    may take under `rules` within MEMORY_BUDGET."""
    return MEMORY_BUDGET // memory_per_input_byte(command, rules)


def _figure_of(figures: "dict[str, int] | None", rules: "Iterable[str]", default: int) -> int:
    """The figure of `rules` in one command's `figures` (memory_per_input_byte's choice)."""
    if figures is None:
        return default
    asked = set(rules)
    if len(asked) > 1:
        sets = [f for key, f in figures.items() if "," in key and asked <= set(key.split(","))]
        if sets:
            return min(sets)
    known = [figures[r] for r in asked if r in figures]
    return max(known or figures.values())


def dense_word_memory(command: str | None = None, rules: "Iterable[str]" = ()) -> int:
    """Bytes of memory `command` needs under `rules` for each word past one every
    DENSE_BYTES_PER_WORD bytes (DENSE_WORD_MEMORY; the kernel's costliest figure for a
    command not measured), as memory_per_input_byte chooses among rules."""
    table = DENSE_WORD_MEMORY[kernel.KERNEL]
    costliest = max(f for c in table.values() for f in c.values())
    return _figure_of(table.get(command or ""), rules, costliest)


def memory_needed_for(n_bytes: int, n_words: int, command: str | None = None, rules: "Iterable[str]" = ()) -> int:
    """About how much memory `command` under `rules` needs at its peak for text of
    `n_bytes` UTF-8 bytes holding `n_words` words: its figure a byte, and for text
    denser in words than DENSE_BYTES_PER_WORD its figure a word past that."""
    rules = list(rules)
    dense = max(0, n_words - n_bytes // DENSE_BYTES_PER_WORD)
    return n_bytes * memory_per_input_byte(command, rules) + dense * dense_word_memory(command, rules)


# Whitespace (docs/contract/normalizer.md#whitespace): the ASCII bytes up to a space but
# those that are not (NUL to backspace, shift out to escape), and the UTF-8 of the others,
# by lead byte (each at least 0xC2).
_NOT_SPACE_BELOW = 0x1C  # the ASCII controls below it that are not whitespace are
_ASCII_SPACE_RANGE = (0x09, 0x0D)  # ... all but these
_WIDE_SPACES: dict[int, list[bytes]] = {}
for _code in (0x85, 0xA0, 0x1680, *range(0x2000, 0x200B), 0x2028, 0x2029, 0x202F, 0x205F, 0x3000):
    _seq = chr(_code).encode()
    _WIDE_SPACES.setdefault(_seq[0], []).append(_seq)
# Bytes looked at a time by word_count: its temporaries are a few arrays of a block.
# 1 MiB counts 50 MB as fast as larger blocks, and leaves less freed heap resident for
# the chunking that follows (4 MiB blocks raised `chunk --format json`'s peak on 50 MB
# under lmx2-v1 by 0.15x the file).
WORD_COUNT_BLOCK = 1 << 20


def word_count(data: "bytes | memoryview") -> int:
    """The number of words (maximal runs of non-whitespace, docs/contract/normalizer.md#words)
    of UTF-8 `data`, without scanning it: a few passes of byte comparisons a block at a
    time (the rare control and non-ASCII bytes looked at one by one), nothing kept. A
    block ends before a character's first byte, so no whitespace character is split."""
    view = np.frombuffer(data, dtype=np.uint8)
    words, space_before, lo = 0, True, 0
    while lo < view.size:
        hi = min(view.size, lo + WORD_COUNT_BLOCK)
        while hi < view.size and view[hi] & 0xC0 == 0x80:  # a continuation byte: not a character's start
            hi += 1
        block = view[lo:hi]
        space = block <= 0x20
        low = np.flatnonzero(block < _NOT_SPACE_BELOW)
        values = block[low]
        space[low[(values < _ASCII_SPACE_RANGE[0]) | (values > _ASCII_SPACE_RANGE[1])]] = False
        wide = np.flatnonzero(block >= 0xC2)
        values = block[wide]
        for lead, sequences in _WIDE_SPACES.items():
            at = wide[values == lead]
            for seq in sequences:
                ok = at[at + len(seq) <= block.size]
                for k in range(1, len(seq)):
                    ok = ok[block[ok + k] == seq[k]]
                for k in range(len(seq)):
                    space[ok + k] = True
        words += int(np.count_nonzero(space[:-1] > space[1:])) + int(space_before and not space[0])
        space_before, lo = bool(space[-1]), hi
    return words


def refuse_dense(documents: "list[tuple[object, bytes | memoryview]]", command: str,
                 rules: "Iterable[str]" = ()) -> None:
    """LoadError when `documents` ((name, UTF-8 bytes) pairs: one document, or the two a
    command holds together), admitted by their size, would need more than MEMORY_BUDGET
    for their words (memory_needed_for). Their words are counted only when the densest
    text of that size could pass the budget."""
    rules = list(rules)
    sizes = [len(data) for _, data in documents]
    densest = sum((n + 1) // 2 for n in sizes)  # a one-byte word and its space
    if memory_needed_for(sum(sizes), densest, command, rules) <= MEMORY_BUDGET:
        return
    words = sum(word_count(data) for _, data in documents)
    need = memory_needed_for(sum(sizes), words, command, rules)
    if need <= MEMORY_BUDGET:
        return
    name = " and ".join(str(n) for n, _ in documents)
    its = "its" if len(documents) == 1 else "their"
    raise LoadError(name, f"too many words for {its} size: {words} words in {human_bytes(sum(sizes))} (one every "
                          f"{sum(sizes) / max(words, 1):.1f} bytes) would need about {human_bytes(need)} of memory, "
                          f"over the budget of {human_bytes(MEMORY_BUDGET)}")


def memory_needed(n_bytes: int, per_byte: int | None = None) -> int:
    """About how much memory chunking a document of `n_bytes` UTF-8 bytes takes at its
    peak, at `per_byte` (MEMORY_PER_INPUT_BYTE when None)."""
    return n_bytes * (MEMORY_PER_INPUT_BYTE if per_byte is None else per_byte)


def human_bytes(n: float) -> str:
    """1536 -> "1.5 KiB": sizes in messages."""
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    raise AssertionError("unreachable")


def out_of_memory_message(documents: "list[tuple[str, int | None]]", per_byte: int | None = None) -> str:
    """The one line shown when memory runs out: which document(s), how large, and about
    how much memory they would need at `per_byte` (memory_per_input_byte of the command;
    MEMORY_PER_INPUT_BYTE when None). `documents` holds (name, size in bytes) pairs; a
    size of None is unknown, and is said so rather than counted as nothing."""
    per_byte = MEMORY_PER_INPUT_BYTE if per_byte is None else per_byte
    if not documents:
        return "out of memory; free some memory or give the command a smaller document"
    what = " and ".join(f"{name} ({'size unknown' if size is None else human_bytes(size)})"
                        for name, size in documents)
    sizes = [size for _, size in documents if size is not None]
    if not sizes:
        return f"out of memory chunking {what}; free some memory or split the document"
    need = sum(memory_needed(size, per_byte) for size in sizes)
    return (f"out of memory chunking {what}: this needs about {human_bytes(need)} of memory "
            f"({per_byte} bytes per byte of text); free some memory or split the document")


def decode_document(data: bytes, origin: object = "<bytes>") -> str:
    """Bytes of a document to text, or a LoadError saying what is wrong and where."""
    _refuse_binary(data, origin)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _not_utf8(data, e, origin) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text


def checked_utf8(data: bytes, origin: object = "<bytes>") -> bytes:
    """decode_document without the str: the document's UTF-8 bytes after the same
    checks (same errors), less a leading BOM. Chunking them gives what chunking
    decode_document(data) gives."""
    _refuse_binary(data, origin)
    try:
        kernel.check_utf8(data)
    except UnicodeDecodeError as e:
        raise _not_utf8(data, e, origin) from None
    return data[len(_BOM):] if data.startswith(_BOM) else data


_BOM = "\ufeff".encode()


def _refuse_binary(data: bytes, origin: object) -> None:
    nul = data.find(b"\x00")
    if nul != -1:
        raise LoadError(origin, f"binary file (NUL byte at byte offset {nul}), not a text document")


def _not_utf8(data: bytes, e: UnicodeDecodeError, origin: object) -> LoadError:
    bad = data[e.start : e.start + 1].hex()
    return LoadError(origin, f"not valid UTF-8: byte 0x{bad} at byte offset {e.start} ({e.reason})")


def too_large(origin: object, max_bytes: int, size: int | None = None) -> LoadError:
    """The refusal of a text over `max_bytes` (a limit max_document_bytes gave), with its
    `size` when known (a pipe's is not) and the memory it would need past the limit
    (MEMORY_BUDGET)."""
    memory = f"chunking it would need over {human_bytes(MEMORY_BUDGET)} of memory"
    if size is None:
        return LoadError(origin, f"too large: over {human_bytes(max_bytes)}, the limit ({memory})")
    return LoadError(origin, f"too large: {human_bytes(size)}, over the limit of {human_bytes(max_bytes)} ({memory})")


def load_text(path: str | os.PathLike, max_bytes: int = MAX_DOCUMENT_BYTES) -> str:
    """Read a UTF-8 document. Raises LoadError for missing, unreadable, binary,
    non-UTF-8 or over-large files. An empty file gives "".

    The file is opened once and read with a bound, so a pipe or a device (whose size
    the file system cannot tell) is also refused once it passes `max_bytes`. A named
    pipe is opened without waiting for a writer: with none, it reads as empty instead
    of blocking for ever (a GUI worker would never finish)."""
    return decode_document(read_document_bytes(path, max_bytes), Path(path))


def load_utf8(path: str | os.PathLike, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """load_text, as the checked UTF-8 bytes (checked_utf8): what a command that only
    chunks reads, so the document is never a str (four bytes a character when it
    holds one emoji). chunk(load_utf8(p)) gives exactly what chunk(load_text(p)) does."""
    return checked_utf8(read_document_bytes(path, max_bytes), Path(path))


def read_document_bytes(path: str | os.PathLike, max_bytes: int = MAX_DOCUMENT_BYTES) -> bytes:
    """The bytes of a document file, unchecked: the file errors of load_text."""
    if not os.fspath(path):
        raise LoadError("''", "empty path: name a file to read")
    if ("\0" if isinstance(os.fspath(path), str) else b"\0") in os.fspath(path):
        raise LoadError(os.fsdecode(path), "the path holds a NUL character, which no file name can contain")
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)  # only the open must not wait; reads may
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise LoadError(p, "is a directory, not a file")
            if stat.S_ISREG(st.st_mode) and st.st_size > max_bytes:  # refused before it is read
                raise too_large(p, max_bytes, st.st_size)
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        raise LoadError(p, "no such file") from None
    except PermissionError:
        raise LoadError(p, "permission denied") from None
    except IsADirectoryError:
        raise LoadError(p, "is a directory, not a file") from None
    except LoadError:
        raise
    except OSError as e:
        raise LoadError(p, f"cannot read: {e.strerror or e}") from None
    if len(data) > max_bytes:
        raise too_large(p, max_bytes)
    return data
