"""`steadlith compare` and `steadlith explain` read their documents as checked UTF-8
bytes and chunk them lean (cli/documents.read_pair): every output (text, JSON, the HTML
report, --rules, explain's text and JSON) is byte for byte what the same command gives
when it reads them as str, on the golden texts, on a pair of Markdown documents with
CRLF line ends, a BOM, non-ASCII letters, non-ASCII whitespace and emoji, and on that
pair against a version with LF line ends (equal words, different whitespace)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from cli_helpers import run
from steadlith_core.bench.examples import phase_shift_counterexample
from steadlith_core.cli import documents
from steadlith_core.comparison import diff as diff_module
from steadlith_core.comparison.diff import utf8_offsets, word_diff
from steadlith_core.chunking.pipeline import Pipeline
from steadlith_core.kernel import select as kernel
from pathlib import Path

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
BODY = ("Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \U0001F600 emoji line.\r\nSecond line \u4e2d\u6587 text, and more "
        "words to count.\r\n\r\nNew para\u00a0with a no-break space and an\u2003em space. \U0001F680 Rocket.\r\n")
SMALL = ["--set", "max_tokens=64", "--set", "min_tokens=8"]


def _write(path: Path, text: str) -> str:
    path.write_bytes(text.encode("utf-8"))  # as given: CRLF and the BOM kept
    return str(path)


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pairs")
    long = (GOLDEN / "long.txt").read_text(encoding="utf-8")
    at = long.index(" ", len(long) // 2)
    crlf_a = "\ufeff" + BODY * 60
    crlf_b = "\ufeff" + BODY * 30 + "An edit \U0001F6A2 here.\r\n\r\n" + BODY * 30
    return {
        "golden": (_write(tmp / "long_a.txt", long), _write(tmp / "long_b.txt", long[:at] + " three inserted words"
                                                                                 + long[at:])),
        "mixed": (str(GOLDEN / "mixed.txt"), str(GOLDEN / "whitespace.txt")),
        "crlf": (_write(tmp / "crlf_a.md", crlf_a), _write(tmp / "crlf_b.md", crlf_b)),
        "crlf-lf": (_write(tmp / "crlf_a2.md", crlf_a), _write(tmp / "lf_b.md", crlf_b[1:].replace("\r\n", "\n"))),
    }


def outputs(capsys, tmp_path, a: str, b: str, rule: str) -> dict[str, str]:
    """Every output of compare and explain on the pair under `rule`."""
    rule_set = ["--set", f"boundary_rule={rule}"]
    found = {}
    for name, argv in {
        "text": ["compare", a, b, *rule_set, *SMALL, "--html", str(tmp_path / "one.html")],
        "json": ["compare", a, b, *rule_set, "--format", "json"],
        "rules": ["compare", a, b, "--rules", "tttd-v1,lmx2-v1", "--html", str(tmp_path / "rules.html")],
        "rules-json": ["compare", a, b, "--rules", "tttd-v1,lmx2-v1", "--format", "json"],
        "explain": ["explain", a, b, *rule_set, *SMALL],
        "explain-json": ["explain", a, b, *rule_set, *SMALL, "--format", "json"],
    }.items():
        code, out, err = run(capsys, *argv)
        assert code == 0 and err == "", err
        found[name] = out
    for html in ("one.html", "rules.html"):
        found[html] = (tmp_path / html).read_text(encoding="utf-8")
    return found


@pytest.mark.parametrize("rule", ["tttd-v1", "lmx2-v1"])
@pytest.mark.parametrize("pair", ["golden", "mixed", "crlf", "crlf-lf"])
def test_outputs_from_bytes_are_those_from_str(capsys, tmp_path, monkeypatch, pairs, pair, rule):
    a, b = pairs[pair]
    from_bytes = outputs(capsys, tmp_path, a, b, rule)
    with monkeypatch.context() as m:
        m.setattr(documents, "read_pair", functools.partial(documents.read_pair, utf8=False))
        from_str = outputs(capsys, tmp_path, a, b, rule)
    for name in from_str:
        assert from_bytes[name] == from_str[name], name
    assert "phase shift" in from_bytes["text"] and "\U0001F600" not in from_bytes["json"]


def test_the_comparison_reads_bytes(capsys, tmp_path, monkeypatch, pairs):
    """The pair reaches the analysis as bytes (the lean path), never decoded whole."""
    seen = []
    original = documents.read_pair

    def spy(*args, **kwargs):
        result = original(*args, **kwargs)
        seen.extend(type(text) for text, _ in result)
        return result

    monkeypatch.setattr(documents, "read_pair", spy)
    a, b = pairs["crlf"]
    assert run(capsys, "compare", a, b)[0] == 0
    assert run(capsys, "explain", a, b)[0] == 0
    assert seen == [bytes] * 4


def test_equal_ranges_are_checked_a_block_at_a_time_on_the_bytes(text_kernel, monkeypatch):
    """Words equal across CRLF and LF, checked in blocks of 7 words (blocks straddle
    multi-byte characters); a word changed inside a long equal stretch is caught."""
    monkeypatch.setattr(diff_module, "CHECK_BLOCK_WORDS", 7)
    text_a = BODY * 40
    text_b = text_a.replace("\r\n", "\n")
    pipeline = Pipeline(word_symbols=True)
    a = pipeline.chunk(text_a.encode()).words
    b = pipeline.chunk(text_b.encode()).words
    assert a.symbols is not None and b.symbols is not None  # kept for the diff
    ops = word_diff(a, b)
    assert ops == word_diff(Pipeline().chunk(text_a).words, Pipeline().chunk(text_b).words)
    assert [op.tag for op in ops] == ["equal"]
    assert diff_module.equal_ranges_hold(a, b, ops)
    other = pipeline.chunk(text_b.replace("Rocket.", "Rocker.", 17).encode()).words
    assert not diff_module.equal_ranges_hold(a, other, ops)


def test_code_point_offsets_to_bytes_without_the_compiled_kernel(monkeypatch):
    text = ("ab\u00e9c \U0001F600x yz\u4e2d end " * 500)
    data = text.encode()
    offsets = np.sort(np.random.default_rng(5).integers(0, len(text) + 1, 400))
    expected = np.array([len(text[:o].encode()) for o in offsets.tolist()])
    monkeypatch.setattr(diff_module, "OFFSET_PIECE", 101)  # pieces end inside characters
    monkeypatch.setattr(kernel, "KERNEL", "numpy")
    assert np.array_equal(utf8_offsets(data, offsets), expected)


def test_explain_of_a_phase_shift_from_bytes_is_that_from_str(capsys, tmp_path, monkeypatch):
    """The counterexample's region: each decision's fingerprint (made from its window of
    symbols on the bytes path, read from the whole fingerprint array on the str path)."""
    text_a, text_b, params = phase_shift_counterexample()
    a, b = _write(tmp_path / "a.txt", text_a), _write(tmp_path / "b.txt", text_b)
    sets = [x for key, value in params.to_dict().items() for x in ("--set", f"{key}={value}")]
    found = []
    for utf8 in (True, False):
        with monkeypatch.context() as m:
            m.setattr(documents, "read_pair", functools.partial(documents.read_pair, utf8=utf8))
            found.append([run(capsys, "explain", a, b, *sets, *form) for form in ([], ["--format", "json"])])
    assert found[0] == found[1]
    assert '"fingerprint": "0x' in found[0][1][1] and "#1 B chunks" in found[0][0][1]


def test_a_decisions_fingerprint_is_the_chunkings(text_kernel):
    """The explainer of a stream carrying its symbols makes each fingerprint it shows
    from the window of its word: the value of the whole fingerprint array."""
    from steadlith_core.comparison.analysis import Analysis
    from steadlith_core.comparison.causes import explain_comparison

    text_a, text_b, params = phase_shift_counterexample()
    analysis = Analysis()
    a, b = analysis.chunk(text_a.encode(), params), analysis.chunk(text_b.encode(), params)
    shown = []
    for x in explain_comparison(analysis.compare(a, b, baseline=False)):
        shown += [(a, x.decision_a), (b, x.decision_b)] + [(b, d) for d in x.chain_b]
    checked = [(chunking, d) for chunking, d in shown if d.candidate_word is not None]
    assert checked
    for chunking, d in checked:
        assert d.fingerprint == f"0x{int(chunking.fingerprints[d.candidate_word]):x}"
