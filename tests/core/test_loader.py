"""load_text: what a user gets when opening a file (SPEC §1: UTF-8, one leading BOM
stripped, no newline translation, undecodable input reported). Every failure is a
LoadError naming the path, so the GUI and the CLI can show it in one line."""

from __future__ import annotations

import re

import pytest

from steadlith_core import ChunkerParams, LoadError, chunk, decode_document, load_text
from steadlith_core.kernel import select as kernel
from steadlith_core.chunking.loader import load_utf8

BOM = b"\xef\xbb\xbf"


def write(tmp_path, data: bytes, name: str = "doc.txt"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_utf8_text_is_decoded(tmp_path):
    """Accents, CJK and astral characters come back as the same str."""
    text = "caf\u00e9 \u65e5\u672c\u8a9e \U0001F680 na\u00efve\n"
    assert load_text(write(tmp_path, text.encode("utf-8"))) == text


def test_accepts_str_and_pathlike(tmp_path):
    path = write(tmp_path, b"abc")
    assert load_text(str(path)) == load_text(path) == "abc"


def test_exactly_one_leading_bom_is_stripped(tmp_path):
    """A leading BOM is an encoding mark, not text; a second one is text (U+FEFF is
    a word character, SPEC §1.1) and stays in the first word."""
    assert load_text(write(tmp_path, BOM + b"hello world")) == "hello world"
    twice = load_text(write(tmp_path, BOM + BOM + b"hello world"))
    assert twice == "\ufeffhello world"
    words = chunk(twice, ChunkerParams(min_tokens=1, max_tokens=8)).words
    assert [(w.text, w.start, w.end) for w in words] == [("\ufeffhello", 0, 6), ("world", 7, 12)]


def test_bom_elsewhere_is_kept(tmp_path):
    """Only a BOM at the very start is removed: one after whitespace or inside a word stays."""
    assert load_text(write(tmp_path, b" " + BOM + b"a" + BOM + b"b")) == " \ufeffa\ufeffb"


def test_line_endings_are_kept_so_offsets_index_the_file(tmp_path):
    """CRLF, lone CR and LF are returned untranslated; word and chunk offsets index
    the returned text, which is the file's own text."""
    raw = b"one two\r\n\r\nthree\rfour\nfive \xc3\xa9\xf0\x9f\x9a\x80 six\r\n"
    text = load_text(write(tmp_path, raw))
    assert text == raw.decode("utf-8")
    assert "\r\n" in text and "\r" in text.replace("\r\n", "")
    result = chunk(text, ChunkerParams(min_tokens=1, max_tokens=2))
    assert [text[w.start : w.end] for w in result.words] == text.split()
    assert [w.para for w in result.words] == [False, False, True, False, False, False, False]
    for c in result.chunks:
        span = text[c.start : c.end]
        assert span.split() == c.text.split()


def test_empty_file_gives_empty_text_and_an_empty_chunking(tmp_path):
    """An empty file is a document with zero words and zero chunks, with diagnostics
    that say so instead of failing (no statistics, hard-cut rate 0)."""
    text = load_text(write(tmp_path, b""))
    assert text == ""
    result = chunk(text)
    assert result.word_count == 0 and result.chunks == ()
    d = result.diagnostics
    assert d.chunk_count == 0 and d.word_count == 0 and d.total_tokens == 0
    assert d.hard_cut_rate == 0
    assert (d.tokens_min, d.tokens_mean, d.tokens_median, d.tokens_p90, d.tokens_max) == (None,) * 5
    assert d.primary == d.backup == d.hard == d.end == d.snapped == d.chunks_over_max == 0
    assert sum(d.histogram_counts) == 0
    assert result.chunk_at_offset(0) is None


def test_bom_only_and_whitespace_only_files_have_no_words(tmp_path):
    assert load_text(write(tmp_path, BOM)) == ""
    text = load_text(write(tmp_path, b" \r\n\t\xc2\xa0\r\r\n"))
    assert chunk(text).chunks == () and chunk(text).word_count == 0


def assert_load_error(path, *fragments: str) -> LoadError:
    with pytest.raises(LoadError) as info:
        load_text(path)
    err = info.value
    assert isinstance(err, OSError)
    message = str(err)
    assert str(path) in message, message
    assert err.path == str(path)
    assert "\n" not in message
    reason = message.replace(str(path), "")  # digits in a tmp path must not satisfy a check
    for fragment in fragments:
        assert re.search(fragment, reason), (fragment, message)
    return err


def test_missing_file(tmp_path):
    assert_load_error(tmp_path / "no-such-file.txt", r"(?i)no such file|not found|does not exist")


def test_directory(tmp_path):
    assert_load_error(tmp_path, r"(?i)director")


def test_binary_file_with_nul_byte(tmp_path):
    """A NUL byte marks a binary file; the message says so and where."""
    assert_load_error(write(tmp_path, b"text\x00more", "a.bin"), r"(?i)binary", r"\b4\b")


def test_invalid_utf8_reports_the_byte_offset(tmp_path):
    """The offset is in bytes of the file (here 7: 'a' 1 + 'é' 2 + rocket 4), not in
    characters (which would be 3)."""
    raw = "a\u00e9\U0001F680".encode("utf-8") + b"\xff rest"
    err = assert_load_error(write(tmp_path, raw, "latin.txt"), r"(?i)utf-?8", r"\b7\b")
    assert not re.search(r"\b3\b", str(err).replace(err.path, ""))


@pytest.mark.parametrize(
    "raw,offset",
    [
        (b"ab\xe2\x82", 2),  # truncated at end of file
        (b"x\xed\xa0\x80y", 1),  # an encoded surrogate is not UTF-8
        (b"\xc0\xaf", 0),  # overlong encoding
        (BOM + b"ok \xfe", 6),  # offsets count the BOM: they are file offsets
    ],
)
def test_other_invalid_utf8(tmp_path, raw, offset):
    assert_load_error(write(tmp_path, raw), r"(?i)utf-?8", rf"\b{offset}\b")


def test_too_large_file_is_refused(tmp_path):
    path = write(tmp_path, b"x" * 100)
    with pytest.raises(LoadError) as info:
        load_text(path, max_bytes=10)
    assert str(path) in str(info.value) and "large" in str(info.value)


def test_decode_document_names_its_origin():
    """The decoding part alone (for drag-and-drop bytes) reports the same way."""
    assert decode_document(BOM + b"a\r\nb", "clipboard") == "a\r\nb"
    with pytest.raises(LoadError) as info:
        decode_document(b"a\x00b", "clipboard")
    assert str(info.value).startswith("clipboard: ")


def test_a_named_pipe_without_a_writer_never_blocks(tmp_path):
    """Opening a FIFO waits for a writer by default; the inspector's loader thread
    would then never finish (and the app never exit). With no writer it reads as empty."""
    import os
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("text", load_text(fifo)), daemon=True)
    worker.start()
    worker.join(timeout=10)
    assert not worker.is_alive(), "load_text blocked on a FIFO with no writer"
    assert result["text"] == ""


