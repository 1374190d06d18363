"""Chunks read like records of their fields, whatever they keep inside: the canonical
text is there when asked for, equal chunks compare equal across pipelines, and a chunk
sent elsewhere (pickled) takes its own text along, not the whole document."""

from __future__ import annotations

import pickle

import pytest

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.chunking import document as document_module
from steadlith_core.chunking import pipeline as pipeline_module
from steadlith_core.chunking.chunks import Chunk
from steadlith_core.bench.examples import generate_prose

TEXT = generate_prose(40_000, seed=3) + "\n\nLast \U0001F680 words."


def test_every_chunk_text_is_the_canonical_text_of_its_words():
    for params in (ChunkerParams(), Lmx2Params()):
        result = Pipeline().chunk(TEXT, params)
        assert len(result.chunks) > 5
        for c in result.chunks:
            assert c.text == result.words.canonical_text(c.start_word, c.end_word)


def test_chunks_of_two_pipelines_are_equal_and_hash_alike():
    a, b = Pipeline().chunk(TEXT).chunks, Pipeline().chunk(TEXT).chunks
    assert a == b and len({*a, *b}) == len(a)
    assert a[0] != a[1]


def test_a_pickled_chunk_carries_its_text_and_not_the_document():
    c = Pipeline().chunk(TEXT).chunks[-1]
    data = pickle.dumps(c)
    assert len(data) < len(c.text.encode()) + 500 < len(TEXT)
    back = pickle.loads(data)
    assert back == c and back.text == c.text and back._asdict() == c._asdict()


def test_a_chunk_unpacks_and_replaces_like_a_named_tuple():
    c = Pipeline().chunk(TEXT).chunks[2]
    fields = dict(zip(Chunk._fields, c))
    assert fields["text"] == c.text and fields["hash"] == c.hash and len(c) == len(Chunk._fields)
    assert c._replace(kind="hard").kind == "hard" and c._replace(kind="hard").text == c.text
    assert "text=" in repr(c)


@pytest.mark.parametrize("form", ["str", "bytes", "long ASCII str", "long str"])
@pytest.mark.parametrize("params", [ChunkerParams(), Lmx2Params()], ids=lambda p: p.boundary_rule)
def test_a_chunking_pickles_whichever_path_made_it(text_kernel, monkeypatch, form, params):
    """A Chunking sent elsewhere whole (pickled) arrives with its chunks and stages,
    whether its stages were made when first read (lmx2-v1 under the compiled kernel) or
    its text is read in place (a long ASCII str's own bytes)."""
    text = "Plain ASCII words, a sentence. " * 200 + ("" if "ASCII" in form else "\U0001F680 done.")
    if form.startswith("long"):
        monkeypatch.setattr(document_module, "LEAN_STR_CHARS", 100)
    result = Pipeline().chunk(text.encode() if form == "bytes" else text, params)
    back = pickle.loads(pickle.dumps(result))
    assert [c._asdict() for c in back.chunks] == [c._asdict() for c in result.chunks]
    assert back.diagnostics.to_dict() == result.diagnostics.to_dict()
    if result.stages is not None:
        assert back.stages.classes.tolist() == result.stages.classes.tolist()
        assert back.stages.cuts.positions.tolist() == result.stages.cuts.positions.tolist()


@pytest.mark.parametrize("form", ["str", "bytes"])
@pytest.mark.parametrize("params", [ChunkerParams(), Lmx2Params()], ids=lambda p: p.boundary_rule)
def test_the_diagnostics_are_made_when_first_read_and_count_the_chunks(text_kernel, monkeypatch, form, params):
    """A caller that wants only the chunks does not pay for the counts; one that reads
    them gets the counts of the chunks it has."""
    made = []
    for name in ("compute_diagnostics", "compute_lmx2_diagnostics"):
        real = getattr(pipeline_module, name)
        monkeypatch.setattr(pipeline_module, name, lambda *a, real=real, **k: made.append(1) or real(*a, **k))
    result = Pipeline().chunk(TEXT.encode() if form == "bytes" else TEXT, params)
    assert made == [] and "diagnostics" not in result.__dict__
    d = result.diagnostics
    assert made == [1]
    assert result.diagnostics is d
    assert d.chunk_count == len(result.chunks)
    assert d.total_tokens == sum(c.tokens for c in result.chunks)
