"""A document given as UTF-8 bytes is chunked without a canonical copy of it under the
compiled kernel (chunks.DocumentCanonical): each chunk's canonical text is made from
its range of the document. Its chunks, hashes and texts must be those of the same text
given as a str, whose canonical text the scan writes whole."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from steadlith_core import ChunkerParams, Lmx2Params, Pipeline
from steadlith_core.chunking.chunks import DocumentCanonical
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
