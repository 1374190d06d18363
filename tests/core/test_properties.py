"""Property tests of steadlith_core against SPEC §1-§7.

Hypothesis draws documents from a tiny vocabulary (sentence enders with closers such
as `end.”)`, astral characters, U+FEFF and U+200B inside words, words longer than
4 * max_tokens), every SPEC whitespace code point and CR/LF/CRLF mixes as separators,
and parameters from small domains (windows of 1-3 words, min_tokens == max_tokens,
masks of 0-4 bits, polynomials of degree 8, 13, 53 and 63) so that collisions and
edge cases are common rather than rare.

The reference is an ORACLE written from the spec text alone: a per-character
normalizer (§1), a per-word Rabin fingerprint in plain GF(2) polynomial arithmetic
(§3), and the §4 word loop and §5 snap verbatim. The oracle is itself checked
against the spec's vectors (tests/golden) before it is trusted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pytest
import xxhash
from hypothesis import example, given
from hypothesis import strategies as st

from steadlith_core import (
    ChunkerParams,
    ParameterError,
    Pipeline,
    TokenCounter,
    TokenCountError,
    chunk,
    load_text,
    register_counter,
    unregister_counter,
)
from steadlith_core.chunking.identity import chunk_hash
from steadlith_core.chunking.params import INT_FIELDS

# Every test here runs once per text kernel (conftest.py: text_kernel).
pytestmark = pytest.mark.usefixtures("text_kernel")

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
DEFAULT_POLY = 0x3DA3358B4DC173
SNAP = "paragraph-sentence/1"

# ---------------------------------------------------------------------------------
# The oracle: SPEC §1-§7 as literally as Python allows. Slow on purpose; small inputs.
# ---------------------------------------------------------------------------------

# §1.1, listed as the spec lists them (not taken from str.isspace()).
SPEC_WHITESPACE = (
    [chr(c) for c in range(0x09, 0x0D + 1)]
    + [chr(c) for c in range(0x1C, 0x1F + 1)]
    + ["\u0020", "\u0085", "\u00a0", "\u1680"]
    + [chr(c) for c in range(0x2000, 0x200A + 1)]
    + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
)
assert len(SPEC_WHITESPACE) == 29
_WS = frozenset(SPEC_WHITESPACE)

CLOSERS = "\"')]}\u201d\u2019\u00bb"  # " ' ) ] } ” ’ »
SENTENCE_MARKS = (".", "!", "?", "\u2026", "\u3002", "\uff01", "\uff1f")  # . ! ? … 。 ！ ？


class OWord(NamedTuple):
    text: str
    start: int
    end: int
    para: bool


class OChunk(NamedTuple):
    start_word: int
    end_word: int
    kind: str
    snapped: bool
    tokens: int
    text: str
    hash: str


class Oracle(NamedTuple):
    words: list[OWord]
    tokens: list[int]
    symbols: list[int]
    fingerprints: list[int]
    chunks: list[OChunk]
    params_hash: str


def oracle_words(text: str) -> list[OWord]:
    """§1: words are maximal non-whitespace runs; a word starts a paragraph when the
    whitespace before it holds >= 2 line breaks (CRLF, lone CR, lone LF, each once)."""
    words: list[OWord] = []
    breaks = 0
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WS:
            if ch == "\r":
                breaks += 1
                if i + 1 < n and text[i + 1] == "\n":
                    i += 1  # CRLF is one line break
            elif ch == "\n":
                breaks += 1
            i += 1
            continue
        j = i
        while j < n and text[j] not in _WS:
            j += 1
        words.append(OWord(text[i:j], i, j, bool(words) and breaks >= 2))
        breaks = 0
        i = j
    return words


def oracle_canonical(words: list[OWord], a: int, b: int) -> str:
    """§1.5: "\\n\\n" before a paragraph-starting word, " " before any other."""
    out = []
    for k in range(a, b):
        if k > a:
            out.append("\n\n" if words[k].para else " ")
        out.append(words[k].text)
    return "".join(out)


def oracle_tokens(counter_id: str, word: str) -> int:
    """§2: chars4/1 = ceil(code points / 4); words/1 = 1."""
    if counter_id == "chars4/1":
        return -(-len(word) // 4)
    if counter_id == "words/1":
        return 1
    raise KeyError(counter_id)


def gf2_mod(a: int, p: int) -> int:
    """a mod p for polynomials over GF(2) (bit i = coefficient of x^i)."""
    d = p.bit_length() - 1
    while a.bit_length() - 1 >= d:
        a ^= p << (a.bit_length() - 1 - d)
    return a


def oracle_fingerprints(symbols: list[int], w: int, p: int) -> list[int]:
    """§3: F_k = (sum_{j=0..min(k,w-1)} s_(k-j) * x^(64 j)) mod P; x^(64j) is a shift."""
    out = []
    for k in range(len(symbols)):
        total = 0
        for j in range(min(k, w - 1) + 1):
            total ^= symbols[k - j] << (64 * j)
        out.append(gf2_mod(total, p))
    return out


def ends_sentence(word: str) -> bool:
    """§5.2: after stripping trailing closers, the word ends with a sentence mark."""
    return word.rstrip(CLOSERS).endswith(SENTENCE_MARKS)


def oracle_raw_cut(s: int, tok, is_primary, is_backup, min_tokens: int, max_tokens: int):
    """One pass of the §4 inner loop for the chunk starting at word s: (end, kind)."""
    n = len(tok)
    T, b = 0, None
    for i in range(s, n):
        if T + tok[i] > max_tokens and i > s:
            if b is not None:
                return b + 1, "backup"
            return i, "hard"
        T += tok[i]
        if T >= min_tokens:
            if is_primary[i]:
                return i + 1, "primary"
            if is_backup[i]:
                b = i
    return n, "end"


def oracle_snap(e: int, s: int, words: list[OWord], tok, window: int, min_tokens: int, max_tokens: int) -> int:
    """§5: the kept cut for raw cut e of the chunk starting at s."""
    n = len(words)
    cands = [c for c in range(e - window, e + window + 1) if 1 <= c <= n - 1]
    paragraphs = [c for c in cands if words[c].para]
    sentences = [c for c in cands if not words[c].para and ends_sentence(words[c - 1].text)]
    pool = paragraphs or sentences
    if not pool:
        return e
    best = min(abs(c - e) for c in pool)
    pick = max(c for c in pool if abs(c - e) == best)  # on equal distance, the later one
    if pick > s and min_tokens <= sum(tok[s:pick]) <= max_tokens:
        return pick
    return e


def enc(x) -> bytes:
    """§7: 8-byte big-endian length, then the bytes; ints in decimal ASCII."""
    b = str(x).encode("utf-8") if not isinstance(x, bytes) else x
    return len(b).to_bytes(8, "big") + b


def oracle_params_hash(p: ChunkerParams) -> str:
    snap_window = p.snap_window_words if p.snap_mode != "off" else 0
    fields = [
        ("boundary_rule", "tttd-v1"), ("fingerprint", "rabin-gf2-xxh3_64-word/1"),
        ("polynomial", p.polynomial), ("window_words", p.window_words),
        ("primary_mask", p.primary_mask), ("primary_remainder", p.primary_remainder),
        ("backup_mask", p.backup_mask), ("backup_remainder", p.backup_remainder),
        ("token_counter", p.token_counter), ("min_tokens", p.min_tokens),
        ("max_tokens", p.max_tokens), ("snap_mode", p.snap_mode), ("snap_window_words", snap_window),
    ]
    data = enc("steadlith-chunker-params") + b"".join(enc(k) + enc(v) for k, v in fields)
    return xxhash.xxh3_128_hexdigest(data)


def oracle_chunk_hash(text: str, params_hash: str) -> str:
    return xxhash.xxh3_128_hexdigest(
        enc("1") + enc("steadlith-norm/1") + enc("cdc-rabin") + enc(params_hash) + enc(text)
    )


def oracle(text: str, p: ChunkerParams, count=None) -> Oracle:
    """SPEC §1-§7 end to end. `count(word)` overrides the token counter."""
    words = oracle_words(text)
    n = len(words)
    tok = [count(w.text) if count else oracle_tokens(p.token_counter, w.text) for w in words]
    symbols = [xxhash.xxh3_64_intdigest(w.text.encode("utf-8"), seed=1 if w.para else 0) for w in words]
    fps = oracle_fingerprints(symbols, p.window_words, p.polynomial)
    is_primary = [f & p.primary_mask == p.primary_remainder for f in fps]
    is_backup = [f & p.backup_mask == p.backup_remainder for f in fps]
    phash = oracle_params_hash(p)
    chunks = []
    s = 0
    while s < n:
        end, kind = oracle_raw_cut(s, tok, is_primary, is_backup, p.min_tokens, p.max_tokens)
        snapped = False
        if p.snap_mode == SNAP and end < n:
            kept = oracle_snap(end, s, words, tok, p.snap_window_words, p.min_tokens, p.max_tokens)
            snapped = kept != end
            end = kept
        canon = oracle_canonical(words, s, end)
        chunks.append(OChunk(s, end, kind, snapped, sum(tok[s:end]), canon, oracle_chunk_hash(canon, phash)))
        s = end
    return Oracle(words, tok, symbols, fps, chunks, phash)


def cuts(result) -> list[tuple[int, int, str, bool]]:
    return [(c.start_word, c.end_word, c.kind, c.snapped) for c in result.chunks]


def library_chunks(result) -> list[OChunk]:
    return [OChunk(c.start_word, c.end_word, c.kind, c.snapped, c.tokens, c.text, c.hash) for c in result.chunks]


# ---------------------------------------------------------------------------------
# Strategies: small domains that force the edge cases
# ---------------------------------------------------------------------------------

VOCABULARY = (
    "a", "bb", "ccc", "dddd", "eeeee", "end.", "end.\u201d)", "Stop!", "why?'", "so\u2026", "\u65e5\u672c\u3002",
    "\u300c\u306f\u3044\u300d", "e.g", "(x).", "\u00bb", "\U0001F680", "\U0001F680" * 5, "x\U0001F680y.",
    "\ufeffbom", "zw\u200bsp", "\u00c9T\u00c9!\u00bb", "\uff01",
)
# Every SPEC whitespace code point, plus the line-break mixes that decide paragraphs.
SEPARATOR_PIECES = (" ", "\n", "\r\n", "\r", "\n\n", "\r\n\r\n", "\r\r", "\n\r", "\r\n\n") + tuple(SPEC_WHITESPACE)
separators = st.lists(st.sampled_from(SEPARATOR_PIECES), min_size=1, max_size=3).map("".join)
POLYNOMIALS = (0x201B, DEFAULT_POLY, 0x11B, (1 << 63) | 3)  # degrees 13, 53, 8, 63; all irreducible


def oversize_words(max_tokens: int):
    """Words longer than 4 * max_tokens code points: more tokens than max_tokens under chars4/1."""
    return st.tuples(st.sampled_from(["W", "\U0001F680", "\u00e9"]), st.integers(1, 4)).map(
        lambda t: t[0] * (4 * max_tokens + t[1])
    )


@st.composite
def documents(draw, max_tokens: int = 8, max_words: int = 40) -> str:
    words = draw(
        st.lists(
            st.sampled_from(VOCABULARY + (None,)).flatmap(
                lambda w: st.just(w) if w is not None else oversize_words(max_tokens)
            ),
            max_size=max_words,
        )
    )
    seps = draw(st.lists(separators, min_size=max(0, len(words) - 1), max_size=max(0, len(words) - 1)))
    lead = draw(st.one_of(st.just(""), separators))
    trail = draw(st.one_of(st.just(""), separators))
    body = "".join(w + s for w, s in zip(words, seps + [""]))
    return lead + body + trail


@st.composite
def small_params(draw, snapping: bool | None = None) -> ChunkerParams:
    poly = draw(st.sampled_from(POLYNOMIALS))
    pmask = draw(st.sampled_from([0, 1, 3, 7, 0xF]))
    bmask = draw(st.sampled_from([0, 1, 3]))
    lo = draw(st.integers(1, 8))
    hi = draw(st.one_of(st.just(lo), st.integers(lo, lo + 10)))
    on = draw(st.booleans()) if snapping is None else snapping
    return ChunkerParams(
        window_words=draw(st.one_of(st.integers(1, 3), st.just(16))),
        polynomial=poly,
        primary_mask=pmask,
        primary_remainder=draw(st.integers(0, pmask)) & pmask,
        backup_mask=bmask,
        backup_remainder=draw(st.integers(0, bmask)) & bmask,
        token_counter=draw(st.sampled_from(["chars4/1", "words/1"])),
        min_tokens=lo,
        max_tokens=hi,
        snap_mode=SNAP if on else "off",
        # when off, a non-zero window must be ignored (SPEC §6: canonically 0)
        snap_window_words=draw(st.integers(1, 3)) if on else draw(st.integers(0, 3)),
    )


@st.composite
def cases(draw, snapping: bool | None = None, max_words: int = 40):
    p = draw(small_params(snapping))
    return draw(documents(p.max_tokens, max_words)), p


def P(**kw) -> ChunkerParams:
    return ChunkerParams(**kw)


# Regressions and edge cases pinned for every run (see @pinned below).
PINNED = [
    # a single word over max_tokens: one chunk, over max, kind "end"
    ("W" * 41, P(min_tokens=2, max_tokens=10, window_words=1)),
    # min == max == 1: every word is its own chunk
    ("a bb ccc\n\ndddd", P(min_tokens=1, max_tokens=1, token_counter="words/1", window_words=2)),
    # every word a primary candidate: the last chunk is "primary", not "end"
    ("a b c", P(primary_mask=0, primary_remainder=0, min_tokens=1, max_tokens=1)),
    # every word a backup candidate: the oversize word becomes a one-word "backup" chunk
    ("a " + "W" * 41 + " b c",
     P(backup_mask=0, backup_remainder=0, min_tokens=1, max_tokens=4, window_words=1, polynomial=0x201B)),
    # U+2029, U+0085, VT, FF, U+2028 are whitespace but not line breaks: no paragraphs
    ("a.\u2029\u2029b\x85\x85c\x0b\x0cd\u2028\u2028e",
     P(min_tokens=1, max_tokens=2, snap_mode=SNAP, snap_window_words=2, token_counter="words/1")),
    # CR CR and LF CR are two breaks, CRLF is one; snapping sees the paragraphs
    ("a b.\r\rc d\n\re f\r\n g end.\u201d) h",
     P(min_tokens=2, max_tokens=3, token_counter="words/1", primary_mask=0, primary_remainder=0,
       snap_mode=SNAP, snap_window_words=3)),
    # astral characters: one code point each, for offsets and for chars4/1
    ("\U0001F680 " + "\U0001F680" * 5 + " x\U0001F680y.", P(min_tokens=1, max_tokens=2)),
]


def pinned(test):
    """Run the test on every PINNED case first, then on Hypothesis' examples."""
    for case in reversed(PINNED):
        test = example(case=case)(test)
    return test


