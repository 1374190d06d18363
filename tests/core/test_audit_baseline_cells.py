"""The audit's text and HTML reports give the fixed-size baseline no locality figure: its
violations would be counted at the boundary rules' margin, which a baseline never had."""

import pytest
from git_history import History

from steadlith_core.history.audit import audit
from steadlith_core.history.audit_report import NOT_APPLICABLE, render_audit_html
from steadlith_core.cli.audit import format_audit
from steadlith_core.bench.examples import tool_library_example

TEXT_A, TEXT_B, _ = tool_library_example()


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    h = History(tmp_path_factory.mktemp("auditrepo"))
    h.commit({"guide.md": TEXT_A}, "First guide")
    h.commit({"guide.md": TEXT_B}, "Insert a sentence")  # tttd-v1 breaks locality here
    return audit(str(h.root))


def test_the_text_report_shows_a_dash_for_the_baselines_locality(result):
    row = next(line for line in format_audit(result).splitlines() if line.startswith("locality violations"))
    cells = row[len("locality violations"):].split()
    assert result.rules[-1].startswith("fixed-tokens/1")
    assert cells == [str(result.totals[r].locality_violations) for r in result.rules[:-1]] + [NOT_APPLICABLE]
    assert result.totals["tttd-v1"].locality_violations > 0  # a rule's figure is still shown when it counts


def test_the_html_report_shows_a_dash_for_the_baselines_locality(result):
    page = render_audit_html(result)
    row = page.split("<th>locality violations</th>")[1].split("</tr>")[0]
    expected = [str(result.totals[r].locality_violations) for r in result.rules[:-1]] + [NOT_APPLICABLE]
    assert row == "".join(f"<td class=\"n\">{c}</td>" for c in expected)


def test_the_html_report_counts_commits_in_words(tmp_path, result):
    h = History(tmp_path / "one")
    h.commit({"guide.md": TEXT_A}, "First guide")
    one = audit(str(h.root))
    assert "; 1 commit. steadlith" in render_audit_html(one)
    assert f"; {len(result.commits)} commits. steadlith" in render_audit_html(result)
    assert len(one.commits) == 1 and len(result.commits) > 1
