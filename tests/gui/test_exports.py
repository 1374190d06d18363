"""File → Export from the window: the HTML report, chunks as JSONL, the comparison as
JSON (byte for byte what `steadlith compare --format json` prints), the window as PNG.
Written on the thread pool; the outcome arrives as `exported` / `export_failed`."""

from __future__ import annotations

import json
from html.parser import HTMLParser

from PySide6.QtGui import QImage
from PySide6.QtWidgets import QFileDialog
from steadlith_core.cli.main import main as steadlith_main
from steadlith_core.report.export import comparison_json, to_json_text
from steadlith_core.report.comparison import locality_verdict

from compare_helpers import SMALL, small_pair
from gui_helpers import load_files, load_texts
from steadlith_gui.workers.exports import default_name, safe_stem

HOSTILE = "<script>alert('boom')</script> and <img src=x onerror=alert(1)> & </div>"


class Page(HTMLParser):
    """Tags, the text a browser would show, and the text inside each element id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[dict] = []
        self.text: list[str] = []
        self._stack: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        self.attrs.append(dict(attrs))

    def handle_data(self, data):
        self.text.append(data)

    @property
    def shown(self) -> str:
        return "".join(self.text)


def parse(path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    page.close()
    return page


def export(qtbot, window, fn, *args):
    with qtbot.waitSignal(window.exported, timeout=20_000) as blocker:
        assert fn(*args) is not None
    return blocker.args


def test_exports_are_disabled_until_there_is_something_to_export(qtbot, window):
    acts = (window.act["export_report"], window.act["export_comparison"], window.act["export_chunks_a"],
            window.act["export_chunks_b"])
    assert not any(a.isEnabled() for a in acts)
    assert "load a and b" in window.act["export_report"].toolTip().lower()  # the disabled entry says why
    assert window.act["export_png"].isEnabled()
    a, b = small_pair()
    window.session.set_params(SMALL, show=True)
    load_texts(qtbot, window, a, None)
    assert window.act["export_chunks_a"].isEnabled() and not window.act["export_chunks_b"].isEnabled()
    assert not window.act["export_report"].isEnabled()  # one version: no comparison yet
    load_texts(qtbot, window, None, b)
    assert all(a.isEnabled() for a in acts)
    assert "self-contained" in window.act["export_report"].toolTip()


def test_report_from_the_file_menu_is_self_contained_escaped_and_complete(qtbot, window, tmp_path, monkeypatch):
    a, b = small_pair(1200, seed=4)
    a, b = f"{HOSTILE}\n\n{a}", f"{HOSTILE}\n\n{b}"
    window.session.set_params(SMALL, show=True)
    result = load_texts(qtbot, window, a, b, name_a="v1 <i>draft</i>.md", name_b="v2.md")
    offered = []

    def ask(parent, title, start, filters):
        offered.append(start)
        return str(tmp_path / "out.html"), filters

    monkeypatch.setattr(QFileDialog, "getSaveFileName", ask)
    with qtbot.waitSignal(window.exported, timeout=20_000) as blocker:
        window.act["export_report"].trigger()  # the menu entry: dialog, then the thread pool
    assert blocker.args == ["report", str(tmp_path / "out.html")]
    assert offered[0].endswith("v1 _i_draft_i-vs-v2.steadlith-report.html")
    page = parse(tmp_path / "out.html")
    # structure: one document, no script, nothing loaded from elsewhere
    assert page.tags[0] == "html" and "body" in page.tags and "script" not in page.tags
    assert not any(k in ("src", "href") and v and not v.startswith("#") for at in page.attrs for k, v in at.items())
    assert "img" not in page.tags  # the document's <img onerror=…> is text, not an element
    # the document text is shown as text, exactly
    for word in ("<script>alert('boom')</script>", "onerror=alert(1)>", "</div>"):
        assert page.shown.count(word) >= 2, word  # in A and in B
    assert "v1 <i>draft</i>.md" in page.shown
    # identity, churn summary, legend, regions and the verdict
    comparison = window.session.comparison
    assert result.params.params_hash in page.shown
    assert locality_verdict(comparison) in page.shown
    for needle in ("Identity", "Churn summary", "Phase-shift regions", "Legend", "hard cut", "shifted"):
        assert needle in page.shown
    ids = {at.get("id") for at in page.attrs}
    assert {"a-chunk-0", f"b-chunk-{len(result.b.chunks) - 1}"} <= ids  # every chunk of both documents
    assert str(tmp_path / "out.html") in window.message_bar.text() and window.message_bar.level == "info"


def test_chunks_jsonl_and_comparison_json_are_the_shown_results(qtbot, window, tmp_path, capsys, monkeypatch):
    a, b = small_pair(1500, seed=6)
    (tmp_path / "a.txt").write_text(a, encoding="utf-8")
    (tmp_path / "b.txt").write_text(b, encoding="utf-8")
    window.session.set_params(SMALL, show=True)
    result = load_files(qtbot, window, tmp_path / "a.txt", tmp_path / "b.txt")
    for side, chunking in (("A", result.a), ("B", result.b)):
        out = tmp_path / f"{side}.jsonl"
        assert export(qtbot, window, window.exports.export_chunks, side, out) == [f"chunks-{side}", str(out)]
        lines = out.read_text(encoding="utf-8").splitlines()
        records = [json.loads(line) for line in lines]
        assert len(lines) == len(chunking.chunks)
        assert [r["hash"] for r in records] == [c.hash for c in chunking.chunks]
        assert {r["params_hash"] for r in records} == {result.params.params_hash}
    out = tmp_path / "cmp.json"
    export(qtbot, window, window.exports.export_comparison, out)
    written = out.read_text(encoding="utf-8")
    assert written == to_json_text(comparison_json(window.session.comparison, "a.txt", "b.txt"))
    # the same bytes as the command line's `compare --format json` on the same files
    monkeypatch.chdir(tmp_path)
    sets = [x for k, v in SMALL.to_dict().items() for x in ("--set", f"{k}={v}")]
    capsys.readouterr()
    assert steadlith_main(["compare", "a.txt", "b.txt", "--format", "json", *sets]) == 0
    assert written == capsys.readouterr().out


def test_a_failed_export_is_a_message_and_leaves_no_file(qtbot, window, tmp_path):
    a, b = small_pair()
    window.session.set_params(SMALL, show=True)
    load_texts(qtbot, window, a, b)
    target = tmp_path / "no-such-folder" / "r.html"
    with qtbot.waitSignal(window.export_failed, timeout=20_000) as blocker:
        window.exports.export_report(target)
    assert blocker.args[0] == "report" and "does not exist" in blocker.args[1]
    assert window.message_bar.level == "error" and "does not exist" in window.message_bar.text()
    assert not target.parent.exists()


def test_window_png(qtbot, window, tmp_path):
    out = tmp_path / "w.png"
    assert export(qtbot, window, window.exports.export_png, out) == ["png", str(out)]
    image = QImage(str(out))
    assert (image.width(), image.height()) == (window.width(), window.height())
    assert not list(tmp_path.glob(".*.steadlith-tmp-*"))  # written through a temporary file, renamed


def test_default_names():
    assert default_name("report", "v1.md", "v2.md") == "v1-vs-v2.steadlith-report.html"
    assert default_name("report", "A", "B") == "A-vs-B.steadlith-report.html"
    assert default_name("chunks-B", "v1.md", "dir/v2.py") == "dir_v2.chunks.jsonl"
    assert default_name("comparison", None, None) == "steadlith.comparison.json"
    assert safe_stem('a:b*c?.txt', "x") == "a_b_c" and safe_stem("", "x") == "x"


def test_png_follows_a_link_and_keeps_the_mode(qtbot, window, tmp_path):
    import os
    import stat

    real = tmp_path / "real.png"
    real.write_bytes(b"old")
    os.chmod(real, 0o640)
    link = tmp_path / "link.png"
    link.symlink_to(real)
    export(qtbot, window, window.exports.export_png, link)
    assert link.is_symlink() and not QImage(str(real)).isNull()  # the file it names was replaced
    assert stat.S_IMODE(os.stat(real).st_mode) == 0o640
    with qtbot.waitSignal(window.export_failed, timeout=10_000) as blocker:
        window.exports.export_png(tmp_path / "missing" / "w.png")
    assert blocker.args[0] == "png" and "does not exist" in blocker.args[1]
