"""A git repository built inside a test with pygit2 (imported as `git_helpers`)."""

from __future__ import annotations

from pathlib import Path

import pygit2

WORDS = ("river stone lantern meadow copper quiet harbour signal orchard velvet ember canyon "
         "thistle marble beacon willow cobalt prairie falcon juniper").split()


def prose(n_paragraphs: int, seed: int = 0, words_per: int = 60) -> str:
    """Deterministic paragraphs of varied words: enough text for several chunks."""
    out = []
    k = seed
    for p in range(n_paragraphs):
        words = []
        for i in range(words_per):
            k = (k * 1103515245 + 12345) % 2**31
            words.append(WORDS[k % len(WORDS)])
        out.append(f"Paragraph {p}: " + " ".join(words) + ".")
    return "\n\n".join(out) + "\n"


def commit(repo: pygit2.Repository, message: str, files: dict[str, str | bytes | None], when: int) -> str:
    """Write `files` (None deletes one) into the working tree and index, commit on HEAD."""
    root = Path(repo.workdir)
    for name, content in files.items():
        target = root / name
        if content is None:
            target.unlink()
            repo.index.remove(name)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")
        repo.index.add(name)
    repo.index.write()
    tree = repo.index.write_tree()
    sig = pygit2.Signature("Tester", "tester@example.invalid", when, 0)
    parents = [] if repo.head_is_unborn else [repo.head.target]
    return str(repo.create_commit("HEAD", sig, sig, message, tree, parents))


#: doc_history's commits, oldest first: the file added, small edits, one rewrite of its
#: first half (the spike), more small edits.
MESSAGES = ("Add the doc", "Revise paragraph five", "Revise paragraph forty", "Rewrite the first half",
            "Revise paragraph fifty", "Name paragraph fifty-five")
REWRITE = 3


def doc_history(root: Path) -> tuple[pygit2.Repository, list[str], dict[str, str]]:
    """A repository whose doc.md went through MESSAGES; just before the rewrite a commit
    adds a binary logo.bin and leaves doc.md alone. Returns the repository, the ids of
    doc.md's commits oldest first, and doc.md's text at each of them."""
    repo = pygit2.init_repository(str(root))
    versions = [prose(60, seed=1)]
    versions.append(versions[-1].replace("Paragraph 5:", "Paragraph 5 (revised):"))
    versions.append(versions[-1].replace("Paragraph 40:", "Paragraph forty:"))
    paragraphs = versions[-1].strip().split("\n\n")
    versions.append("\n\n".join(prose(30, seed=99).strip().split("\n\n") + paragraphs[30:]) + "\n")
    versions.append(versions[-1].replace("Paragraph 50:", "Paragraph 50 (revised):"))
    versions.append(versions[-1].replace("Paragraph 55:", "Paragraph fifty-five:"))
    texts = {}
    ids = []
    for n, (message, text) in enumerate(zip(MESSAGES, versions)):
        if n == REWRITE:  # the rewrite's parent is a commit that left doc.md alone
            commit(repo, "Add a logo", {"logo.bin": b"\x89PNG\x00\x01binary"}, when=1_700_000_000 + n * 3600 - 60)
        cid = commit(repo, message, {"doc.md": text}, when=1_700_000_000 + n * 3600)
        ids.append(cid)
        texts[cid] = text
    return repo, ids, texts
