"""The HTML report (steadlith_core.report.comparison) and `steadlith compare --html`.

The report is checked by parsing it (stdlib html.parser), as a browser would see its
structure: inert (no script, no event handler, no external resource), self-contained,
every chunk once with its kind, status and hash, every in-page link resolving, and
document text shown as text even when it is HTML.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from html.parser import HTMLParser

import pytest

from steadlith_core import ChunkerParams, chunk, compare, render_report
from steadlith_core.cli.main import main
from steadlith_core.bench.examples import generate_prose, phase_shift_counterexample
from steadlith_core.report.comparison import HASH_PREFIX_CHARS, locality_verdict
from steadlith_core.report.style import marker_kind
from steadlith_core.report.style import KIND_COLOURS, STATUS_COLOURS

VOID = {"meta", "br", "link", "img", "input", "hr", "area", "base", "col", "embed", "source", "track", "wbr"}
HOSTILE = ('<script>alert(1)</script> then <img src=x onerror=alert(1)> and &amp; and "double" \'single\' '
           '<a href="https://evil.example/">link</a> </div></div><style>body{display:none}</style>')


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None], parent: "Element | None"):
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.parts: list[str] = []

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def classes(self) -> set[str]:
        return set((self.attrs.get("class") or "").split())

    def elements_inside(self, report: "Report") -> list["Element"]:
        """The descendants of this element, in document order."""
        out = []
        for e in report.elements:
            p = e.parent
            while p is not None and p is not self:
                p = p.parent
            if p is self:
                out.append(e)
        return out

    def ancestor(self, cls: str) -> "Element | None":
        e = self.parent
        while e is not None and cls not in e.classes:
            e = e.parent
        return e


class Report(HTMLParser):
    """A parsed report: every element with its attributes and text, and the tag balance."""

    def __init__(self, source: str):
        super().__init__(convert_charrefs=True)
        self.source = source
        self.elements: list[Element] = []
        self.stack: list[Element] = []
        self.decls: list[str] = []
        self.unbalanced: list[str] = []
        self.feed(source)
        self.close()

    def handle_decl(self, decl):
        self.decls.append(decl)

    def handle_starttag(self, tag, attrs):
        el = Element(tag, dict(attrs), self.stack[-1] if self.stack else None)
        self.elements.append(el)
        if tag not in VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag, attrs):
        self.elements.append(Element(tag, dict(attrs), self.stack[-1] if self.stack else None))

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1].tag != tag:
            self.unbalanced.append(tag)
            return
        self.stack.pop()

    def handle_data(self, data):
        for el in self.stack:
            el.parts.append(data)

    def all(self, tag: str | None = None, cls: str | None = None) -> list[Element]:
        return [e for e in self.elements if (tag is None or e.tag == tag) and (cls is None or cls in e.classes)]

    def by_id(self) -> dict[str, Element]:
        ids: dict[str, Element] = {}
        for e in self.elements:
            if "id" in e.attrs:
                assert e.attrs["id"] not in ids, f"duplicate id {e.attrs['id']}"
                ids[e.attrs["id"]] = e
        return ids


def make(text_a: str, text_b: str, params: ChunkerParams, name_a: str = "v1.md", name_b: str = "v2.md"):
    c = compare(chunk(text_a, params), chunk(text_b, params))
    return c, Report(render_report(c, name_a, name_b))


@pytest.fixture(scope="module")
def counterexample():
    text_a, text_b, params = phase_shift_counterexample()
    return make(text_a, text_b, params)


@pytest.fixture(scope="module")
def hostile():
    base = generate_prose(3000, seed=9)
    text_a = base
    cut = base.index(" ", 1500)
    text_b = HOSTILE + "\r\n\r\n" + base[:cut] + " " + HOSTILE + base[cut:] + "\n" + HOSTILE
    return make(text_a, text_b, ChunkerParams(min_tokens=8, max_tokens=48, window_words=4),
                name_a='a<script>alert("name")</script>.md', name_b="b & <b>.md")


def assert_well_formed_and_inert(r: Report) -> None:
    assert [d.lower() for d in r.decls] == ["doctype html"]
    assert r.unbalanced == [] and r.stack == []
    assert not r.all("script")
    assert "<script" not in r.source.lower()
    assert len(r.all("style")) == 1
    for e in r.elements:
        for name, value in e.attrs.items():
            assert not name.startswith("on"), (e.tag, name)
            assert name not in ("src", "srcset", "action", "formaction", "background", "poster", "data"), (e.tag, name)
            if name in ("href", "xlink:href"):
                assert value and value.startswith("#"), (e.tag, value)
    assert not r.all("img") and not r.all("link") and not r.all("iframe") and not r.all("object")
    style = r.all("style")[0].text
    assert "url(" not in style and "@import" not in style
    (csp,) = [e for e in r.all("meta") if (e.attrs.get("http-equiv") or "").lower() == "content-security-policy"]
    assert "default-src 'none'" in csp.attrs["content"]


def assert_chunks_shown_once(c, r: Report) -> None:
    ids = r.by_id()
    blocks = r.all("div", "chunk")
    assert len(blocks) == len(c.a.chunks) + len(c.b.chunks)
    for side, ch, status in (("a", c.a, c.status_a), ("b", c.b, c.status_b)):
        for k in ch.chunks:
            el = ids[f"{side}-chunk-{k.index}"]
            assert {"chunk", f"k-{marker_kind(k.kind, k.snapped)}", f"s-{status[k.index]}"} <= el.classes
            (head,) = [e for e in r.elements if e.parent is el and "ch" in e.classes]
            assert head.text.startswith(f"#{k.index} · {k.kind}{', snapped' if k.snapped else ''} · ")
            assert f" · {status[k.index]} · {k.tokens} tokens · {k.hash[:HASH_PREFIX_CHARS]}" in head.text
            (body,) = [e for e in r.elements if e.parent is el and "tx" in e.classes]
            assert body.text == ch.text[k.start:k.end]  # the source text, as text nodes


def assert_links_resolve(r: Report) -> None:
    ids = r.by_id()
    targets = [e.attrs["href"][1:] for e in r.all("a")]
    assert targets and all(t in ids for t in targets), [t for t in targets if t not in ids]


def test_document_html_is_shown_as_text_and_runs_nothing(hostile):
    c, r = hostile
    assert_well_formed_and_inert(r)
    assert_chunks_shown_once(c, r)
    shown_b = "".join(e.text for e in r.elements if "tx" in e.classes and e.ancestor("chunk").attrs["id"][0] == "b")
    assert shown_b.count("<script>alert(1)</script>") == 3
    assert shown_b.count("<img src=x onerror=alert(1)>") == 3
    assert "&amp; and \"double\" 'single'" in shown_b  # the literal text, once unescaped by the parser
    assert "&amp;amp;" in r.source and "&lt;script&gt;" in r.source
    names = r.all("p", "docs")[0].text
    assert 'a<script>alert("name")</script>.md' in names and "b & <b>.md" in names
    # each name isolated (FSI … PDI): a <title> holds no <bdi>
    assert r.all("title")[0].text == 'Steadlith report: \u2068a<script>alert("name")</script>.md\u2069 → \u2068b & <b>.md\u2069'


def test_counterexample_report_has_the_evidence(counterexample):
    c, r = counterexample
    assert_well_formed_and_inert(r)
    assert_chunks_shown_once(c, r)
    assert_links_resolve(r)
    ids = r.by_id()
    # identity: the params hash in full, and the canonical parameters as a table
    assert c.a.params_hash in ids["identity"].text
    cells = [e.text for e in r.all("tr") if e.ancestor("card") is ids["identity"]]
    for key, value in c.a.params.canonical_fields():
        assert any(t.startswith(key + value) for t in cells), key
    # verdict: not held, with the violation count
    verdict = ids["verdict"]
    assert "broken" in verdict.classes
    assert locality_verdict(c) in verdict.text and "10 chunks" in verdict.text
    violation_rows = [e for e in r.all("tr") if e.parent.tag == "tbody" and e.ancestor("violations")]
    assert len(violation_rows) == len(c.violations) == 10
    first_link = [e.attrs["href"] for e in violation_rows[0].elements_inside(r) if e.tag == "a"][0]
    assert first_link == f"#b-chunk-{c.violations[0].b_chunk}"
    # churn: tttd-v1 beside the fixed-size baseline
    churn = ids["churn"].text
    assert "tttd-v1" in churn and "fixed-tokens/1 baseline" in churn
    assert f"{c.summary.tokens_to_embed} tokens in {c.summary.chunks_to_embed} chunks" in churn
    assert f"{c.baseline.summary.tokens_to_embed} tokens" in churn
    assert "428 tokens after the edit (past the margin of 44 (9.7×))" in churn
    # a resync past the margin is not painted as a failure: no "over" mark in the churn table
    assert not [e for e in r.all("span", "over") if "428" in e.text]
    # phase-shift regions: one row per region, linking the shifted chunks and the resync
    region_rows = [e for e in r.all("tr") if e.attrs.get("id", "").startswith("region-")]
    assert len(region_rows) == len(c.phase_shift_regions) == 1
    (region,) = c.phase_shift_regions
    links = [e.attrs["href"] for e in region_rows[0].elements_inside(r) if e.tag == "a"]
    assert links == ["#b-chunk-1", "#b-chunk-12", "#a-chunk-0", "#a-chunk-11", "#b-chunk-13", "#a-chunk-12"]
    assert "insert at B words [17, 21) / A words [17, 17)" in region_rows[0].text
    # legend: every kind with its shape, every status
    legend = ids["legend"]
    for kind in ("primary", "backup", "hard cut", "snapped", "end"):
        assert kind in legend.text
    assert {f"mk-{k}" for k in ("primary", "backup", "hard", "snapped", "end")} <= {
        cls for e in legend.elements_inside(r) for cls in e.classes}
    for status in ("reused", "shifted", "edited", "new", "removed"):
        assert f"{status}:" in legend.text


def test_reused_pairs_sit_side_by_side(counterexample):
    c, r = counterexample
    ids = r.by_id()
    rows = r.all("div", "row")
    for i, j in c.alignment:
        row = ids[f"a-chunk-{i}"].ancestor("row")
        assert "pair" in row.classes and ids[f"b-chunk-{j}"].ancestor("row") is row
    # every chunk sits in exactly one row, A in the left cell, B in the right, in order
    order = [e.attrs["id"] for e in r.elements if "chunk" in e.classes and e.tag == "div"]
    assert [x for x in order if x[0] == "a"] == [f"a-chunk-{k}" for k in range(len(c.a.chunks))]
    assert [x for x in order if x[0] == "b"] == [f"b-chunk-{k}" for k in range(len(c.b.chunks))]
    assert len(rows) >= len(c.alignment) + 1


def test_identical_texts_hold_locality():
    text = generate_prose(4000, seed=5)
    c, r = make(text, text, ChunkerParams(min_tokens=8, max_tokens=40, window_words=4))
    assert c.checked_ranges >= 1
    assert_well_formed_and_inert(r)
    assert_chunks_shown_once(c, r)
    assert_links_resolve(r)
    verdict = r.by_id()["verdict"]
    assert "held" in verdict.classes
    assert "locality held: every chunk inside a long shared range was reused" in verdict.text
    assert not [e for e in r.all("tr") if e.attrs.get("id", "").startswith("region-")]
    assert "None: every B chunk" in r.by_id()["regions"].text
    assert {s for e in r.all("div", "chunk") for s in e.classes if s.startswith("s-")} == {"s-reused"}


def test_snapped_cuts_are_flagged():
    text = generate_prose(4000, seed=8)
    params = ChunkerParams(min_tokens=8, max_tokens=40, window_words=4, snap_mode="paragraph-sentence/1",
                           snap_window_words=6)
    c, r = make(text, text.replace(" the ", " a ", 3), params)
    assert any(k.snapped for k in c.b.chunks) and any(not k.snapped for k in c.b.chunks)
    assert_well_formed_and_inert(r)
    assert_chunks_shown_once(c, r)  # snapped chunks: class k-snapped, header "<kind>, snapped"
    assert len(r.all("div", "k-snapped")) == sum(k.snapped for ch in (c.a, c.b) for k in ch.chunks)


def test_empty_documents_still_make_a_report():
    c, r = make("", "   \n", ChunkerParams())
    assert_well_formed_and_inert(r)
    assert not r.all("div", "chunk") and "Neither document has any chunk" in r.source


RENDER_SCRIPT = r"""
import json
from steadlith_core import chunk, compare, render_report
from steadlith_core.bench.examples import generate_prose, phase_shift_counterexample, scattered_edits
text_a, text_b, params = phase_shift_counterexample()
prose = generate_prose(6000, seed=4)
pages = [render_report(compare(chunk(text_a, params), chunk(text_b, params)), "v1.md", "v2.md"),
         render_report(compare(chunk(prose), chunk(scattered_edits(prose, 6))), "a.txt", "b.txt")]
