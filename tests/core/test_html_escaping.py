"""Every HTML page the core writes (the comparison report, the lab alone, the audit, the
sweep) shows hostile names as text: a document named `<script>alert(1)</script>.md`,
quotes and ampersands in labels and a chunker spec holding `<` come out escaped, and no
page holds a `<script` at all."""

from __future__ import annotations

import dataclasses
import re

import pytest
from git_history import History

from steadlith_core import ChunkerParams, chunk, compare, compare_rules, render_report
from steadlith_core.bench.examples import tool_library_example
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.history.audit import audit
from steadlith_core.history.audit_report import render_audit_html
from steadlith_core.lab import run_lab
from steadlith_core.report.comparison import render_lab_report
from steadlith_core.sweep.format import sweep_html
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import run_sweep
from steadlith_core.sweep.tasks import batch_pairs

SCRIPT = "<script>alert(1)</script>.md"
LABEL = 'say "hi" & <b>bye</b>'
SPEC = "tttd-v1<max_tokens=512>"
ESCAPED_SCRIPT = "&lt;script&gt;alert(1)&lt;/script&gt;.md"
ESCAPED_LABEL = "say &quot;hi&quot; &amp; &lt;b&gt;bye&lt;/b&gt;"
ESCAPED_SPEC = "tttd-v1&lt;max_tokens=512&gt;"

TEXT_A, TEXT_B, PARAMS = tool_library_example()


def assert_inert(page: str, *escaped: str) -> None:
    assert not re.search(r"<script", page, re.IGNORECASE)
    for text in escaped:
        assert text in page, text


@pytest.fixture(scope="module")
def lab():
    return run_lab(TEXT_A, {SPEC: ChunkerParams(max_tokens=512), LABEL: ChunkerParams()}, edits=6, seed=1)


def test_the_comparison_report_escapes_names_titles_and_rule_labels(lab):
    rules = compare_rules(TEXT_A, TEXT_B, PARAMS)
    first = next(iter(rules.values()))
    page = render_report(first, SCRIPT, LABEL, rules=rules, lab=lab, title=f"{SCRIPT} {LABEL}",
                         generated_by=LABEL)
    assert_inert(page, ESCAPED_SCRIPT, ESCAPED_LABEL, ESCAPED_SPEC)
    assert f'<meta name="generator" content="{ESCAPED_LABEL}">' in page


def test_a_document_holding_html_shows_it_as_text():
    a = f"Intro {SCRIPT} and {LABEL}.\n\nMore words here."
    page = render_report(compare(chunk(a), chunk(a.replace("here.", "here, added."))), SCRIPT, SCRIPT)
    assert_inert(page, ESCAPED_SCRIPT, ESCAPED_LABEL)


def test_the_lab_page_escapes_its_name_and_chunker_names(lab):
    assert_inert(render_lab_report(lab, SCRIPT), ESCAPED_SCRIPT, ESCAPED_LABEL, ESCAPED_SPEC)


def test_the_audit_page_escapes_subjects_and_paths(tmp_path):
    h = History(tmp_path)
    h.commit({SCRIPT: TEXT_A}, LABEL)
    h.commit({SCRIPT: TEXT_B, "bad<&>.md": b"\xff\xfe"}, SCRIPT)
    page = render_audit_html(audit(str(h.root)), title=LABEL)
    assert_inert(page, ESCAPED_SCRIPT, ESCAPED_LABEL, "bad&lt;&amp;&gt;.md")


def test_the_sweep_page_escapes_sources_skips_and_set_labels():
    history = synthetic_history(3, 2000, seed=3)
    pairs = [(str(n), a, b) for n, (a, b) in enumerate(zip(history.versions, history.versions[1:]))]
    run = run_sweep(SweepPlan(batch_pairs(pairs, chars_per_task=40_000), build_grid(["max_tokens=256"]).sets))
    rows = [dataclasses.replace(r, label=SPEC) for r in run.rows()]
    page = sweep_html(rows, sources=[SCRIPT], skipped=[LABEL], done=run.done, total=run.total, unit=SCRIPT)
    assert_inert(page, ESCAPED_SCRIPT, ESCAPED_LABEL, ESCAPED_SPEC)
