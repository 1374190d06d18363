"""External chunkers: spans checked against their text, identity by text, churn by hash
in the same table as the rules and the baseline."""

from __future__ import annotations

import json
import sys
from importlib import resources

import pytest

from steadlith_core import ChunkerParams, Lmx2Params, ParameterError, chunk, compare
from steadlith_core.comparison.external import (ExternalChunkError, JsonlChunker, SplitterChunker,
                                                chunking_from_offsets, installed_splitters, match_mean_tokens,
                                                parse_chunker, read_spans_jsonl, span_hash, text_tokens)
from steadlith_core.comparison.chunker_churn import compare_chunkers, compare_external, statuses_by_hash
import xxhash
from integration_helpers import no_network  # noqa: F401 - a fixture

pytestmark = pytest.mark.kernel_independent  # checks layers above the chunker, not its output: no numpy re-run

PARAS_A = ["Alpha paragraph one. 😀 It has astral characters.", "Second paragraph, unchanged in B.",
           "Third paragraph, also unchanged.", "Second paragraph, unchanged in B."]
PARAS_B = ["Alpha paragraph one. 😀 It has astral characters, and an edit.", *PARAS_A[1:]]
TEXT_A, TEXT_B = "\n\n".join(PARAS_A), "\n\n".join(PARAS_B)