# ---------------------------------------------------------------------------------
# The oracle is checked against the spec's vectors before anything relies on it
# ---------------------------------------------------------------------------------

GOLDEN_EXPECTED = json.loads((GOLDEN / "expected.json").read_text(encoding="utf-8"))
SMALL_DOCS = ("mixed.txt", "whitespace.txt", "snap-edges.txt")


@pytest.mark.parametrize("doc", SMALL_DOCS)
def test_oracle_reproduces_the_spec_vectors(doc):
    """The oracle, written from the spec text, reproduces every chunk of the spec's
    vectors: evidence that it reads the spec the way the vectors do."""
    text = load_text(GOLDEN / doc)
    expected = GOLDEN_EXPECTED["documents"][doc]
    for run, want in expected["runs"].items():
        p = ChunkerParams(**GOLDEN_EXPECTED["param_sets"][run]["params"])
        o = oracle(text, p)
        assert len(o.words) == expected["word_count"]
        assert o.params_hash == want["params_hash"]
        got = [
            {"start_word": c.start_word, "end_word": c.end_word, "start": o.words[c.start_word].start,
             "end": o.words[c.end_word - 1].end, "kind": c.kind, "snapped": c.snapped, "tokens": c.tokens,
             "hash": c.hash, "text": c.text}
            for c in o.chunks
        ]
        assert got == want["chunks"], (doc, run)
        fps = expected.get("fingerprints_head", {}).get(run, [])
        assert [f"{f:x}" for f in o.fingerprints[: len(fps)]] == fps
    head = expected.get("words_head", [])
    assert [{"text": w.text, "start": w.start, "end": w.end, "para": w.para, "symbol": f"{sym:016x}"}
            for w, sym in zip(o.words[: len(head)], o.symbols)] == head


