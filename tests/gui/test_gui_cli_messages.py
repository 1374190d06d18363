"""`steadlith-gui` errors on stderr stay one line whatever a name holds: a newline or an
escape sequence in a document or workspace path is written as an escape, never cut
short nor sent raw to the terminal."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

HOSTILE = "notes\n\x1b[2J\x1b[31mFAKE: all reused\u202e.md"
SHOWN = "notes\\n\\x1b[2J\\x1b[31mFAKE: all reused\\u202e.md"


def run(args):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([sys.executable, "-m", "steadlith_gui", *args], env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("how", ["document", "workspace"])
def test_a_hostile_path_is_one_escaped_line(tmp_path, how):
    ok = tmp_path / "b.md"
    ok.write_text("some words\n", encoding="utf-8")
    missing = str(tmp_path / HOSTILE)
    args = [missing, str(ok)] if how == "document" else ["--open-workspace", missing]
    r = run([*args, "--export-report", str(tmp_path / "r.html")])
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "\x1b" not in r.stderr and "\u202e" not in r.stderr
    assert f"{tmp_path}/{SHOWN}: no such file" in r.stderr



USAGE_ERRORS = [["--theme", "pink"], ["--no-such-option"], ["--size", "big"], ["a", "b", "c"],
                ["--label", "C=x", "a.md", "b.md"], ["--example", "no\nsuch\x1b[2J"]]


@pytest.mark.parametrize("args", USAGE_ERRORS)
def test_a_usage_error_is_one_line(args, capsys):
    from steadlith_gui.app import main

    with pytest.raises(SystemExit) as exit:
        main(args)
    out, err = capsys.readouterr()
    assert exit.value.code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("steadlith-gui: error: ") and "\x1b" not in err, err


def test_a_usage_error_of_the_command_is_one_line():
    r = run(["--theme", "pink"])
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == "steadlith-gui: error: argument --theme: invalid choice: 'pink' " \
                       "(choose from 'system', 'light', 'dark') (see --help)\n"