print(json.dumps(pages))
"""


def test_report_is_the_same_in_every_process(counterexample):
    """Two runs of `steadlith compare --html` on the same pair write the same bytes,
    whatever the process's string-hash seed (set and dict order of str keys depends on
    it), so a report can be diffed and cached by content."""
    procs = [subprocess.Popen([sys.executable, "-c", RENDER_SCRIPT], env={**os.environ, "PYTHONHASHSEED": seed},
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
             for seed in ("1", "2")]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(json.loads(out))
    first, second = outputs
    assert len(first) == 2 and all(len(page) > 5000 for page in first)
    for page_1, page_2 in zip(first, second):
        if page_1 != page_2:
            at = next(i for i, (x, y) in enumerate(zip(page_1, page_2)) if x != y)
            pytest.fail(f"renders differ at character {at}: {page_1[at - 60:at + 60]!r} vs {page_2[at - 60:at + 60]!r}")
    c, r = counterexample
    assert first[0] == r.source  # and this process's own render agrees


def test_the_report_carries_both_schemes_colours():
    """The report's kind and status colours, light and dark (the inspector draws with the
    same ones: tests/gui/test_theme.py checks its palette against report.style)."""
    c, r = make("One two three.", "One two four.", ChunkerParams(min_tokens=1, max_tokens=4))
    style = r.all("style")[0].text
    assert "@media (prefers-color-scheme: dark)" in style
    for theme in ("light", "dark"):
        for hex_ in (*KIND_COLOURS[theme].values(), *STATUS_COLOURS[theme].values()):
            assert hex_ in style


# -- steadlith compare --html -----------------------------------------------------------


@pytest.fixture()
def files(tmp_path):
    text_a, text_b, params = phase_shift_counterexample()
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(text_a, encoding="utf-8")
    b.write_text(text_b, encoding="utf-8")
    sets = [x for key, value in params.to_dict().items() for x in ("--set", f"{key}={value}")]
    return str(a), str(b), sets, compare(chunk(text_a, params), chunk(text_b, params))


def test_cli_html_writes_the_report_beside_the_normal_output(capsys, files, tmp_path):
    a, b, sets, c = files
    out_path = tmp_path / "report.html"
    assert main(["compare", a, b, *sets, "--html", str(out_path)]) == 0
    out, err = capsys.readouterr()
    assert err == "" and out.rstrip().splitlines()[-1].startswith("verdict    LOCALITY NOT HELD")
    html_text = out_path.read_text(encoding="utf-8")
    assert html_text == render_report(c, a, b)
    r = Report(html_text)
    assert_well_formed_and_inert(r)
    assert_chunks_shown_once(c, r)
    assert [p.name for p in tmp_path.iterdir() if ".steadlith-tmp-" in p.name] == []
    # with --fail-on-violation, the report is still written and the exit status is 1
    out_path.unlink()
    assert main(["compare", a, b, *sets, "--html", str(out_path), "--fail-on-violation", "--format", "json"]) == 1
    assert out_path.exists() and capsys.readouterr().out.startswith("{")


@pytest.mark.parametrize("where", ["missing-folder/report.html", "."])
def test_cli_html_unwritable_path_is_one_line_exit_2(capsys, files, tmp_path, where):
    a, b, sets, _ = files
    target = tmp_path / where
    assert main(["compare", a, b, *sets, "--html", str(target)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"steadlith: error: {target}: ")
    assert not (tmp_path / "missing-folder").exists()