# ---------------------------------------------------------------------------------
# Structural properties of any chunking
# ---------------------------------------------------------------------------------


@pinned
@given(case=cases())
def test_chunks_partition_the_words_in_order(case):
    """Every word lands in exactly one chunk, in order, and no chunk is empty;
    a document with no words has no chunks (SPEC §1, §4)."""
    text, p = case
    result = chunk(text, p)
    n = result.word_count
    assert n == len(oracle_words(text))
    cs = result.chunks
    assert (len(cs) == 0) == (n == 0)
    if cs:
        assert cs[0].start_word == 0
        assert cs[-1].end_word == n
    for i, c in enumerate(cs):
        assert c.index == i
        assert c.end_word > c.start_word, "empty chunk"
        assert c.word_count == c.end_word - c.start_word
        if i:
            assert c.start_word == cs[i - 1].end_word


@pinned
@given(case=cases())
def test_chunk_tokens_respect_max_tokens(case):
    """A chunk's tokens are the sum of its words' tokens, and only a single word that
    alone exceeds max_tokens makes a chunk larger than max_tokens (SPEC §2, §4)."""
    text, p = case
    result = chunk(text, p)
    tok = [oracle_tokens(p.token_counter, w.text) for w in oracle_words(text)]
    assert result.word_tokens.tolist() == tok
    assert result.cum_tokens.tolist() == [sum(tok[:i]) for i in range(len(tok) + 1)]
    for c in result.chunks:
        assert c.tokens == sum(tok[c.start_word : c.end_word])
        if c.tokens > p.max_tokens:
            assert c.word_count == 1, f"multi-word chunk of {c.tokens} > {p.max_tokens} tokens"
            assert tok[c.start_word] > p.max_tokens
    d = result.diagnostics
    assert d.chunks_over_max == sum(c.tokens > p.max_tokens for c in result.chunks)
    assert d.total_tokens == sum(tok)


