"""Names are data in every CLI message: a file name holding a newline, an escape
sequence, a bidi override or markup stays one line of text, sends no raw control
character to the terminal and cannot reorder the words around it."""

from __future__ import annotations

import contextlib
import io
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import example, given
from hypothesis import strategies as st

from steadlith_core.cli.main import main
from steadlith_core.errors import visible
import pytest

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

CONTROL = "\n\r\t\x1b\x07\x08\x7f\x85\u2028\u2029"
BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
MARKUP = "<>&\"'/ b i img src=x"
NAME_CHARS = st.sampled_from(list(CONTROL + BIDI + MARKUP + "aé中😀\\"))
NAMES = st.text(NAME_CHARS, min_size=1, max_size=30)


def raw_controls(text: str) -> list[str]:
    """What a terminal would act on instead of showing: controls, separators, bidi
    embeddings, overrides and isolates."""
    return [ch for ch in text if unicodedata.category(ch) in ("Cc", "Zl", "Zp") or ch in BIDI]


def run(*argv: str) -> tuple[int, str, str]:
    """main(argv) with its own capture (Hypothesis examples cannot share capsys)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@given(NAMES)
@example("report\n\x1b[31mFAKE: all chunks reused\x1b[0m")
@example("txt.\u202eexe")
def test_visible_leaves_nothing_a_terminal_would_act_on(name):
    shown = visible(name)
    assert raw_controls(shown) == []
    assert "\n" not in shown


@given(st.text(st.characters(blacklist_categories=("Cc", "Zl", "Zp", "Cs")), max_size=40).filter(
    lambda s: not any(ch in BIDI for ch in s)))
def test_visible_keeps_ordinary_names_as_they_are(name):
    assert visible(name) == name


def test_an_error_naming_a_file_with_a_newline_and_escape_stays_one_line(tmp_path):
    name = str(tmp_path / "notes\n\x1b[2J\x1b[31mFAKE: ok.txt")
    code, out, err = run("chunk", name)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "\x1b" not in err
    assert "notes\\n\\x1b[2J\\x1b[31mFAKE: ok.txt: no such file" in err


@given(name=NAMES)
def test_every_message_about_a_missing_file_is_one_plain_line(name):
    """chunk and compare, with the hostile name as either version."""
    with tempfile.TemporaryDirectory() as tmp:
        check_missing(Path(tmp), name)


def check_missing(folder: Path, name: str) -> None:
    ok = folder / "ok.txt"
    ok.write_text("some words here\n", encoding="utf-8")
    missing = str(folder / name.replace("/", "_"))
    for argv in (["chunk", missing], ["compare", str(ok), missing], ["compare", missing, str(ok)]):
        code, out, err = run(*argv)
        assert code == 2, err
        assert err.endswith("\n") and err.count("\n") == 1
        assert raw_controls(err[:-1]) == []


@given(name=NAMES)
def test_names_in_text_output_stay_on_their_line(name):
    """The header of `chunk` and the A/B lines of `compare` show the name escaped."""
    with tempfile.TemporaryDirectory() as tmp:
        check_output(Path(tmp), name)


def check_output(folder: Path, name: str) -> None:
    path = folder / name.replace("/", "_")
    path.write_text("alpha beta gamma\n", encoding="utf-8")
    code, out, err = run("chunk", str(path))
    assert (code, err) == (0, "")
    header = out.splitlines()[0]
    assert header.startswith(visible(str(path)) + ": 3 words")
    code, out, err = run("compare", str(path), str(path))
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("A          " + visible(str(path)) + ": 3 words")
    assert lines[1].startswith("B          " + visible(str(path)) + ": 3 words")
    assert raw_controls(out.replace("\n", "")) == []


def test_a_nul_byte_in_a_path_is_a_clear_error(tmp_path):
    code, out, err = run("chunk", str(tmp_path / "a\0b.txt"))
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "\0" not in err
    assert err.endswith("a\\x00b.txt: the path holds a NUL character, which no file name can contain\n")
