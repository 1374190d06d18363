"""The object store of a repository as the history readers open it: loose objects read
and checked here (a damaged one is an error naming it, never a hang), packs by libgit2,
alternates and a linked worktree's shared objects followed."""

from __future__ import annotations

import hashlib
import os
import zlib
from typing import Iterator

import pygit2

from .git_errors import CorruptObjectError
from .places import common_dir


_LOOSE_TYPES = {b"commit": 1, b"tree": 2, b"blob": 3, b"tag": 4}


class CheckedLooseObjects(pygit2.OdbBackend):
    """The loose objects of a repository, read and checked here instead of by libgit2.

    libgit2 (1.9) inflating a truncated loose object never returns: its read loop waits
    for input zlib will never get, so one damaged object made every command that reached
    it spin for ever. This reader inflates the whole file with zlib, checks the stream
    ended, the header (type, size) and the SHA-1, and raises CorruptObjectError naming
    the object otherwise. Packs are still read by libgit2, which reports their damage."""

    def __init__(self, objects: str, name: str):
        super().__init__()
        self._objects, self._name = objects, name

    def _path(self, hex_id: str) -> str:
        return os.path.join(self._objects, hex_id[:2], hex_id[2:])

    def _corrupt(self, hex_id: str, why: str) -> CorruptObjectError:
        return CorruptObjectError(f"{self._name}: object {hex_id} is corrupt ({why}; its file is "
                                  f"{self._path(hex_id)}); git fsck lists the damage", repo=self._name, obj=hex_id)

    def _load(self, hex_id: str) -> tuple[int, bytes]:
        try:
            with open(self._path(hex_id), "rb") as f:
                raw = f.read()
        except FileNotFoundError:
            raise KeyError(hex_id) from None
        except OSError as e:
            raise self._corrupt(hex_id, f"cannot read it: {e.strerror or e}") from None
        inflate = zlib.decompressobj()
        try:
            data = inflate.decompress(raw)
        except zlib.error as e:
            raise self._corrupt(hex_id, f"zlib: {e}") from None
        if not inflate.eof:
            raise self._corrupt(hex_id, "truncated")
        head, nul, body = data.partition(b"\0")
        kind, _, size = head.partition(b" ")
        if not nul or kind not in _LOOSE_TYPES or not size.isdigit() or int(size) != len(body):
            raise self._corrupt(hex_id, "bad header")
        if hashlib.sha1(data).hexdigest() != hex_id:
            raise self._corrupt(hex_id, "its content does not match its id")
        return _LOOSE_TYPES[kind], body

    def read_cb(self, oid) -> tuple[int, bytes]:
        return self._load(str(oid))

    def read_header_cb(self, oid) -> tuple[int, int]:
        return self.header(str(oid))

    def header(self, hex_id: str) -> tuple[int, int]:
        """The type and size from the object's header alone: the body is neither inflated
        nor held, so asking a large blob's size costs a few bytes of memory (the size is
        what an out-of-memory message reports)."""
        try:
            with open(self._path(hex_id), "rb") as f:
                inflate, data = zlib.decompressobj(), b""
                while b"\0" not in data and len(data) < 64:
                    raw = inflate.unconsumed_tail or f.read(64)
                    if not raw:
                        break
                    data += inflate.decompress(raw, 64 - len(data))
        except FileNotFoundError:
            raise KeyError(hex_id) from None
        except OSError as e:
            raise self._corrupt(hex_id, f"cannot read it: {e.strerror or e}") from None
        except zlib.error as e:
            raise self._corrupt(hex_id, f"zlib: {e}") from None
        head, nul, _ = data.partition(b"\0")
        kind, _, size = head.partition(b" ")
        if not nul or kind not in _LOOSE_TYPES or not size.isdigit():
            raise self._corrupt(hex_id, "bad header")
        return _LOOSE_TYPES[kind], int(size)

    def exists_cb(self, oid) -> bool:
        return os.path.isfile(self._path(str(oid)))

    def exists_prefix_cb(self, prefix: str) -> pygit2.Oid:
        prefix = str(prefix).lower()
        try:
            names = os.listdir(os.path.join(self._objects, prefix[:2]))
        except OSError:
            names = []
        found = [prefix[:2] + n for n in names if len(n) == 38 and (prefix[:2] + n).startswith(prefix)]
        if not found:
            raise KeyError(prefix)
        if len(found) > 1:
            raise ValueError(f"{prefix}: ambiguous")
        return pygit2.Oid(hex=found[0])

    def read_prefix_cb(self, prefix: str) -> tuple[int, bytes, pygit2.Oid]:
        oid = self.exists_prefix_cb(prefix)
        kind, body = self._load(str(oid))
        return kind, body, oid

    def write_cb(self, oid, data: bytes, kind: int) -> None:
        """A new loose object, as git writes one (compressed, then renamed into place)."""
        hex_id = str(oid)
        path = self._path(hex_id)
        if os.path.exists(path):
            return
        names = {v: k for k, v in _LOOSE_TYPES.items()}
        body = bytes(data)
        raw = zlib.compress(names[int(kind)] + b" " + str(len(body)).encode() + b"\0" + body)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        temporary = f"{path}.steadlith-tmp-{os.getpid()}"
        with open(temporary, "wb") as f:
            f.write(raw)
        os.chmod(temporary, 0o444)
        os.replace(temporary, path)

    def refresh_cb(self) -> None:
        pass

    def __iter__(self) -> Iterator[pygit2.Oid]:
        for top in sorted(os.listdir(self._objects)):
            if len(top) == 2 and os.path.isdir(os.path.join(self._objects, top)):
                for n in sorted(os.listdir(os.path.join(self._objects, top))):
                    if len(n) == 38:
                        yield pygit2.Oid(hex=top + n)


def _object_dirs(objects: str) -> list[str]:
    """The object directory and those its alternates file names (one level, as listed)."""
    dirs = [objects]
    try:
        with open(os.path.join(objects, "info", "alternates"), encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    dirs.append(line if os.path.isabs(line) else os.path.normpath(os.path.join(objects, line)))
    except OSError:
        pass
    return [d for d in dirs if os.path.isdir(d)]


def objects_dir(repo: pygit2.Repository) -> str:
    """The repository's object directory. A linked worktree's git dir
    (`.git/worktrees/NAME`) holds its own HEAD but no objects: its `commondir` file names
    the git dir that has them."""
    return os.path.join(common_dir(repo.path), "objects")


def check_loose_objects(repo: pygit2.Repository, name: str) -> None:
    """Read the repository's loose objects with CheckedLooseObjects, its packs with
    libgit2. A SHA-256 repository keeps libgit2's own reader. `name`: the repository as
    errors name it."""
    try:
        if str(repo.config["extensions.objectformat"]).lower() != "sha1":
            return
    except (KeyError, pygit2.GitError, ValueError):
        pass
    odb = pygit2.Odb()
    dirs = _object_dirs(objects_dir(repo))
    for n, objects in enumerate(dirs):
        odb.add_backend(pygit2.OdbBackendPack(objects), 20 - 2 * n)
        odb.add_backend(CheckedLooseObjects(objects, name), 19 - 2 * n)
    repo.set_odb(odb)
