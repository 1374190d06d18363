"""The document readers: `steadlith lab` takes PATH@REV as chunk and compare do (one
reader for all), and running out of memory names the document that was being read and
its size, PATH@REV included, for every command that reads one."""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pygit2
import pytest

from cli_helpers import run
from git_history import History
from steadlith_core.chunking.loader import human_bytes, memory_per_input_byte

TEXT = "A sentence of words. Another one follows here.\n\nA second paragraph with more words.\n"


def test_lab_takes_a_file_at_a_revision(capsys, tmp_path, monkeypatch):
    h = History(tmp_path)
    first = h.commit({"doc.md": TEXT}, "first version")
    h.commit({"doc.md": TEXT + "\nA third paragraph.\n"}, "second version")
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "lab", "doc.md@HEAD~1", "--edits", "3", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["words"] == len(TEXT.split())  # the old version, not the working tree's
    code, out, err = run(capsys, "lab", "doc.md@HEAD~1", "--edits", "3")
    assert code == 0 and out.startswith(f"lab  doc.md @ {first[:7]} — first version:"), out
    code, out, err = run(capsys, "lab", "doc.md@nope", "--edits", "3")
    assert code == 2 and "unknown revision 'nope'" in err and len(err.splitlines()) == 1


WORDS = 6_000_000  # 54 MB: over a 500 MB address-space cap on either kernel, even for the lean `chunk`


@pytest.fixture(scope="module")
def huge(tmp_path_factory):
    root = tmp_path_factory.mktemp("huge")
    text = " ".join(f"w{i:07d}" for i in range(WORDS))
    h = History(root)
    h.commit({"huge.md": text}, "huge")
    (root / "huge.md").write_text(text + " more", encoding="utf-8")
    return root, len(text.encode()), (root / "huge.md").stat().st_size


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (500 * 2**20, 500 * 2**20))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
@pytest.mark.parametrize("command", [["chunk", "huge.md@HEAD", "--format", "json"], ["lab", "huge.md", "--edits", "2"],
                                     ["lab", "huge.md@HEAD", "--edits", "2"]])
def test_out_of_memory_names_what_was_read(huge, command):
    root, blob_size, file_size = huge
    r = subprocess.run([sys.executable, "-m", "steadlith_core.cli.main", *command], cwd=root,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300, preexec_fn=_limit)
    lines = r.stderr.splitlines()
    assert r.returncode == 2 and len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    size = blob_size if "@" in command[1] else file_size
    # each command's own measured figure: chunk's under tttd-v1 (the default rule), the lab's
    # for its default chunkers together
    per_byte = memory_per_input_byte("chunk", ["tttd-v1"]) if command[0] == "chunk" else \
        memory_per_input_byte("lab", ["tttd-v1", "lmx2-v1", "fixed"])
    assert lines[0].startswith(f"steadlith: error: out of memory chunking {command[1]} ({human_bytes(size)}): "
                               f"this needs about {human_bytes(size * per_byte)} of memory "
                               f"({per_byte} bytes per byte of text)"), lines[0]


def test_unknown_size_is_said_not_zero():
    from steadlith_core.chunking.loader import out_of_memory_message

    line = out_of_memory_message([("doc.md@HEAD", None)])
    assert "0 bytes" not in line and "doc.md@HEAD (size unknown)" in line
