"""Sources are named by what they are: a revision read from a process
substitution, `<(git show HEAD~1:doc.md)`, is "pipe 63", not "63"; `--label A=… --label
B=…` sets the shown names, as diff tools do."""

import os
import subprocess
import sys

from gui_helpers import load_files
from steadlith_gui.model.documents import source_name

TEXT = "A revision of the guide, read through a pipe the way git show hands it over. " * 30


def test_fd_paths_and_named_pipes_are_called_pipes(tmp_path):
    assert source_name("/dev/fd/63") == "pipe 63"
    assert source_name("/proc/self/fd/12") == "pipe 12"
    fifo = tmp_path / "revision"
    os.mkfifo(fifo)
    assert source_name(str(fifo)) == "pipe revision"
    plain = tmp_path / "guide.md"
    plain.write_text(TEXT, encoding="utf-8")
    assert source_name(str(plain)) == "guide.md"


def test_a_pipe_loads_under_its_pipe_name_and_labels_win(qtbot, window, tmp_path):
    r, w = os.pipe()
    os.write(w, TEXT.encode())
    os.close(w)
    b = tmp_path / "guide.md"
    b.write_text(TEXT.replace("guide", "manual"), encoding="utf-8")
    try:
        load_files(qtbot, window, f"/dev/fd/{r}", str(b))
    finally:
        os.close(r)
    assert window.session.identity("A")[0] == f"pipe {r}"
    assert "pipe" in window.windowTitle()
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000):
        window.documents_ctl.load_files(str(b), str(b), labels={"A": "HEAD~1:guide.md", "B": "working copy"})
    assert window.exports.shown_names() == ("HEAD~1:guide.md", "working copy")


def test_label_option_names_the_report_sides(tmp_path):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT.replace("guide", "manual"), encoding="utf-8")
    report = tmp_path / "r.html"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    run = subprocess.run([sys.executable, "-m", "steadlith_gui", str(a), str(b), "--label", "A=HEAD~1:guide.md",
                          "--label", "B=working copy", "--export-report", str(report)],
                         env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    html = report.read_text(encoding="utf-8")
    assert "HEAD~1:guide.md" in html and "working copy" in html
    bad = subprocess.run([sys.executable, "-m", "steadlith_gui", str(a), str(b), "--label", "C=x"],
                         env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "A=NAME or B=NAME" in bad.stderr and "Traceback" not in bad.stderr
