"""The loader's budget counts words, not only bytes: text far denser in words than
Markdown (a one-letter word a line) costs more a byte than the per-byte figures say, most
under lmx2-v1 (a chunk a word), and is refused with one line before it is chunked
(loader.refuse_dense), while Markdown and prose keep the per-byte figures. The budget is
shrunk here so that a small document stands for a large one."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from cli_helpers import run
from steadlith_core.chunking import loader
from steadlith_core.chunking.loader import (DENSE_BYTES_PER_WORD, human_bytes, memory_needed_for,
                                            memory_per_input_byte, word_count)
from steadlith_core.kernel.select import scan

ROOT = Path(__file__).resolve().parents[2]
TEXT = "A sentence of words that goes on. Another one follows here, longer still.\n\n" * 12
DENSE = "a\n" * (len(TEXT) // 2)  # the same size, one word every two bytes
LMX2 = ["--set", "boundary_rule=lmx2-v1"]
WHITESPACE = [chr(c) for c in (*range(0x09, 0x0E), *range(0x1C, 0x21), 0x85, 0xA0, 0x1680, *range(0x2000, 0x200B),
                               0x2028, 0x2029, 0x202F, 0x205F, 0x3000)]
# word characters, some of them near whitespace in UTF-8 or in name (docs/contract/normalizer.md#whitespace)
WORD = ["a", "é", "日", "😀", "\u200b", "\u2060", "\ufeff", "\u180e", "\u3001", "\u1681", "\u200b", "\x01", "\x0e",
        "\x1b", "\x7f", "\u0080", "\u00a1", "\u2030"]


@pytest.mark.parametrize("block", [1, 5, 64, loader.WORD_COUNT_BLOCK])
def test_the_word_count_is_the_scan_s(monkeypatch, block):
    monkeypatch.setattr(loader, "WORD_COUNT_BLOCK", block)
    rng = random.Random(block)
    for _ in range(400):
        text = "".join(rng.choice(WHITESPACE if rng.random() < 0.4 else WORD) for _ in range(rng.randrange(60)))
        data = text.encode()
        assert word_count(data) == (scan(data, sentence_ends=False, lean=True).symbols.size if data else 0), text


def test_markdown_and_prose_keep_the_per_byte_figures():
    # the checkout's docs and the golden documents: no word past one every DENSE_BYTES_PER_WORD bytes
    paths = sorted((ROOT / "docs").rglob("*.md")) + sorted(p for p in (ROOT / "tests" / "golden").iterdir()
                                                           if p.suffix in (".txt", ".md"))
    assert len(paths) > 10
    for path in paths:
        data = path.read_bytes()
        assert word_count(data) * DENSE_BYTES_PER_WORD <= len(data), path
        for command in ("chunk", "compare", "explain", "lab"):
            for rule in ("tttd-v1", "lmx2-v1"):
                assert (memory_needed_for(len(data), word_count(data), command, [rule])
                        == len(data) * memory_per_input_byte(command, [rule])), (path, command, rule)


@pytest.fixture
def budget(monkeypatch):
    """MEMORY_BUDGET at which chunk under lmx2-v1 admits exactly len(TEXT) bytes of Markdown."""
    size = len(TEXT.encode())
    monkeypatch.setattr(loader, "MEMORY_BUDGET", size * memory_per_input_byte("chunk", ["lmx2-v1"]))
    return size


def test_chunk_refuses_text_of_a_word_a_line_that_its_size_admits(capsys, tmp_path, budget):
    doc = tmp_path / "doc.md"
    doc.write_text(TEXT, encoding="utf-8")
    code, out, err = run(capsys, "chunk", str(doc), "--format", "jsonl", *LMX2)
    assert code == 0 and out, err  # Markdown at the limit
    doc.write_text(DENSE, encoding="utf-8")
    assert doc.stat().st_size <= budget  # within the limit by its size
    code, out, err = run(capsys, "chunk", str(doc), "--format", "jsonl", *LMX2)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    words = len(DENSE.split())
    need = memory_needed_for(len(DENSE), words, "chunk", ["lmx2-v1"])
    assert err == (f"steadlith: error: {doc}: too many words for its size: {words} words in "
                   f"{human_bytes(len(DENSE))} (one every 2.0 bytes) would need about {human_bytes(need)} of "
                   f"memory, over the budget of {human_bytes(loader.MEMORY_BUDGET)}\n")


def test_compare_counts_the_words_of_both_documents(capsys, tmp_path, monkeypatch):
    a, b = tmp_path / "a.md", tmp_path / "b.md"
    a.write_text(TEXT, encoding="utf-8")
    b.write_text(TEXT.replace("longer", "shorter", 1), encoding="utf-8")
    both = a.stat().st_size + b.stat().st_size
    monkeypatch.setattr(loader, "MEMORY_BUDGET", both * memory_per_input_byte("compare", ["lmx2-v1"]))
    code, out, err = run(capsys, "compare", str(a), str(b), *LMX2)
    assert code == 0 and out, err
    b.write_text(DENSE[: len(TEXT) - 2], encoding="utf-8")  # smaller than before, and dense
    code, out, err = run(capsys, "compare", str(a), str(b), *LMX2)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith(f"steadlith: error: {a} and {b}: too many words for their size: "), err


def test_a_document_that_could_not_pass_the_budget_is_not_counted(monkeypatch, tmp_path, capsys):
    # the words are counted only when the densest text of that size could need more than the budget
    monkeypatch.setattr(loader, "word_count", lambda data: pytest.fail("counted a document that fits anyway"))
    doc = tmp_path / "doc.md"
    doc.write_text(DENSE, encoding="utf-8")
    code, out, err = run(capsys, "chunk", str(doc), "--format", "jsonl", *LMX2)
    assert code == 0 and out, err


def test_the_command_line_guide_gives_the_loader_s_figures():
    import re

    from steadlith_core.chunking.loader import COMMAND_MEMORY

    guide = (ROOT / "docs" / "guide" / "cli.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `(chunk|compare|explain)`, (tttd-v1|lmx2-v1)[^|]*\| (\d+) \| (\d+) \|$", guide, re.M)
    assert len(rows) == 6
    for command, rule, compiled, numpy in rows:
        assert (int(compiled), int(numpy)) == (COMMAND_MEMORY["c"][command][rule],
                                               COMMAND_MEMORY["numpy"][command][rule]), (command, rule)