@pinned
@given(case=cases())
def test_only_the_last_chunk_can_be_end(case):
    """Kind "end" marks the final tail only. Backup and hard cuts (and snapped cuts)
    always fall before the last word (SPEC §4: b + 1 <= i <= n - 1; §5: c <= n - 1),
    so the chunk that reaches the end of the stream is "end" or, when its last word
    is a primary candidate, "primary" — and it is never snapped."""
    text, p = case
    cs = chunk(text, p).chunks
    assert all(c.kind in ("primary", "backup", "hard", "end") for c in cs)
    assert all(c.kind != "end" for c in cs[:-1])
    if cs:
        assert cs[-1].kind in ("end", "primary")
        assert not cs[-1].snapped
    for c in cs:
        if c.snapped:
            assert p.snapping


@pinned
@given(case=cases())
def test_offsets_are_code_points_into_the_source(case):
    """Each word's [start, end) slices the source text to exactly that word, in code
    points (an emoji counts 1), and a chunk spans from its first word's start to its
    last word's end (SPEC §1.2)."""
    text, p = case
    result = chunk(text, p)
    ws = result.words
    expected = oracle_words(text)
    assert [tuple(w) for w in ws] == [tuple(w) for w in expected]
    for w in ws:
        assert text[w.start : w.end] == w.text
    for c in result.chunks:
        assert c.start == ws.starts[c.start_word]
        assert c.end == ws.ends[c.end_word - 1]
        assert result.chunk_at_word(c.start_word) == c.index
        assert result.chunk_at_word(c.end_word - 1) == c.index
        assert result.chunk_at_offset(c.start) == c.index
        assert result.chunk_at_offset(c.end - 1) == c.index
        if c.index:  # whitespace between two chunks belongs to neither
            prev = result.chunks[c.index - 1]
            for off in range(prev.end, c.start):
                assert result.chunk_at_offset(off) is None


def test_emoji_offsets_are_not_utf16_units():
    """An astral character is one code point, not two UTF-16 units: the GUI converts,
    the core does not."""
    result = chunk("\U0001F680\U0001F680 ab \U0001F680x", P(min_tokens=1, max_tokens=4))
    assert [(w.start, w.end) for w in result.words] == [(0, 2), (3, 5), (6, 8)]
    assert result.word_tokens.tolist() == [1, 1, 1]


