"""A document given as UTF-8 bytes is chunked lean under the compiled kernel: without a
canonical copy of it (canonical.DocumentCanonical: each chunk's canonical text is made
from its range of the document) and, under tttd-v1, with an int32 running total where
it fits. Its chunks, hashes and texts must be those of the same text given as a str,
whose canonical text the scan writes whole and whose running total is int64."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.chunking.canonical import DocumentCanonical
from steadlith_core.kernel import select as kernel

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
compiled = pytest.mark.skipif("c" not in kernel.KERNELS, reason="the compiled kernel is not built")

# every kind of gap the normalizer tells apart: spaces, line breaks of each style,
# multi-byte whitespace, and characters that look like it but are word characters
PIECES = ["a", "bc", "déf", "\U0001F680", "end.", '"x."', "\u200b", "\u00a0", "\u0085", "\u2028", "\u3000",
          "\u1680", "\u2009", "\u205f", " ", "  ", "\n", "\n\n", "\r\n", "\r\n\r\n", "\r", "\r\r", "\t", "\x1c",
          "\n \n", " \r \n", "\u00e9\u00e9\u00e9" * 7, "x" * 40]


def _random_text(seed: int, pieces: int = 600) -> str:
    rng = random.Random(seed)
    return "".join(rng.choice(PIECES) for _ in range(pieces))


def _rows(result):
    return [(c.start_word, c.end_word, c.start, c.end, c.kind, c.tokens, c.hash, c.boundary, c.text)
            for c in result.chunks]


@compiled
@pytest.mark.parametrize("seed", range(12))
def test_canonical_slices_of_the_document_are_the_scans_canonical_text(seed):
    text = _random_text(seed)
    data = text.encode()
    raw = kernel.scan(data)
    with kernel.using("c"):
        lean = kernel.scan(data, lean=True)
    assert lean.canonical is None and lean.canonical_ends is None
    assert lean.starts.tolist() == raw.starts.tolist() and lean.symbols.tolist() == raw.symbols.tolist()
    if raw.starts.size == 0:
        return
    starts = kernel.utf8_offsets(data, raw.starts.astype(np.int64))
    ends = kernel.utf8_offsets(data, raw.ends.astype(np.int64))
    assert starts.tolist() == [len(text[:s].encode()) for s in raw.starts.tolist()]
    assert ends.tolist() == [len(text[:e].encode()) for e in raw.ends.tolist()]
    assert kernel.canonical_slice(data, int(starts[0]), int(ends[-1])) == bytes(raw.canonical)
    rng = random.Random(seed)
    for _ in range(20):  # any run of words
        a = rng.randrange(raw.starts.size)
        b = rng.randrange(a, raw.starts.size)
        lo = 0 if a == 0 else int(raw.canonical_ends[a - 1]) + (2 if raw.para[a] else 1)
        assert kernel.canonical_slice(data, int(starts[a]), int(ends[b])) == bytes(raw.canonical)[lo:raw.canonical_ends[b]]


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
@pytest.mark.parametrize("params", [ChunkerParams(min_tokens=8, max_tokens=40), Lmx2Params(min_tokens=8, max_tokens=40)],
                         ids=["tttd-v1", "lmx2-v1"])
@pytest.mark.parametrize("source", ["whitespace.txt", "mixed.txt", "snap-edges.txt", "lmx2-edges.txt", "long.txt",
                                    "random-1", "random-2", "random-3"])
def test_a_bytes_document_chunks_as_its_str_does(kernel_name, params, source):
    if source.startswith("random"):
        text = _random_text(int(source[-1]), 3000)
    else:
        text = (GOLDEN / source).read_bytes().decode("utf-8")
    with kernel.using(kernel_name):
        as_bytes = Pipeline().chunk(text.encode(), params)
        as_str = Pipeline().chunk(text, params)
    assert isinstance(as_bytes.canonical, DocumentCanonical) == (kernel_name == "c")
    assert _rows(as_bytes) == _rows(as_str)
    # the whole canonical text, made when asked for, is the scan's
    assert bytes(as_bytes.canonical.data) == bytes(as_str.canonical.data)
    assert as_bytes.canonical.byte_ends.tolist() == as_str.canonical.byte_ends.tolist()


@compiled
def test_offsets_that_do_not_ascend_or_pass_the_text_are_refused():
    with pytest.raises(ValueError, match="ascend"):
        kernel.utf8_offsets(b"ab cd", np.array([3, 1]))
    with pytest.raises(ValueError, match="within"):
        kernel.utf8_offsets("\u00e9 x".encode(), np.array([4]))
    with pytest.raises(ValueError, match="outside"):
        kernel.canonical_hashes(b"ab", np.array([0]), np.array([3]), b"")


@pytest.mark.parametrize("kernel_name", kernel.KERNELS)
def test_both_rules_keep_a_narrow_running_total_of_a_bytes_document(kernel_name):
    text = _random_text(7, 3000)
    tttd, lmx2 = ChunkerParams(min_tokens=8, max_tokens=40), Lmx2Params(min_tokens=8, max_tokens=40)
    with kernel.using(kernel_name):
        pipeline = Pipeline()
        narrow = pipeline.chunk(text.encode(), tttd)
        after = pipeline.chunk(text.encode(), lmx2)  # the same document and its narrow total
        alone = Pipeline().chunk(text.encode(), lmx2)
        as_str = Pipeline().chunk(text, tttd)
    assert narrow.cum_tokens.dtype == (np.int32 if kernel_name == "c" else np.int64)
    assert as_str.cum_tokens.dtype == np.int64
    # lmx2-v1's compiled passes read an int32 total as it is (the numpy fallback widens it)
    assert after.cum_tokens.dtype == alone.cum_tokens.dtype == (np.int32 if kernel_name == "c" else np.int64)
    assert narrow.cum_tokens.tolist() == as_str.cum_tokens.tolist()
    assert narrow.word_tokens.tolist() == as_str.word_tokens.tolist()
    assert _rows(narrow) == _rows(as_str) and _rows(after) == _rows(alone)


@compiled
@pytest.mark.parametrize("limits", [(1, 1), (3, 9), (8, 40), (50, 2**40), (2**62, 2**63 - 1)])
def test_the_compiled_cut_walk_reads_an_int32_total_as_an_int64_one(limits):
    rng = np.random.default_rng(sum(limits) % 1000)
    tok = rng.integers(1, 30, size=5000)
    wide = np.concatenate(([0], np.cumsum(tok))).astype(np.int64)
    primary = np.flatnonzero(rng.random(5000) < 0.02).astype(np.int64)
    backup = np.flatnonzero(rng.random(5000) < 0.1).astype(np.int64)
    with kernel.using("c"):
        want = kernel.segment_columns(wide, primary, backup, *limits)
        got = kernel.segment_columns(wide.astype(np.int32), primary, backup, *limits)
    assert [a.tolist() if isinstance(a, np.ndarray) else a for a in got] == \
        [a.tolist() if isinstance(a, np.ndarray) else a for a in want]


@compiled
def test_a_narrow_total_is_int32_and_exact_up_to_the_longest_document():
    starts = np.array([0, 5, 11], dtype=np.int32)
    ends = np.array([4, 10, 20], dtype=np.int32)
    with kernel.using("c"):
        _, narrow = kernel.chars4_totals(starts, ends, False, True)
        _, wide = kernel.chars4_totals(starts, ends, False, False)
        # the widest span the int32 offsets allow: a chars4/1 total stays far below 2^31
        _, far = kernel.chars4_totals(np.array([0], np.int32), np.array([2**31 - 1], np.int32), False, True)
    assert narrow.dtype == np.int32 and wide.dtype == np.int64 and narrow.tolist() == wide.tolist() == [0, 1, 3, 6]
    assert far.dtype == np.int32 and far.tolist() == [0, 2**29]


@compiled
@pytest.mark.parametrize("zero_every", [0, 2, 5])
@pytest.mark.parametrize("key_tokens", [1, 3, 8, 64])
def test_the_compiled_window_hashes_are_the_prefix_forms_whatever_the_window_spans(zero_every, key_tokens):
    """The dense pass keeps its prefix sums in a ring as wide as a key window of words of a
    token or more; words of no token (a direct call may pass them) widen a window past
    it, and the pass is redone over a ring of every cut. Both agree with lmx2.window_hashes."""
    from steadlith_core.chunking import lmx2

    rng = np.random.default_rng(key_tokens * 10 + zero_every)
    n = 3000
    symbols = rng.integers(0, 2**63, size=n, dtype=np.uint64)
    tok = rng.integers(1, 4, size=n)
    if zero_every:
        tok[::zero_every] = 0
    cum = np.concatenate(([0], np.cumsum(tok))).astype(np.int64)
    classes = rng.integers(0, 3, size=n + 1).astype(np.uint8)
    _, want_h = lmx2.window_hashes(symbols, cum, key_tokens)
    with kernel.using("c"):
        h, key_1, key_2 = kernel.lmx2_keys(symbols, cum, classes, key_tokens, True, lmx2.KEY_BASE)
        only_h, none_1, none_2 = kernel.lmx2_keys(symbols, cum, classes, key_tokens, True, lmx2.KEY_BASE, keys=False)
        hashed = lmx2.Lmx2HashKeys(only_h, classes, True)
        at = np.array([0, 1, 7, n - 1, n])
        assert h[1:].tolist() == want_h[1:].tolist() == only_h[1:].tolist() and none_1 is none_2 is None
        assert hashed.key_1.tolist() == key_1.tolist() and hashed.key_2.tolist() == key_2.tolist()
        assert hashed.key_at(2, at).tolist() == key_2[at].tolist()
    numpy_keys = lmx2._keys_of(want_h, classes, True, 1)
    assert numpy_keys.tolist() == key_1.tolist()


@pytest.mark.parametrize("params", [ChunkerParams(), Lmx2Params()], ids=["tttd-v1", "lmx2-v1"])
def test_the_chunk_command_keeps_no_word_symbols(tmp_path, monkeypatch, capsys, params):
    """`steadlith chunk` reads bytes and chunks them lean: nothing reads a word's symbol
    afterwards, so its document must not keep them (8 bytes a word, a fifth of its peak)
    as a comparison's does."""
    from cli_helpers import run
    from steadlith_core.chunking import pipeline as pipeline_module

    seen = []
    real = pipeline_module.Pipeline.chunk

    def spy(self, text, p=None):
        result = real(self, text, p)
        seen.append((text, self._docs.find(text)))
        return result

    monkeypatch.setattr(pipeline_module.Pipeline, "chunk", spy)
    doc = tmp_path / "doc.md"
    doc.write_text("Some words to chunk, twice over.\n\n" * 300, encoding="utf-8")
    rule = [] if isinstance(params, ChunkerParams) else ["--set", "boundary_rule=lmx2-v1"]
    assert run(capsys, "chunk", str(doc), "--format", "jsonl", *rule)[0] == 0
    (text, document), = seen
    assert isinstance(text, bytes) and document.words.symbols is None


@pytest.mark.parametrize("params", [ChunkerParams(), Lmx2Params()], ids=["tttd-v1", "lmx2-v1"])
def test_a_compared_document_reads_its_symbols_from_its_word_stream(params):
    """A compared document keeps its symbols on its word stream: a stage that asks for
    them again (explain's lmx2-v1 keys) gets those, not a second scan's copy."""
    text = ("A few words, then more words.\n\n" * 400).encode()
    pipeline = Pipeline(word_symbols=True)
    pipeline.chunk(text, params)
    doc = pipeline._docs.find(text)
    assert doc.words.symbols is not None and doc.symbols is doc.words.symbols
