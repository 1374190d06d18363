"""`--screenshot` in a subprocess, offscreen: a real PNG, and clear failures."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QImage
from steadlith_core import ChunkerParams, chunk

from steadlith_gui.widgets.palette import THEMES

ENV = dict(os.environ, QT_QPA_PLATFORM="offscreen")


def run(args, timeout=120):
    return subprocess.run(args, env=ENV, capture_output=True, text=True, timeout=timeout)


def colours(image: QImage, step: int = 3) -> set:
    return {image.pixel(x, y) for x in range(0, image.width(), step) for y in range(0, image.height(), step)}


@pytest.mark.parametrize(
    "command, theme",
    [
        ([sys.executable, "-m", "steadlith_gui"], "dark"),
        ([str(Path(sys.executable).with_name("steadlith-gui"))], "light"),
    ],
    ids=["python-m", "console-script"],
)
def test_screenshot_is_a_real_picture(tmp_path, command, theme):
    out = tmp_path / f"shot-{theme}.png"
    r = run([*command, "--demo", "--theme", theme, "--screenshot", str(out)])
    assert r.returncode == 0, r.stderr
    image = QImage(str(out))
    assert not image.isNull()
    assert (image.width(), image.height()) == (1500, 950)
    assert len(colours(image)) > 50, "the screenshot is (nearly) a single colour"
    # the window's base colour and every cut colour appear: panes, legend and markers were drawn
    rgb = {QColor(p).name().upper() for p in colours(image, 1)}
    assert THEMES[theme].base.upper() in rgb
    for kind in ("primary", "backup", "end"):
        assert THEMES[theme].kind[kind].upper() in rgb


def test_screenshot_of_files_with_parameters(tmp_path):
    """`--set` reaches the analysis on screen: the window's own report, written after the
    same run's screenshot was taken from the same window, carries the set parameters'
    hash and the chunk counts the core gives with them (not the defaults')."""
    a, b = tmp_path / "a.py", tmp_path / "b.py"
    text_a, text_b = "def f(x):\n    return x + 1\n" * 40, "def f(x):\n    return x + 2\n" * 40
    a.write_text(text_a, encoding="utf-8")
    b.write_text(text_b, encoding="utf-8")
    out, report = tmp_path / "files.png", tmp_path / "files.html"
    r = run([sys.executable, "-m", "steadlith_gui", str(a), str(b), "--set", "min_tokens=8", "--set",
             "max_tokens=0x40", "--screenshot", str(out), "--export-report", str(report)])
    assert r.returncode == 0, r.stderr
    assert not QImage(str(out)).isNull()
    wanted, default = ChunkerParams(min_tokens=8, max_tokens=64), ChunkerParams()
    html = report.read_text(encoding="utf-8")
    assert f'<code class="phash">{wanted.params_hash}</code>' in html
    assert default.params_hash not in html
    counts = f"{len(chunk(text_a, wanted).chunks)} | {len(chunk(text_b, wanted).chunks)}"
    assert counts != f"{len(chunk(text_a, default).chunks)} | {len(chunk(text_b, default).chunks)}"
    assert f"<td>{counts}</td>" in html


@pytest.mark.parametrize(
    "args, expected",
    [
        (["missing-a.txt", "missing-b.txt"], "no such file"),
        (["--demo", "--set", "min_tokens=0"], "min_tokens: must be >= 1"),
        (["--demo", "--set", "colour=blue"], "unknown parameter name"),
    ],
)
def test_screenshot_failures_are_one_clear_line(tmp_path, args, expected):
    out = tmp_path / "never.png"
    r = run([sys.executable, "-m", "steadlith_gui", *args, "--screenshot", str(out)])
    assert r.returncode == 2
    lines = [line for line in r.stderr.splitlines() if line.startswith("steadlith-gui:")]
    assert len(lines) == 1 and expected in lines[0], r.stderr
    assert "Traceback" not in r.stderr
    assert not out.exists()


def test_screenshot_of_the_phase_shift_example(tmp_path):
    """`--example phase-shift` opens the counterexample at its shifted region (README picture)."""
    out = tmp_path / "phase-shift.png"
    r = run([sys.executable, "-m", "steadlith_gui", "--example", "phase-shift", "--theme", "light",
             "--screenshot", str(out)])
    assert r.returncode == 0, r.stderr
    image = QImage(str(out))
    assert (image.width(), image.height()) == (1500, 950)
    rgb = {QColor(p).name().upper() for p in colours(image, 1)}
    theme = THEMES["light"]
    # the shifted chunks' tint and the loud status colour (gutter stripes, overview, headers) are on screen
    assert theme.status_tints("shifted")[0].name().upper() in rgb
    assert theme.status["shifted"].upper() in rgb


def test_unknown_example_is_one_clear_line(tmp_path):
    r = run([sys.executable, "-m", "steadlith_gui", "--example", "nope", "--screenshot", str(tmp_path / "x.png")])
    assert r.returncode == 2 and "invalid choice" in r.stderr and "Traceback" not in r.stderr
