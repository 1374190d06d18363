"""External chunkers in the HTML report: `render_report(chunkers=…)` and
`steadlith compare --chunker … --html` add a column per chunker to the side-by-side
table, with the figures of compare_chunkers."""

from __future__ import annotations

import json
import re

from steadlith_core import Analysis, ChunkerParams
from steadlith_core.cli.main import main
from steadlith_core.comparison.external import JsonlChunker
from steadlith_core.comparison.chunker_churn import compare_chunkers
from steadlith_core.report.comparison import render_report

PARAS_A = ["First paragraph, about to be edited.", "Second paragraph stays.", "Third paragraph stays too."]
PARAS_B = ["First paragraph, edited now.", *PARAS_A[1:]]
TEXT_A, TEXT_B = "\n\n".join(PARAS_A), "\n\n".join(PARAS_B)
SMALL = ChunkerParams(min_tokens=2, max_tokens=8)


def spans_file(path, paragraphs):
    lines, pos = [], 0
    for para in paragraphs:
        lines.append(json.dumps({"start": pos, "end": pos + len(para)}))
        pos += len(para) + 2
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def rules_table(html: str) -> str:
    start = html.index('<section id="rules">')
    return html[start:html.index("</section>", start)]


def heads(table: str) -> list[str]:
    thead = table[table.index("<thead>"):table.index("</thead>")]
    return re.findall(r'<th(?: class="external")?>([^<]*)<br>', thead)


def column(table: str, k: int) -> list[str]:
    """The cells of column k (0: the row heads) of the table's body rows."""
    rows = re.findall(r"<tr><th>(.*?)</th>(.*?)</tr>", table[table.index("<tbody>"):], re.S)
    return [re.findall(r"<td>(.*?)</td>", cells, re.S)[k - 1] if k else head for head, cells in rows]


def test_external_rows_join_the_rules_table_with_their_figures(tmp_path):
    jsonl = JsonlChunker(spans_file(tmp_path / "a.jsonl", PARAS_A), spans_file(tmp_path / "b.jsonl", PARAS_B))
    rows = compare_chunkers(TEXT_A, TEXT_B, [SMALL, jsonl])
    external = rows[-1]
    assert external.family == "external" and (external.reused_chunks, external.chunks_b) == (2, 3)
    analysis = Analysis()
    c = analysis.compare(analysis.chunk(TEXT_A, SMALL), analysis.chunk(TEXT_B, SMALL))
    table = rules_table(render_report(c, "a.txt", "b.txt", chunkers=rows))  # one rule: the table appears anyway
    assert heads(table) == ["tttd-v1", "fixed-tokens/1 baseline", "jsonl(a.jsonl,b.jsonl)"]  # rule and baseline rows not repeated
    cells = dict(zip(column(table, 0), column(table, 3)))
    assert cells["reused chunks"] == "<b>2</b> of 3 (66.7%)"
    assert cells["reused tokens"] == f"{external.reused_tokens} of {external.tokens_b} " \
                                     f"({100 * external.reused_token_ratio:.1f}%)"
    assert cells["tokens to embed"] == f"<b>{external.tokens_to_embed}</b>"
    assert "n/a" in cells["shifted chunks"] and "n/a" in cells["locality"]
    assert "measured by hash" in table


def test_a_report_without_external_rows_is_unchanged():
    analysis = Analysis()
    c = analysis.compare(analysis.chunk(TEXT_A, SMALL), analysis.chunk(TEXT_B, SMALL))
    assert render_report(c, "a", "b", generated_by="t") == render_report(c, "a", "b", generated_by="t", chunkers=())


def test_compare_chunker_html_writes_the_rows(tmp_path, capsys):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text(TEXT_A, encoding="utf-8")
    b.write_text(TEXT_B, encoding="utf-8")
    sa, sb = spans_file(tmp_path / "a.jsonl", PARAS_A), spans_file(tmp_path / "b.jsonl", PARAS_B)
    out = tmp_path / "r.html"
    code = main(["compare", str(a), str(b), "--chunker", "rules", "--chunker", f"jsonl:{sa},{sb}",
                 "--set", "min_tokens=2", "--set", "max_tokens=8", "--html", str(out)])
    printed = capsys.readouterr()
    assert code == 0 and printed.err == "" and "jsonl(a.jsonl,b.jsonl)" in printed.out
    table = rules_table(out.read_text(encoding="utf-8"))
    names = heads(table)
    assert names[:2] == ["tttd-v1", "lmx2-v1"] and names[-1] == "jsonl(a.jsonl,b.jsonl)"
    assert dict(zip(column(table, 0), column(table, len(names))))["reused chunks"] == "<b>2</b> of 3 (66.7%)"
