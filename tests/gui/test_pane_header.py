"""A pane's header renders the PaneHeader it is given (the presenter gathers it): name,
marks, counts by status in their colours, and the tooltip; nothing read from the pane."""

from steadlith_gui.widgets.palette import DARK, LIGHT
from steadlith_gui.model.pane_header import ChunkCounts, PaneHeader
from steadlith_gui.widgets.document_pane import DocumentPane
from steadlith_gui.widgets.pane_column import PaneColumn


def column(qtbot):
    c = PaneColumn(DocumentPane("B"), "B", LIGHT)  # an empty pane: whatever the header shows came from the value
    qtbot.addWidget(c)
    return c


def test_the_header_shows_the_value_it_is_given(qtbot):
    c = column(qtbot)
    by_status = {"reused": 9, "shifted": 2, "new": 1}
    c.update_header(PaneHeader("B", "v2.md", None, "1.2 KB", "Markdown", modified=True, editable=True,
                               status="analysing…", counts=ChunkCounts(12, 300, 420, by_status)), LIGHT)
    text = c.header.text()
    assert "v2.md\u2069</b> <b>•</b>" in text and "✎" in text and "analysing…" in text
    assert "12 chunks · 9 reused · " in text
    assert f"<b style='color:{LIGHT.status['shifted']}'>2 shifted</b>" in text
    assert f"<b style='color:{LIGHT.status['new']}'>1 new</b>" in text
    assert "edited" not in text.split("<br>")[1]  # no status with no chunk is listed
    assert "Markdown\xa0syntax\xa0colour" in c.header.toolTip()
    assert "12 chunks · 9 reused · 2 shifted · 1 new" in c.pane.accessibleDescription()


def test_before_a_comparison_the_counts_are_words_and_tokens_and_the_theme_is_the_one_given(qtbot):
    c = column(qtbot)
    c.update_header(PaneHeader("B", "v2.md", counts=ChunkCounts(12, 300, 420, None)), DARK)
    assert f"12 chunks · <span style='color:{DARK.muted}'>300 words · 420 tokens</span>" in c.header.text()
    c.update_header(PaneHeader("B"), LIGHT)
    assert "no document" in c.header.text() and c.header.toolTip() == ""


def test_a_narrow_header_keeps_a_revisions_commit_and_gives_up_its_subject_first(qtbot):
    c = column(qtbot)
    name = "docs/guide/window.md @ 3c7feb3 — User guide: which subcommands take --set and --preset"
    c.resize(420, 200)
    c.show()
    qtbot.waitExposed(c)
    c.update_header(PaneHeader("B", name, None, "1.2 KB", "Markdown"), LIGHT)
    first = c.header.text().split("<br>")[0]
    assert "docs/guide/window.md @ 3c7feb3 — " in first and "…" in first and "--preset" not in first
    c.resize(200, 200)  # no room for the subject: the path's middle goes, the commit stays
    qtbot.waitUntil(lambda: "— " not in c.header.text().split("<br>")[0])
    first = c.header.text().split("<br>")[0]
    assert "3c7feb3" in first and "…" in first
    assert name.replace(" ", "\xa0") in c.header.toolTip()


def test_the_name_is_measured_again_only_when_what_it_fits_changes(qtbot, monkeypatch):
    c = column(qtbot)
    name = "docs/guide/window.md @ 3c7feb3 — User guide: which subcommands take --set and --preset"
    c.resize(420, 200)
    c.show()
    qtbot.waitExposed(c)
    fits = []
    real = c._fit_name
    monkeypatch.setattr(c, "_fit_name", lambda header: fits.append(header.name) or real(header))
    for n in (12, 13, 14):  # results: the counts change, the name does not
        c.update_header(PaneHeader("B", name, None, "1.2 KB", "Markdown", counts=ChunkCounts(n, 300, 420, None)), LIGHT)
    assert fits == [name] and "14 chunks" in c.header.text()
    shown = c.header.text().split("<br>")[0]
    c.resize(200, 200)  # a narrower header fits the name again
    qtbot.waitUntil(lambda: c.header.text().split("<br>")[0] != shown)
    assert fits == [name, name]
    c.update_header(PaneHeader("B", "other.md", None, "1.2 KB", "Markdown"), LIGHT)
    assert fits == [name, name, "other.md"] and "other.md" in c.header.text()
    c.update_header(PaneHeader("B", "other.md", None, "1.2 KB", "Markdown", status="analysing…"), LIGHT)
    assert len(fits) == 4  # the status takes room from the name