# load_utf8: the same file checks as load_text, giving the checked bytes instead of a str

ERROR_FILES = [b"text\x00more", "a\u00e9\U0001F680".encode() + b"\xff rest", b"ab\xe2\x82", b"x\xed\xa0\x80y",
               b"\xc0\xaf", BOM + b"ok \xfe", b"\xf4\x90\x80\x80", b"ok\xef\xbb"]


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
@pytest.mark.parametrize("raw", ERROR_FILES)
def test_load_utf8_refuses_what_load_text_refuses_with_the_same_message(tmp_path, raw, kernel_name):
    path = write(tmp_path, raw)
    with kernel.using(kernel_name):
        with pytest.raises(LoadError) as as_text:
            load_text(path)
        with pytest.raises(LoadError) as as_bytes:
            load_utf8(path)
    assert str(as_bytes.value) == str(as_text.value)


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
def test_chunking_load_utf8_gives_what_chunking_load_text_gives(tmp_path, kernel_name):
    """A BOM is stripped, CR/LF kept: chunk offsets index the text load_text returns."""
    raw = BOM + "Caf\u00e9 \U0001F680 one.\r\n\r\nTwo\u00a0three \ufeffx\rfour\n".encode() * 50
    path = write(tmp_path, raw)
    params = ChunkerParams(min_tokens=3, max_tokens=9)
    with kernel.using(kernel_name):
        data = load_utf8(path)
        assert data == raw[len(BOM):]
        a, b = chunk(load_text(path), params), chunk(data, params)
    assert [tuple(c) for c in b.chunks] == [tuple(c) for c in a.chunks]
    assert b.text == a.text == raw[len(BOM):].decode()
