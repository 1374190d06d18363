"""External splitters as rows of the sweep: each row is what `compare --chunker` measures
on the same pairs, chunk_size is their grid dimension, and a splitter that is not
installed is one message with the rules' rows still there."""

import json
import sys

import pytest

from steadlith_core.cli.main import main
from steadlith_core.comparison.external import parse_chunker
from steadlith_core.comparison.chunker_churn import compare_chunkers
from steadlith_core.bench.sweep import synthetic_history
from steadlith_core.sweep.external import external_sets
from steadlith_core.sweep.grid import build_grid
from steadlith_core.sweep.plan import SweepPlan
from steadlith_core.sweep.run import SweepRun, in_process
from steadlith_core.sweep.tasks import VersionsSource, batch_pairs

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run


@pytest.fixture(scope="module")
def history():
    return synthetic_history(6, 4000, seed=5)


@pytest.fixture
def version_files(tmp_path, history):
    paths = []
    for n, text in enumerate(history.versions):
        p = tmp_path / f"v{n}.md"
        p.write_text(text, encoding="utf-8")
        paths.append(str(p))
    return paths


def _rows_against_compare_chunkers(history, spec: str) -> None:
    rules = build_grid([]).sets
    externals, skipped = external_sets([spec], "48,160", first_index=len(rules), token_counter="chars4/1",
                                       default_size=None)
    assert not skipped and len(externals) == 2
    pairs = [(str(n), a, b) for n, (a, b) in enumerate(zip(history.versions, history.versions[1:]))]
    by_pairs = SweepRun(SweepPlan(batch_pairs(pairs, chars_per_task=6000), rules + externals)).execute(in_process)
    versions = VersionsSource("doc", tuple(history.versions), tuple(map(str, range(len(history.versions)))))
    by_versions = SweepRun(SweepPlan((versions,), rules + externals)).execute(in_process)
    for row, again, s in zip(by_pairs.rows()[1:], by_versions.rows()[1:], externals):
        churns = [compare_chunkers(a, b, [s.params.chunker])[0] for _, a, b in pairs]
        assert row.label == churns[0].chunker == f"{spec}(chunk_size={s.params.chunker.chunk_size}" + \
            (")" if spec == "fixed-tokens" else ", chunk_overlap=0)")
        assert row.tokens_to_embed == sum(c.tokens_to_embed for c in churns) > 0
        assert row.chunks_to_embed == sum(c.chunks_to_embed for c in churns)
        assert row.chunks == sum(c.chunks_b for c in churns)
        assert row.mean_chunk_tokens == pytest.approx(sum(c.tokens_b for c in churns) / row.chunks)
        assert row.violations is None and row.paragraph_cut_share is None
        batching = {"tasks_done": 0, "tasks_total": 0}  # pairs come in batches, versions as one task
        assert {**again.to_dict(), **batching} == {**row.to_dict(), **batching}


def test_fixed_tokens_rows_equal_compare_chunkers_on_the_same_pairs(history):
    _rows_against_compare_chunkers(history, "fixed-tokens")


def test_langchain_rows_equal_compare_chunkers_on_the_same_pairs(history):
    pytest.importorskip("langchain_text_splitters")
    _rows_against_compare_chunkers(history, "langchain-recursive")


def test_chunk_size_in_the_grid_gives_one_row_per_chunker_and_size(version_files, capsys):
    pytest.importorskip("langchain_text_splitters")
    code = main(["sweep", "--versions", *version_files, "--grid", "chunk_size=64,256", "--grid", "max_tokens=256,512",
                 "--chunker", "langchain-recursive", "--chunker", "fixed-tokens", "--jobs", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0 and err == ""
    labels = [s["label"] for s in json.loads(out)["sets"]]
    assert labels == ["tttd-v1 max_tokens=256", "tttd-v1 max_tokens=512",
                      "langchain-recursive(chunk_size=64, chunk_overlap=0)",
                      "langchain-recursive(chunk_size=256, chunk_overlap=0)",
                      "fixed-tokens(chunk_size=64)", "fixed-tokens(chunk_size=256)"]


def test_the_text_table_shows_a_dash_for_what_a_splitter_does_not_have(version_files, capsys):
    assert main(["sweep", "--versions", *version_files, "--chunker", "fixed-tokens:chunk_size=96", "--jobs", "1"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if "fixed-tokens(chunk_size=96)" in line)
    assert row.split()[-3:] == ["–", "–", "–"]  # paragraph and sentence cuts, violations


def test_chunk_size_without_an_external_chunker_is_said_once_and_the_rules_run(version_files, capsys):
    code = main(["sweep", "--versions", *version_files, "--grid", "chunk_size=64,256", "--jobs", "1",
                 "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert [s["label"] for s in json.loads(out)["sets"]] == ["tttd-v1"]
    assert err.count("\n") == 1 and "chunk_size" in err and "no --chunker" in err


def test_a_splitter_not_installed_is_one_message_and_its_rows_are_skipped(version_files, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain_text_splitters", None)
    code = main(["sweep", "--versions", *version_files, "--grid", "chunk_size=64,256", "--chunker",
                 "langchain-recursive", "--chunker", "langchain-recursive:chunk_overlap=8", "--chunker",
                 "fixed-tokens", "--jobs", "1", "--format", "json"])
    out, err = capsys.readouterr()
    assert code == 0
    assert [s["label"] for s in json.loads(out)["sets"]] == ["tttd-v1", "fixed-tokens(chunk_size=64)",
                                                             "fixed-tokens(chunk_size=256)"]
    assert err.count("\n") == 1 and "langchain-recursive is not installed" in err and "[langchain]" in err


def test_spans_of_one_pair_cannot_be_rows(version_files, capsys):
    code = main(["sweep", "--versions", *version_files, "--chunker", "jsonl:a.jsonl,b.jsonl"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "name a splitter" in err


def test_a_splitter_without_a_size_is_sized_at_the_rules_max_tokens():
    rules = build_grid([], assignments=["max_tokens=300"]).sets
    sets, _ = external_sets(["fixed-tokens"], None, first_index=1, token_counter="chars4/1", default_size=300)
    assert sets[0].params.chunker == parse_chunker("fixed-tokens:chunk_size=300")
    assert rules[0].params.max_tokens == 300