@pinned
@given(case=cases())
def test_canonical_text_joins_words_with_paragraph_breaks(case):
    """A chunk's canonical text is its words joined by "\\n\\n" before paragraph starts
    and " " otherwise, whatever whitespace the source used (SPEC §1.5)."""
    text, p = case
    result = chunk(text, p)
    words = oracle_words(text)
    for c in result.chunks:
        assert c.text == oracle_canonical(words, c.start_word, c.end_word)
    n = len(words)
    for a in range(0, n + 1, max(1, n // 5)):
        for b in range(a, n + 1, max(1, n // 4)):
            assert result.words.canonical_text(a, b) == oracle_canonical(words, a, b)


@pinned
@given(case=cases())
def test_chunk_hash_is_the_identity_of_canonical_text_and_params(case):
    """Each chunk hash is chunk_hash(canonical text, params hash), exactly as SPEC §7
    spells it out, so a cache keyed by it is shared with other implementations."""
    text, p = case
    result = chunk(text, p)
    assert result.params_hash == p.params_hash == oracle_params_hash(p)
    for c in result.chunks:
        assert c.hash == chunk_hash(c.text, result.params_hash)
        assert c.hash == oracle_chunk_hash(c.text, result.params_hash)


@given(p=small_params(snapping=False), window=st.integers(0, 50))
def test_params_hash_ignores_snap_window_while_snapping_is_off(p, window):
    """With snapping off the snap window is canonically 0: changing it does not change
    the params hash (so no chunk is re-embedded); with snapping on it does."""
    assert p.with_changes(snap_window_words=window).params_hash == p.params_hash
    on = p.with_changes(snap_mode=SNAP, snap_window_words=window + 1)
    assert on.params_hash != p.params_hash
    assert on.with_changes(snap_window_words=window + 2).params_hash != on.params_hash


# ---------------------------------------------------------------------------------
# Against the oracle
# ---------------------------------------------------------------------------------


@pinned
@given(case=cases(max_words=30))
def test_matches_the_spec_oracle(case):
    """Boundaries, kinds, snapped flags, tokens, canonical texts, hashes, symbols and
    fingerprints equal a literal per-word implementation of SPEC §1-§7."""
    text, p = case
    result = chunk(text, p)
    o = oracle(text, p)
    assert [int(f) for f in result.fingerprints] == o.fingerprints
    assert library_chunks(result) == o.chunks


@given(
    prefix_a=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12),
    prefix_b=st.lists(st.sampled_from(VOCABULARY), min_size=1, max_size=12),
    shared=st.lists(st.tuples(separators, st.sampled_from(VOCABULARY)), min_size=1, max_size=20),
    window=st.integers(1, 20),
    poly=st.sampled_from(POLYNOMIALS),
)
def test_fingerprint_depends_only_on_the_last_window_words(prefix_a, prefix_b, shared, window, poly):
    """Two streams whose last w words agree have the same fingerprint there, whatever
    came before: the window is never reset and holds exactly w words (SPEC §3)."""
    tail = "".join(sep + word for sep, word in shared)
    text_a, text_b = " ".join(prefix_a) + tail, " ".join(prefix_b) + tail
    p = P(window_words=window, polynomial=poly)
    fa, fb = chunk(text_a, p).fingerprints, chunk(text_b, p).fingerprints
    na, nb = len(prefix_a), len(prefix_b)
    assert len(fa) - na == len(fb) - nb == len(shared)
    for t in range(window - 1, len(shared)):  # windows lying wholly inside the shared tail
        assert fa[na + t] == fb[nb + t], f"F differs at shared word {t} with window {window}"
    assert all(int(f) < 1 << (poly.bit_length() - 1) for f in fa)


# ---------------------------------------------------------------------------------
# Snapping (SPEC §5)
# ---------------------------------------------------------------------------------


@pinned
@given(case=cases(snapping=True))
def test_snapping_moves_cuts_only_within_bounds(case):
    """A snapped cut moves at most snap_window_words words from the raw cut of the same
    chunk start, lands on a paragraph start (or, if the window holds none, a sentence
    end), and never leaves the chunk outside [min_tokens, max_tokens]; unsnapped
    chunks end exactly where the §4 rule cuts."""
    text, p = case
    result = chunk(text, p)
    words = oracle_words(text)
    n = len(words)
    tok = result.word_tokens.tolist()
    fps = [int(f) for f in result.fingerprints]
    is_p = [f & p.primary_mask == p.primary_remainder for f in fps]
    is_b = [f & p.backup_mask == p.backup_remainder for f in fps]
    S = p.snap_window_words
    for c in result.chunks:
        raw_end, raw_kind = oracle_raw_cut(c.start_word, tok, is_p, is_b, p.min_tokens, p.max_tokens)
        assert c.kind == raw_kind, "snapping never changes the kind"
        if not c.snapped:
            assert c.end_word == raw_end
            continue
        kept = c.end_word
        assert kept != raw_end and raw_end < n and kept < n
        assert abs(kept - raw_end) <= S
        assert p.min_tokens <= c.tokens <= p.max_tokens
        window = [x for x in range(raw_end - S, raw_end + S + 1) if 1 <= x <= n - 1]
        if any(words[x].para for x in window):
            assert words[kept].para, "a paragraph candidate in the window wins"
        else:
            assert ends_sentence(words[kept - 1].text)


# Word 0 is primary (mask 0) and reaches min_tokens, so the raw cut is 1; with a snap
# window of 1, cut 2 is the only other candidate, and it is one exactly when word 1
# ends a sentence. The first chunk's end thus reads out the §5.2 rule for word 1.
SENTENCE_PROBE = P(primary_mask=0, primary_remainder=0, token_counter="words/1", min_tokens=1, max_tokens=3,
                   snap_mode=SNAP, snap_window_words=1)
MARKS_AND_CLOSERS = "".join(SENTENCE_MARKS) + CLOSERS + ",;:-\u201c\u2018\u00ab\u300d\uff0e"


@given(word=st.text(alphabet="ab" + MARKS_AND_CLOSERS, min_size=1, max_size=6))
@example(word="end.\u201d)")
@example(word="so\u2026")
@example(word="\u65e5\u672c\u3002\u00bb")
@example(word="why?\u2019]}")
@example(word="e.g,")
@example(word="(x).\u300d")
@example(word="\u00bb")
def test_sentence_end_is_a_mark_before_trailing_closers(word):
    """A word ends a sentence when, after stripping every trailing closer
    (" ' ) ] } ” ’ »), it ends with . ! ? … 。 ！ ？ (SPEC §5.2)."""
    first = chunk(f"a {word} b c", SENTENCE_PROBE).chunks[0]
    assert (first.end_word == 2) == ends_sentence(word) == first.snapped


def test_snapping_never_considers_cut_zero():
    """Candidate cuts start at 1: the last word of the stream (word c-1 for c = 0)
    must not count as a sentence end that shadows a real candidate (SPEC §5.1)."""
    p = P(primary_mask=0, primary_remainder=0, token_counter="words/1", min_tokens=1, max_tokens=3,
          snap_mode=SNAP, snap_window_words=2)
    first = chunk("a b c. d end.", p).chunks[0]
    assert (first.end_word, first.snapped) == (3, True)


def test_snapping_moves_a_cut_to_the_sentence_end():
    """Readable example of §5: the raw cut after "b" moves one word on, to after "c."."""
    p = P(primary_mask=0, primary_remainder=0, token_counter="words/1", min_tokens=2, max_tokens=4,
          snap_mode=SNAP, snap_window_words=2)
    text = "a b c. d e f"
    assert cuts(chunk(text, p)) == [(0, 3, "primary", True), (3, 5, "primary", False), (5, 6, "end", False)]
    off = p.with_changes(snap_mode="off")
    assert cuts(chunk(text, off)) == [(0, 2, "primary", False), (2, 4, "primary", False), (4, 6, "primary", False)]


def test_snapping_picks_the_later_of_two_equally_near_candidates():
    """Raw cut 2 sits between sentence ends at cuts 1 and 3: the later one wins (§5.3)."""
    p = P(primary_mask=0, primary_remainder=0, token_counter="words/1", min_tokens=2, max_tokens=4,
          snap_mode=SNAP, snap_window_words=1)
    first = chunk("a. b c. d e f", p).chunks[0]
    assert (first.end_word, first.snapped) == (3, True)


def test_snapping_prefers_a_paragraph_over_a_nearer_sentence():
    """Paragraph candidates win over sentence candidates even when farther (§5.3)."""
    p = P(primary_mask=0, primary_remainder=0, token_counter="words/1", min_tokens=2, max_tokens=6,
          snap_mode=SNAP, snap_window_words=3)
    first = chunk("a b c. d e\r\n\r\nf g h", p).chunks[0]
    assert (first.end_word, first.snapped) == (5, True)


# ---------------------------------------------------------------------------------
# Token counters (SPEC §2)
# ---------------------------------------------------------------------------------


@contextmanager
def registered(counter: TokenCounter):
    register_counter(counter)
    try:
        yield counter.id
    finally:
        unregister_counter(counter.id)


@pytest.mark.parametrize("bad", [0, -1, 1.5, 2.0, "3", None], ids=repr)
def test_bad_token_count_is_a_clear_error_naming_the_word(bad):
    """A counter returning anything but a positive integer stops the run with a
    TokenCountError that names the offending word; nothing is chunked."""
    offender = "offend\U0001F680r"
    counter = TokenCounter(f"test-bad-{bad!r}/1", "returns a bad count for one word",
                           per_word=lambda w: bad if w == offender else 1)
    with registered(counter) as cid:
        p = P(token_counter=cid, min_tokens=1, max_tokens=4)
        with pytest.raises(TokenCountError) as info:
            chunk(f"fine words here {offender} and more", p)
    assert repr(offender) in str(info.value) or offender in str(info.value)
    assert info.value.word == offender and info.value.word_index == 3
    assert repr(bad) in str(info.value)


def test_bad_vectorized_token_count_is_an_error():
    """The same check applies to a whole-stream (vectorized) counter."""
    counter = TokenCounter("test-bad-vec/1", "zero for the third word",
                           vectorized=lambda ws: np.array([0 if k == 2 else 1 for k in range(len(ws))]))
    with registered(counter) as cid:
        with pytest.raises(TokenCountError) as info:
            chunk("one two three four", P(token_counter=cid, min_tokens=1, max_tokens=4))
    assert "three" in str(info.value)


@pytest.mark.parametrize("count", [2**62, 3 * 2**61, 2**63, 2**70])
def test_huge_token_counts_never_wrap_around(count):
    """Token sums are kept in int64: a document whose total passes 2**62 tokens is a
    clear TokenCountError naming the word where it happens, never a silent wrap-around
    (which once gave one chunk of "0" tokens) nor a raw OverflowError."""
    with registered(TokenCounter("test-huge/1", "huge per word", per_word=lambda w: count)) as cid:
        p = P(token_counter=cid, min_tokens=1, max_tokens=2**62)
        with pytest.raises(TokenCountError) as info:
            chunk("a b c d", p)
    assert "total passes" in str(info.value)


def test_huge_but_representable_counts_chunk_exactly():
    """Just below the limit, huge counts and a huge max_tokens chunk as the oracle says."""
    with registered(TokenCounter("test-big/1", "2**59 per word", per_word=lambda w: 2**59)) as cid:
        p = P(token_counter=cid, min_tokens=1, max_tokens=2**59)
        got = [(c.start_word, c.end_word, c.kind, c.tokens) for c in chunk("a b c d", p).chunks]
        assert got == [(0, 1, "hard", 2**59), (1, 2, "hard", 2**59), (2, 3, "hard", 2**59), (3, 4, "end", 2**59)]
        q = p.with_changes(max_tokens=2**64 - 1)  # past int64: the search clamps it
        assert [c.kind for c in chunk("a b c d", q).chunks] == ["end"]


def _utf8_mod5(word: str) -> int:
    return len(word.encode("utf-8")) % 5 + 1


@given(case=cases(max_words=30))
def test_a_custom_counter_chunks_like_the_oracle(case):
    """A registered per-word counter (a local tokenizer) is used as given, and its id
    enters the params hash; the chunks equal the oracle's with the same counter."""
    text, p = case
    with registered(TokenCounter("test-utf8mod5/1", "utf-8 bytes mod 5, plus 1", per_word=_utf8_mod5)) as cid:
        q = p.with_changes(token_counter=cid)
        result = chunk(text, q)
        o = oracle(text, q, count=_utf8_mod5)
    assert library_chunks(result) == o.chunks
    assert result.params_hash == oracle_params_hash(q) != p.params_hash
    with pytest.raises(ParameterError) as info:  # unregistered again: unknown id
        p.with_changes(token_counter=cid)
    assert info.value.field == "token_counter"


# ---------------------------------------------------------------------------------
# The staged cache never changes a result
# ---------------------------------------------------------------------------------


@given(text=documents(), ps=st.lists(small_params(), min_size=2, max_size=4))
def test_staged_cache_gives_the_same_result_as_a_fresh_run(text, ps):
    """Re-chunking a text with other parameters (answered partly from the stage
    caches) gives exactly what a cold run gives."""
    warm = Pipeline()
    for p in ps + ps[:1]:
        assert library_chunks(warm.chunk(text, p)) == library_chunks(Pipeline().chunk(text, p))


# ---------------------------------------------------------------------------------
# Parameters (SPEC §6)
# ---------------------------------------------------------------------------------

FIELDS = ("window_words", "polynomial", "primary_mask", "primary_remainder", "backup_mask", "backup_remainder",
          "token_counter", "min_tokens", "max_tokens", "snap_mode", "snap_window_words")


@st.composite
def any_valid_params(draw) -> ChunkerParams:
    poly = draw(st.sampled_from(POLYNOMIALS))
    top = (1 << (poly.bit_length() - 1)) - 1
    pm, bm = draw(st.integers(0, top)), draw(st.integers(0, top))
    lo = draw(st.integers(1, 10**6))
    on = draw(st.booleans())
    return ChunkerParams(
        window_words=draw(st.integers(1, 10**4)), polynomial=poly,
        primary_mask=pm, primary_remainder=draw(st.integers(0, top)) & pm,
        backup_mask=bm, backup_remainder=draw(st.integers(0, top)) & bm,
        token_counter=draw(st.sampled_from(["chars4/1", "words/1"])),
        min_tokens=lo, max_tokens=draw(st.integers(lo, 2 * 10**6)),
        snap_mode=SNAP if on else "off", snap_window_words=draw(st.integers(1 if on else 0, 1000)),
    )


@given(p=any_valid_params())
def test_params_round_trip_through_dicts(p):
    """to_dict/from_dict (and JSON) keep the parameter set: same fields, same hash."""
    d = p.to_dict()
    assert tuple(d) == ("boundary_rule",) + FIELDS and d["boundary_rule"] == "tttd-v1"
    assert d["snap_window_words"] == (p.snap_window_words if p.snap_mode == SNAP else 0), "canonical form"
    q = ChunkerParams.from_dict(json.loads(json.dumps(d)))
    assert q.params_hash == p.params_hash == oracle_params_hash(p)
    assert q.to_dict() == d


@given(
    p=any_valid_params(),
    field=st.sampled_from(INT_FIELDS),
    bad=st.one_of(st.booleans(), st.floats(allow_nan=True), st.integers(-5, 99).map(float),
                  st.integers(1, 99).map(str), st.text(max_size=4)),
)
def test_non_integer_in_an_int_field_names_that_field(p, field, bad):
    """bool, float and str values in an integer field are rejected, naming the field,
    even when they look like a number (True, 16.0, "16")."""
    assert set(INT_FIELDS) == set(FIELDS) - {"token_counter", "snap_mode"}
    with pytest.raises(ParameterError) as info:
        ChunkerParams.from_dict({**p.to_dict(), field: bad})
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")


@given(name=st.text(min_size=1, max_size=12).filter(lambda s: s not in FIELDS), value=st.integers(0, 9))
def test_unknown_parameter_names_are_rejected(name, value):
    """from_dict rejects names the spec does not define, naming them."""
    with pytest.raises(ParameterError) as info:
        ChunkerParams.from_dict({"min_tokens": 4, name: value})
    assert info.value.field == name


BREAKERS = {  # one value breaking each rule of SPEC §6, from the defaults
    "window_words": 0, "polynomial": 0x100, "primary_mask": -1, "primary_remainder": 0x80,
    "backup_mask": -1, "backup_remainder": 0x40, "token_counter": "nope/1", "min_tokens": 0,
    "max_tokens": 0, "snap_mode": "on", "snap_window_words": -1,
}


@given(broken=st.sets(st.sampled_from(FIELDS), min_size=1))
def test_first_broken_rule_in_table_order_is_reported(broken):
    """Several bad fields at once: the error names the first in SPEC §6's order."""
    with pytest.raises(ParameterError) as info:
        ChunkerParams(**{f: BREAKERS[f] for f in broken})
    assert info.value.field == min(broken, key=FIELDS.index)


def _irreducible_by_trial_division(p: int) -> bool:
    d = p.bit_length() - 1
    return all(gf2_mod(p, q) != 0 for q in range(2, 1 << (d // 2 + 1)))


@given(p=st.integers(1, (1 << 13) - 1))
@example(p=0x11B)
@example(p=0x201B)
@example(p=0x100)
@example(p=0x83)  # x^7 + x + 1: irreducible, degree 7 < 8
@example(p=(1 << 64) | 0x1B)  # x^64 + x^4 + x^3 + x + 1: irreducible, degree 64 > 63
def test_polynomial_accepted_iff_irreducible_of_degree_8_to_63(p):
    """The polynomial rule (§6) against brute-force trial division."""
    ok = 8 <= p.bit_length() - 1 <= 63 and _irreducible_by_trial_division(p)
    if ok:
        assert P(polynomial=p).polynomial == p
    else:
        with pytest.raises(ParameterError) as info:
            P(polynomial=p)
        assert info.value.field == "polynomial"


# ---------------------------------------------------------------------------------
# Determinism across processes
# ---------------------------------------------------------------------------------

DETERMINISM_SCRIPT = r"""
import json, sys
from steadlith_core import ChunkerParams, chunk, load_text
from steadlith_core.bench.examples import generate_prose
text = load_text(sys.argv[1]) + "\n\n" + generate_prose(20_000, seed=3)
out = []
for p in (ChunkerParams(), ChunkerParams(window_words=3, polynomial=0x201B, primary_mask=0xF,
                                          primary_remainder=5, backup_mask=3, backup_remainder=1,
                                          min_tokens=8, max_tokens=40, snap_mode="paragraph-sentence/1",
                                          snap_window_words=2)):
    r = chunk(text, p)
    out.append([r.params_hash, [[c.start_word, c.end_word, c.kind, c.snapped, c.hash] for c in r.chunks],
                [int(f) for f in r.fingerprints[-50:]]])
print(json.dumps(out))
"""


def test_results_do_not_depend_on_the_hash_seed():
    """Chunk hashes are the same in every process, whatever PYTHONHASHSEED is: two
    machines indexing the same text agree."""
    procs = []
    for seed in ("0", "1", "12345", "random"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        procs.append(subprocess.Popen([sys.executable, "-c", DETERMINISM_SCRIPT, str(GOLDEN / "mixed.txt")],
                                      env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(out)
    assert len(set(outputs)) == 1
    runs = json.loads(outputs[0])
    assert len(runs) == 2 and all(len(chunks) > 3 for _, chunks, _ in runs)
    assert any(snapped for _, chunks, _ in runs for _, _, _, snapped, _ in chunks)


def test_a_counter_id_registered_again_is_not_answered_from_the_cache():
    """Stage caches are keyed by their inputs: the counter itself, not only its id."""
    from steadlith_core import Pipeline

    pipeline = Pipeline()
    text = "alpha beta gamma delta epsilon zeta eta theta"
    with registered(TokenCounter("test-swap/1", "length", per_word=len)) as cid:
        first = pipeline.chunk(text, P(token_counter=cid, min_tokens=1, max_tokens=1000))
    with registered(TokenCounter("test-swap/1", "one", per_word=lambda w: 1)) as cid:
        second = pipeline.chunk(text, P(token_counter=cid, min_tokens=1, max_tokens=1000))
    assert first.diagnostics.total_tokens == sum(map(len, text.split()))
    assert second.diagnostics.total_tokens == len(text.split())
