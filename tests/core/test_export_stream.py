"""`steadlith chunk --format json|jsonl` writes its output as each chunk is reached
(report.export.chunking_json_pieces, chunks_jsonl_lines), never as one string: the
pieces must join to exactly the text of the one-string functions, on both kernels and
both rules, and the chunks made for it must not be kept."""

from __future__ import annotations

import json

import pytest

from steadlith_core import ChunkerParams, Lmx2Params, chunk
from steadlith_core.bench.corpus import markdown_corpus
from steadlith_core.bench.examples import generate_prose
from steadlith_core.cli.main import main
from steadlith_core.report.export import (
    chunking_json_pieces, chunking_to_json, chunks_jsonl, chunks_jsonl_lines, to_json_text, write_pieces,
)

TEXT = "Ünïcode 🚀 rocket\r\n\r\nA line with \"quotes\" and a\ttab.\n" + generate_prose(4000, seed=5)
RULES = {"tttd-v1": ChunkerParams(min_tokens=8, max_tokens=40, window_words=4),
         "lmx2-v1": Lmx2Params(min_tokens=8, max_tokens=40)}


@pytest.mark.parametrize("rule", RULES)
@pytest.mark.parametrize("document", ["prose", "markdown", "empty", "one word"])
def test_pieces_join_to_the_one_string_output(text_kernel, rule, document):
    text = {"prose": TEXT, "markdown": markdown_corpus()[0][:60_000], "empty": "", "one word": "word"}[document]
    for form in (text, text.encode("utf-8")):
        result = chunk(form, RULES[rule])
        pieces = list(chunking_json_pieces(result))
        assert "".join(pieces) == to_json_text(chunking_to_json(result))
        assert "".join(chunks_jsonl_lines(result)) == chunks_jsonl(result)
        if len(result.chunks) > 1:
            assert len(pieces) == len(result.chunks) + 3  # before, one per chunk, the close, after


def test_streaming_does_not_keep_the_chunks():
    result = chunk(TEXT.encode("utf-8"), RULES["tttd-v1"])
    assert sum(1 for _ in chunking_json_pieces(result)) > 3
    assert sum(1 for _ in chunks_jsonl_lines(result)) == len(result.columns)
    assert "chunks" not in result.__dict__  # iter_chunks made each chunk and let it go
    made = result.chunks
    assert list(result.iter_chunks()) == list(made) and next(result.iter_chunks()) is made[0]


def test_write_pieces_batches_and_loses_nothing():
    writes: list[str] = []
    pieces = [f"{i:05d}" for i in range(1000)]
    write_pieces(writes.append, pieces, batch=64)
    assert "".join(writes) == "".join(pieces)
    assert 1 < len(writes) < 1000 and all(len(w) < 64 + 5 for w in writes)


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
@pytest.mark.parametrize("rule", RULES)
def test_cli_prints_what_the_functions_give(capsys, tmp_path, fmt, rule):
    doc = tmp_path / "doc.md"
    doc.write_bytes(TEXT.encode("utf-8"))
    params = RULES[rule]
    sets = [x for k, v in params.to_dict().items() for x in ("--set", f"{k}={v}")]
    assert main(["chunk", str(doc), *sets, "--format", fmt]) == 0
    out = capsys.readouterr().out
    result = chunk(TEXT, params)
    assert out == (to_json_text(chunking_to_json(result)) if fmt == "json" else chunks_jsonl(result))
    if fmt == "json":
        assert json.loads(out)["chunks"][-1]["index"] == len(result.chunks) - 1


def test_a_counter_id_that_reads_like_the_chunk_list_does_not_move_it():
    """The pieces are cut around a stand-in for the chunk list; a registered token
    counter's id (any text, written in params before the list) may hold it too."""
    import numpy as np

    from steadlith_core import TokenCounter, register_counter, unregister_counter
    from steadlith_core.report.export import _CHUNKS_HERE

    odd = _CHUNKS_HERE  # written as the very same JSON string
    register_counter(TokenCounter(odd, "one a word", vectorized=lambda w: np.ones(len(w), dtype=np.int32)))
    try:
        result = chunk(TEXT, ChunkerParams(token_counter=odd, min_tokens=8, max_tokens=40, window_words=4))
        assert "".join(chunking_json_pieces(result)) == to_json_text(chunking_to_json(result))
    finally:
        unregister_counter(odd)
