"""A git repository built in a test with pygit2: commits of whole file sets, no `git` process.

`History.commit({"a.md": text, "old.md": None})` writes a commit on a branch whose tree
is the parent's with those files changed (None deletes); a `bytes` value is stored as is
(binary and non-UTF-8 blobs), `SUBMODULE` stores a gitlink. Times advance one minute
per commit, so the log's order is the commit order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Mapping, Optional, Union

import pygit2

SUBMODULE = object()  # a gitlink entry: a commit of another repository
MODE_BLOB, MODE_SUBMODULE = 0o100644, 0o160000
Content = Union[str, bytes, None, object]


class History:
    def __init__(self, root: Path, branch: str = "main"):
        self.root = Path(root)
        self.repo = pygit2.init_repository(str(self.root), initial_head=branch)
        self.branch = branch
        self._time = 1_700_000_000

    def commit(self, changes: Mapping[str, Content], message: str, *, branch: Optional[str] = None,
               parents: Optional[list[str]] = None, checkout: bool = True) -> str:
        """Commit `changes` on `branch` (default: the main branch); `parents` overrides
        the parents (a merge: [first, second]). Returns the commit's hex id."""
        ref = f"refs/heads/{branch or self.branch}"
        if parents is None:
            parents = [str(self.repo.references[ref].target)] if ref in self.repo.references else []
        index = pygit2.Index()
        if parents:
            index.read_tree(self.repo[parents[0]].peel(pygit2.Commit).tree)
        for path, content in changes.items():
            if content is None:
                index.remove(path)
            elif content is SUBMODULE:
                index.add(pygit2.IndexEntry(path, pygit2.Oid(hex="1" * 40), MODE_SUBMODULE))
            else:
                data = content.encode("utf-8") if isinstance(content, str) else content
                index.add(pygit2.IndexEntry(path, self.repo.create_blob(data), MODE_BLOB))
        tree = index.write_tree(self.repo)
        self._time += 60
        sig = pygit2.Signature("Tess Ter", "tess@example.invalid", self._time, 0)
        oid = self.repo.create_commit(ref, sig, sig, message, tree, [pygit2.Oid(hex=p) for p in parents])
        if checkout and ref == f"refs/heads/{self.branch}":
            self.repo.checkout_tree(self.repo[oid], strategy=pygit2.enums.CheckoutStrategy.FORCE)
        return str(oid)

    def tag(self, name: str, commit: str) -> None:
        self.repo.references.create(f"refs/tags/{name}", pygit2.Oid(hex=commit))
