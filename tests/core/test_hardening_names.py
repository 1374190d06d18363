"""A document whose file name is not UTF-8 (bytes a Linux file system allows) is
reported, not refused: the HTML report and the JSON output show the undecodable bytes
as replacement characters (U+FFFD), the text output as escapes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from steadlith_core.errors import readable, visible

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")

TEXT = "# Title\n\nA paragraph of words that the chunker cuts somewhere.\n" * 20


def _steadlith(tmp_path, *argv: bytes) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"}
    return subprocess.run([sys.executable.encode(), b"-m", b"steadlith_core", *argv], cwd=tmp_path,
                          capture_output=True, env=env, timeout=120)


@pytest.fixture
def bad_name(tmp_path) -> bytes:
    name = b"bad\xff\xfe.md"
    with open(os.path.join(os.fsencode(tmp_path), name), "wb") as f:
        f.write(TEXT.encode())
    (tmp_path / "other.md").write_text(TEXT + "One more line.\n", encoding="utf-8")
    return name


def test_readable_replaces_undecodable_bytes():
    assert readable(os.fsdecode(b"bad\xff\xfe.md")) == "bad\ufffd\ufffd.md"
    assert readable("plain é.md") == "plain é.md"
    assert readable("lone \ud800 surrogate") == "lone \ufffd surrogate"


def test_visible_escapes_undecodable_bytes():
    # two files that differ only in their undecodable bytes stay two names
    assert visible(os.fsdecode(b"bad\xff.md")) == "bad\\xff.md"
    assert visible(os.fsdecode(b"bad\xfe.md")) == "bad\\xfe.md"


def test_compare_html_and_json_with_a_non_utf8_name(tmp_path, bad_name):
    done = _steadlith(tmp_path, b"compare", bad_name, b"other.md", b"--html", b"out.html", b"--format", b"json")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    html = (tmp_path / "out.html").read_text(encoding="utf-8")
    assert "bad\ufffd\ufffd.md" in html
    data = json.loads(done.stdout.decode("utf-8"))
    assert "bad\ufffd\ufffd.md" in json.dumps(data, ensure_ascii=False)


def test_compare_text_with_a_non_utf8_name(tmp_path, bad_name):
    done = _steadlith(tmp_path, b"compare", bad_name, b"other.md")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert "bad\\xff\\xfe.md" in done.stdout.decode("utf-8")


def test_lab_html_and_json_with_a_non_utf8_name(tmp_path, bad_name):
    done = _steadlith(tmp_path, b"lab", bad_name, b"--edits", b"5", b"--hunt", b"0", b"--html", b"lab.html",
                      b"--format", b"json")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert "bad\ufffd\ufffd.md" in (tmp_path / "lab.html").read_text(encoding="utf-8")
    assert json.loads(done.stdout.decode("utf-8"))["file"] == "bad\ufffd\ufffd.md"


def test_compare_rules_text_with_a_non_utf8_name(tmp_path, bad_name):
    done = _steadlith(tmp_path, b"compare", bad_name, b"other.md", b"--rules", b"tttd-v1,lmx2-v1",
                      b"--html", b"rules.html")
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert "bad\\xff\\xfe.md" in done.stdout.decode("utf-8")
    assert "bad\ufffd\ufffd.md" in (tmp_path / "rules.html").read_text(encoding="utf-8")
