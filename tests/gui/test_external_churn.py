"""External chunkers in the window: the churn panel's "Compare with…" adds a column per
chunker with the figures `compare_chunkers` gives, computed in the worker and cached so a
rule's parameter change runs no splitter again; the choice goes into the workspace."""

from __future__ import annotations

import dataclasses
from importlib import resources

import pytest
from steadlith_core.comparison.external import SPLITTERS, SplitterChunker, compare_chunkers, match_mean_tokens

from gui_helpers import load_texts


def demo_pair() -> tuple[str, str]:
    root = resources.files("steadlith_gui") / "resources" / "demo"
    return ((root / "chunking-guide-v1.md").read_text(encoding="utf-8"),
            (root / "chunking-guide-v2.md").read_text(encoding="utf-8"))


def settled(qtbot, window, act):
    """Run `act` and wait for the result with every chosen external column: the rules'
    result comes first, the splitters' columns in a second one."""
    def complete(result) -> bool:
        return bool(result.externals) or not window.session.external.chunkers

    with qtbot.waitSignal(window.analysis_ready, timeout=60_000, check_params_cb=complete) as blocker:
        act()
    return blocker.args[0]


def choose(qtbot, window, key):
    return settled(qtbot, window, window.churn.external_actions[key].trigger)


def counting(monkeypatch, kind):
    calls = []
    real = SPLITTERS[kind]

    def counted(chunker, text):
        calls.append((chunker.chunk_size, len(text)))
        return real(chunker, text)

    monkeypatch.setitem(SPLITTERS, kind, counted)
    return calls


@pytest.fixture
def semchunk():
    pytest.importorskip("semchunk")


def test_a_chosen_splitter_is_a_column_with_compare_chunkers_figures(qtbot, window, semchunk):
    text_a, text_b = demo_pair()
    first = load_texts(qtbot, window, text_a, text_b)
    assert window.churn.external_keys == ()
    result = choose(qtbot, window, "semchunk")
    chunks = first.a.chunks
    target = sum(c.tokens for c in chunks) / len(chunks)
    sized = match_mean_tokens(SplitterChunker("semchunk", token_counter=first.params.token_counter), text_a, target)
    expected = compare_chunkers(text_a, text_b, [sized], baseline=False)[0]
    (column,) = result.externals
    assert column.row == expected and column.name == sized.name
    churn = window.churn
    assert churn.external_keys == ("semchunk",) and churn.heads["semchunk"].isVisible()
    assert churn.value("semchunk", "reused_chunks") == f"{expected.reused_chunks:,}/{expected.chunks_b:,}"
    assert churn.value("semchunk", "reused_tokens") == f"{expected.reused_tokens:,} t"
    assert churn.value("semchunk", "to_embed") == f"{expected.tokens_to_embed:,} t"
    assert churn.value("semchunk", "shifted") == "n/a"  # by hash: nothing to call shifted
    assert f"semchunk {sized.chunk_size:,} t" in churn.external_note.text()
    assert f"chunk_size {sized.chunk_size:,} t" in churn.heads["semchunk"].toolTip()
    # unchecked: the column goes
    settled(qtbot, window, churn.external_actions["semchunk"].trigger)
    assert churn.external_keys == () and ("semchunk", "reused_chunks") not in churn.values


def test_a_rule_parameter_change_runs_no_splitter_again(qtbot, window, semchunk, monkeypatch):
    calls = counting(monkeypatch, "semchunk")
    text_a, text_b = demo_pair()
    load_texts(qtbot, window, text_a, text_b)
    window.external_ctl.choose_size = lambda current: 300
    settled(qtbot, window, window.churn.sizing_actions["own"].trigger)
    result = choose(qtbot, window, "semchunk")
    assert window.session.external.sizing == "own" and result.externals[0].name.startswith("semchunk(chunk_size=300,")
    assert len(calls) == 2  # A and B, once each
    before = result.externals[0].row
    changed = settled(qtbot, window, lambda: window.session.set_params(
        dataclasses.replace(window.session.params, min_tokens=window.session.params.min_tokens + 16), show=True))
    assert changed.a.params.min_tokens == window.session.params.min_tokens
    assert len(calls) == 2 and changed.externals[0].row == before
    # matched sizing: another rule's parameters do not move the target either
    settled(qtbot, window, window.churn.sizing_actions["matched"].trigger)
    sized = len(calls)
    other = window.session.params_for("lmx2-v1")
    settled(qtbot, window, lambda: window.session.set_params(dataclasses.replace(other, max_tokens=other.max_tokens + 32)))
    assert len(calls) == sized


