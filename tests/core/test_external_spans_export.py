"""An external chunking written as JSONL (what the window exports for a pane showing one)
reads back with read_spans_jsonl to the same spans and hashes."""

from steadlith_core.comparison.external import chunking_from_offsets, read_spans_jsonl, spans_jsonl


def test_exported_spans_read_back_identically(tmp_path):
    text = "Alpha 😀 beta.\n\nGamma delta, epsilon.\n\nZeta."
    chunking = chunking_from_offsets("mine", text, [(0, 13), (13, 37), (37, len(text))])
    path = tmp_path / "spans.jsonl"
    path.write_text(spans_jsonl(chunking), encoding="utf-8")
    back = read_spans_jsonl(path, text)
    assert [(c.start, c.end, c.hash, c.tokens) for c in back.chunks] == \
        [(c.start, c.end, c.hash, c.tokens) for c in chunking.chunks]