def paragraph_spans(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    for para in text.split("\n\n"):
        out.append((pos, pos + len(para)))
        pos += len(para) + 2
    return out


def write_jsonl(path, records):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def demo_pair() -> tuple[str, str]:
    root = resources.files("steadlith_gui") / "resources" / "demo"
    return ((root / "chunking-guide-v1.md").read_text(encoding="utf-8"),
            (root / "chunking-guide-v2.md").read_text(encoding="utf-8"))


def test_identity_is_xxh3_128_of_the_exact_span_bytes():
    c = chunking_from_offsets("t", TEXT_A, paragraph_spans(TEXT_A))
    first = c.chunks[0]
    assert first.text == PARAS_A[0]  # code points: the emoji is one index, not two
    assert first.hash == xxhash.xxh3_128_hexdigest(PARAS_A[0].encode("utf-8"))
    assert first.kind == "external"
    # whitespace is part of the text an external pipeline embeds, so of its identity
    assert span_hash(PARAS_A[0] + " ") != first.hash
    assert first.tokens == text_tokens(PARAS_A[0]) == sum(-(-len(w) // 4) for w in PARAS_A[0].split())


def test_jsonl_offsets_and_text_only_give_the_same_chunking(tmp_path):
    spans = paragraph_spans(TEXT_A)
    by_offset = read_spans_jsonl(write_jsonl(tmp_path / "o.jsonl", [{"start": s, "end": e} for s, e in spans]), TEXT_A)
    by_text = read_spans_jsonl(write_jsonl(tmp_path / "t.jsonl", [{"text": TEXT_A[s:e]} for s, e in spans]), TEXT_A)
    assert [(c.start, c.end) for c in by_offset.chunks] == spans
    # the repeated paragraph is found at its second place, not matched to the first again
    assert [(c.start, c.end) for c in by_text.chunks] == spans
    assert [c.hash for c in by_text.chunks] == [c.hash for c in by_offset.chunks]


def test_repeated_text_is_located_after_the_previous_chunk_not_inside_it(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [{"text": "la la"}, {"text": "la la"}])
    located = read_spans_jsonl(path, "la la la la")
    assert [(c.start, c.end) for c in located.chunks] == [(0, 5), (6, 11)]


def test_a_span_whose_text_does_not_match_names_its_line(tmp_path):
    spans = paragraph_spans(TEXT_A)
    records = [{"start": s, "end": e, "text": TEXT_A[s:e]} for s, e in spans]
    records[2]["start"] += 1  # off by one code point (as a UTF-16 offset past the emoji would be)
    path = write_jsonl(tmp_path / "bad.jsonl", records)
    with pytest.raises(ExternalChunkError, match=r"bad\.jsonl:3: its text does not match the document"):
        read_spans_jsonl(path, TEXT_A)


@pytest.mark.parametrize("record, message", [
    ({"start": 5, "end": 10_000}, r"x\.jsonl:2: \[5, 10000\) is not a non-empty range inside the document"),
    ({"start": 7, "end": 7}, r"x\.jsonl:2: \[7, 7\) is not a non-empty range"),
    ({"text": "not in the document"}, r"x\.jsonl:2: every line needs start and end"),
    ({"begin": 1}, r"x\.jsonl:2: expected"),
])
def test_bad_jsonl_lines_are_one_clear_error(tmp_path, record, message):
    path = write_jsonl(tmp_path / "x.jsonl", [{"start": 0, "end": 3}, record])
    with pytest.raises(ExternalChunkError, match=message):
        read_spans_jsonl(path, TEXT_A)


def test_text_not_in_the_document_names_the_line(tmp_path):
    path = write_jsonl(tmp_path / "t.jsonl", [{"text": PARAS_A[0]}, {"text": "Invented paragraph."}])
    with pytest.raises(ExternalChunkError, match=r"t\.jsonl:2: its text \('Invented paragraph\.'\) does not occur"):
        read_spans_jsonl(path, TEXT_A)


def test_churn_of_an_external_chunking_counts_unchanged_spans_as_reused(tmp_path):
    a = chunking_from_offsets("paragraphs", TEXT_A, paragraph_spans(TEXT_A))
    b = chunking_from_offsets("paragraphs", TEXT_B, paragraph_spans(TEXT_B))
    churn = compare_external(a, b)
    edited = b.chunks[0].tokens
    assert churn.family == "external"
    assert (churn.reused_chunks, churn.chunks_to_embed) == (3, 1)
    assert churn.tokens_to_embed == edited
    assert churn.reused_tokens == churn.tokens_b - edited
    assert statuses_by_hash(a.chunks, b.chunks) == (("removed", "reused", "reused", "reused"),
                                                     ("new", "reused", "reused", "reused"))


def test_rule_rows_measure_what_the_comparison_reports():
    text_a, text_b = demo_pair()
    rows = compare_chunkers(text_a, text_b, [ChunkerParams(), Lmx2Params()])
    assert [r.chunker for r in rows] == ["tttd-v1", "lmx2-v1", "fixed-tokens/1(512)"]
    for row, params in zip(rows, [ChunkerParams(), Lmx2Params()]):
        s = compare(chunk(text_a, params), chunk(text_b, params)).summary
        # an embedding cache hits reused chunks and hash hits the alignment left unpaired
        assert row.reused_chunks == s.reused_chunks + s.unaligned_hash_hits_b
        assert row.reused_tokens == s.reused_tokens + s.unaligned_hash_hit_tokens_b
        assert row.tokens_b == s.tokens_b and row.chunks_b == s.chunks_b
    base = compare(chunk(text_a), chunk(text_b)).baseline.summary
    assert rows[2].family == "baseline" and rows[2].reused_tokens == base.reused_tokens
    assert rows[2].tokens_to_embed == base.tokens_to_embed


def test_jsonl_chunker_sits_in_the_table(tmp_path):
    pa = write_jsonl(tmp_path / "a.jsonl", [{"start": s, "end": e} for s, e in paragraph_spans(TEXT_A)])
    pb = write_jsonl(tmp_path / "b.jsonl", [{"start": s, "end": e} for s, e in paragraph_spans(TEXT_B)])
    rows = compare_chunkers(TEXT_A, TEXT_B, [ChunkerParams(min_tokens=1, max_tokens=64),
                                             parse_chunker(f"jsonl:{pa},{pb}")])
    assert [r.family for r in rows] == ["rule", "baseline", "external"]
    assert rows[-1].chunker == "jsonl(a.jsonl,b.jsonl)" and rows[-1].reused_chunks == 3


def test_parse_chunker_names_what_is_wrong():
    assert parse_chunker("semchunk:chunk_size=100") == SplitterChunker("semchunk", 100)
    assert parse_chunker("jsonl:a.jsonl,b.jsonl") == JsonlChunker("a.jsonl", "b.jsonl")
    with pytest.raises(ParameterError, match="unknown chunker 'langchain'; known: langchain-recursive"):
        parse_chunker("langchain")
    with pytest.raises(ParameterError, match="expected chunk_size=N or chunk_overlap=N, got 'size=3'"):
        parse_chunker("semchunk:size=3")
    with pytest.raises(ParameterError, match="jsonl takes two files"):
        parse_chunker("jsonl:only-one.jsonl")
    with pytest.raises(ParameterError, match="chunk_overlap: must be an integer in"):
        parse_chunker("langchain-recursive:chunk_size=10,chunk_overlap=10")


def test_a_missing_library_is_a_clear_error_naming_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "semchunk", None)  # makes `import semchunk` fail
    with pytest.raises(ExternalChunkError, match=r"semchunk needs the package semchunk: pip install "
                                                 r"'steadlith-core\[external\]'"):
        SplitterChunker("semchunk", 64).chunk(TEXT_A)


SPLITTER_MODULES = {"langchain-recursive": "langchain_text_splitters", "llama-index-sentence": "llama_index.core",
                    "chonkie-recursive": "chonkie", "semchunk": "semchunk"}


@pytest.mark.parametrize("kind", list(SPLITTER_MODULES))
def test_each_splitter_gives_exact_spans_sized_in_the_rules_tokens(kind, no_network):
    pytest.importorskip(SPLITTER_MODULES[kind])
    assert kind in installed_splitters()
    text_a, text_b = demo_pair()
    a = SplitterChunker(kind, 200).chunk(text_a)
    assert len(a.chunks) > 5
    for c in a.chunks:
        assert text_a[c.start:c.end] == c.text and c.hash == span_hash(c.text)
    # sized in chars4/1 tokens: chunks stay near chunk_size, not 200 characters
    assert 80 < a.mean_chunk_tokens <= 200
    assert max(c.tokens for c in a.chunks) <= 260
    churn = compare_chunkers(text_a, text_b, [SplitterChunker(kind, 200)])[0]
    assert 0 < churn.reused_chunks < churn.chunks_b


def test_match_mean_tokens_sets_the_chunk_size_to_the_rules_mean():
    pytest.importorskip("semchunk")
    text_a, _ = demo_pair()
    rule = chunk(text_a).chunks
    mean = sum(c.tokens for c in rule) / len(rule)
    matched = match_mean_tokens(SplitterChunker("semchunk"), text_a, mean)
    assert abs(matched.chunk(text_a).mean_chunk_tokens - mean) < 0.1 * mean


def test_fixed_tokens_splitter_is_the_baseline_at_any_window():
    from steadlith_core import FixedTokenParams, chunk_fixed

    text_a, _ = demo_pair()
    spans = SplitterChunker("fixed-tokens", 100).chunk(text_a)
    fixed = chunk_fixed(text_a, FixedTokenParams(100))
    assert [(c.start, c.end, c.tokens) for c in spans.chunks] == [(c.start, c.end, c.tokens) for c in fixed.chunks]
    assert "fixed-tokens" in installed_splitters()


def test_the_offline_fixture_refuses_connections(no_network):
    import socket

    with pytest.raises(AssertionError, match="network access attempted"):
        socket.create_connection(("127.0.0.1", 9), timeout=1)