def test_a_missing_library_is_a_column_that_says_so(qtbot, window, monkeypatch):
    import steadlith_gui.model.external_runs as runs

    monkeypatch.setattr(runs, "installed_splitters", lambda: ["fixed-tokens"])
    text_a, text_b = demo_pair()
    load_texts(qtbot, window, text_a, text_b)
    result = choose(qtbot, window, "chonkie-recursive")
    (column,) = result.externals
    assert column.row is None and "pip install 'steadlith-core[external]'" in column.error
    assert window.churn.value("chonkie-recursive", "reused_chunks") == "not installed"
    assert "steadlith-core[external]" in window.churn.external_note.text()


def test_the_exported_report_has_the_columns_shown(qtbot, window, tmp_path):
    text_a, text_b = demo_pair()
    load_texts(qtbot, window, text_a, text_b)
    result = choose(qtbot, window, "fixed-tokens")  # always installed: the baseline sized like a splitter
    row = result.externals[0].row
    out = tmp_path / "report.html"
    with qtbot.waitSignal(window.exported, timeout=20_000):
        window.exports.export_report(out)
    html = out.read_text(encoding="utf-8")
    table = html[html.index('<section id="rules">'):]
    table = table[:table.index("</section>")]
    assert f'<th class="external">{row.chunker}<br>' in table
    assert f"<b>{row.reused_chunks}</b> of {row.chunks_b}" in table and f"<b>{row.tokens_to_embed}</b>" in table


def paragraph_spans(path, text):
    import json

    lines, pos = [], 0
    for para in text.split("\n\n"):
        lines.append(json.dumps({"start": pos, "end": pos + len(para)}))
        pos += len(para) + 2
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def test_jsonl_spans_from_two_files_are_a_column_and_cancel_changes_nothing(qtbot, window, tmp_path):
    from steadlith_core.comparison.external import JsonlChunker

    text_a, text_b = demo_pair()
    load_texts(qtbot, window, text_a, text_b)
    window.external_ctl.choose_files = lambda: None  # the user cancels the file dialog
    window.churn.external_actions["jsonl"].trigger()
    assert window.session.external.chunkers == () and not window.churn.external_actions["jsonl"].isChecked()
    files = paragraph_spans(tmp_path / "a.jsonl", text_a), paragraph_spans(tmp_path / "b.jsonl", text_b)
    window.external_ctl.choose_files = lambda: files
    result = choose(qtbot, window, "jsonl")
    (expected,) = compare_chunkers(text_a, text_b, [JsonlChunker(*files, result.params.token_counter)])
    (column,) = result.externals
    assert column.row == expected
    assert window.churn.value("jsonl", "reused_chunks") == f"{column.row.reused_chunks:,}/{column.row.chunks_b:,}"
    # a file that no longer fits its document is the column's error, not a failed analysis
    (tmp_path / "b.jsonl").write_text('{"start": 0, "end": 99999999}\n', encoding="utf-8")
    again = settled(qtbot, window, window.session.request_analysis)
    (broken,) = again.externals
    assert broken.row is None and "b.jsonl:1" in broken.error
    assert window.churn.value("jsonl", "reused_chunks") == "error" and again.comparison is not None


def test_a_slow_splitter_never_holds_up_the_rules_result(qtbot, window, monkeypatch):
    import threading

    release = threading.Event()
    real = SPLITTERS["fixed-tokens"]
    monkeypatch.setitem(SPLITTERS, "fixed-tokens", lambda c, t: release.wait(30) and real(c, t))
    text_a, text_b = demo_pair()
    load_texts(qtbot, window, text_a, text_b)
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        window.churn.external_actions["fixed-tokens"].trigger()
    first = blocker.args[0]
    assert first.externals == () and first.comparison is not None  # the rules, while the splitter runs
    assert window.churn.value("fixed-tokens", "reused_chunks") == "…" and window.analyzer.busy
    with qtbot.waitSignal(window.analysis_ready, timeout=20_000) as blocker:
        release.set()
    assert blocker.args[0].externals[0].row is not None and not window.analyzer.busy
    assert window.churn.value("fixed-tokens", "reused_chunks") != "…"
