"""The audit's edit size (words changed, from the comparison's word diff) and cost per
changed word, in text, CSV and JSON, and `--sort cost-per-word`: a one-word edit that
shifts chunks ranks above a larger edit that costs more tokens in all."""

from __future__ import annotations

import csv
import io
import json

import pytest

from cli_helpers import run
from git_history import History
from steadlith_core import chunk
from steadlith_core.history.audit import audit
from steadlith_core.comparison.churn import compare
from test_resync_distance import counterexample_texts

pytestmark = pytest.mark.kernel_independent

TEXT, ONE_WORD = counterexample_texts()  # "written" -> "unsafe,": a backup candidate lost, 2 chunks re-cut
PARAGRAPH = ("A borrower asked whether we could hold tools for a week while she finished a porch; we said yes, "
             "wrote her name on the shelf card, and nobody minded, because the card said when it would come back.")


def with_paragraph(text: str) -> str:
    at = text.index("\n\n", len(text) // 2)
    return text[:at] + "\n\n" + PARAGRAPH + text[at:]


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    h = History(tmp_path_factory.mktemp("edit-size"))
    h.c1 = h.commit({"notes.md": TEXT}, "Add the notes")
    h.c2 = h.commit({"notes.md": ONE_WORD}, "Fix one word")
    h.c3 = h.commit({"notes.md": with_paragraph(ONE_WORD)}, "Add a paragraph")
    h.result = audit(str(h.root), params_by_rule={"tttd-v1": None})
    return h


def cost(h, commit: str, rule: str = "tttd-v1"):
    c = next(c for c in h.result.commits if c.commit == commit)
    return c, next(f for f in c.files if f.rule == rule)


def test_edit_size_is_the_comparisons_word_diff(history):
    _, added = cost(history, history.c1)
    assert added.words_changed == added.words_changed_b == chunk(TEXT).word_count and added.words_changed_a == 0
    for commit, (old, new) in ((history.c2, (TEXT, ONE_WORD)), (history.c3, (ONE_WORD, with_paragraph(ONE_WORD)))):
        c, f = cost(history, commit)
        s = compare(chunk(old), chunk(new)).summary
        assert (f.words_changed_a, f.words_changed_b) == (s.changed_words_a, s.changed_words_b)
        assert f.words_changed == max(s.changed_words_a, s.changed_words_b)
        assert f.cost_per_word == pytest.approx(s.tokens_to_embed / f.words_changed)
        assert c.words_changed("tttd-v1") == f.words_changed
        assert c.cost_per_word("tttd-v1") == pytest.approx(f.cost_per_word)
    _, one = cost(history, history.c2)
    assert one.words_changed == 1 and one.cost_per_word == one.tokens_to_embed > 700


def test_sorting_by_cost_per_word_puts_the_small_costly_edit_first(history):
    r = history.result
    by_tokens = [c.commit for c in r.top_commits("tttd-v1", 3)]
    by_word = [c.commit for c in r.top_commits("tttd-v1", 3, "cost-per-word")]
    assert by_tokens[0] == history.c1 and by_word[0] == history.c2
    assert set(by_tokens) == set(by_word) == {history.c1, history.c2, history.c3}
    ratios = [r_.cost_per_word("tttd-v1") for r_ in r.top_commits("tttd-v1", 3, "cost-per-word")]
    assert ratios == sorted(ratios, reverse=True)
    with pytest.raises(ValueError):
        r.top_commits("tttd-v1", 3, "words")


def test_text_csv_and_json_carry_the_edit_size(history, capsys):
    root = str(history.root)
    code, out, _ = run(capsys, "audit", root, "--rules", "tttd-v1", "--sort", "cost-per-word")
    assert code == 0
    listed = out[out.index("costliest commits by tokens to embed per changed word"):].splitlines()
    assert "words" in listed[1] and "t/word" in listed[1]
    _, one = cost(history, history.c2)
    assert listed[2].split()[2:4] == ["1", f"{one.cost_per_word:.1f}"] and listed[2].endswith("Fix one word")
    assert "words changed" in out and "tokens per word" in out
    code, out, _ = run(capsys, "audit", root, "--rules", "tttd-v1")
    listed = out[out.index("costliest commits by tokens to embed under"):].splitlines()
    assert listed[2].endswith("Add the notes")

    code, out, _ = run(capsys, "audit", root, "--rules", "tttd-v1", "--format", "csv")
    rows = [r for r in csv.DictReader(io.StringIO(out)) if r["rule"] == "tttd-v1"]
    assert [r["subject"] for r in rows] == ["Add the notes", "Fix one word", "Add a paragraph"]  # history order
    assert rows[1]["words_changed"] == "1" and float(rows[1]["cost_per_word"]) == one.tokens_to_embed

    code, out, _ = run(capsys, "audit", root, "--rules", "tttd-v1", "--format", "json")
    doc = json.loads(out)
    commit = next(c for c in doc["commits"] if c["commit"] == history.c2)
    assert commit["totals"]["tttd-v1"]["words_changed"] == 1
    assert commit["totals"]["tttd-v1"]["cost_per_word"] == one.tokens_to_embed
    assert commit["files"][0]["words_changed"] == 1 and commit["files"][0]["cost_per_word"] == one.tokens_to_embed


def test_a_bad_sort_is_one_line_and_exit_2(history, capsys):
    code, out, err = run(capsys, "audit", str(history.root), "--sort", "words")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--sort" in err
