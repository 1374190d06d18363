"""`steadlith-gui ... --export-report PATH` and `--open-workspace FILE` in a subprocess
(offscreen): the report is written atomically and the exit status is 0; bad input is one
line on stderr and exit status 2, without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser

import pytest
from steadlith_core import ChunkerParams, parse_assignments

from steadlith_gui.model.demo import PAIR_EXAMPLES
from steadlith_gui.model.workspace import DocumentRef, Workspace, save_workspace

GUI = [sys.executable, "-m", "steadlith_gui"]


def run(args, timeout=120):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run([*GUI, *args], env=env, capture_output=True, text=True, timeout=timeout)


class Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags, self.data = [], []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_data(self, data):
        self.data.append(data)


def read_report(path) -> Text:
    t = Text()
    t.feed(path.read_text(encoding="utf-8"))
    return t


@pytest.fixture()
def docs(tmp_path):
    a, b = tmp_path / "guide-v1.md", tmp_path / "guide-v2.md"
    body = "".join(f"Paragraph {i} says something about chunking and cutting.\n\n" for i in range(60))
    a.write_text(body, encoding="utf-8")
    b.write_text(body.replace("Paragraph 30", "Paragraph 30, now longer, <script>x()</script>"), encoding="utf-8")
    return a, b


def test_report_of_two_files_and_a_generated_example(tmp_path, docs):
    a, b = docs
    out = tmp_path / "r.html"
    r = run([str(a), str(b), "--set", "max_tokens=64", "--set", "min_tokens=8", "--export-report", str(out)])
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no window shown, nothing to say
    page = read_report(out)
    text = "".join(page.data)
    assert "script" not in page.tags and "<script>x()</script>" in text
    assert "guide-v1.md" in text and "guide-v2.md" in text
    assert ChunkerParams(max_tokens=64, min_tokens=8).params_hash in text
    assert not list(tmp_path.glob(".*.steadlith-tmp-*"))

    out = tmp_path / "p.html"
    r = run(["--example", "phase-shift", "--set", "max_tokens=100", "--export-report", str(out)])
    assert r.returncode == 0, r.stderr
    expected = parse_assignments(["max_tokens=100"], base=PAIR_EXAMPLES["phase-shift"].make()[2])
    assert expected.params_hash in "".join(read_report(out).data)


@pytest.mark.parametrize(
    "args, expected",
    [
        (["missing-a.md", "missing-b.md"], "no such file"),
        (["only-one.md"], "--export-report compares two documents"),
        (["--demo", "--set", "min_tokens=0"], "min_tokens: must be >= 1"),
        (["--open-workspace", "nowhere.steadlith"], "cannot open the workspace"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path, args, expected):
    out = tmp_path / "never.html"
    r = run([*args, "--export-report", str(out)])
    assert r.returncode == 2, r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("steadlith-gui: error: ") and expected in lines[0], r.stderr
    assert not out.exists()


def test_a_failing_screenshot_is_one_line_too(tmp_path):
    """The window is shown for a screenshot; the offscreen platform's notices stay off stderr."""
    r = run(["missing-a.md", "missing-b.md", "--screenshot", str(tmp_path / "x.png")])
    assert r.returncode == 2 and r.stderr.strip().splitlines() == [
        "steadlith-gui: error: Cannot load A: missing-a.md: no such file"], r.stderr


def test_output_folder_must_exist(tmp_path):
    r = run(["--demo", "--export-report", str(tmp_path / "nope" / "r.html")])
    assert r.returncode == 2 and r.stderr.strip().count("\n") == 0 and "is not a directory" in r.stderr


def test_open_workspace_then_report(tmp_path, docs):
    a, b = docs
    params = ChunkerParams(min_tokens=8, max_tokens=48)
    ws = tmp_path / "review.steadlith"
    save_workspace(Workspace({"a": DocumentRef.from_file(a), "b": DocumentRef.edited(b, "Edited B, pasted words.\n")},
                             params), ws)
    out = tmp_path / "ws.html"
    r = run(["--open-workspace", str(ws), "--export-report", str(out)])
    assert r.returncode == 0, r.stderr
    text = "".join(read_report(out).data)
    assert params.params_hash in text and "Edited B, pasted words." in text
    # --set applies on top of the workspace's parameters
    r = run(["--open-workspace", str(ws), "--set", "max_tokens=40", "--export-report", str(out)])
    assert r.returncode == 0, r.stderr
    assert params.with_changes(max_tokens=40).params_hash in "".join(read_report(out).data)
    # a malformed workspace: one line naming the problem
    data = json.loads(ws.read_text(encoding="utf-8"))
    data["params"]["max_tokens"] = "many"
    ws.write_text(json.dumps(data), encoding="utf-8")
    r = run(["--open-workspace", str(ws), "--export-report", str(out)])
    assert r.returncode == 2 and "params.max_tokens" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_help_documents_the_options():
    r = run(["--help"])
    assert r.returncode == 0
    for option in ("--export-report", "--open-workspace", "--theme", "--screenshot"):
        assert option in r.stdout
    assert "command-line choices win" in r.stdout.lower().replace("\n", " ")


def test_without_a_display_the_window_says_so_in_one_line(tmp_path):
    """On a headless Linux machine, launching the window is one clear error (exit 2),
    not Qt's abort with a page about platform plugins."""
    import os
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    proc = subprocess.run([sys.executable, "-m", "steadlith_gui", "--demo"], env=env, capture_output=True,
                          text=True, timeout=60, cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.startswith("steadlith-gui: error: no display") and proc.stderr.count("\n") == 1
