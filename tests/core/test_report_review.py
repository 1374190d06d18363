"""The report as a reviewer reads it (issue 15): changed words marked inside edited
chunks, runs of reused chunks folded to one line, a list of changes linking to every
edited, shifted and violating chunk, and a page that fits a phone, checked in a real
browser (Chromium, when installed; skipped otherwise).
"""

from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
from importlib.resources import files

import pytest

from steadlith_core import ChunkerParams, chunk, compare, render_report
from steadlith_core.comparison.analysis import compare_rules
from steadlith_core.bench.examples import counterexample_lmx2_params, phase_shift_counterexample

from test_report import Report, assert_chunks_shown_once, assert_links_resolve, assert_well_formed_and_inert

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

SMALL = ChunkerParams(min_tokens=32, max_tokens=128, window_words=8)


def library_text() -> str:
    return files("steadlith_core").joinpath("data/tool-library.md").read_text(encoding="utf-8")


def typo_pair() -> tuple[str, str, str, str]:
    """A real chapter and the same with one word misspelt: (A, B, old word, new word)."""
    a = library_text()
    at = a.index(" repaired. ", len(a) // 2) + 1
    return a, a[:at] + "repiared" + a[at + len("repaired"):], "repaired.", "repiared."  # words keep their punctuation


def render(text_a: str, text_b: str, params=SMALL):
    c = compare(chunk(text_a, params), chunk(text_b, params))
    return c, Report(render_report(c, "v1.md", "v2.md"))


def test_a_one_word_typo_is_marked_in_both_versions():
    a, b, old, new = typo_pair()
    c, r = render(a, b)
    assert_well_formed_and_inert(r)
    assert_chunks_shown_once(c, r)  # the marked text is still the source text, exactly
    docs = r.by_id()["documents"]
    marked = {(e.tag, e.text, e.ancestor("chunk").attrs["id"]) for e in docs.elements_inside(r)
              if e.tag in ("ins", "del") and e.ancestor("chunk") is not None}
    (edited_b,) = [k for k, s in enumerate(c.status_b) if s == "edited"]
    (edited_a,) = [k for k, s in enumerate(c.status_a) if s == "edited"]
    assert marked == {("del", old, f"a-chunk-{edited_a}"), ("ins", new, f"b-chunk-{edited_b}")}


def test_insertions_and_deletions_differ_without_colour():
    """The marks are elements with their own decoration and glyph, not only a hue."""
    css = Report(render(*typo_pair()[:2])[1].source).all("style")[0].text
    ins = re.search(r"^ins \{[^}]*\}", css, re.M).group(0)
    dele = re.search(r"^del \{[^}]*\}", css, re.M).group(0)
    assert "text-decoration-line: underline" in ins and "text-decoration-line: line-through" in dele
    assert 'ins::before { content: "+"' in css and 'del::before { content: "\\2212"' in css


def test_runs_of_reused_chunks_fold_to_one_line_with_context_kept_open():
    a, b, *_ = typo_pair()
    c, r = render(a, b)
    folds = r.all("details", "reused-run")
    assert len(folds) == 2  # before and after the one edit
    shown_open = set()
    for fold in folds:
        (summary,) = [e for e in fold.elements_inside(r) if e.tag == "summary"]
        pairs = [e for e in fold.elements_inside(r) if e.tag == "div" and "pair" in e.classes]
        b_ids = [int(e.attrs["id"].split("-")[-1]) for e in fold.elements_inside(r)
                 if e.attrs.get("id", "").startswith("b-chunk-")]
        tokens = sum(c.b.chunks[j].tokens for j in b_ids)
        assert summary.text.startswith(f"{len(pairs)} reused chunks, {tokens:,} tokens")
        assert "open" not in fold.attrs and all(c.status_b[j] == "reused" for j in b_ids)
        shown_open.update(b_ids)
    # every chunk not folded is a change or the one reused pair beside a change
    unfolded = [j for j in range(len(c.b.chunks)) if j not in shown_open]
    changed = [j for j in range(len(c.b.chunks)) if c.status_b[j] != "reused"]
    assert all(any(abs(j - k) <= 1 for k in changed) for j in unfolded)
    assert len(shown_open) >= len(c.b.chunks) - 6


def test_identical_versions_fold_into_one_line():
    text = library_text()
    c, r = render(text, text)
    (fold,) = r.all("details", "reused-run")
    assert "".join(fold.parts).startswith(f"{len(c.b.chunks)} reused chunks, {c.summary.tokens_b:,} tokens")
    assert "0 edits: the two versions have the same words." in r.by_id()["changes"].text


def test_changes_link_to_every_edited_shifted_and_violating_chunk():
    text_a, text_b, params = phase_shift_counterexample()
    c, r = render(text_a, text_b, params)
    assert_links_resolve(r)
    changes = r.by_id()["changes"]
    targets = {e.attrs["href"] for e in changes.elements_inside(r) if e.tag == "a"}
    for side, statuses in (("a", c.status_a), ("b", c.status_b)):
        wanted = {f"#{side}-chunk-{k}" for k, s in enumerate(statuses) if s != "reused"}
        assert wanted and wanted <= targets, wanted - targets
    assert {f"#b-chunk-{v.b_chunk}" for v in c.violations} <= targets
    nav = [e.attrs["href"] for e in r.all("nav")[0].elements_inside(r) if e.tag == "a"]
    assert nav[0] == "#changes"
    # each edit is quoted with its words marked
    edits = [op for op in c.ops if op.tag != "equal"]
    items = [e for e in changes.elements_inside(r) if e.tag == "li"]
    assert len(items) == len(edits)
    inserted = " ".join(c.b.words.texts[edits[0].b_start:edits[0].b_end])
    assert [e.text for e in items[0].elements_inside(r) if e.tag == "ins"] == [inserted]


# -- in a real browser -------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


def browser_probe(report: str, width: int) -> dict:
    """Lay `report` out in Chromium at `width` CSS pixels and measure what a reader sees.

    The report forbids scripts, so it is shown unmodified in a same-origin frame of that
    width (srcdoc) and measured from the outside: the frame's own scroll width against
    its visible width (a horizontal scroll bar on a phone), and how the first <ins> and
    <del> are decorated. Folded rows are forced visible first, so that rows the browser
    skips while off screen (content-visibility) are measured too.
    """
    page = f"""<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:0">
<iframe id="f" style="width:{width}px;height:900px;border:0" srcdoc="{html.escape(report, quote=True)}"></iframe>
<script>
addEventListener('load', () => {{
  const d = document.getElementById('f').contentDocument, e = d.documentElement;
  for (const x of d.querySelectorAll('details')) x.open = true;
  for (const x of d.querySelectorAll('.row')) x.style.contentVisibility = 'visible';
  const ins = d.querySelector('.tx ins'), del = d.querySelector('.tx del');
  const wide = [...d.querySelectorAll('body *')].filter(x => x.getBoundingClientRect().right > e.clientWidth + 1
    && !x.closest('.scroll')).slice(0, 5).map(x => x.tagName + '.' + x.className);
  document.body.setAttribute('data-probe', JSON.stringify({{visible: e.clientWidth, scroll: e.scrollWidth, wide,
    ins: ins && getComputedStyle(ins).textDecorationLine, del: del && getComputedStyle(del).textDecorationLine}}));
}});
</script></body></html>"""
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "probe.html"
        path.write_text(page, encoding="utf-8")
        out = subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--no-first-run", f"--user-data-dir={tmp}/profile", "--window-size=1400,1000", "--dump-dom",
             path.as_uri()], capture_output=True, text=True, timeout=120).stdout
    found = re.search(r'data-probe="([^"]*)"', out)
    assert found, f"Chromium gave no measurement: {out[:300]!r}"
    return json.loads(html.unescape(found.group(1)))


@pytest.fixture(scope="module")
def both_rules_report() -> str:
    """A typo and an inserted paragraph under both rules: marks of both kinds, a phase
    shift, and the widest tables the report has."""
    text_a, text_b, *_ = typo_pair()
    text_b = text_b.replace("\n\n", "\n\nA paragraph added for the review, to shift the cuts after it.\n\n", 1)
    comparisons = compare_rules(text_a, text_b, {"tttd-v1": SMALL, "lmx2-v1": counterexample_lmx2_params()})
    return render_report(next(iter(comparisons.values())), "before/a-long-file-name.md", "after/b.md",
                         rules=comparisons)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed")
@pytest.mark.parametrize("width", [390, 1366])
def test_in_chromium_the_page_fits_the_width_and_marks_show(both_rules_report, width):
    probe = browser_probe(both_rules_report, width)
    assert probe["scroll"] <= probe["visible"], probe  # no sideways scrolling of the page
    assert probe["wide"] == [], probe
    assert probe["ins"] == "underline" and probe["del"] == "line-through"
