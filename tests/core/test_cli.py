"""The `steadlith` command as a user runs it: its JSON is the library's result, its
text output shows the table and the params hash, and every mistake is one line on
stderr with exit status 2, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from steadlith_core import ChunkerParams, chunk, load_text
from steadlith_core.cli.main import main
from cli_helpers import run

TOP_KEYS = {"normalizer_version", "boundary_rule", "params", "params_hash", "word_count", "chunks", "diagnostics"}
CHUNK_KEYS = {"index", "start_word", "end_word", "start", "end", "kind", "snapped", "tokens", "hash", "boundary"}
SAMPLE = (
    "Hello world. This is a test of the chunker, with a \u201cquoted end.\u201d)\r\n\r\n"
    "Second paragraph \U0001F680 here\u00a0and\tthere.\rLone CR line.\n"
    + " ".join(f"word{i}" for i in range(200))
    + "\n\nLast paragraph!\n"
)
SMALL = ["--set", "min_tokens=0x10", "--set", "max_tokens=40", "--set", "primary_mask=0xF",
         "--set", "primary_remainder=0x5", "--set", "window_words=4"]
SMALL_PARAMS = ChunkerParams(min_tokens=16, max_tokens=40, primary_mask=0xF, primary_remainder=5, window_words=4)


@pytest.fixture
def sample(tmp_path):
    path = tmp_path / "sample.txt"
    path.write_bytes(SAMPLE.encode("utf-8"))
    return path


def test_chunk_json_is_the_library_result(capsys, sample):
    """`chunk FILE --format json` has exactly the documented keys, and its chunks and
    hashes are the library's for the same text and parameters (0x hex accepted)."""
    code, out, err = run(capsys, "chunk", str(sample), "--format", "json", *SMALL)
    assert (code, err) == (0, "")
    doc = json.loads(out)
    assert set(doc) == TOP_KEYS
    expected = chunk(load_text(sample), SMALL_PARAMS)
    assert doc["params"]["min_tokens"] == 16
    assert doc["params"] == SMALL_PARAMS.to_dict()
    assert doc["params_hash"] == SMALL_PARAMS.params_hash == expected.params_hash
    assert doc["normalizer_version"] == "steadlith-norm/1"
    assert doc["word_count"] == expected.word_count
    assert len(doc["chunks"]) == len(expected.chunks) > 3
    for got, want in zip(doc["chunks"], expected.chunks):
        assert set(got) == CHUNK_KEYS
        assert got == {k: getattr(want, k) for k in CHUNK_KEYS}
    assert doc["diagnostics"]["chunk_count"] == len(expected.chunks)
    assert doc["diagnostics"]["params_hash"] == expected.params_hash


def test_chunk_json_of_an_empty_file(capsys, tmp_path):
    path = tmp_path / "empty.txt"
    path.write_bytes(b"")
    code, out, _ = run(capsys, "chunk", str(path), "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["word_count"] == 0 and doc["chunks"] == []
    assert doc["diagnostics"]["chunk_count"] == 0 and doc["diagnostics"]["hard_cut_rate"] == 0


def test_chunk_text_shows_a_table_and_the_params_hash(capsys, sample):
    """The human format names the file, the params hash, one row per chunk (with its
    kind and hash) and the diagnostics."""
    code, out, err = run(capsys, "chunk", str(sample), *SMALL)
    assert (code, err) == (0, "")
    expected = chunk(load_text(sample), SMALL_PARAMS)
    lines = out.splitlines()
    assert str(sample) in lines[0] and SMALL_PARAMS.params_hash in lines[0]
    assert "kind" in lines[1] and "tokens" in lines[1] and "hash" in lines[1]
    for c in expected.chunks:
        row = next(line for line in lines if c.hash in line)
        assert c.kind in row and f"{c.start_word}-{c.end_word}" in row
    assert any(line.startswith("hard-cut rate") for line in lines)


def test_params_json_gives_the_library_hash(capsys):
    code, out, _ = run(capsys, "params", "--format", "json")
    assert code == 0 and json.loads(out)["params_hash"] == ChunkerParams().params_hash
    code, out, _ = run(capsys, "params", "--format", "json", "--set", "snap_mode=paragraph-sentence/1",
                       "--set", "snap_window_words=0x3", "--set", "polynomial=0x201b")
    p = ChunkerParams(snap_mode="paragraph-sentence/1", snap_window_words=3, polynomial=0x201B)
    doc = json.loads(out)
    assert code == 0 and doc["params_hash"] == p.params_hash
    assert doc["canonical_bytes_hex"] == p.canonical_bytes().hex()


def test_params_text_shows_the_hash(capsys):
    code, out, _ = run(capsys, "params", "--set", "max_tokens=1000")
    assert code == 0 and ChunkerParams(max_tokens=1000).params_hash in out


ERRORS = {
    "missing file": (["chunk", "{tmp}/missing.txt"], "missing.txt"),
    "binary file": (["chunk", "{tmp}/binary.bin"], "binary"),
    "invalid UTF-8": (["chunk", "{tmp}/latin1.txt"], "UTF-8"),
    "directory": (["compare", "{tmp}", "{tmp}/good.txt"], "director"),  # `chunk DIR` chunks its files (batch)
    "not an integer": (["chunk", "{tmp}/good.txt", "--set", "max_tokens=abc"], "max_tokens"),
    "unknown parameter": (["chunk", "{tmp}/good.txt", "--set", "nosuch=1"], "nosuch"),
    "min above max": (["chunk", "{tmp}/good.txt", "--set", "min_tokens=600"], "600"),
    "no value": (["params", "--set", "min_tokens"], "min_tokens"),
    "snap window 0 with snapping": (["params", "--set", "snap_mode=paragraph-sentence/1"], "snap_window_words"),
    "unknown subcommand": (["frobnicate"], "frobnicate"),
    "no subcommand": ([], "command"),
    "bench repeat 0": (["bench", "{tmp}/good.txt", "--repeat", "0"], "repeat"),
}


@pytest.fixture
def error_files(tmp_path):
    (tmp_path / "binary.bin").write_bytes(b"PK\x03\x04\x00\x00")
    (tmp_path / "latin1.txt").write_bytes("caf\u00e9".encode("latin-1"))
    (tmp_path / "good.txt").write_bytes(b"fine text")
    return tmp_path


@pytest.mark.parametrize("case", ERRORS, ids=str)
def test_errors_are_one_line_and_exit_2(capsys, error_files, case):
    """Each mistake prints exactly one line "steadlith: error: ..." saying what is
    wrong, exits with status 2, and prints nothing on stdout and no traceback."""
    argv, fragment = ERRORS[case]
    code, out, err = run(capsys, *[a.format(tmp=error_files) for a in argv])
    assert code == 2
    assert out == ""
    assert "Traceback" not in err
    lines = err.splitlines()
    assert len(lines) == 1 and err.endswith("\n"), err
    assert lines[0].startswith("steadlith: error:"), lines[0]
    assert fragment in lines[0]


def test_subcommand_usage_error_is_one_line_and_exit_2(capsys, sample):
    """A bad option of a subcommand is one line on stderr and exit 2 too."""
    code, out, err = run(capsys, "chunk", str(sample), "--format", "xml")
    assert code == 2 and out == "" and "Traceback" not in err
    assert len(err.splitlines()) == 1 and "error:" in err and "xml" in err


def test_module_entry_point_runs_in_a_real_process(sample, tmp_path):
    """`python -m steadlith_core` gives the same JSON as the library, and an error in
    a real process is still one line and status 2."""
    proc = subprocess.run([sys.executable, "-m", "steadlith_core", "chunk", str(sample), "--format", "json"],
                          capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    result = chunk(load_text(sample))
    assert doc["params_hash"] == result.params_hash
    assert [c["hash"] for c in doc["chunks"]] == [c.hash for c in result.chunks]

    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"ok \xff")
    proc = subprocess.run([sys.executable, "-m", "steadlith_core", "chunk", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [proc.stderr.strip()]
    assert proc.stderr.startswith(f"steadlith: error: {bad}: ")


@pytest.mark.bench
def test_bench_reports_cold_and_rechunk_speed(capsys, sample):
    """`bench FILE --repeat 1` reports cold MB/s and a re-chunk line per kind of
    change (timings themselves are not asserted; that is the benchmark's job)."""
    code, out, err = run(capsys, "bench", str(sample), "--repeat", "1")
    assert (code, err) == (0, "")
    lines = out.splitlines()
    cold = [line for line in lines if line.startswith("cold chunk")]
    assert len(cold) == 1 and "MB/s" in cold[0]
    rechunk = [line for line in lines if line.startswith("re-chunk")]
    for change in ("min_tokens", "max_tokens", "masks"):
        assert sum(change in line for line in rechunk) == 1, rechunk
    code, out, _ = run(capsys, "bench", str(sample), "--repeat", "1", "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["chunking"]["words"] == chunk(load_text(sample)).word_count
    assert {"cold_mb_per_s", "rechunk_ms"} <= set(report["chunking"])


@pytest.mark.parametrize(
    "args, field",
    [
        (["params", "--set", "min_tokens=0x" + "f" * 5000], "min_tokens"),
        (["params", "--set", "window_words=-" + "9" * 5000], "window_words"),
        (["params", "--set", "max_tokens=\u0663"], "max_tokens"),  # an Arabic-Indic digit
        (["params", "--set", "=3"], "--set"),
    ],
)
def test_absurd_integers_are_one_line_errors(capsys, args, field):
    """Integers past 64 bits, or digits other than ASCII ones, are refused with the
    field named, never a traceback from Python's 4300-digit conversion limit."""
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"steadlith: error: {field}")


def test_devices_and_pipes_are_read_with_a_bound(tmp_path):
    """A device reports size 0, so only a bounded read stops /dev/zero."""
    from steadlith_core import LoadError, load_text

    with pytest.raises(LoadError, match="too large"):
        load_text("/dev/zero", max_bytes=1 << 20)


def test_html_export_never_replaces_a_device_or_a_link(tmp_path, capsys):
    """`--html /dev/null` writes into the device instead of replacing it, and a link
    to a report is followed: the file it names is updated, the link stays a link."""
    import os
    import stat

    doc = tmp_path / "d.txt"
    doc.write_text("one two three four five six seven eight nine ten", encoding="utf-8")
    assert main(["compare", str(doc), str(doc), "--html", "/dev/null"]) == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    real = tmp_path / "report.html"
    real.write_text("old", encoding="utf-8")
    real.chmod(0o640)
    link = tmp_path / "link.html"
    link.symlink_to(real)
    assert main(["compare", str(doc), str(doc), "--html", str(link)]) == 0
    assert link.is_symlink() and "<!DOCTYPE html>" in real.read_text(encoding="utf-8")
    assert stat.S_IMODE(real.stat().st_mode) == 0o640
    capsys.readouterr()


@pytest.mark.parametrize("command", ["compare", "lab"])
def test_a_preset_of_a_rule_not_in_rules_is_one_line_naming_both(capsys, sample, command):
    files = [str(sample), str(sample)] if command == "compare" else [str(sample)]
    code, out, err = run(capsys, command, *files, "--rules", "lmx2-v1", "--preset", "Small chunks")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert "--preset" in err and "'Small chunks' is a tttd-v1 preset, not one of --rules lmx2-v1" in err

    code, _, err = run(capsys, command, *files, "--rules", "lmx2-v1,tttd-v1", "--preset", "Small chunks",
                       "--format", "json")
    assert code == 0, err
